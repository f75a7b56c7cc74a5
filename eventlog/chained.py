"""A log's hash chain checked as its events stream in, a part at a time, so that an audit needs no list of them.

``check_chain`` over the whole log is the fast way to check it (one plainness walk, the hashes in one sweep), but
needs every event at once.  ``Chained`` reads ``PART`` events ahead, checks them with ``check_chain`` from where the
last part ended, and hands them on one by one: the audit folds a part while the next is still in the file.
"""
from __future__ import annotations

from itertools import islice
from typing import Any, Iterable, Iterator

from eventlog.events import GENESIS, Event, check_chain

PART = 256  # events read ahead: about 2 MiB of Python objects, and as fast per event as the whole log at once


class Chained:
    """Iterate for ``(position, event, plain)``: each event before the first broken link (``broken`` then names it),
    and whether every event up to it is plain JSON (``check_chain``'s count).  ``finish`` reads the rest, so that
    ``count`` and ``head_hash`` describe the whole log and a break after the audit stopped is still found."""

    def __init__(self, events: Iterable[Any], part: int = PART) -> None:
        self._events = iter(events)
        self._part = part
        self.broken: dict[str, Any] | None = None
        self.count = 0  # events read
        self.head_hash: Any = None  # the last event's "hash", whatever it is
        self._prev = GENESIS  # the last checked event's hash
        self._plain = True  # every event so far is plain JSON

    def _parts(self) -> Iterator[tuple[int, list[Any], int]]:
        """Each part read: the seq of its first event, its events up to a broken link, and how many of them from
        the first are plain."""
        while part := list(islice(self._events, self._part)):
            first = self.count + 1
            self.count += len(part)
            self.head_hash = part[-1].get("hash") if isinstance(part[-1], dict) else None
            if self.broken is not None:
                continue  # only counted: nothing after a broken link is checked
            broken, plain = check_chain(part, first, self._prev)
            if broken is not None:
                self.broken = broken
                yield first, part[:broken["seq"] - first], plain
            else:
                self._prev = part[-1]["hash"]
                yield first, part, plain

    def __iter__(self) -> Iterator[tuple[int, Event, bool]]:
        for first, part, plain in self._parts():
            for offset, event in enumerate(part):
                yield first + offset, event, self._plain and offset < plain
            self._plain = self._plain and plain == len(part)

    def finish(self) -> None:
        """Read and check what the iteration left."""
        for _ in self._parts():
            pass
