"""Deadlines resolved in batches, one per second (runtime/scheduling.py): many phases
per job, a member lost with its worker found by the sweeper, a batch released early
never resolving early (freezegun clocks, a real RQ worker in burst mode)."""
from __future__ import annotations

import gc
from datetime import datetime, timedelta

import pytest
from freezegun import freeze_time
from rq import SimpleWorker
from rq.job import Job
from rq.registry import ScheduledJobRegistry
from rq.serializers import JSONSerializer

from eventlog import keys
from eventlog import clock
from runtime.context import Context
from tests.platform.conftest import Game, new_game
from tests.platform.helpers import Api, run_queued_jobs
from runtime import scheduling
from workers import resolution, sweeper
from workers.resolution import resolve_due


def _outcomes(api: Api, game: Game) -> list[dict]:
    return [e for e in api.get(game.path("/events"), game.gm)[1]["events"] if e["type"] == "phase.resolved"]


def _due_at(api: Api, games: list[Game], when: datetime) -> None:
    for game in games:
        status, body = api.post(game.path("/actions"), {"type": "gm.extend_deadline", "deadline": clock.iso(when),
                                                         "reason": "one second for all"}, token=game.gm)
        assert status == 202, body


def _members(ctx: Context, second: int) -> set[str]:
    return {m.decode() for m in ctx.queue_redis.smembers(keys.batch(second))}


def _scheduled(ctx: Context) -> list[str]:
    return ScheduledJobRegistry(queue=ctx.queue).get_job_ids()


def _run_due_jobs(ctx: Context) -> None:
    """What the scheduler has released by now (the clock may be frozen), then every queued job."""
    worker = SimpleWorker([ctx.queue], connection=ctx.queue_redis, serializer=JSONSerializer)
    worker.work(burst=True, with_scheduler=True, logging_level="WARNING")


def _storm(api: Api, ctx: Context, count: int) -> tuple[list[Game], datetime]:
    games = [new_game(api) for _ in range(count)]
    when = clock.parse(clock.after(3600))
    _due_at(api, games, when)
    return games, when


def test_one_batch_resolves_every_phase_due_in_its_second(api: Api, ctx: Context) -> None:
    games, when = _storm(api, ctx, scheduling.SPLIT[1])
    second = int(when.timestamp())
    assert _members(ctx, second) == {scheduling.member(g.id, 1) for g in games}
    # As many jobs as the batch has grown to need, each released the second before the deadline.
    jobs = [scheduling.batch_job_id(second, 0), scheduling.batch_job_id(second, 1)]
    assert sorted(j for j in _scheduled(ctx) if j.startswith(f"resolve-due-{second}-")) == jobs
    registry = ScheduledJobRegistry(queue=ctx.queue)
    assert {registry.get_scheduled_time(j).timestamp() for j in jobs} == {second - scheduling.AHEAD}
    with freeze_time(when + timedelta(seconds=1)):
        _run_due_jobs(ctx)
    for game in games:
        outcomes = _outcomes(api, game)
        assert len(outcomes) == 1 and outcomes[0]["data"]["trigger"] == "deadline"
        assert clock.parse(outcomes[0]["at"]) > when
    assert _members(ctx, second) == set()
    # The next phases were opened together: each indexed at its deadline and in its batch.
    for game in games:
        following = clock.parse(_outcomes(api, game)[0]["data"]["next"]["deadline"])
        assert ctx.redis.zscore(keys.DEADLINES, game.id) == following.timestamp()
        assert scheduling.member(game.id, 2) in _members(ctx, int(following.timestamp()))
    results = sorted(Job.fetch(j, connection=ctx.queue_redis, serializer=JSONSerializer).return_value()
                     for j in jobs)
    assert results == ["none left", f"resolved: {len(games)}"]  # the first job drained it alone


def test_a_lone_deadline_gets_one_batch_job(api: Api, ctx: Context, game: Game) -> None:
    second = int(clock.parse(api.get(game.path())[1]["phase"]["deadline"]).timestamp())
    assert _members(ctx, second) == {scheduling.member(game.id, 1)}
    assert [j for j in _scheduled(ctx) if j.startswith("resolve-due-")] == [scheduling.batch_job_id(second, 0)]
    assert scheduling.job_id(game.id, 1) not in _scheduled(ctx)


def test_a_batch_released_early_never_resolves_early(api: Api, ctx: Context) -> None:
    games, when = _storm(api, ctx, 3)
    second = int(when.timestamp())
    with freeze_time(when - timedelta(seconds=60)):  # far too early: it schedules itself again
        assert resolve_due(ctx, second, 0) == "not due yet"
        again = scheduling.batch_job_id(second, 0, f"again{second - 60}")
    assert again in _scheduled(ctx)
    assert _members(ctx, second) == {scheduling.member(g.id, 1) for g in games}
    assert all(_outcomes(api, g) == [] for g in games)


def test_a_batch_released_a_moment_early_waits_for_the_deadline(api: Api, ctx: Context) -> None:
    """Real clock: the batch job runs now, before the deadline, and waits in place."""
    games = [new_game(api) for _ in range(2)]
    when = clock.parse(clock.after(2))
    _due_at(api, games, when)
    second = int(when.timestamp())
    scheduling.schedule_batch(ctx.queue, second, 0, "test", now=True)
    assert clock.now() < when
    run_queued_jobs(ctx)
    for game in games:
        outcomes = _outcomes(api, game)
        assert len(outcomes) == 1 and outcomes[0]["data"]["trigger"] == "deadline"
        assert clock.parse(outcomes[0]["at"]) > when


def test_a_member_whose_worker_died_is_recovered_by_the_sweeper(api: Api, ctx: Context) -> None:
    games, when = _storm(api, ctx, 3)
    second = int(when.timestamp())
    lost = scheduling.pop_due(ctx.queue_redis, second, 1)  # a worker took it and was killed ...
    assert len(lost) == 1
    ctx.queue_redis.delete(keys.batch_alive(second))  # ... longer ago than its last pop said it was alive
    with freeze_time(when + timedelta(seconds=ctx.settings.sweep_grace + 1)):
        swept = dict(sweeper.sweep_once(ctx))
        # The batch job is still scheduled (the scheduler could be dead): not trusted, and
        # the members still in the set get a job of their own too.
        assert {swept[g.id] for g in games} == {"requeued"}
        run_queued_jobs(ctx)
    for game in games:
        assert len(_outcomes(api, game)) == 1
    with freeze_time(when + timedelta(seconds=ctx.settings.sweep_grace + 2)):
        _run_due_jobs(ctx)  # the batch comes late, finds its phases resolved
    assert all(len(_outcomes(api, g)) == 1 for g in games)


def test_a_batch_on_the_queue_or_draining_is_waited_for(api: Api, ctx: Context) -> None:
    """No duplicate jobs while a storm is worked through: a member still in its batch is
    waiting when one of the batch's jobs is on the queue or says it is draining."""
    games, when = _storm(api, ctx, 2)
    second = int(when.timestamp())
    [(taken, _number)] = scheduling.pop_due(ctx.queue_redis, second, 1)  # a job is draining the batch
    ctx.queue_redis.set(keys.batch_alive(second), "1", px=scheduling.ALIVE_MS)  # as every pop says
    left = next(g for g in games if g.id != taken)
    overdue = when + timedelta(seconds=ctx.settings.sweep_grace + 1)
    with freeze_time(overdue):
        swept = dict(sweeper.sweep_once(ctx))
    assert swept == {taken: "requeued", left.id: "waiting in queue"}
    ctx.queue_redis.delete(keys.batch_alive(second))
    registry = ScheduledJobRegistry(queue=ctx.queue)
    job = Job.fetch(scheduling.batch_job_id(second, 0), connection=ctx.queue_redis, serializer=JSONSerializer)
    ctx.queue.enqueue_job(job)  # released by the scheduler, not picked up yet
    registry.remove(job.id)
    with freeze_time(overdue + timedelta(seconds=ctx.settings.sweep_retry + ctx.settings.sweep_grace + 1)):
        swept = dict(sweeper.sweep_once(ctx))
    assert swept[left.id] == "waiting in queue"


def test_a_moved_deadline_leaves_its_old_batch(api: Api, ctx: Context, game: Game) -> None:
    old = clock.parse(api.get(game.path())[1]["phase"]["deadline"])
    new = old + timedelta(seconds=600)
    _due_at(api, [game], new)
    assert scheduling.member(game.id, 1) in _members(ctx, int(new.timestamp()))
    with freeze_time(old + timedelta(seconds=1)):
        assert resolve_due(ctx, int(old.timestamp()), 0) == "not due yet: 1"
    assert _outcomes(api, game) == []
    with freeze_time(new + timedelta(seconds=1)):
        assert resolve_due(ctx, int(new.timestamp()), 0) == "resolved: 1"
    assert len(_outcomes(api, game)) == 1


def test_a_phase_added_after_its_batch_was_drained_gets_a_job_of_its_own(api: Api, ctx: Context) -> None:
    games, when = _storm(api, ctx, 1)
    second = int(when.timestamp())
    with freeze_time(when + timedelta(seconds=1)):
        assert resolve_due(ctx, second, 0) == "resolved: 1"
    late = new_game(api)
    _due_at(api, [late], when)
    assert _members(ctx, second) == set()
    assert scheduling.job_id(late.id, 1, f"at{second}") in _scheduled(ctx)
    with freeze_time(when + timedelta(seconds=2)):
        _run_due_jobs(ctx)
    assert len(_outcomes(api, late)) == 1



def test_the_cycle_collector_runs_again_after_a_batch_even_one_that_failed(
    api: Api, ctx: Context, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch pauses Python's cycle collector while it drains (workers/resolution.py)."""
    games, when = _storm(api, ctx, 2)
    second = int(when.timestamp())

    def broken(*args: object, **kwargs: object) -> str:
        assert not gc.isenabled()
        raise TimeoutError("the job ran out of time")

    monkeypatch.setattr(resolution, "resolve_phase", broken)
    monkeypatch.setattr(resolution, "BaseTimeoutException", TimeoutError)  # as RQ's job timeout would
    assert gc.isenabled()
    with freeze_time(when + timedelta(seconds=1)), pytest.raises(TimeoutError):
        resolve_due(ctx, second, 0)
    assert gc.isenabled()


def test_next_phases_a_batch_could_not_schedule_are_left_to_the_sweeper(
    api: Api, ctx: Context, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The outcomes are the truth: a batch whose follow-up scheduling fails still reports
    them resolved, and the index still points where the sweeper looks."""
    games, when = _storm(api, ctx, 2)

    def unreachable(*args: object, **kwargs: object) -> None:
        raise ConnectionError("queue down")

    monkeypatch.setattr(resolution, "phases_opened", unreachable)
    with freeze_time(when + timedelta(seconds=1)):
        assert resolve_due(ctx, int(when.timestamp()), 0) == "resolved: 2"
    for game in games:
        assert len(_outcomes(api, game)) == 1
        assert ctx.redis.zscore(keys.DEADLINES, game.id) <= when.timestamp()
