"""The hash chain: any change to any event is found at its seq."""
from __future__ import annotations

import copy

from eventlog.events import GENESIS, chain_break, event_hash, seal


def _chain(n: int) -> list[dict]:
    events, prev = [], GENESIS
    for seq in range(1, n + 1):
        event = seal(seq, prev, "note", "gm", {"n": seq}, at="2026-01-01T00:00:00.000000Z")
        events.append(event)
        prev = event["hash"]
    return events


def test_hash_is_sha256_of_prev_hash_and_canonical_body() -> None:
    import hashlib
    import json

    event = seal(1, GENESIS, "note", "gm", {"b": 1, "a": "é"}, at="2026-01-01T00:00:00.000000Z")
    body = {k: v for k, v in event.items() if k != "hash"}
    text = GENESIS + json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert event["hash"] == hashlib.sha256(text.encode()).hexdigest() == event_hash(GENESIS, body)


def test_an_intact_chain_has_no_break() -> None:
    assert chain_break(_chain(5)) is None


def test_a_changed_payload_breaks_at_its_seq() -> None:
    events = _chain(5)
    events[2]["data"]["n"] = 99
    assert chain_break(events)["seq"] == 3


def test_a_recomputed_hash_still_breaks_the_next_link() -> None:
    events = _chain(5)
    events[2]["data"]["n"] = 99
    events[2]["hash"] = event_hash(events[2]["prev_hash"], {k: v for k, v in events[2].items() if k != "hash"})
    assert chain_break(events)["seq"] == 4


def test_a_removed_event_breaks_at_the_gap() -> None:
    events = _chain(5)
    del events[1]
    assert chain_break(events)["seq"] == 2


def test_reordered_events_break() -> None:
    events = _chain(4)
    swapped = copy.deepcopy(events)
    swapped[1], swapped[2] = swapped[2], swapped[1]
    assert chain_break(swapped)["seq"] == 2
