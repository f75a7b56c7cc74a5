"""A log's hash chain checked as its events stream in, a part at a time, so that an audit needs no list of them.

``Chained`` reads ``PART`` events ahead, checks them with ``check_chain`` from where the last part ended, and hands
them on one by one: the audit folds a part while the next is still in the file.
"""
from __future__ import annotations

from itertools import islice
from typing import Any, Iterable, Iterator

from eventlog.events import GENESIS, Event, check_chain

PART = 256  # events read ahead: about 2 MiB of Python objects


class Chained:
    """Iterate for ``(position, event)``: each event before the first broken link (``broken`` then names it).
    ``finish`` reads the rest, so that ``count`` and ``head_hash`` describe the whole log and a break after the
    audit stopped is still found."""

    def __init__(self, events: Iterable[Any], part: int = PART) -> None:
        self._events = iter(events)
        self._part = part
        self.broken: dict[str, Any] | None = None
        self.count = 0  # events read
        self.head_hash: Any = None  # the last event's "hash", whatever it is
        self._prev = GENESIS  # the last checked event's hash

    def _parts(self) -> Iterator[tuple[int, list[Any]]]:
        """Each part read: the seq of its first event and its events up to a broken link."""
        while part := list(islice(self._events, self._part)):
            first = self.count + 1
            self.count += len(part)
            self.head_hash = part[-1].get("hash") if isinstance(part[-1], dict) else None
            if self.broken is not None:
                continue  # only counted: nothing after a broken link is checked
            broken = check_chain(part, first, self._prev)
            if broken is not None:
                self.broken = broken
                yield first, part[:broken["seq"] - first]
            else:
                self._prev = part[-1]["hash"]
                yield first, part

    def __iter__(self) -> Iterator[tuple[int, Event]]:
        for first, part in self._parts():
            yield from enumerate(part, start=first)

    def finish(self) -> None:
        """Read and check what the iteration left."""
        for _ in self._parts():
            pass
