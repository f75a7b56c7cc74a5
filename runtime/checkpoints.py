"""Signed checkpoints: made as a game's phases close and at its end, kept with the game (an export carries them) and
outside Redis (``Witness``), and compared with the store when a process starts (issue 29).

A checkpoint is the service's signed word that a game's log had ``seq`` events ending in ``hash``.  Those kept with
the game let anyone holding an export see a truncation or a rewrite; the one kept outside Redis lets the service
itself see, after a full restart, that its store went back (a lost AOF tail, a restored backup), and say so in the
game's log (``log.rolled_back``) instead of serving new events at old seqs.
"""
from __future__ import annotations

import logging
from typing import Any

from redis.exceptions import RedisError

from eventlog import keys, notes
from eventlog.events import Event
from replays.fold import FoldError
from runtime.context import Context

log = logging.getLogger("arbiter.checkpoints")


def closes_phase(event: Event) -> bool:
    """A resolution, or a membership change that closed the phase or ended the game: each records ``next``."""
    data = event.get("data")
    return isinstance(data, dict) and "next" in data


def sign_head(ctx: Context, game_id: str, seq: int, head_hash: str) -> str:
    """The signed checkpoint of the log at ``seq``, also kept outside Redis (only ever forward)."""
    note = ctx.keys.checkpoint(game_id, seq, head_hash)
    if ctx.witness is not None:
        ctx.witness.keep(game_id, seq, head_hash, note)
    return note


def made(ctx: Context, game_id: str, event: Event) -> str | None:
    """After an append: at a phase's close (and so at the end), a checkpoint kept with the game.  None otherwise."""
    if not closes_phase(event):
        return None
    note = sign_head(ctx, game_id, event["seq"], event["hash"])
    ctx.redis.rpush(keys.checkpoints(game_id), note)
    return note


def stored(ctx: Context, game_id: str) -> list[str]:
    """The game's checkpoints, oldest first, for its export."""
    return [n.decode() if isinstance(n, bytes) else n for n in ctx.redis.lrange(keys.checkpoints(game_id), 0, -1)]


def kept(ctx: Context, game_id: str) -> dict[tuple[int, str], str]:
    """The game's checkpoints kept with it, by the (size, head hash) each signs: what the streams send beside the
    event at that seq, read rather than signed afresh so every consumer sees the same note as the export."""
    found = {}
    for note in stored(ctx, game_id):
        try:
            signed = notes.parse_checkpoint(note[: note.rfind("\n\n") + 1])
        except notes.NoteError:
            continue
        found[(signed.size, signed.head)] = note
    return found


def after_restart(ctx: Context) -> list[dict[str, Any]]:
    """Compare every game's log with its latest checkpoint kept outside Redis: a log that no longer reaches it went
    back, and is folded afresh, noted for /v1/health and announced in its log (``GameLoader.went_back``); a log whose
    event at that seq has another hash is on another chain, which only a person can sort out (logged).  Best effort:
    a store that does not answer is left to the loader's own checks.  First the key file is read (or made): a bad one
    stops the process at its start, not at its first receipt."""
    _ = ctx.keys
    if ctx.witness is None:
        return []
    found = []
    try:
        for game_id, (seq, head_hash) in sorted(ctx.witness.latest().items()):
            events = ctx.store.read(game_id, after=seq - 1, limit=1)
            if events and events[0]["seq"] == seq and events[0]["hash"] == head_hash:
                continue
            if events and events[0]["seq"] == seq:
                log.error("game %s: the log's event %s is not the one the service signed (another chain)", game_id, seq)
                found.append({"game_id": game_id, "seq": seq, "problem": "another chain"})
                continue
            ctx.loader.went_back(game_id, seq, head_hash)
            found.append({"game_id": game_id, "seq": seq, "problem": "went back"})
    except (RedisError, FoldError) as exc:
        log.warning("could not compare the games with their signed checkpoints: %s", exc)
    return found
