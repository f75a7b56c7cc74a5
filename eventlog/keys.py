"""Redis key names.  Every per-game key carries the game id as a hash tag, so one
game's keys live in one cluster slot and no command ever spans two games."""
from __future__ import annotations

import re

PREFIX = "arbiter"
_GAME_ID = re.compile(r"[\w-]{1,64}")  # letters, digits, "_" and "-": what a game id can be made of


def plausible_game_id(game_id: str) -> bool:
    """Whether ``game_id`` could name a game: anything else is not looked up (a 404 at once)."""
    return _GAME_ID.fullmatch(game_id) is not None


def events(game_id: str) -> str:
    return f"{PREFIX}:{{{game_id}}}:events"


def private(game_id: str) -> str:
    """Seed and token digests: credentials, never part of the public log."""
    return f"{PREFIX}:{{{game_id}}}:private"


def snapshot(game_id: str) -> str:
    return f"{PREFIX}:{{{game_id}}}:snapshot"


def snapshots_at(game_id: str) -> str:
    """A sorted set of the game's records about every ``replays.seek.STEP`` events (scored by seq), for replays."""
    return f"{PREFIX}:{{{game_id}}}:snapshots-at"


def idempotency(game_id: str, scope: str, key_digest: str) -> str:
    return f"{PREFIX}:{{{game_id}}}:idem:{scope}:{key_digest}"


def no_idempotency(game_id: str) -> str:
    """A same-slot placeholder key for appends without an Idempotency-Key."""
    return f"{PREFIX}:{{{game_id}}}:idem:-"


def fault(game_id: str) -> str:
    """Set by the kill tests' fault point (ARBITER_FAULT_PAUSE_BEFORE_APPEND) while a resolution stalls."""
    return f"{PREFIX}:{{{game_id}}}:fault"


def last_sweep(game_id: str) -> str:
    """On the queue's Redis: the id of the sweeper's last re-queued job for the game."""
    return f"{PREFIX}:sweeper:{game_id}"


def bad_tokens(game_id: str) -> str:
    return f"{PREFIX}:{{{game_id}}}:bad-tokens"


# Indexes over all games: each is one key, so still no command spans two slots.
GAMES = f"{PREFIX}:games"


def games_with_status(status: str) -> str:
    """``GAMES`` for the games in one status (signup, running, paused, finished), for a filtered list: the same
    scores, kept as the game's status changes (``eventlog.index.move``)."""
    return f"{PREFIX}:games:{status}"
DEADLINES = f"{PREFIX}:deadlines"

EVENTS_PATTERN = f"{PREFIX}:{{*}}:events"

# The channel every append publishes its event on, as ``<seq> <game id> <event json>`` (a
# notice for the API processes' caches, never the record of anything: the stream is).
APPENDED = f"{PREFIX}:appended"


def game_id_of_events_key(key: str) -> str:
    return key[len(PREFIX) + 2 : key.index("}:events")]


# Deadline batches (runtime/scheduling.py).  These live on the queue's Redis, beside the
# jobs that drain them (always a plain Redis, never a cluster: RQ cannot run on one), so
# a wiped queue loses a batch and its jobs together and the sweeper restores both.
def batch(second: int) -> str:
    """``<game>:<phase>`` of every phase whose deadline is ``second`` (unix time), not yet resolved by it."""
    return f"{PREFIX}:due:{second}"


def batch_state(second: int) -> str:
    """"done" once the batch has found its set empty: later phases of that second get a job of their own."""
    return f"{PREFIX}:due:{second}:state"


def batch_jobs(second: int) -> str:
    """The ids of the RQ jobs scheduled to drain that second's batch."""
    return f"{PREFIX}:due:{second}:jobs"


def batch_alive(second: int) -> str:
    """Exists while a job is draining that second's batch (refreshed on every pop)."""
    return f"{PREFIX}:due:{second}:alive"


# Following games live (streams/, runtime/webhooks.py).
def stream_ticket(game_id: str, ticket_digest: str) -> str:
    """A one-time stream ticket (its SHA-256), holding the stored role of the token it was issued to; 60 s."""
    return f"{PREFIX}:{{{game_id}}}:stream-ticket:{ticket_digest}"


def webhooks(game_id: str) -> str:
    """The game's webhooks: hook id -> its registration (URL, secret, viewer, owner's token digest)."""
    return f"{PREFIX}:{{{game_id}}}:webhooks"


def webhook_state(game_id: str, hook_id: str) -> str:
    """A hook's delivery state: the last seq delivered, attempts, last error, when to try again."""
    return f"{PREFIX}:{{{game_id}}}:webhook:{hook_id}:state"


def webhook_log(game_id: str, hook_id: str) -> str:
    """A hook's delivery log, newest first (capped)."""
    return f"{PREFIX}:{{{game_id}}}:webhook:{hook_id}:log"


def webhook_lock(game_id: str, hook_id: str) -> str:
    """Held by the one job delivering a hook's events, so they leave in seq order."""
    return f"{PREFIX}:{{{game_id}}}:webhook:{hook_id}:lock"


# Games with at least one webhook: the stream process kicks their hooks when it (re)subscribes, so events
# appended while it was away are delivered too.
WEBHOOK_GAMES = f"{PREFIX}:webhook-games"


def webhook_kicked(game_id: str, hook_id: str) -> str:
    """Set while a delivery job for the hook is queued and not yet started: further kicks need no job of their own."""
    return f"{PREFIX}:{{{game_id}}}:webhook:{hook_id}:kicked"


def checkpoints(game_id: str) -> str:
    """The game's signed checkpoints (notes, oldest first), made as its phases close: an export carries them."""
    return f"{PREFIX}:{{{game_id}}}:checkpoints"
