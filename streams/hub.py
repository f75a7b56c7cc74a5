"""The fan-out: one subscription to the append notices per stream process, shared by every follower in it.

Every append publishes its event on ``keys.APPENDED`` (``eventlog/append.lua``).  The hub keeps, for each game
someone here follows, a ``Feed``: the game's record folded up to the last event it passed on.  A notice for a
followed game whose event is the next one is folded into that record and offered to the game's followers,
redacted once per distinct viewer (a few per game however many follow it) with ``replays.views.event_for``,
the same function ``/events`` uses.  A notice that skips ahead (one was lost, or the subscription was made
afresh) makes the feed read what it missed from the stream first: the log is the truth, notices only wake
the hub.  So each follower gets every event exactly once, in ``seq`` order, or is told to go (and resumes).

A log that went back under a feed (a Redis rollback: the API then appends ``log.rolled_back``) shows as a notice
for a seq the feed has passed that is not the event it passed on, or as a log that no longer holds the feed's last
event when it catches up.  The feed then rewinds: its record is folded afresh (``GameLoader.went_back``, which
announces the loss if nobody has), and its followers are told to go back to where the log and what they were given
part (``eventlog.parting``) and given every event of the log from there, the rollback's notice first.

A follower is a bounded queue.  One that falls ``MAX_BEHIND`` events behind (a dead or slow client) is
dropped, not waited for: it costs the others nothing and its memory is capped.  Its client resumes with
``Last-Event-ID`` / ``after`` and loses nothing.
"""
from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any, Callable

import orjson
from redis.asyncio import Redis as AsyncRedis
from redis.exceptions import RedisError

from engines.contract import Viewer
from eventlog import keys
from eventlog.events import Event
from eventlog.parting import parting
from replays.fold import Record, fold
from replays.views import event_for
from runtime.checkpoints import closes_phase, kept
from runtime.context import Context

log = logging.getLogger("arbiter.streams")

MAX_BEHIND = 256       # events queued for one follower before it is dropped
PASSED = 64            # hashes of the last events a feed passed on: how it tells a repeated notice from a lost seq
RETRY_S = 1.0          # between attempts to subscribe again
CHECKPOINT_WAITS = (0.0, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0)  # s: the API keeps it just after its append
PAGE = 500             # events read from the store at a time while a feed catches up
END = object()         # the game is over: after its last event, the stream ends
DROPPED = object()     # the follower fell too far behind


@dataclass(frozen=True)
class Signed:
    """The game's signed checkpoint at ``seq`` (an event that closed a phase), as the JSON the streams carry."""

    seq: int
    body: bytes


def signed(seq: int, head_hash: str, note: str) -> Signed:
    return Signed(seq, orjson.dumps({"head_hash": head_hash, "note": note, "seq": seq}, option=orjson.OPT_SORT_KEYS))


@dataclass(frozen=True)
class Rewind:
    """The log went back: what the follower was given after ``seq`` is gone, and the log's events after it follow."""

    seq: int


@dataclass(eq=False)
class Follower:
    """One open stream: its viewer and what is waiting to be written to it."""

    viewer: Viewer
    queue: asyncio.Queue = field(default_factory=lambda: asyncio.Queue(MAX_BEHIND + 1))
    dropped: bool = False

    def offer(self, item: Any) -> None:
        if self.dropped:
            return
        if item is DROPPED or (self.queue.qsize() >= MAX_BEHIND and item is not END):
            self.dropped = True
            while not self.queue.empty():  # free what it will never read
                self.queue.get_nowait()
            item = DROPPED
        self.queue.put_nowait(item)


@dataclass(eq=False)
class Feed:
    """A game followed in this process: its record as of ``record["seq"]`` and who follows it."""

    game_id: str
    record: Record | None = None
    followers: set[Follower] = field(default_factory=set)
    pending: list[Event] = field(default_factory=list)   # notices heard while the record was loading
    loaded: asyncio.Event = field(default_factory=asyncio.Event)   # cleared while the feed rewinds, too
    catching_up: bool = False
    catching_up_task: asyncio.Task | None = None
    passed: dict[int, str] = field(default_factory=dict)  # seq -> hash of the last PASSED events passed on
    signing: asyncio.Task | None = None  # the last checkpoint being looked for (streams send them in order)

    def passing(self, seq: int, digest: str) -> None:
        self.passed[seq] = digest
        self.passed.pop(seq - PASSED, None)

    @property
    def seq(self) -> int:
        return self.record["seq"] if self.record else 0

    @property
    def finished(self) -> bool:
        return bool(self.record) and self.record["status"] == "finished"


def shown(record: Record, event: Event, viewer: Viewer) -> bytes:
    """One event as ``viewer`` may see it, as the JSON both formats carry."""
    return orjson.dumps(event_for(record, event, viewer), option=orjson.OPT_SORT_KEYS)


class Hub:
    """Every feed of this process and the one subscription that moves them on."""

    def __init__(self, context: Context, on_append: Callable[[str, int], None] | None = None) -> None:
        self.context = context
        self.feeds: dict[str, Feed] = {}
        self.on_append = on_append  # told of every append heard (the webhook kicks)
        self.on_subscribed: Callable[[], None] | None = None  # told each time the subscription is (re)made
        self.subscribed = asyncio.Event()
        self.notices = 0
        self._sending: set[asyncio.Task] = set()  # checkpoints being looked for (held: a task needs a reference)

    # -- followers ------------------------------------------------------------------------------------
    async def follow(self, game_id: str, viewer: Viewer) -> tuple[Feed | None, Follower]:
        """Join the game's feed (made and loaded on its first follower).  The follower receives every event after
        ``feed.seq`` as of this call's return; what came before, the caller reads from the store.
        None: no such game."""
        follower, checked = Follower(viewer), False
        while True:
            feed = self.feeds.get(game_id)
            if feed is None:
                return await self._first(game_id, follower)
            while not feed.loaded.is_set():  # loading, or rewinding: join the feed as it will stand
                await feed.loaded.wait()
            if not checked and feed.record is not None:
                checked = True
                if not await self._still_the_log(feed):
                    continue  # it has rewound: join it as it is now
            if self.feeds.get(game_id) is feed:  # (not dropped meanwhile)
                if feed.record is None:
                    return None, follower
                feed.followers.add(follower)
                return feed, follower

    async def _first(self, game_id: str, follower: Follower) -> tuple[Feed | None, Follower]:
        """The game's first follower here: it makes the feed and loads its record."""
        feed = self.feeds[game_id] = Feed(game_id)
        feed.followers.add(follower)
        try:
            record = await asyncio.to_thread(self.context.loader.load, game_id)
        except BaseException:
            self._drop_feed(feed)
            raise
        if record is None:
            self._drop_feed(feed)
            return None, follower
        feed.record = record
        feed.passing(record["seq"], record["head_hash"])
        self._loaded(feed)
        return feed, follower

    async def _still_the_log(self, feed: Feed) -> bool:
        """Whether the log still holds the feed's last event.  Asked as a follower joins: one that read the log
        past a rollback the feed has not heard of yet, and then got the feed's rewind, would get events twice.
        If not, the feed rewinds before the follower joins."""
        seq = feed.seq
        held = await asyncio.to_thread(self.context.store.read_one, feed.game_id, seq)
        if held is not None and feed.passed.get(seq, held["hash"]) == held["hash"]:
            return True
        self._catch_up_soon(feed)
        if feed.catching_up_task is not None:
            await asyncio.shield(feed.catching_up_task)
        return False

    def _loaded(self, feed: Feed) -> None:
        """The feed's record is ready (first loaded, or rewound): new followers may join, and the notices heard
        meanwhile are offered."""
        feed.loaded.set()
        pending, feed.pending = feed.pending, []
        for event in pending:
            self._offer(feed, event)

    def leave(self, feed: Feed | None, follower: Follower) -> None:
        if feed is None:
            return
        feed.followers.discard(follower)
        if not feed.followers and self.feeds.get(feed.game_id) is feed:
            del self.feeds[feed.game_id]

    def _drop_feed(self, feed: Feed) -> None:
        if self.feeds.get(feed.game_id) is feed:
            del self.feeds[feed.game_id]
        feed.loaded.set()

    @property
    def followers(self) -> int:
        return sum(len(feed.followers) for feed in self.feeds.values())

    # -- the subscription -----------------------------------------------------------------------------
    async def run(self) -> None:
        """Hear every append, for as long as the process runs; a lost subscription is made again after a second,
        and every feed then reads what it missed meanwhile."""
        first = True
        while True:
            client = AsyncRedis.from_url(self.context.settings.redis_url, socket_connect_timeout=2)
            pubsub = client.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(keys.APPENDED)
                self.subscribed.set()
                if self.on_subscribed is not None:
                    self.on_subscribed()
                if not first:
                    for feed in list(self.feeds.values()):
                        self._catch_up_soon(feed)
                first = False
                async for message in pubsub.listen():
                    if message.get("type") == "message":
                        self._heard(message["data"])
            except (RedisError, OSError) as exc:
                self.subscribed.clear()
                log.warning("lost the append notices (%s); retrying in %.0f s", type(exc).__name__, RETRY_S)
            finally:
                await pubsub.aclose()
                await client.aclose()
            await asyncio.sleep(RETRY_S)

    def _heard(self, notice: bytes) -> None:
        try:
            seq_text, game_text, stored = notice.split(b" ", 2)
            game_id, seq = game_text.decode(), int(seq_text)
        except ValueError:
            return
        self.notices += 1
        if self.on_append is not None:
            self.on_append(game_id, seq)
        feed = self.feeds.get(game_id)
        if feed is None:
            return
        try:
            event = orjson.loads(stored)
            if not feed.loaded.is_set():
                feed.pending.append(event)
            else:
                self._offer(feed, event)
        except Exception as exc:  # one game's trouble must not end the subscription every follower depends on
            # Its type alone: a message could quote the event, and sealed orders stay out of the logs.
            log.warning("a feed failed on an event (%s); its followers are let go", type(exc).__name__)
            for follower in list(feed.followers):
                follower.offer(DROPPED)
            if self.feeds.get(game_id) is feed:
                del self.feeds[game_id]

    def _offer(self, feed: Feed, event: Event) -> None:
        """Fold the next event and hand it to every follower; an event from further on first brings what lies
        between from the store; one already passed on is ignored."""
        if feed.record is None:
            return
        if event["seq"] <= feed.seq:
            if feed.passed.get(event["seq"]) != event["hash"]:
                self._catch_up_soon(feed)  # not what was passed on at that seq: the log may have gone back
            return
        if event["seq"] > feed.seq + 1 or event["prev_hash"] != feed.record["head_hash"]:
            self._catch_up_soon(feed)
            return
        feed.record = fold([event], feed.record)
        feed.passing(event["seq"], event["hash"])
        by_viewer: dict[Viewer, tuple[int, bytes]] = {}
        for follower in list(feed.followers):
            item = by_viewer.get(follower.viewer)
            if item is None:
                item = by_viewer[follower.viewer] = (event["seq"], shown(feed.record, event, follower.viewer))
            follower.offer(item)
        if closes_phase(event):
            self._checkpoint_soon(feed, event)
        self._end_soon(feed)

    def _checkpoint_soon(self, feed: Feed, event: Event | None) -> None:
        """``event``'s checkpoint (None: only the end), after those the feed is still looking for."""
        feed.signing = task = asyncio.get_running_loop().create_task(self._send_checkpoint(feed, event, feed.signing))
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)

    def _end_soon(self, feed: Feed) -> None:
        """A finished game's end, after its last checkpoint (which may still be looked for)."""
        if not feed.finished:
            return
        if feed.signing is None:
            for follower in list(feed.followers):
                follower.offer(END)
        else:
            self._checkpoint_soon(feed, None)

    async def _send_checkpoint(self, feed: Feed, event: Event | None, previous: asyncio.Task | None) -> None:
        """Offer the checkpoint the API keeps with the game as ``event`` closes a phase, once it is there: it is
        signed and kept just after the append this process heard of, so it is looked for a few times (later events
        may pass it meanwhile).  After the feed's earlier ones, so they come in order, and the end after the last.
        One never found (an API stopped in between) is left out; the export and ``GET .../checkpoint`` have it."""
        if previous is not None:
            await asyncio.wait([previous])
        try:
            if event is not None:
                await self._look_for_checkpoint(feed, event["seq"], event["hash"])
        finally:
            if feed.signing is asyncio.current_task():
                feed.signing = None
                if feed.finished:
                    for follower in list(feed.followers):
                        follower.offer(END)

    async def _look_for_checkpoint(self, feed: Feed, seq: int, head: str) -> None:
        try:
            for wait in CHECKPOINT_WAITS:
                await asyncio.sleep(wait)
                note = (await asyncio.to_thread(kept, self.context, feed.game_id)).get((seq, head))
                if note is not None:
                    if feed.passed.get(seq) == head:  # (still the log the followers were given)
                        for follower in list(feed.followers):
                            follower.offer(signed(seq, head, note))
                    return
            log.warning("game %s: no checkpoint kept for seq %s; the stream goes on without it", feed.game_id, seq)
        except (RedisError, OSError) as exc:
            log.warning("game %s: could not read its checkpoints (%s)", feed.game_id, type(exc).__name__)

    def _catch_up_soon(self, feed: Feed) -> None:
        if not feed.catching_up and feed.loaded.is_set():
            feed.catching_up = True
            feed.catching_up_task = asyncio.get_running_loop().create_task(self._catch_up(feed))

    async def _catch_up(self, feed: Feed) -> None:
        """Read what the feed missed, from its own last event on: a log that no longer holds that event went back
        under the feed, which then rewinds."""
        try:
            while feed.record is not None:  # (a finished game's too: its last event may be what the log lost)
                events = await asyncio.to_thread(self.context.store.read, feed.game_id, feed.seq - 1, PAGE + 1)
                if not events or events[0]["seq"] != feed.seq or events[0]["hash"] != feed.record["head_hash"]:
                    await self._rewind(feed)
                    continue
                for event in events[1:]:
                    self._offer(feed, event)
                if len(events) <= PAGE or feed.finished:
                    break
        except (RedisError, OSError) as exc:
            log.warning("a feed could not catch up (%s); the next notice tries again", type(exc).__name__)
        finally:
            feed.catching_up = False

    async def _rewind(self, feed: Feed) -> None:
        """The log no longer holds the last event the feed passed on.  New followers wait while the record is
        folded afresh; the feed's followers go back to where the log and what they were given part, and get the
        log's events from there (the rollback's notice first), each judged by the game as it now stands."""
        assert feed.record is not None
        feed.loaded.clear()
        try:
            store, old = self.context.store, feed.record
            record = await asyncio.to_thread(self.context.loader.went_back, feed.game_id, old["seq"],
                                           old["head_hash"])
            if record is None:  # the game is gone from the store altogether
                for follower in list(feed.followers):
                    follower.offer(DROPPED)
                feed.record = None
                return
            kept = await asyncio.to_thread(parting, store, feed.game_id, feed.passed)
            kept = min(record["seq"], old["seq"] if kept is None else kept)
            events = await asyncio.to_thread(store.read, feed.game_id, kept, record["seq"] - kept)
            log.warning("game %s: the log no longer holds seq %s as followed; followers go back to seq %s and "
                        "get %s events from there", feed.game_id, old["seq"], kept, len(events))
            feed.record, feed.passed = record, {}
            for follower in list(feed.followers):
                follower.offer(Rewind(kept))
            by_viewer: dict[Viewer, list[tuple[int, bytes]]] = {}
            for follower in list(feed.followers):
                if follower.viewer not in by_viewer:
                    by_viewer[follower.viewer] = [(e["seq"], shown(record, e, follower.viewer)) for e in events]
                for item in by_viewer[follower.viewer]:
                    follower.offer(item)
            for event in events:
                feed.passing(event["seq"], event["hash"])
                if closes_phase(event):
                    self._checkpoint_soon(feed, event)
            feed.passing(record["seq"], record["head_hash"])
            self._end_soon(feed)
        finally:
            self._loaded(feed)
