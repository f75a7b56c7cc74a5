"""``resolve_applied`` hands the audit the state after each outcome, built from what resolving played (a round's
hands, the robot race's last round, the accusations' score) instead of applying the outcome again.  Only speed:
the outcome must be ``resolve``'s, and the state, once round-tripped, exactly ``apply_outcome`` of the outcome
round-tripped (rules 5-14: new hands, squares, places and restitution; rule 8 forfeits; the Tarnished drugs),
or None where applying would raise.  The audit folds that state as it is, with no round trip, so it must already be
in round-trip form (sorted keys, exact JSON types) whenever the state resolved from is as the audit has it: the
last state folded, with the orders of the phase added by ``apply_action`` in whatever key order the log has."""
from __future__ import annotations

import copy
import functools
import zlib
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines.canonical import canonical_json, in_roundtrip_form, roundtrip
from engines.driver import play_bots, player_list
from engines.golden_strider import ENGINE
from engines.rng import Rng
from tests.forgery import reversed_keys

# Every variant and both rule 8 modes, with some orders missed (rule 13) and, below, players ejected.
CASES = [
    {"options": {"race_length": 30}, "players": 6},
    {"options": {"race_length": 30, "seven_turn_rule": "at_expiry"}, "players": 10},
    {"options": {"race_length": 30, "seven_turn_rule": "ahead", "free_rounds": 0}, "players": 7},
    {"options": {"variant": "steeplechase", "race_length": 35}, "players": 8},
    {"options": {"variant": "tarnished", "race_length": 40}, "players": 4},
    {"options": {"variant": "tarnished", "race_length": 30, "seven_turn_rule": "at_expiry"}, "players": 5},
    {"options": {"variant": "robot"}, "players": 8},
]


def _skip_some(number: int, actor: str) -> bool:
    return zlib.crc32(f"{number} {actor}".encode()) % 6 == 0


@functools.lru_cache(maxsize=1)
def _states() -> tuple[dict[str, Any], ...]:
    """Every state a phase resolved from in bot games of every case, and each with its second player ejected."""
    found = []
    for case in CASES:
        players = player_list(case["players"])
        for seed in ("applied-a", "applied-b"):
            played = play_bots(ENGINE, case["options"], players, seed, skip=_skip_some if seed.endswith("b") else None)
            for state, record in zip(played.states, played.records):  # states[i]: the state before records[i]
                if record["kind"] == "outcome":
                    found += [state, ENGINE.eject(state, "p2")]
                    if state["options"]["variant"] == "tarnished" and state["stage"] == "round":
                        found.append(_on_energiza(state))
    return tuple(found)


def _on_energiza(state: dict[str, Any]) -> dict[str, Any]:
    """The state with every runner on Energiza, adding 2 and asking for the finishing boost (the bots never do)."""
    state = copy.deepcopy(state)
    for runner in state["runners"]:
        if runner["cards"] is not None:
            runner["drug"] = "energiza"
    for order in state["orders"].values():
        order.update(energiza=2, boost=4, drug=order.get("drug") and "energiza")
    return state


def _stored(make: Any) -> str:
    """The state ``make()`` gives, as storage gives it back (repr: types and key order too), or what it raises."""
    try:
        return repr(roundtrip(make()))
    except Exception as exc:
        return f"raised {type(exc).__name__}"


def _check(state: dict[str, Any]) -> str:
    """What ``resolve_applied`` gave ("state", "none" or "raised"); fails unless it answers as resolve and
    apply_outcome do."""
    rng = Rng("applied", "phase", 3)
    try:
        expected = ENGINE.resolve(state, rng)
    except Exception as exc:
        raised: Exception | None = exc
    else:
        raised = None
    frozen = copy.deepcopy(state)
    try:
        outcome, after = ENGINE.resolve_applied(state, Rng("applied", "phase", 3))
    except Exception as exc:
        assert raised is not None and type(exc) is type(raised) and str(exc) == str(raised)
        return "raised"
    assert raised is None and repr(outcome) == repr(expected)
    assert state == frozen, "resolve_applied changed its input"
    if after is None:
        return "none"
    try:
        stored = roundtrip(outcome)
    except Exception:  # no JSON form (a number past 64 bits): nothing the audit could match and fold
        return "state"
    applied = ENGINE.apply_outcome(state, stored)  # raising here fails the test: the state given must be None
    assert _stored(lambda: after) == _stored(lambda: applied)
    if _as_audited(state):  # then folded as it is: it must be the round trip itself
        assert in_roundtrip_form(after), "resolve_applied gave a state out of round-trip form"
        assert repr(after) == repr(roundtrip(applied))
    return "state"


APPLIED = ("orders", "accusations", "algorithms")  # what apply_action adds to a state, from the log's orders


def _as_audited(state: dict[str, Any]) -> bool:
    """The state is as the audit resolves it: in round-trip form but for what ``apply_action`` added (JSON data, its
    keys in any order)."""
    rest = {key: value for key, value in state.items() if key not in APPLIED}
    try:
        return list(state) == sorted(state) and in_roundtrip_form(rest) and in_roundtrip_form(
            roundtrip([state.get(key) for key in APPLIED]))
    except Exception:  # not JSON data (a number past 64 bits): no log holds it
        return False


def _as_logged(state: dict[str, Any]) -> dict[str, Any]:
    """``state`` as the audit would have it (``_as_audited``) where it is JSON data, with what ``apply_action`` added
    in reversed key order."""
    try:
        stored = roundtrip(state)
    except Exception:
        return state
    for key in APPLIED:
        if key in stored:
            stored[key] = reversed_keys(stored[key])
    return stored


SEEDS = ("form-a", "form-b", "form-c")  # "-b": some orders missed (rule 13)
RESOLVING_CASES = [(case, seed) for case in [*ENGINE.simulation_cases, *CASES] for seed in SEEDS]


@pytest.mark.parametrize("reverse", [False, True], ids=["as-sent", "keys-reversed"])
@pytest.mark.parametrize("case,seed", RESOLVING_CASES)
def test_the_state_from_resolving_is_already_in_round_trip_form(case: dict[str, Any], seed: str, reverse: bool) -> None:
    """Every phase of bot games in every case, resolved as the audit resolves them: from the state it folded last
    (the one resolving gave, as it is, or the outcome applied and round-tripped), with each order applied as the log
    holds it (also with every dict of it in reversed key order)."""
    players = player_list(case["players"], case.get("fields"))
    played = play_bots(ENGINE, case["options"], players, seed, skip=_skip_some if seed.endswith("b") else None)
    state = played.states[0]
    given = 0
    for record in played.records:
        if record["kind"] == "action":
            action = reversed_keys(record["action"]) if reverse else record["action"]
            state = ENGINE.apply_action(state, record["actor"], action)
            continue
        outcome, after = ENGINE.resolve_applied(state, Rng(seed, "phase", record["number"]))
        assert canonical_json(outcome) == canonical_json(record["outcome"])
        applied = roundtrip(ENGINE.apply_outcome(state, roundtrip(outcome)))
        if after is not None:
            given += 1
            assert in_roundtrip_form(after), f"out of round-trip form after phase {record['number']}"
            assert repr(after) == repr(applied)
        state = applied if after is None else after
    assert state == played.final and given


def test_rules_5_to_14_the_state_from_resolving_is_the_outcome_applied_in_every_variant() -> None:
    states = _states()
    stages = {s["stage"] for s in states}
    assert stages == {"round", "accusation", "robots"}
    assert all(_check(state) == "state" for state in states)  # well-formed games: every state is built while resolving
    after = [ENGINE.resolve_applied(state, Rng("applied", "phase", 3))[1] for state in states]
    assert any(r["withdrawn"] for s in after for r in s["runners"])
    assert any(row.get("forfeited") for s in after for h in s["history"] for row in h["rows"])  # rule 8 at expiry
    assert any(row.get("trip") for s in after for h in s["history"] for row in h["rows"])  # steeplechase
    assert any(r["boost_used"] for s in after for r in s["runners"])  # Energiza's boost
    assert {s["stage"] for s in after} == {"round", "accusation", "over"}


ODD = [None, True, False, -1, 0, 1, 2, 3, 7, 10, 11, 20, 2**70, 0.5, 1.5, 3.0, "3", "6/0", "x", "energiza", "enduron",
       "clean", "bank", [], {}, [6, 6, 6, 6, 6], [True, 6, 6, 6, 6], [7, 7, 6, 5, 5], [6, 6, 6, 6, 6.0]]


def test_rule_2_a_first_hand_that_cannot_be_read_back_from_its_labels_gets_no_state() -> None:
    """Starting cards come from the orders or the default cards: a value that is not a whole number (True, 6.0)
    is written into the labels as "True/0" or "6.0/0", which the outcome applied cannot read back."""
    firsts = [s for s in _states() if s["stage"] == "round" and s["round"] == 1 and s["orders"]]
    assert firsts
    for state in firsts:
        for odd in ([True, 6, 6, 6, 6], [6, 6, 6, 6, 6.0]):
            spoiled = copy.deepcopy(state)
            for order in spoiled["orders"].values():
                order.update(cards=odd, card="6/0", move=3, bank=3)
            spoiled["options"]["default_cards"] = odd
            assert _check(spoiled) == "none"
    moves = [s for s in _states() if s["stage"] == "round" and s["orders"] and s["round"] > 1]
    for state in moves:  # a half-point split: the replacement card's value is not a whole number
        spoiled = copy.deepcopy(state)
        for order in spoiled["orders"].values():
            order["bank"] = order["bank"] + 0.5
            order["move"] = order["move"] - 0.5
        assert _check(spoiled) == "none"


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_spoiled_state_gets_the_applied_state_or_none(data: st.DataObject) -> None:
    """Odd values where orders, options, the round and runners hold data (as a tampered log can make): the state
    given must still be the outcome applied, and None wherever applying raises.  A state's cards are always whole
    numbers (read from labels), so hands are spoiled only with whole-number cards, and starting values freely."""
    state = copy.deepcopy(data.draw(st.sampled_from(_states())))
    for _ in range(data.draw(st.integers(1, 3))):
        where = data.draw(st.sampled_from(["order", "option", "round", "runner", "hand", "forget", "unset"]))
        if where == "order" and state["orders"]:
            order = state["orders"][data.draw(st.sampled_from(sorted(state["orders"])))]
            key = data.draw(st.sampled_from(["card", "move", "bank", "deduct", "energiza", "boost", "cards", "drug"]))
            order[key] = data.draw(st.sampled_from(ODD))
        elif where == "option":
            key = data.draw(st.sampled_from(sorted(state["options"])))
            state["options"][key] = data.draw(st.sampled_from(ODD + ["ahead", "at_expiry", "past_post"]))
        elif where == "round":
            state["round"] = data.draw(st.sampled_from([1, 2, 8, 9, 30, 100, True, "2"]))
        elif where == "runner":
            runner = data.draw(st.sampled_from(state["runners"]))
            key = data.draw(st.sampled_from(["square", "owed", "drug", "boost_used", "withdrawn", "cards"]))
            runner[key] = None if key == "cards" else data.draw(st.sampled_from(ODD))
        elif where == "forget":  # a runner without a field only the standings read, or one the round sets
            key = data.draw(st.sampled_from(["name", "position", "cf", "drug", "boost_used"]))
            data.draw(st.sampled_from(state["runners"])).pop(key, None)
        elif where == "unset":  # a state without the mark the last round sets
            state.pop("race_over", None)
        else:
            runner = data.draw(st.sampled_from(state["runners"]))
            cards = st.fixed_dictionaries({"value": st.integers(0, 10), "turn": st.integers(0, 12)})
            runner["cards"] = data.draw(st.lists(cards, min_size=1, max_size=6))
    _check(_as_logged(state))


@pytest.mark.parametrize("key", ["position", "cf", "drug", "boost_used", "race_over"])
def test_a_field_the_round_sets_that_the_state_lacks_goes_where_it_sorts(key: str) -> None:
    """A runner (or the state) without a field the round sets: applying the outcome adds it, so the state given
    must have it too, in its sorted place (the round trip's), not last."""
    for state in _states():
        state = copy.deepcopy(state)
        (state["runners"][0] if key != "race_over" else state).pop(key)
        _check(state)
