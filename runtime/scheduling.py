"""Putting resolutions on the RQ queue.

Deadlines go in batches, one per whole second: a phase whose deadline is second ``S``
is added as ``<game>:<phase>`` to that second's set on the queue's Redis, and the set is
drained by a few RQ jobs, ``resolve-due-<S>-<k>``, each resolving one member after
another in-process.  A deadline storm (many games due in the same second) so pays RQ's
per-job cost a few times instead of once per game, and the jobs are scheduled for the
second *before* the deadline (RQ stores whole seconds and polls once a second) and wait
in place for it: released up to a second early, they start resolving as it passes
instead of up to a second after.  The first job is scheduled when the set gets its first
member, the next ones as it grows (``SPLIT``), so a lone deadline costs one job and a
storm is shared by several workers.  A member is popped atomically (``SPOP``) by exactly
one job; one popped by a worker that then dies is still in the deadline index, where the
sweeper finds it (``workers/sweeper.py``).  Once a batch has found its set empty it is
closed, and a phase added to that second afterwards gets a job of its own.

Everything that is one event rather than a storm (everyone has acted, a GM said so, the
sweeper found a phase overdue) gets a job of its own, ``resolve-<game>-<phase>-<why>``.
Every enqueue is ``unique=True`` so the same job is never queued twice; jobs carry ids
only, and the JSON serializer means nothing is unpickled.
"""
from __future__ import annotations

import math
from datetime import datetime, timezone
from typing import Any

from redis import Redis
from rq import Queue
from rq.exceptions import DuplicateJobError

from eventlog import clock, deadlines, keys

RESULT_TTL = 600
FAILURE_TTL = 7 * 24 * 3600
JOB_TIMEOUT = 120

SPLIT = (1, 16, 128, 512)  # batch job k is scheduled when its second's set reaches SPLIT[k] members
AHEAD = 1            # seconds before its deadline a batch job is released (RQ's whole seconds)
BATCH_KEEP = 3600    # a batch's keys outlive its second by this long (for the sweeper's look)
ALIVE_MS = 3000      # a draining batch says so for this long after each pop

# KEYS: members, state, jobs.  ARGV: member, expiry (unix s).  Returns {-1, 0} when the
# batch is closed (drained), {0, jobs} when the member was already there, else the set's
# size and how many jobs the batch has (none yet: whoever scheduled the first died first).
_ADD = """
if redis.call('GET', KEYS[2]) == 'done' then return {-1, 0} end
local jobs = redis.call('SCARD', KEYS[3])
if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then return {0, jobs} end
redis.call('EXPIREAT', KEYS[1], ARGV[2])
return {redis.call('SCARD', KEYS[1]), jobs}
"""

# KEYS: members, state, alive.  ARGV: how many, alive ms, expiry.  Pops up to ARGV[1]
# members; an empty pop closes the batch, so no member can be added after the last look.
_POP = """
local popped = redis.call('SPOP', KEYS[1], ARGV[1])
if #popped == 0 then
  redis.call('SET', KEYS[2], 'done', 'EXAT', ARGV[3])
else
  redis.call('SET', KEYS[3], '1', 'PX', ARGV[2])
end
return popped
"""


def job_id(game_id: str, number: int, purpose: str = "") -> str:
    base = f"resolve-{game_id}-{number}"
    return f"{base}-{purpose}" if purpose else base


def batch_job_id(second: int, part: int, purpose: str = "") -> str:
    base = f"resolve-due-{second}-{part}"
    return f"{base}-{purpose}" if purpose else base


def member(game_id: str, number: int) -> str:
    return f"{game_id}:{number}"


def parse_member(text: str) -> tuple[str, int]:
    game_id, number = text.rsplit(":", 1)
    return game_id, int(number)


class _Lua:
    """A script registered on first use and sent with EVALSHA (loaded again if Redis lost it)."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.script = None

    def __call__(self, redis: Redis, keys: list[str], args: list, pipe: Any = None) -> Any:
        """Run it on ``redis``, or queue it on ``pipe`` (a pipeline of ``redis``)."""
        if self.script is None:
            self.script = redis.register_script(self.source)
        return self.script(keys=keys, args=args, client=pipe if pipe is not None else redis)


_add = _Lua(_ADD)
_pop = _Lua(_POP)


def _options(jid: str, description: str) -> dict:
    return {
        "job_id": jid,
        "unique": True,
        "result_ttl": RESULT_TTL,
        "failure_ttl": FAILURE_TTL,
        "job_timeout": JOB_TIMEOUT,
        "description": description,
    }


def schedule_at(queue: Queue, game_id: str, number: int, when: datetime, purpose: str = "") -> bool:
    """A job of its own for phase ``number`` of ``game_id`` at ``when``; False if already queued."""
    try:
        queue.enqueue_at(when, "workers.jobs.resolve_phase", game_id, number,
                         **_options(job_id(game_id, number, purpose), f"resolve {game_id} phase {number}"))
    except DuplicateJobError:
        return False
    return True


def resolve_soon(queue: Queue, game_id: str, number: int, purpose: str) -> bool:
    """Resolve now (everyone has acted, a GM said so, or the sweeper found it overdue)."""
    try:
        queue.enqueue("workers.jobs.resolve_phase", game_id, number,
                      **_options(job_id(game_id, number, purpose), f"resolve {game_id} phase {number}"))
    except DuplicateJobError:
        return False
    return True


def schedule_deadline(queue: Queue, game_id: str, number: int, when: datetime) -> str:
    """Resolve phase ``number`` of ``game_id`` at its deadline ``when``, in that second's
    batch; what was done ("batched", "already batched", or "own job" for a closed batch)."""
    second = batch_second(when.timestamp())
    return _added(queue, game_id, number, when, *_add(queue.connection, *_add_args(game_id, number, second)))


def batch_second(timestamp: float) -> int:
    """The second whose batch resolves a deadline at ``timestamp`` (unix time)."""
    return math.ceil(timestamp)  # deadlines are whole seconds; a fraction could only round later


def _add_args(game_id: str, number: int, second: int) -> tuple[list[str], list]:
    return ([keys.batch(second), keys.batch_state(second), keys.batch_jobs(second)],
            [member(game_id, number), second + BATCH_KEEP])


def _added(queue: Queue, game_id: str, number: int, when: datetime, size: int, jobs: int) -> str:
    """What adding the phase to its batch asks for: the batch's next job, or a job of its own."""
    second = batch_second(when.timestamp())
    if size == -1:
        schedule_at(queue, game_id, number, when, f"at{second}")
        return "own job"
    if size in SPLIT or (size and not jobs):
        schedule_batch(queue, second, SPLIT.index(size) if size in SPLIT else 0)
    return "batched" if size else "already batched"


def schedule_batch(queue: Queue, second: int, part: int, purpose: str = "", now: bool = False) -> bool:
    """Batch job ``part`` of ``second``, released the second before it (it waits in place),
    or queued at once (``now``: a batch handing on what it did not get through)."""
    jid = batch_job_id(second, part, purpose)
    options = _options(jid, f"resolve the phases due at {second}")
    try:
        if now:
            queue.enqueue("workers.jobs.resolve_due", second, part, **options)
        else:
            when = datetime.fromtimestamp(second - AHEAD, timezone.utc)
            queue.enqueue_at(when, "workers.jobs.resolve_due", second, part, **options)
    except DuplicateJobError:
        return False
    pipe = queue.connection.pipeline(transaction=False)
    pipe.sadd(keys.batch_jobs(second), jid)  # so the sweeper can tell a batch still on the queue
    pipe.expireat(keys.batch_jobs(second), second + BATCH_KEEP)
    pipe.execute()
    return True


def pop_due(redis: Redis, second: int, count: int) -> list[tuple[str, int]]:
    """Up to ``count`` members of ``second``'s batch, each removed for good; [] closes the batch."""
    popped = _pop(redis, [keys.batch(second), keys.batch_state(second), keys.batch_alive(second)],
                  [count, ALIVE_MS, second + BATCH_KEEP])
    return [parse_member(m.decode()) for m in popped]


def phase_opened(queue: Queue, redis, game_id: str, spec: dict, ready: bool) -> None:
    """After a phase-opening event is in the log: index its deadline, batch its resolution.

    ``ready`` means nobody needs to act (resolve early, if the game allows it).
    """
    phases_opened(queue, redis, [(game_id, spec, ready)])


def phases_opened(queue: Queue, redis, opened: list[tuple[str, dict, bool]]) -> None:
    """``phase_opened`` for several games, ``(game_id, spec, ready)`` each: their index
    entries in one round trip and their batch adds in another (a batch job resolving a
    storm opens the next phase of every game it resolves)."""
    if not opened:
        return
    now = clock.now()
    whens = [clock.parse(spec["deadline"]) for _game_id, spec, _ready in opened]
    deadlines.set_many(redis, {game_id: now if ready else when
                               for (game_id, _spec, ready), when in zip(opened, whens)})
    pipe = queue.connection.pipeline(transaction=False)
    for (game_id, spec, _ready), when in zip(opened, whens):
        _add(queue.connection, *_add_args(game_id, spec["number"], batch_second(when.timestamp())), pipe=pipe)
    for (game_id, spec, ready), when, (size, jobs) in zip(opened, whens, pipe.execute()):
        _added(queue, game_id, spec["number"], when, size, jobs)
        if ready:
            resolve_soon(queue, game_id, spec["number"], "early")
