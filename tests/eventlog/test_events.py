"""The hash chain: any change to any event is found at its seq."""
from __future__ import annotations

import copy
import hashlib

import orjson
import pytest

from eventlog.events import GENESIS, chain_break, check_chain, event_hash, seal


class _Text(str):
    pass


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


def _forged(events: list[dict], index: int, body: dict) -> list[dict]:
    """The log with event ``index`` replaced by ``body``, hashed over orjson's bytes as a forger could, and
    every later link re-sealed."""
    events = [*events[:index], {**body, "hash": hashlib.sha256(
        body["prev_hash"].encode() + orjson.dumps(body, option=orjson.OPT_SORT_KEYS)).hexdigest()}, *events[index + 1:]]
    for i in range(index + 1, len(events)):
        body = {k: v for k, v in events[i].items() if k != "hash"} | {"prev_hash": events[i - 1]["hash"]}
        events[i] = {**body, "hash": event_hash(body["prev_hash"], body)}
    return events


@pytest.mark.parametrize("odd", [1.5, _Text("gm"), 2**64 - 1], ids=["float", "str subclass", "u64"])
def test_an_event_that_is_not_canonical_json_is_named_by_its_seq(odd: object) -> None:
    """Hashing orjson's bytes of a float or a str subclass does not make it canonical: the check names the event.
    The largest whole number orjson writes is plain data, and passes."""
    events = _chain(6)
    body = {k: v for k, v in events[3].items() if k != "hash"} | {"actor": odd}
    broken = chain_break(_forged(events, 3, body))
    if type(odd) is int:
        assert broken is None
    else:
        assert broken is not None and broken["seq"] == 4 and "not canonical" in broken["problem"]


def test_the_first_break_is_named_whichever_check_finds_it() -> None:
    """The bodies' canonical bytes are made together (one plainness walk): still, of several breaks the first is
    named, and in one event the checks' order holds (links, canonical bytes, then the hash)."""
    floated, prev = [], GENESIS
    for seq in range(1, 9):  # every link hashed over orjson's bytes, as a forger could: events 3 and 6 are not plain
        body = {"seq": seq, "type": "note", "actor": _Text("gm") if seq == 6 else "gm",  # orjson refuses it
                "at": "2026-01-01T00:00:00.000000Z", "data": {"n": 0.5 if seq == 3 else seq},  # the walk does
                "prev_hash": prev}
        written = orjson.dumps(body, option=orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_SUBCLASS, default=str)
        prev = hashlib.sha256(prev.encode() + written).hexdigest()
        floated.append({**body, "hash": prev})
    not_plain = {"seq": 3, "problem": "event is not canonical JSON: floats are not allowed in canonical data"}
    assert check_chain(floated) == not_plain
    assert check_chain(floated[3:], 4, floated[2]["hash"])["seq"] == 6  # the one orjson refuses
    changed = copy.deepcopy(floated)
    changed[1]["data"]["n"] = 99  # a hash that does not match, before the event that is not canonical
    assert check_chain(changed) == {"seq": 2, "problem": "hash does not match the event's content"}
    rehashed = copy.deepcopy(floated)
    rehashed[2]["hash"] = "f" * 64  # not canonical and a wrong hash: canonical bytes are checked first
    assert check_chain(rehashed) == not_plain
    relinked = floated[:2] + [{**floated[2], "prev_hash": "0" * 64}] + floated[3:]  # the link is checked first
    assert check_chain(relinked) == {"seq": 3, "problem": "prev_hash does not match the previous event's hash"}


def test_an_event_that_is_not_an_object_is_named_after_the_links_before_it() -> None:
    events = _chain(6)
    assert check_chain(events[:3] + [["not", "an", "event"]] + events[4:]) == {
        "seq": 4, "problem": "event is not an object"}
    relinked = events[:2] + [{**events[2], "prev_hash": "0" * 64}, None]
    assert check_chain(relinked) == {"seq": 3, "problem": "prev_hash does not match the previous event's hash"}
    assert check_chain([None]) == {"seq": 1, "problem": "event is not an object"}


def test_a_part_of_a_log_is_checked_from_where_it_starts() -> None:
    events = _chain(6)
    assert check_chain(events[3:], 4, events[2]["hash"]) is None
    assert check_chain(events[3:], 4, GENESIS) == {
        "seq": 4, "problem": "prev_hash does not match the previous event's hash"}


def test_what_a_game_id_can_be() -> None:
    from eventlog.keys import plausible_game_id

    assert all(plausible_game_id(g) for g in ("g", "g" * 64, "a_b-C9", "spiel-ü", "ゲーム"))
    assert not any(plausible_game_id(g) for g in ("", "g" * 65, "a.b", "a/b", "a b", "g\n", "*", "g:1", "{g}"))
