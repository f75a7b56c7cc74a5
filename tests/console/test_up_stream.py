"""`arbiter up` names its own stream process to the console's pages, which may connect to that origin only."""
from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

import requests

from tests.e2e.up import arbiter_up  # noqa: F401  (a fixture, found by name)


def test_arbiter_up_names_its_stream_to_the_console(arbiter_up: tuple[str, subprocess.Popen],  # noqa: F811
                                                    tmp_path: Path) -> None:
    api, _ = arbiter_up
    deadline = time.monotonic() + 60
    while not (said := re.search(r"export ARBITER_STREAM_URL=(http://127\.0\.0\.1:\d+)/v1\n",
                                 (tmp_path / "up.log").read_text())):  # said once the stream process answers
        assert time.monotonic() < deadline, (tmp_path / "up.log").read_text()
        time.sleep(0.1)
    page = requests.get(api.removesuffix("/v1") + "/console", timeout=10)
    assert f'data-stream="{said.group(1)}/v1"' in page.text
    assert f"connect-src 'self' {said.group(1)};" in page.headers["Content-Security-Policy"]
    assert requests.get(f"{said.group(1)}/v1/stream-health", timeout=10).status_code == 200
