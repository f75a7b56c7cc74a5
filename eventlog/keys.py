"""Redis key names.  Every per-game key carries the game id as a hash tag, so one
game's keys live in one cluster slot and no command ever spans two games."""
from __future__ import annotations

PREFIX = "arbiter"


def events(game_id: str) -> str:
    return f"{PREFIX}:{{{game_id}}}:events"


def private(game_id: str) -> str:
    """Seed and token digests: credentials, never part of the public log."""
    return f"{PREFIX}:{{{game_id}}}:private"


def snapshot(game_id: str) -> str:
    return f"{PREFIX}:{{{game_id}}}:snapshot"


def idempotency(game_id: str, scope: str, key_digest: str) -> str:
    return f"{PREFIX}:{{{game_id}}}:idem:{scope}:{key_digest}"


def no_idempotency(game_id: str) -> str:
    """A same-slot placeholder key for appends without an Idempotency-Key."""
    return f"{PREFIX}:{{{game_id}}}:idem:-"


def bad_tokens(game_id: str) -> str:
    return f"{PREFIX}:{{{game_id}}}:bad-tokens"


# Indexes over all games: each is one key, so still no command spans two slots.
GAMES = f"{PREFIX}:games"
DEADLINES = f"{PREFIX}:deadlines"

EVENTS_PATTERN = f"{PREFIX}:{{*}}:events"


def game_id_of_events_key(key: str) -> str:
    return key[len(PREFIX) + 2 : key.index("}:events")]
