"""``arbiter simulate`` tells the truth: a phase is "resolved" only if it was, a game that does not finish is a
non-zero exit, and bad arguments are a message with exit 2, not a traceback."""
from __future__ import annotations

import functools
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rq import Worker
from rq.registry import ScheduledJobRegistry

from engines import registry
from cli import main as cli
from cli import simulate
from runtime.config import Settings
from runtime.context import Context
from tests.e2e.stack import stack_env

ARBITER = Path(sys.executable).parent / "arbiter"


@pytest.fixture()
def env(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The test Redis for both the subprocess and an in-process ``cli.main``."""
    env = stack_env(settings)
    for name in ("REDIS_URL", "ARBITER_QUEUE_URL", "ARBITER_QUEUE"):
        monkeypatch.setenv(name, env[name])
    return env


@pytest.mark.parametrize("args, says", [
    (["extreme-ways", "--players", "5", "--options", "{announce: none"], "--options is not valid JSON"),
    (["extreme-ways", "--players", "5", "--options", "[1, 2]"], "options"),
    (["no-such-game", "--players", "5"], "Unknown game type 'no-such-game'"),
    (["extreme-ways", "--players", "1"], "cannot simulate"),
])
def test_bad_arguments_are_exit_2_with_a_message(env: dict[str, str], args: list[str], says: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """Run in this process (``cli.main``, as the console script runs it; a traceback would fail the test): a process
    each cost the interpreter's and the engines' start.  The whole-game test below runs the console script."""
    try:
        code = cli.main(["simulate", *args, "--quiet"])
    except SystemExit as exc:  # argparse's usage errors
        code = exc.code
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    assert says in err and "Traceback" not in err, err


def test_a_game_cut_short_is_reported_unfinished_and_exits_1(env: dict[str, str], monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(simulate, "run", functools.partial(simulate.run, max_phases=2))
    assert cli.main(["simulate", "extreme-ways", "--players", "5", "--seed", "short"]) == 1
    out, err = capsys.readouterr()
    assert out.count(" resolved") == 2 and "STOPPED UNFINISHED" in out and "did not finish" in err


def test_a_phase_that_fails_to_resolve_is_not_called_resolved(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    engine = registry.latest("extreme-ways")

    def broken(state: dict, rng: object) -> dict:
        raise RuntimeError("a resolution bug")

    monkeypatch.setattr(engine, "resolve", broken)  # the in-process RQ worker resolves with this engine
    lines: list[str] = []
    report = simulate.run(ctx, "extreme-ways", 5, "broken", {}, echo=lines.append)
    assert not report["finished"] and report["result"] is None
    assert any("phase 1 (bidding) was NOT resolved" in line for line in lines), lines
    assert not any(line.strip().endswith("resolved") and "NOT" not in line for line in lines), lines
    assert "STOPPED UNFINISHED" in lines[-1]


def test_a_whole_game_still_finishes_and_exits_0(env: dict[str, str]) -> None:
    done = subprocess.run([str(ARBITER), "simulate", "extreme-ways", "--players", "5", "--seed", "whole"], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "NOT resolved" not in done.stdout and "audit ok" in done.stdout and '"winners"' in done.stdout


def test_a_simulation_leaves_nothing_on_the_servers_queue(ctx: Context) -> None:
    """Its jobs go to a queue of its own (a running `arbiter up`'s worker would take them from the server's), and
    that queue is gone afterwards: no job, queued or scheduled, on either."""
    report = simulate.run(ctx, "extreme-ways", 3, "own-queue", {}, echo=None)
    assert report["finished"] and report["audit_ok"]
    assert ctx.queue.count == 0 and ScheduledJobRegistry(queue=ctx.queue).count == 0
    left = [k.decode() for k in ctx.queue_redis.scan_iter("rq:*simulate*")]
    assert left == [], left


def test_a_simulation_beside_a_running_worker_finishes(env: dict[str, str], ctx: Context) -> None:
    """`arbiter simulate` on the Redis of a running `arbiter up`: up's worker (scheduler and sweeper too) listens
    on the server's queue the whole time, and takes none of the simulation's jobs."""
    worker = subprocess.Popen([str(ARBITER), "worker"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True)
    try:
        deadline = time.monotonic() + 60
        while not Worker.all(queue=ctx.queue):  # registered: listening on the server's queue
            assert worker.poll() is None and time.monotonic() < deadline, worker.stderr.read() if worker.stderr else ""
            time.sleep(0.05)
        done = subprocess.run([str(ARBITER), "simulate", "strategic-aspect", "--players", "5", "--seed", "beside"],
                              env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        assert "NOT resolved" not in done.stdout and "audit ok" in done.stdout
    finally:
        worker.terminate()
        worker.wait(timeout=30)
