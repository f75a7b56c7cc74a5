"""The README's first command: `arbiter up` brings up Redis, the API and a worker, guards its data folder, names
its stream to the console, and runs the README's play block as pasted."""
from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import time
from pathlib import Path

import redis
import requests
from rq import Worker

from cli import data_folder, embedded_redis
from tests.e2e.up import Up, start_up, stop_up

README = Path(__file__).resolve().parents[2] / "README.md"


def test_arbiter_up_runs_the_whole_stack_with_an_embedded_redis(tmp_path: Path) -> None:
    up = start_up(tmp_path / "data", cwd=tmp_path)
    process, port, redis_port = up.process, up.port, up.redis_port
    seen = []
    try:
        deadline = time.monotonic() + 60
        for line in process.stdout:  # "listening" once the API and the stream process answer, not before
            seen.append(line)
            if "export ARBITER_STREAM_URL=" in line:
                break
        assert f"export ARBITER_STREAM_URL=http://127.0.0.1:{up.stream_port}/v1\n" in "".join(seen), "".join(seen)
        assert requests.get(f"http://127.0.0.1:{port}/v1/health", timeout=2).status_code == 200
        assert requests.get(f"http://127.0.0.1:{up.stream_port}/v1/stream-health", timeout=2).status_code == 200
        _the_console_follows_its_stream(f"http://127.0.0.1:{port}", f"http://127.0.0.1:{up.stream_port}")
        # The whole stack, not just the API: both workers registered with RQ (resolutions and webhooks) and their
        # schedulers started, so the Ctrl-C below stops a running stack rather than processes still starting.
        queue_redis = redis.Redis(host="127.0.0.1", port=redis_port, db=0, socket_timeout=2)
        while len(Worker.all(connection=queue_redis)) < 2 or len(queue_redis.keys("rq:scheduler-lock:*")) < 2:
            assert process.poll() is None, process.stdout.read()
            assert time.monotonic() < deadline, "the workers did not come up"
            time.sleep(0.2)
        time.sleep(0.5)
        _a_second_up_on_the_folder_refuses_at_once(up, tmp_path, "".join(seen))
        _the_readme_play_block_runs_as_pasted(f"http://127.0.0.1:{port}/v1")
        created = requests.post(f"http://127.0.0.1:{port}/v1/games", json={"type": "extreme-ways"}, timeout=10)
        assert created.status_code == 201
        assert (tmp_path / "data" / "redis" / "appendonlydir").is_dir()  # AOF is on
        keys = requests.get(f"http://127.0.0.1:{port}/v1/keys", timeout=10).json()["keys"]  # issue 29: one key for all
        assert (tmp_path / "data" / "signing.key").stat().st_mode & 0o777 == 0o600
        os.killpg(process.pid, signal.SIGINT)  # Ctrl-C at a terminal: every process of the foreground group
        output, _ = process.communicate(timeout=30)
        output = "".join(seen) + output
        assert f"listening on http://127.0.0.1:{port}/v1" in output
        key_file = (tmp_path / "data" / "signing.key").absolute()
        assert f"Signing key made in {key_file}" in output and keys[0]["vkey"] in output
        assert process.returncode == 0
        # Redis, in a group of its own, is stopped after the worker and the API, which stop cleanly.
        assert "Traceback" not in output and "Connection refused" not in output, output[-3000:]
    finally:
        stop_up(process, redis_port)
    with socket.socket() as sock:  # the embedded redis-server stopped with the rest
        assert sock.connect_ex(("127.0.0.1", redis_port)) != 0


def _a_second_up_on_the_folder_refuses_at_once(first: Up, tmp_path: Path, said: str) -> None:
    """Issue 18 item 15: `arbiter up` says which Redis it runs, and guards its data folder: a second one on it
    refuses at once and starts no Redis of its own, while the first runs on.  (Checked on the running stack above,
    which it must not disturb: a stack of its own took seconds.)"""
    version = data_folder.server_version(embedded_redis.find_binary())
    assert f"Redis {version} ({embedded_redis.find_binary()}, embedded" in said, said
    assert f"export REDIS_URL=redis://127.0.0.1:{first.redis_port}/0" in said, said
    began = time.monotonic()
    second = start_up(tmp_path / "data", stdout=open(tmp_path / "second.log", "w"), cwd=tmp_path)
    try:
        assert second.process.wait(timeout=20) == 1
    finally:
        stop_up(second.process, second.redis_port)
    assert time.monotonic() - began < 10
    assert "is in use by another `arbiter up`" in (tmp_path / "second.log").read_text()
    with socket.socket() as sock:  # it started no Redis of its own
        assert sock.connect_ex(("127.0.0.1", second.redis_port)) != 0
    assert first.process.poll() is None  # and the first runs on


def _the_console_follows_its_stream(site: str, stream: str) -> None:
    """`arbiter up` names its own stream process to the console's pages, which may connect to that origin only.
    (On the running stack above.)"""
    page = requests.get(f"{site}/console", timeout=10)
    assert f'data-stream="{stream}/v1"' in page.text
    assert f"connect-src 'self' {stream};" in page.headers["Content-Security-Policy"]


def readme_block(heading: str) -> str:
    """The first ```sh block after ``heading`` in README.md."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index(heading):]
    match = re.search(r"```sh\n(.*?)```", section, re.S)
    assert match, f"no sh block under {heading!r}"
    return match.group(1)


def _the_readme_play_block_runs_as_pasted(api: str) -> None:
    """Issue 18 item 13: the README's "Play a game in five requests", taken from README.md itself and run with bash
    and curl as pasted, reaches a resolved phase.  (On the running stack above, which a game does not disturb.)"""
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


def test_a_ctrl_c_while_the_stack_is_still_starting_stops_it_quietly(tmp_path: Path) -> None:
    """Ctrl-C the moment the processes are spawned (a worker's RQ scheduler not yet forked, gunicorn still loading):
    the terminal's SIGINT reaches `arbiter up` alone, which stops each process and its children; nothing prints a
    traceback and nothing is left behind."""
    up = start_up(tmp_path / "data", cwd=tmp_path)
    process, port, redis_port, stream_port = up.process, up.port, up.redis_port, up.stream_port
    seen = []
    try:
        for line in process.stdout:
            seen.append(line)
            if "Starting the API" in line:
                break
        assert any("Starting the API" in line for line in seen), "".join(seen)
        time.sleep(0.3)  # the workers are importing and about to fork their schedulers
        os.killpg(process.pid, signal.SIGINT)
        output, _ = process.communicate(timeout=60)
        output = "".join(seen) + output
        assert process.returncode == 0, output[-3000:]
        assert "Traceback" not in output and "KeyboardInterrupt" not in output, output[-3000:]
    finally:
        stop_up(process, redis_port)
    for listening in (port, stream_port, redis_port):  # the API, the stream and Redis all stopped
        with socket.socket() as sock:
            assert sock.connect_ex(("127.0.0.1", listening)) != 0, listening


def test_a_taken_port_is_named_at_once(tmp_path: Path) -> None:
    """Another server on the stream process's port: `arbiter up` says which port is taken and starts nothing."""
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        taken = other.getsockname()[1]
        up = start_up(tmp_path / "data", cwd=tmp_path, stream_port=taken)
        try:
            output, _ = up.process.communicate(timeout=60)
        finally:
            stop_up(up.process, up.redis_port)
    assert up.process.returncode == 1
    assert f"the stream process's port {taken} on 127.0.0.1 is taken" in output, output
    assert "Starting the API" not in output and "Traceback" not in output, output
