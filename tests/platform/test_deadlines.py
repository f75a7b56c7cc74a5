"""Deadlines, early resolution, GM actions and exactly-once resolution (freezegun clocks)."""
from __future__ import annotations

import threading
from datetime import timedelta

from freezegun import freeze_time
from rq.registry import ScheduledJobRegistry

from eventlog import clock
from runtime.context import Context
from tests.platform.conftest import Game, new_game
from tests.platform.helpers import Api, run_queued_jobs
from workers import sweeper
from workers.resolution import resolve_phase


def _deadline(api: Api, game: Game):
    return clock.parse(api.get(game.path())[1]["phase"]["deadline"])


def _outcomes(api: Api, game: Game) -> list[dict]:
    return [e for e in api.get(game.path("/events"), game.gm)[1]["events"] if e["type"] == "phase.resolved"]


def test_an_order_at_the_deadline_is_accepted_and_one_after_is_409(api: Api, game: Game) -> None:
    deadline = _deadline(api, game)
    with freeze_time(deadline):
        status, _ = api.post(game.path("/actions"), {"type": "bid", "amount": 2}, token=game.tokens["p1"])
        assert status == 202
    with freeze_time(deadline + timedelta(seconds=1)):
        seq = api.get(game.path())[1]["seq"]
        status, body = api.post(game.path("/actions"), {"type": "bid", "amount": 3}, token=game.tokens["p2"])
        assert status == 409 and body["error"]["code"] == "deadline_passed"
        assert api.get(game.path())[1]["seq"] == seq


def test_a_job_that_starts_early_never_resolves_early(api: Api, ctx: Context, game: Game) -> None:
    deadline = _deadline(api, game)
    with freeze_time(deadline - timedelta(seconds=60)):
        assert resolve_phase(ctx, game.id, 1) == "not due yet"
    assert _outcomes(api, game) == []
    assert any("-at" in job for job in ScheduledJobRegistry(queue=ctx.queue).get_job_ids())


def test_a_job_run_twice_records_one_outcome(api: Api, ctx: Context, game: Game) -> None:
    with freeze_time(_deadline(api, game) + timedelta(seconds=1)):
        assert resolve_phase(ctx, game.id, 1).startswith("resolved")
        assert resolve_phase(ctx, game.id, 1) == "already resolved"
    outcomes = _outcomes(api, game)
    assert len(outcomes) == 1 and outcomes[0]["data"]["trigger"] == "deadline"


def test_racing_resolvers_record_one_outcome(api: Api, ctx: Context, game: Game) -> None:
    results: list[str] = []
    moment = _deadline(api, game) + timedelta(seconds=1)

    def run() -> None:
        results.append(resolve_phase(Context(ctx.settings), game.id, 1))

    with freeze_time(moment):  # freezegun is process-wide: freeze once, around all threads
        threads = [threading.Thread(target=run) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert sum(r.startswith("resolved") for r in results) == 1
    assert len(_outcomes(api, game)) == 1


def test_everyone_acted_resolves_early(api: Api, ctx: Context, game: Game) -> None:
    for token in game.tokens.values():
        api.post(game.path("/actions"), {"type": "bid", "amount": 1}, token=token)
    run_queued_jobs(ctx)
    outcomes = _outcomes(api, game)
    assert len(outcomes) == 1 and outcomes[0]["data"]["trigger"] == "early"


def test_resolve_early_can_be_turned_off(api: Api, ctx: Context) -> None:
    game = new_game(api, resolve_early=False)
    for token in game.tokens.values():
        api.post(game.path("/actions"), {"type": "bid", "amount": 1}, token=token)
    run_queued_jobs(ctx)
    assert _outcomes(api, game) == []
    assert resolve_phase(ctx, game.id, 1) == "not due yet"


def test_pause_stops_the_clock_and_resume_restarts_it(api: Api, ctx: Context, game: Game) -> None:
    deadline = _deadline(api, game)
    with freeze_time(deadline - timedelta(seconds=100)):
        status, _ = api.post(game.path("/actions"), {"type": "gm.pause", "reason": "holiday"}, token=game.gm)
        assert status == 202
        body = api.get(game.path())[1]
        assert body["status"] == "paused" and body["phase"]["paused_remaining_seconds"] == 100
        status, err = api.post(game.path("/actions"), {"type": "bid", "amount": 1}, token=game.tokens["p1"])
        assert status == 409 and err["error"]["code"] == "paused"
    with freeze_time(deadline + timedelta(days=3)):
        assert resolve_phase(ctx, game.id, 1).startswith("not running")
        status, _ = api.post(game.path("/actions"), {"type": "gm.resume", "reason": "back"}, token=game.gm)
        assert status == 202
        assert _deadline(api, game) == clock.parse(clock.after(100))
        assert api.post(game.path("/actions"), {"type": "bid", "amount": 1}, token=game.tokens["p1"])[0] == 202
    log = api.get(game.path("/events"))[1]["events"]
    assert [e["data"]["reason"] for e in log if e["type"] in ("gm.pause", "gm.resume")] == ["holiday", "back"]


def test_extend_deadline_moves_it_and_reschedules(api: Api, ctx: Context, game: Game) -> None:
    deadline = _deadline(api, game)
    status, _ = api.post(game.path("/actions"), {"type": "gm.extend_deadline", "seconds": 3600, "reason": "storm"},
                         token=game.gm)
    assert status == 202
    assert _deadline(api, game) == deadline + timedelta(seconds=3600)
    with freeze_time(deadline + timedelta(seconds=10)):
        assert api.post(game.path("/actions"), {"type": "bid", "amount": 1}, token=game.tokens["p1"])[0] == 202
        assert resolve_phase(ctx, game.id, 1) == "not due yet"
    status, body = api.post(game.path("/actions"), {"type": "gm.extend_deadline", "deadline": "2001-01-01T00:00:00Z",
                                                    "reason": "oops"}, token=game.gm)
    assert status == 422


def test_resolve_now_resolves_before_the_deadline(api: Api, ctx: Context, game: Game) -> None:
    status, _ = api.post(game.path("/actions"), {"type": "gm.resolve_now", "reason": "all in by PM"}, token=game.gm)
    assert status == 202
    run_queued_jobs(ctx)
    outcomes = _outcomes(api, game)
    assert len(outcomes) == 1 and outcomes[0]["data"]["trigger"] == "gm"


def test_eject_is_public_and_locks_the_player_out(api: Api, ctx: Context, game: Game) -> None:
    status, _ = api.post(game.path("/actions"), {"type": "gm.eject", "player_id": "p4", "reason": "abuse"},
                         token=game.gm)
    assert status == 202
    event = api.get(game.path("/events"))[1]["events"][-1]
    assert event["type"] == "gm.eject"
    assert event["data"] == {"player_id": "p4", "reason": "abuse", "outcome": {"public": {}}}
    status, body = api.post(game.path("/actions"), {"type": "bid", "amount": 1}, token=game.tokens["p4"])
    assert status == 409 and body["error"]["details"]["rule"] == "left the game"
    assert next(p for p in api.get(game.path())[1]["players"] if p["id"] == "p4")["ejected"]
    for pid in ("p1", "p2", "p3"):
        api.post(game.path("/actions"), {"type": "bid", "amount": 1}, token=game.tokens[pid])
    run_queued_jobs(ctx)
    assert len(_outcomes(api, game)) == 1


def test_the_sweeper_requeues_an_overdue_phase_whose_job_was_lost(api: Api, ctx: Context, game: Game) -> None:
    ctx.queue_redis.flushdb()  # the queue's Redis loses every job ...
    from eventlog import deadlines

    deadlines.set_due(ctx.redis, game.id, _deadline(api, game))  # ... the index is in the store's Redis
    with freeze_time(_deadline(api, game) + timedelta(seconds=30)):
        assert sweeper.sweep_once(ctx) == [(game.id, "requeued")]
        run_queued_jobs(ctx)
    assert len(_outcomes(api, game)) == 1
