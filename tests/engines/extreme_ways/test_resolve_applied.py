"""``resolve_applied`` hands the audit the state after each outcome (``Engine.resolve_applied``): the outcome is
``resolve``'s, and the state is exactly ``apply_outcome`` of the outcome round-tripped, round-tripped.  The audit
folds that state as it is, so it must already be in round-trip form (sorted keys, exact JSON types) whenever the
state resolved from is as the audit has it: the last state folded, with the phase's orders added by
``apply_action`` in whatever key order the log holds them (a forged log may hold any order, and any value
``validate`` lets through)."""
from __future__ import annotations

import copy
import re
import zlib
from collections import Counter
from typing import Any

import pytest

from engines.canonical import canonical_json, in_roundtrip_form, roundtrip
from engines.contract import GM, State
from engines.driver import load_action, play_bots, player_list, start
from engines.extreme_ways import ENGINE
from engines.rng import Rng
from tests.forgery import reversed_keys

# Every option that shapes an outcome: announcements, leftover packets, the Rebound twist, both EC rules and
# tie-break counts, ten or more rounds (a randomised round's key "10" sorts before "2"), a narrow range (ties,
# so EC votes), buying gold on and off.
CASES = [
    *ENGINE.simulation_cases,
    {"options": {"bidding_rounds": 11, "rebound_twist": True, "announce": "winners_and_amounts",
                 "reveal_leftover_packets": True}, "players": 7, "fields": [{"garnets": i % 4} for i in range(7)]},
    {"options": {"ec_rule": "earlier", "ec_tiebreak_garnets": "before_award", "move_range": 1, "bidding_rounds": 3},
     "players": 9},
    {"options": {"move_range": 1, "bidding_rounds": 2, "announce": "none", "allow_buy_gold": False,
                 "ec_exclude_token_holders": False}, "players": 12},
    {"options": {"move_range": 1, "bidding_rounds": 4, "rebound_twist": True, "reveal_leftover_packets": False},
     "players": 10, "fields": [{"garnets": 3}] * 10},
]
SEEDS = ("applied-a", "applied-b", "applied-c", "applied-d")


def _skip_some(number: int, actor: str) -> bool:
    """Some orders missed: bids default, rounds are randomised."""
    return zlib.crc32(f"{number} {actor}".encode()) % 5 == 0


def _gm_rulings(state: State, number: int) -> State:
    """GM corrections the audit folds too: a player's garnets set in every phase, and one player ejected."""
    players = state["players"]
    target = players[number % len(players)]
    state = ENGINE.apply_action(state, GM, {"type": "gm.set_garnets", "player_id": target, "garnets": number % 5})
    if number == 2:
        state = ENGINE.eject(state, players[-1])
    return state


def _forged(action: dict[str, Any]) -> dict[str, Any]:
    """The order with what ``validate`` does not look at added, its keys unsorted (a re-hashed log may hold it)."""
    action = {"zz": {"y": [{"b": 1, "a": None}], "x": True}, **action}
    if action.get("rebound") is not None:
        action["rebound"] = {"zz": {"b": "2", "a": [3]}, **action["rebound"], "aa": False}
    return action


def _as_logged(action: dict[str, Any], mode: str) -> dict[str, Any]:
    """The order as a log may hold it: as sent, every dict's keys reversed, or forged."""
    if mode == "reversed":
        return reversed_keys(action)
    if mode == "forged":
        return _forged(reversed_keys(action))
    return action


def _audit_like(case: dict[str, Any], seed: str, mode: str, gm: bool) -> Counter[str]:
    """Play bots as the audit folds their log: each phase resolved with ``resolve_applied`` from the state folded
    last (the one it gave, as it is, or the outcome applied and round-tripped), with the phase's orders applied
    as the log holds them.  Checks every resolution; counts the states given, by phase."""
    players = player_list(case["players"], case.get("fields"))
    state = start(ENGINE, case["options"], players, seed).final  # round-tripped, as the fold has it
    given: Counter[str] = Counter()
    number = 1
    while (phase := ENGINE.phase(state)) is not None:
        bots = Rng("bots", "phase", number)
        for actor in phase.awaiting:
            if seed.endswith(("b", "d")) and _skip_some(number, actor):
                continue
            action = ENGINE.bot_action(state, actor, bots.fork(actor))
            if action is None:
                continue
            action = load_action(ENGINE, action)
            ENGINE.validate(state, actor, action)
            state = ENGINE.apply_action(state, actor, _as_logged(action, mode))
        if gm:
            state = _gm_rulings(state, number)
        after = _checked(state, seed, number)
        if after is not None:
            given[phase.name] += 1
            state = after
        else:
            state = roundtrip(ENGINE.apply_outcome(state, roundtrip(ENGINE.resolve(state, Rng(seed, "phase", number)))))
        number += 1
    return given


def _checked(state: State, seed: str, number: int) -> State | None:
    """``resolve_applied`` of the state, failing unless it answers as ``resolve`` and ``apply_outcome`` do."""
    frozen = copy.deepcopy(state)
    try:
        expected = ENGINE.resolve(state, Rng(seed, "phase", number))
    except Exception as exc:  # resolve_applied raises just that
        with pytest.raises(type(exc), match=re.escape(str(exc))):
            ENGINE.resolve_applied(state, Rng(seed, "phase", number))
        return None
    outcome, after = ENGINE.resolve_applied(state, Rng(seed, "phase", number))
    assert repr(roundtrip(outcome)) == repr(roundtrip(expected))  # (canonical JSON refuses a forged order's float)
    assert state == frozen, "resolve_applied changed its input"
    if after is not None:
        applied = roundtrip(ENGINE.apply_outcome(state, roundtrip(outcome)))
        assert in_roundtrip_form(after), f"out of round-trip form after a {state['stage']} phase"
        assert repr(after) == repr(applied)  # repr: the types and key order too
    return after


@pytest.mark.parametrize("gm", [False, True], ids=["players", "with-gm"])
@pytest.mark.parametrize("mode", ["as-sent", "reversed", "forged"])
@pytest.mark.parametrize("case", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_the_state_from_resolving_is_the_outcome_applied_in_round_trip_form(
        case: dict[str, Any], mode: str, gm: bool) -> None:
    """Every phase of bot games, resolved as the audit resolves them, whatever the key order of the orders."""
    given: Counter[str] = Counter()
    for seed in SEEDS:
        given += _audit_like(case, seed, mode, gm)
    assert given["bidding"] and given["moving"], "a state is given for every auction and Moving Phase"


def test_every_kind_of_phase_gets_its_state() -> None:
    """The cases reach every phase: auctions, Moving Phases and EC votes all get a state from resolving."""
    given: Counter[str] = Counter()
    for case in CASES:
        for seed in SEEDS:
            given += _audit_like(case, seed, "reversed", True)
    assert set(given) == {"bidding", "moving", "ec_vote"}, given


def test_the_bots_games_resolve_to_the_recorded_outcomes() -> None:
    """The outcomes are the ones live play records (``play_bots`` resolves with ``resolve``)."""
    for case in CASES:
        players = player_list(case["players"], case.get("fields"))
        played = play_bots(ENGINE, case["options"], players, "applied-a")
        for index, record in enumerate(played.records):
            if record["kind"] == "outcome":
                outcome, _ = ENGINE.resolve_applied(played.states[index], Rng("applied-a", "phase", record["number"]))
                assert canonical_json(outcome) == canonical_json(record["outcome"])


@pytest.mark.parametrize("value", [{"z": 1, "a": 2}, [{"b": 1, "a": 0}], 2.5, "3", None, True, 2**70, -(2**64)])
def test_a_forged_garnet_count_gets_the_applied_state_or_none(value: Any) -> None:
    """``gm.set_garnets`` is checked for its player only: a re-hashed log may set any JSON value, which the state
    after an auction or an EC vote keeps (in form, or no state where that cannot be promised)."""
    for case in CASES[3:5]:
        players = player_list(case["players"], case.get("fields"))
        played = play_bots(ENGINE, case["options"], players, "applied-c")
        for index, record in enumerate(played.records):
            state = played.states[index]
            if record["kind"] != "outcome" or state["stage"] == "moving":
                continue  # the Moving Phase adds to each count: anything but a number raises there, as resolve does
            spoiled = ENGINE.apply_action(state, GM, {"garnets": value, "player_id": "p2", "type": "gm.set_garnets"})
            after = _checked(spoiled, "applied-c", record["number"])
            # A float cannot be promised in form, an int past 64 bits has none (the fold names it): no state given.
            assert (after is None) == (type(value) is float or type(value) is int and abs(value) >= 2**63)


@pytest.mark.parametrize("count", [1, True, 1.0, 2.5])
def test_a_forged_purchase_gets_the_applied_state_or_none(count: Any) -> None:
    """``validate`` compares a purchase's count with the garnets held, so a re-hashed log may buy with True or a
    float: the purchase and the buyer's gold keep it."""
    case = CASES[4]
    played = play_bots(ENGINE, case["options"], player_list(case["players"], case.get("fields")), "applied-d")
    tried = 0
    for index, record in enumerate(played.records):
        state = played.states[index]
        if record["kind"] != "outcome" or state["stage"] != "bidding":
            continue
        buyer = state["players"][index % len(state["players"])]
        state = ENGINE.apply_action(state, GM, {"garnets": 5, "player_id": buyer, "type": "gm.set_garnets"})
        order = reversed_keys({"garnets": count, "type": "buy_gold"})
        ENGINE.validate(state, buyer, order)
        after = _checked(ENGINE.apply_action(state, buyer, order), "applied-d", record["number"])
        assert (after is None) == (type(count) is float)
        tried += 1
    assert tried


@pytest.mark.parametrize("case,seed", [(CASES[0], "votes-4"), (CASES[6], "votes-2")], ids=["12-players", "10-players"])
def test_an_ec_vote_whose_voters_do_not_come_in_sorted_order(case: dict[str, Any], seed: str) -> None:
    """Voters are Token holders in join order ("p9" before "p11"): the ballots the state keeps are in sorted order."""
    for mode in ("as-sent", "reversed"):
        assert _audit_like(case, seed, mode, False)["ec_vote"]


def test_gold_that_is_not_a_whole_number_gets_no_state() -> None:
    """A forged log's options may start everyone on 50.5 gold (the audit does not load them through the schema):
    the state after an auction keeps the gold of those who paid nothing as it is, a float, so none is given."""
    case = CASES[3]
    played = play_bots(ENGINE, case["options"], player_list(case["players"], case.get("fields")), "applied-a")
    for index, record in enumerate(played.records):
        state = played.states[index]
        if record["kind"] == "outcome" and state["stage"] == "bidding":
            spoiled = {**state, "gold": {p: gold + 0.5 for p, gold in state["gold"].items()}}
            assert _checked(spoiled, "applied-a", record["number"]) is None
