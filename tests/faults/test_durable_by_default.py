"""Issue 28 item 4: the event store ships with ``appendfsync always``, in ``arbiter up`` and in docker compose.

With ``everysec`` a power cut can drop the last second of orders Redis already acknowledged, and after a full
restart no process remembers them; ``everysec`` stays available as an opt-in (``arbiter up --appendfsync
everysec``, docs/reliability.md)."""
from __future__ import annotations

import time
from pathlib import Path

import redis
import yaml

from cli.main import build_parser
from tests.e2e.up import start_up, stop_up

ROOT = Path(__file__).resolve().parents[2]


def test_docker_compose_runs_the_store_with_appendfsync_always() -> None:
    command = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]["redis"]["command"]
    assert command[command.index("--appendfsync") + 1] == "always", command


def test_arbiter_up_runs_its_redis_with_appendfsync_always(tmp_path: Path) -> None:
    up = start_up(tmp_path / "data", cwd=tmp_path)
    try:
        client = redis.Redis(host="127.0.0.1", port=up.redis_port, socket_timeout=2)
        deadline = time.monotonic() + 30
        while True:
            try:
                policy = client.config_get("appendfsync")["appendfsync"]
                break
            except redis.ConnectionError:
                assert up.process.poll() is None and time.monotonic() < deadline, "the embedded Redis never answered"
                time.sleep(0.1)
        assert policy in ("always", b"always")
        assert client.config_get("appendonly")["appendonly"] in ("yes", b"yes")
    finally:
        stop_up(up.process, up.redis_port)


def test_everysec_is_an_opt_in() -> None:
    assert build_parser(["up"]).parse_args(["up", "--appendfsync", "everysec"]).appendfsync == "everysec"
