"""Where a reader's copy of a log and the log part, after the store lost writes (a Redis rollback).

A reader that passes events on (a stream feed, a webhook's cursor) remembers the last ones it passed on.  When the
log no longer holds the newest of them, the log went back, or on along another chain: what the reader passed on
after the last event both still hold is gone, and the log's events after that seq are what it must pass on now,
the ``log.rolled_back`` notice (replays/loader.py) first.  Seqs alone cannot tell: the lost event and the one that
took its seq share it, so the check is by hash.
"""
from __future__ import annotations

import time

from eventlog.store import EventStore

PAGE = 500                 # events read at a time while looking back for the log's notice
RECENT_S = 7 * 24 * 3600   # rollbacks a resuming reader is checked against (as /v1/health lists them)


def parting(store: EventStore, game_id: str, known: dict[int, str]) -> int | None:
    """None while the log holds the newest event of ``known`` ({seq: hash} of the last events a reader passed on);
    else the last seq the reader and the log share, after which the reader must be given the log again."""
    top, low = max(known), min(known)
    held = {e["seq"]: e["hash"] for e in store.read(game_id, after=low - 1, limit=top - low + 1)}
    if held.get(top) == known[top]:
        return None
    shared = [seq for seq, digest in known.items() if held.get(seq) == digest]
    if shared:
        return max(shared)
    told = went_back_to(store, game_id, low)  # lost further back than the reader remembers: the log said where to
    return told if told is not None else low - 1


def went_back_to(store: EventStore, game_id: str, seen: int, depth: int | None = None) -> int | None:
    """What the newest ``log.rolled_back`` notice that concerns a reader who saw up to ``seen`` says the log kept
    (its ``to_seq``, below ``seen``), or None if the log holds no such notice (within ``depth`` events of the head,
    if given).  Read back from ``seen`` a page at a time: a rare path (the log lost what a reader had), and the
    notice is near its end."""
    upper = min(seen, store.head(game_id)[0])
    floor = 0 if depth is None else max(0, upper - depth)
    while upper > floor:
        low = max(floor, upper - PAGE)
        for event in reversed(store.read(game_id, after=low, limit=upper - low)):
            if event["type"] == "log.rolled_back" and event["data"].get("to_seq", seen) < seen:
                return int(event["data"]["to_seq"])
        upper = low
    return None


def resume_point(store: EventStore, game_id: str, after: int, head: int, depth: int) -> int:
    """Where a reader that asks for the events after ``after`` is started: there, unless the log lost events it
    may have seen.  Past the head (it saw events the log no longer has), or inside the span a noted rollback lost
    (it may have seen the lost events, or the ones that took their seqs: a seq alone cannot tell), it is started
    from what the log kept, the rollback's notice first; a reader that had those already gets them again, with
    the same hashes.  Looked back for at most ``depth`` events: every reader may ask."""
    if after > head:
        told = went_back_to(store, game_id, after, depth)
        return head if told is None else told
    lost = [r["to_seq"] for r in store.rollbacks(time.time() - RECENT_S)
            if r["game_id"] == game_id and r["to_seq"] < after <= r["from_seq"]] if after else []
    return min(lost, default=after)
