"""Issue 18 items 15-16: `arbiter up` refuses a folder a newer Redis wrote (it guards a folder in use, and says
which Redis it runs: tests/e2e/test_arbiter_up.py); every command says which Redis it uses; every option has help;
`simulate` lists the game types and leaves no temp folder."""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path


from cli import data_folder
from cli.main import build_parser
from runtime.config import Settings
from tests.e2e.up import start_up, stop_up


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "ARBITER_QUEUE_URL")}
    return {**env, **extra}


def _up(data: Path, log: Path) -> tuple[subprocess.Popen, int, int]:
    up = start_up(data, stdout=open(log, "w"))
    return up.process, up.port, up.redis_port


# A second `arbiter up` on a folder in use refuses at once: checked on the running stack of
# tests/e2e/test_arbiter_up.py (a stack of its own here took seconds).


def test_arbiter_up_refuses_a_folder_written_by_a_newer_redis(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / data_folder.RECORD).write_text(json.dumps({"binary": "/opt/redis-99/redis-server", "version": "99.0.0"}))
    process, _, redis_port = _up(data, tmp_path / "up.log")
    try:
        assert process.wait(timeout=30) == 1
        said = (tmp_path / "up.log").read_text()
        assert "was written by Redis 99.0.0" in said and "cannot read newer data" in said, said
    finally:
        stop_up(process, redis_port)


def test_the_version_record_only_goes_up(tmp_path: Path) -> None:
    data_folder.record_server(tmp_path, "/a/redis-server", "7.2.4")
    data_folder.record_server(tmp_path, "/b/redis-server", "6.2.6")
    assert data_folder.recorded_server(tmp_path) == {"binary": "/a/redis-server", "version": "7.2.4"}


def test_every_option_of_every_command_has_help() -> None:
    parser = build_parser(["simulate"])
    missing = []
    for sub in parser._subparsers._group_actions:  # type: ignore[union-attr]
        for name, command in sub.choices.items():
            for action in command._actions:
                if not isinstance(action, argparse._HelpAction) and not action.help and name != "bench":
                    missing.append(f"{name} {'/'.join(action.option_strings) or action.dest}")
    assert missing == []


def test_simulate_lists_the_game_types_and_leaves_no_temp_folder(tmp_path: Path) -> None:
    env = _env(TMPDIR=str(tmp_path))
    wrong = subprocess.run([sys.executable, "-m", "cli.main", "simulate", "nope", "--players", "2"], env=env,
                           capture_output=True, text=True, timeout=60)
    assert wrong.returncode == 2 and "extreme-ways" in wrong.stderr and "golden-strider" in wrong.stderr
    listed = subprocess.run([sys.executable, "-m", "cli.main", "simulate", "--help"], env=env,
                            capture_output=True, text=True, timeout=60)
    assert "sxyzm-cyclone" in listed.stdout
    done = subprocess.run([sys.executable, "-m", "cli.main", "simulate", "sxyzm-cyclone", "--players", "2",
                           "--quiet"], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    assert "using Redis at" in done.stderr
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("arbiter-sim-")]


def test_commands_say_which_redis_they_use(settings: Settings) -> None:
    done = subprocess.run([sys.executable, "-m", "cli.main", "sweep", "--once"],
                          env=_env(REDIS_URL=settings.redis_url), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    port = settings.redis_url.rsplit(":", 1)[1].split("/")[0]
    assert f"using Redis at 127.0.0.1:{port} (REDIS_URL)" in done.stderr


def test_without_redis_url_a_command_says_it_uses_the_default(monkeypatch, capsys) -> None:
    from cli import main

    monkeypatch.delenv("REDIS_URL", raising=False)
    main._say_which_redis("redis://127.0.0.1:6379/0")  # said, not connected to: the tests never touch 6379
    said = capsys.readouterr().err
    assert "using Redis at 127.0.0.1:6379 (the default; `arbiter up` prints the REDIS_URL to export)" in said
