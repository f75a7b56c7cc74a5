"""Issue 18 item 13: the README's "Play a game in five requests" runs as pasted, to a resolved phase.

The block is taken from README.md itself and run with bash and curl against `arbiter up`, started
here as a newcomer would start it (only the ports and the data folder are the test's own)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest
import requests

from cli.embedded_redis import free_port
from tests.platform.test_cli_newcomer import stop_up

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_block(heading: str) -> str:
    """The first ```sh block after ``heading`` in README.md."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index(heading):]
    match = re.search(r"```sh\n(.*?)```", section, re.S)
    assert match, f"no sh block under {heading!r}"
    return match.group(1)


@pytest.fixture()
def arbiter_up(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen]]:
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "ARBITER_QUEUE_URL")}
    port, redis_port, stream_port = free_port(), free_port(), free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "up", "--port", str(port), "--redis-port", str(redis_port),
         "--stream-port", str(stream_port), "--data", str(tmp_path / "data")],
        env=env, cwd=tmp_path, stdout=open(tmp_path / "up.log", "w"), stderr=subprocess.STDOUT,
        start_new_session=True)
    api = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if requests.get(f"{api}/health", timeout=2).status_code == 200:
                    break
            except requests.RequestException:
                pass
            assert process.poll() is None, (tmp_path / "up.log").read_text()
            assert time.monotonic() < deadline, "arbiter up did not come up"
            time.sleep(0.2)
        yield api, process
    finally:
        stop_up(process, redis_port)


def test_the_readme_play_block_runs_as_pasted_to_a_resolved_phase(arbiter_up) -> None:
    api, _process = arbiter_up
    block = readme_block("## Play a game in five requests")
    assert "$GAME" in block and "$GM_TOKEN" in block  # the ids are captured by the block itself
    done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", block], env={**os.environ, "API": api},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    answers = done.stdout
    assert answers.count('"receipt"') == 3, answers  # the start and both bids were accepted
    view = json.loads(answers[answers.index("{\n"):answers.rindex("}") + 1])
    assert view["phase"]["number"] == 2 and view["status"] == "running", view  # the first auction is resolved
    assert [p["name"] for p in view["players"]] == ["Ann", "Bob"]
    assert "Loki's Auction, round 1" in answers
