"""Resolutions whose job never ran: the sweeper finds every resolvable phase within
seconds, not at its deadline (freezegun clocks, a real RQ worker in burst mode)."""
from __future__ import annotations

import dataclasses
from datetime import timedelta
from typing import Callable

import pytest
from freezegun import freeze_time

from eventlog import deadlines, keys
from eventlog import clock
from runtime.commit import Committed, commit
from service import orders
from service.auth import Caller
from runtime.config import ConfigError, Settings
from runtime.context import Context
from service.errors import ApiError
from tests.platform.conftest import Game, new_game
from tests.platform.helpers import Api, run_queued_jobs
from workers import sweeper
from workers.resolution import resolve_phase


def _deadline(api: Api, game: Game):
    return clock.parse(api.get(game.path())[1]["phase"]["deadline"])


def _outcomes(api: Api, game: Game) -> list[dict]:
    return [e for e in api.get(game.path("/events"), game.gm)[1]["events"] if e["type"] == "phase.resolved"]


def _swept(ctx: Context, game: Game) -> str | None:
    return dict(sweeper.sweep_once(ctx)).get(game.id)


def _everyone_bids(api: Api, game: Game) -> None:
    for token in game.tokens.values():
        assert api.post(game.path("/actions"), {"type": "bid", "amount": 1}, token=token)[0] == 202


def _gm_says_now(api: Api, game: Game) -> None:
    assert api.post(game.path("/actions"), {"type": "gm.resolve_now", "reason": "all in"}, token=game.gm)[0] == 202


@pytest.mark.parametrize(("make_resolvable", "trigger"), [(_everyone_bids, "early"), (_gm_says_now, "gm")])
def test_a_resolution_whose_job_was_lost_is_requeued_within_seconds(
    api: Api, ctx: Context, make_resolvable: Callable[[Api, Game], None], trigger: str
) -> None:
    game = new_game(api, deadlines={"bidding": 86400})
    moment = _deadline(api, game) - timedelta(hours=20)
    with freeze_time(moment):
        make_resolvable(api, game)  # the phase may resolve at once ...
    ctx.queue_redis.flushdb()  # ... but its job is lost with the queue
    with freeze_time(moment + timedelta(seconds=1)):
        assert _swept(ctx, game) is None  # the job gets its grace period first
    with freeze_time(moment + timedelta(seconds=ctx.settings.sweep_grace + 1)):
        assert _swept(ctx, game) == "requeued"
        run_queued_jobs(ctx)
    outcomes = _outcomes(api, game)
    assert len(outcomes) == 1 and outcomes[0]["data"]["trigger"] == trigger


def test_the_sweepers_grace_and_interval_are_settings(api: Api, ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    """ARBITER_SWEEP_GRACE, ARBITER_SWEEP_EVERY and ARBITER_SWEEP_RETRY (the fault tests run their workers with
    short ones)."""
    monkeypatch.setenv("ARBITER_SWEEP_GRACE", "0.5")
    monkeypatch.setenv("ARBITER_SWEEP_EVERY", "0.2")
    monkeypatch.setenv("ARBITER_SWEEP_RETRY", "0.75")
    settings = Settings.from_env()
    assert (settings.sweep_grace, settings.sweep_every, settings.sweep_retry) == (0.5, 0.2, 0.75)
    monkeypatch.setenv("ARBITER_SWEEP_GRACE", "soon")
    with pytest.raises(ConfigError, match="ARBITER_SWEEP_GRACE must be a number of seconds"):
        Settings.from_env()
    short = Context(dataclasses.replace(ctx.settings, sweep_grace=0.5))
    game = new_game(api, deadlines={"bidding": 86400})
    moment = _deadline(api, game) - timedelta(hours=20)
    with freeze_time(moment):
        _gm_says_now(api, game)
    ctx.queue_redis.flushdb()
    with freeze_time(moment + timedelta(seconds=0.25)):
        assert dict(sweeper.sweep_once(short)).get(game.id) is None
    with freeze_time(moment + timedelta(seconds=0.75)):
        assert dict(sweeper.sweep_once(short)).get(game.id) == "requeued"  # the default grace would still wait


def test_a_phase_nobody_has_finished_is_left_to_its_deadline(api: Api, ctx: Context, game: Game) -> None:
    moment = _deadline(api, game) - timedelta(hours=1)
    with freeze_time(moment):
        assert api.post(game.path("/actions"), {"type": "bid", "amount": 1}, token=game.tokens["p1"])[0] == 202
    deadlines.set_due(ctx.redis, game.id, moment)  # a stale entry, as after a lost job
    with freeze_time(moment + timedelta(seconds=ctx.settings.sweep_grace + 1)):
        assert _swept(ctx, game) == "not yet due"
    assert ctx.redis.zscore(keys.DEADLINES, game.id) == _deadline(api, game).timestamp()
    assert _outcomes(api, game) == []


def test_a_resolution_killed_before_its_append_stays_where_the_sweeper_looks(
    api: Api, ctx: Context, game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The next phase's deadline must not hide this one: a worker killed between
    computing the outcome and recording it left the index pointing a day ahead."""
    overdue = _deadline(api, game) + timedelta(seconds=1)

    def killed(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt("worker killed")

    monkeypatch.setattr(ctx.store, "append", killed)
    with freeze_time(overdue), pytest.raises(KeyboardInterrupt):
        resolve_phase(ctx, game.id, 1)
    monkeypatch.undo()
    assert ctx.redis.zscore(keys.DEADLINES, game.id) <= overdue.timestamp()
    with freeze_time(overdue + timedelta(seconds=ctx.settings.sweep_grace + 1)):
        assert _swept(ctx, game) == "requeued"
        run_queued_jobs(ctx)
    assert len(_outcomes(api, game)) == 1


def test_a_phase_that_keeps_failing_is_retried_less_and_less_often(api: Api, ctx: Context, game: Game) -> None:
    moment = _deadline(api, game) + timedelta(seconds=ctx.settings.sweep_grace + 1)
    waits = []
    for _ in range(9):  # the job never runs: every sweep finds the phase overdue again
        ctx.queue_redis.delete(*ctx.queue_redis.keys("rq:job:*"), "rq:queue:" + ctx.queue.name)
        with freeze_time(moment):
            assert _swept(ctx, game) == "requeued"
        next_look = ctx.redis.zscore(keys.DEADLINES, game.id)
        waits.append(round(next_look - moment.timestamp()))
        moment += timedelta(seconds=waits[-1] + ctx.settings.sweep_grace)  # looked at a grace after the entry
    assert waits == [5, 10, 20, 40, 80, 160, 300, 300, 300]


def test_an_order_that_loses_a_race_with_the_resolution_is_refused_not_moved(
    api: Api, ctx: Context, game: Game
) -> None:
    """The order was checked against round 1; if round 1 is resolved before it lands,
    recording it as a round-2 bid would be a bid the player never made."""
    stale = ctx.loader.load(game.id)
    with freeze_time(_deadline(api, game) + timedelta(seconds=1)):
        assert resolve_phase(ctx, game.id, 1).startswith("resolved")
    seq = api.get(game.path())[1]["seq"]
    caller = Caller("player", "p1", None)
    with freeze_time(_deadline(api, game) - timedelta(hours=1)):  # still in time for round 2
        with pytest.raises(ApiError) as refused:
            _send(ctx, game.id, caller, {"type": "bid", "amount": 2}, record=stale)
    assert refused.value.status == 409 and refused.value.code == "deadline_passed"
    assert api.get(game.path())[1]["seq"] == seq
    # The same order sent now, against round 2, is of course fine.
    assert _send(ctx, game.id, caller, {"type": "bid", "amount": 2}).status == 202


def _send(ctx: Context, game_id: str, caller: Caller, body: dict, record: dict | None = None) -> Committed | None:
    """An order decided on ``record`` (the freshest if None) and committed, as the API's route does."""
    now = clock.now()
    return commit(ctx, game_id, lambda rec, phase: orders.decide(rec, caller, body, now, phase), record=record)



def test_a_resolution_puts_back_an_index_entry_that_was_lost(
    api: Api, ctx: Context, game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The entry is read with the record and written only when missing (or later than the
    next phase's deadline): a worker killed before its append still leaves the game indexed."""
    overdue = _deadline(api, game) + timedelta(seconds=1)
    deadlines.clear(ctx.redis, game.id)

    def killed(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt("worker killed")

    monkeypatch.setattr(ctx.store, "append", killed)
    with freeze_time(overdue), pytest.raises(KeyboardInterrupt):
        resolve_phase(ctx, game.id, 1)
    assert ctx.redis.zscore(keys.DEADLINES, game.id) is not None
