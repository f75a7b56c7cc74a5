"""A log checked a part at a time (``eventlog.chained``, for exports that stream in) finds what the whole-log check
finds: the same first broken link, whatever the part size."""
from __future__ import annotations

import copy

import pytest

from eventlog.chained import Chained
from eventlog.events import check_chain
from tests.eventlog.test_events import _chain


def _streamed(events: list, part: int) -> tuple[list[int], Chained]:
    chain = Chained(iter(events), part)
    seen = list(chain)
    chain.finish()
    return [position for position, _ in seen], chain


@pytest.mark.parametrize("part", [1, 2, 3, 7, 50])
@pytest.mark.parametrize("spoil", [None, 1, 3, 7, 8, 14, 20])
def test_a_streamed_check_finds_what_the_whole_check_finds(part: int, spoil: int | None) -> None:
    events = _chain(20)
    if spoil is not None:
        events = copy.deepcopy(events)
        events[spoil - 1]["data"]["n"] = 0.5  # not canonical JSON either: not plain
    broken = check_chain(events)
    positions, chain = _streamed(events, part)
    assert chain.broken == broken
    assert positions == list(range(1, (broken["seq"] if broken else 21)))
    assert (chain.count, chain.head_hash) == (20, events[-1]["hash"])


def test_a_break_after_where_the_reader_stopped_is_found_by_finish() -> None:
    events = _chain(10)
    events[8]["prev_hash"] = "0" * 64
    chain = Chained(iter(events), 2)
    next(iter(chain))  # the audit stopped at the first event (a fold error)
    chain.finish()
    assert chain.broken is not None and chain.broken["seq"] == 9 and chain.count == 10
