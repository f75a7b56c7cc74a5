"""Loading a game's record: process cache, then snapshot, then the log's tail.

Reading a game costs one XRANGE for the events since the last fold, however long its
log; a snapshot is written every ``SNAPSHOT_EVERY`` events so a cold process folds at
most that many.  ``load_with`` sends other reads a request needs (its token, an
idempotency answer) in the same round trip as that XRANGE.  A process that appends an
event, or is told of newer events by a conflicting append, moves its cached record on
with them (``appended``, ``caught_up``), so its next request needs no read at all.

A record is never served ahead of its log.  Redis can lose its last writes (``appendfsync
everysec`` on a power cut, a failover to a lagging replica): each read starts at the cached
record's (or the snapshot's) own last event, so a log that went back, or on to another chain,
shows at once.  The record is then folded afresh from the log, the snapshot replaced, the loss
noted for ``/v1/health`` (``EventStore.note_rollback``) and announced in the game's own log by a
``log.rolled_back`` event ``{from_seq, to_seq}``: the orders after ``to_seq`` are gone and their
senders must send them again (docs/clients.md).
"""
from __future__ import annotations

import logging
from collections import OrderedDict
from threading import Lock
from typing import Any, Callable

import orjson

from eventlog import index, keys, snapshots
from eventlog.events import ARBITER_ACTOR, Event, new_salt, seal
from eventlog.store import Conflict, EventStore
from replays import seek
from replays.fold import Record, fold

log = logging.getLogger("arbiter.loader")

SNAPSHOT_EVERY = 64


class GameLoader:
    def __init__(self, store: EventStore, cache_size: int = 512) -> None:
        self.store = store
        self._cache: OrderedDict[str, Record] = OrderedDict()
        self._size = cache_size
        self._lock = Lock()
        self._snapped: dict[str, int] = {}  # seq of the last snapshot this process knows

    def cached(self, game_id: str) -> Record | None:
        """The record this process last folded for the game; it may be behind the log."""
        with self._lock:
            return self._cache.get(game_id)

    def remember(self, game_id: str, record: Record) -> None:
        """``record``: the game just after an event this process appended (folded before the append), kept for the
        next request, and snapshot when the last one is ``SNAPSHOT_EVERY`` events behind."""
        self._snap_if_due(game_id, record)
        self._remember(game_id, record)

    def caught_up(self, game_id: str, record: Record, conflict: Conflict) -> Record | None:
        """The record after the events a conflicting append reported on top of ``record``,
        or, if they do not reach the head it reported, the record loaded afresh."""
        events = conflict.events
        if events and events[0]["seq"] == record["seq"] + 1 and events[-1]["seq"] == conflict.seq:
            return self._folded(game_id, record, events)
        if conflict.seq < record["seq"]:
            return self._refolded(game_id, record)  # the log went back under this record
        self.forget(game_id)  # behind by more than the script returns, or on another chain
        return self.load(game_id)

    def heard(self, game_id: str, seq: int, stored: bytes) -> None:
        """Another process appended event ``seq`` (``stored``: its JSON as stored): the cached record moves on
        with it if it is the one after (``replays.notices``).  Anything else is left to the next read, or
        to a conflicting append, to bring: a record this process never read is not read for it.  No I/O at
        all (so not ``_folded``, which re-reads a log that does not follow and writes snapshots): a hint is
        followed inside whichever request drained it."""
        with self._lock:
            base = self._cache.get(game_id)
        if base is None or base["seq"] != seq - 1:
            return  # not cached, already there (this process's own append), or too far behind
        event = orjson.loads(stored)
        if event["seq"] != seq or event["prev_hash"] != base["head_hash"]:
            return
        self._remember(game_id, fold([event], base))

    def load(self, game_id: str) -> Record | None:
        """The game's record as of its newest event, or None for an unknown game."""
        return self.load_with(game_id, None)[0]

    def load_with(self, game_id: str, also: Callable[[Any], None] | None) -> tuple[Record | None, list[Any]]:
        """The record, and the replies to the reads ``also`` queued on a pipeline.

        Those reads go out with the first read of the game (its tail when this process
        has the game cached, else its snapshot), so they cost no round trip of their own."""
        with self._lock:
            base = self._cache.get(game_id)
        pipe = self.store.redis.pipeline(transaction=False)
        if base is None:
            pipe.get(keys.snapshot(game_id))
        else:  # from the record's own last event on: a log that went back under it shows at once
            self.store.queue_read(pipe, game_id, after=base["seq"] - 1)
        if also is not None:
            also(pipe)
        first, *replies = pipe.execute()
        if base is None:
            base = None if first is None else orjson.loads(first)
            self._snapped[game_id] = base["seq"] if base else 0
            events = self.store.read(game_id, after=base["seq"] - 1 if base else 0)
        else:
            events = self.store.decode(first)
        if base is not None:
            if not events or events[0]["seq"] != base["seq"] or events[0]["hash"] != base["head_hash"]:
                return self._refolded(game_id, base), replies
            events = events[1:]
        return self._folded(game_id, base, events), replies

    def went_back(self, game_id: str, seq: int, head_hash: str) -> Record | None:
        """A signed checkpoint kept outside Redis, or a stream feed, says the log reached ``seq`` (``head_hash``), and
        it no longer does: handled as a record ahead of its log is (runtime/checkpoints.py, after a full restart;
        streams/hub.py)."""
        return self._refolded(game_id, {"seq": seq, "head_hash": head_hash})

    def _refolded(self, game_id: str, base: Record) -> Record | None:
        """The record folded afresh from the whole log, which no longer holds ``base``'s last event: the log went
        back (a Redis rollback) or on along another chain.  A log that went back is noted and announced."""
        events = self.store.read(game_id)
        head = events[-1]["seq"] if events else 0
        record = fold(events) if events else None
        told = any(e["type"] == "log.rolled_back" and e["data"].get("from_seq", 0) >= base["seq"] for e in events)
        if head < base["seq"] and not told:  # (another process may have found it first and said so)
            log.warning("game %s: the log went back from seq %s to %s; the record is folded afresh",
                        game_id, base["seq"], head)
            self.store.note_rollback(game_id, base["seq"], head)
            if record is not None:
                record = self._announce_rollback(game_id, record, base["seq"])
        with self._lock:
            if record is None:
                self._cache.pop(game_id, None)
            else:
                self._cache[game_id] = record
                self._cache.move_to_end(game_id)
        if record is None:
            self.store.redis.delete(keys.snapshot(game_id))
        else:
            snapshots.put(self.store.redis, game_id, record)  # one ahead of the log must not come back
            index.moved(self.store.redis, game_id, base, record)  # the status it went back to, for filtered lists
        self._snapped[game_id] = record["seq"] if record else 0
        return record

    def _announce_rollback(self, game_id: str, record: Record, lost_from: int) -> Record:
        """Append ``log.rolled_back`` after what the log kept: its players learn which of their orders are gone."""
        event = seal(record["seq"] + 1, record["head_hash"], "log.rolled_back", ARBITER_ACTOR,
                     {"from_seq": lost_from, "to_seq": record["seq"]}, salt=new_salt())
        try:
            self.store.append(game_id, event)
        except Conflict:  # another process said it first, or the game went on: take the log as it is
            return fold(self.store.read(game_id))
        return fold([event], record)

    def _folded(self, game_id: str, base: Record | None, events: list[Event]) -> Record | None:
        if base is not None and events and events[0]["prev_hash"] != base["head_hash"]:
            base = None  # a stale or foreign snapshot: fold from scratch
            events = self.store.read(game_id)
        if base is None and not events:
            return None
        record = fold(events, base)
        self._snap_if_due(game_id, record)
        self._remember(game_id, record)
        return record

    def _snap_if_due(self, game_id: str, record: Record) -> None:
        if record["seq"] - self._snapped.get(game_id, 0) >= SNAPSHOT_EVERY:
            snapshots.put(self.store.redis, game_id, record)
            seek.passed(self.store, game_id, self._snapped.get(game_id, 0), record)  # for replays at a seq
            self._snapped[game_id] = record["seq"]

    def _remember(self, game_id: str, record: Record) -> None:
        with self._lock:
            known = self._cache.get(game_id)
            if known is not None and known["seq"] > record["seq"]:
                return  # another thread got further meanwhile
            self._cache[game_id] = record
            self._cache.move_to_end(game_id)
            while len(self._cache) > self._size:
                evicted, _record = self._cache.popitem(last=False)
                self._snapped.pop(evicted, None)  # re-learnt from the snapshot on the next load

    def forget(self, game_id: str | None = None) -> None:
        with self._lock:
            if game_id is None:
                self._cache.clear()
            else:
                self._cache.pop(game_id, None)
