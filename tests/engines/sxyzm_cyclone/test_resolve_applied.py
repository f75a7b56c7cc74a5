"""``resolve_applied`` hands the audit the state after each turn: the board the turn was played on (by validate, kept
for the resolution, or played afresh), closed as ``apply_outcome`` closes it.  The audit folds that state as it is,
with no round trip, so it must already be in round-trip form (sorted keys, exact JSON types, lists) and be exactly
``apply_outcome`` of the outcome, round-tripped, whenever the state resolved from is as the audit has it: the last
state folded, with the turn order added by ``apply_action`` from the log's action, its keys in any order."""
from __future__ import annotations

import copy
import zlib
from typing import Any
from unittest import mock

import pytest

from engines.canonical import canonical_json, in_roundtrip_form, roundtrip
from engines.driver import load_action, player_list, start
from engines.rng import Rng
from engines.sxyzm_cyclone import ENGINE
from engines.sxyzm_cyclone import engine as cyclone
from tests.forgery import reversed_keys

State = dict[str, Any]

# The simulation cases, and turns missed (pass and random defaults), a player ejected mid-game, a long path.
CASES = [
    *ENGINE.simulation_cases,
    {"options": {"missed_turn": "random", "side": "four-colour"}, "players": 2},
    {"options": {"missed_turn": "random", "path_length": 8}, "players": 4},
]
SEEDS = ("form-a", "form-b", "form-c")  # "-b": some turns missed; "-c": the second player ejected at phase 9
EJECT_AT = 9


def _skip_some(seed: str, number: int, actor: str) -> bool:
    return seed.endswith("b") and zlib.crc32(f"{number} {actor}".encode()) % 5 == 0


def _resolve_as_audited(case: dict[str, Any], seed: str, reverse: bool, validated: bool,
                        kept: list[bool]) -> tuple[int, int]:
    """Bot games resolved as the audit resolves them: from the state it folded last (the one resolving gave, as it
    is, or the outcome applied and round-tripped), each order checked by ``validate`` (``validated``) and recorded
    by ``apply_action`` as the log holds it (``reverse``: every dict of it in reversed key order).  Every state given
    must be the outcome applied, round-tripped, and already in that form.  Returns (states given, phases).
    ``kept``: what ``_checked_play`` appends to it while resolving (the reference resolutions' are dropped)."""
    players = player_list(case["players"], case.get("fields"))
    state = roundtrip(start(ENGINE, case["options"], players, seed).final)
    number = given = 0
    while (phase := ENGINE.phase(state)) is not None:
        number += 1
        assert number < 2000, "no end"
        bots = Rng("bots", "phase", number)
        for actor in phase.awaiting:
            if _skip_some(seed, number, actor):
                continue
            action = roundtrip(load_action(ENGINE, ENGINE.bot_action(state, actor, bots.fork(actor))))
            if reverse:
                action = reversed_keys(action)
            if validated:
                ENGINE.validate(state, actor, action)
            state = ENGINE.apply_action(state, actor, action)
        frozen = copy.deepcopy(state)
        outcome, after = ENGINE.resolve_applied(state, Rng(seed, "phase", number))
        assert state == frozen, "resolve_applied changed its input"
        mark = len(kept)
        assert canonical_json(outcome) == canonical_json(ENGINE.resolve(frozen, Rng(seed, "phase", number)))
        del kept[mark:]
        applied = roundtrip(ENGINE.apply_outcome(state, roundtrip(outcome)))
        if after is not None:
            given += 1
            assert in_roundtrip_form(after), f"out of round-trip form after phase {number}"
            assert repr(after) == repr(applied), f"not the outcome applied after phase {number}"
        state = applied if after is None else after
        if seed.endswith("c") and number == EJECT_AT and not state["over"]:
            state = roundtrip(ENGINE.eject(state, "p2"))  # the fold round-trips what eject gives
    return given, number


@pytest.mark.parametrize("validated", [True, False], ids=["validated", "unchecked"])
@pytest.mark.parametrize("reverse", [False, True], ids=["as-sent", "keys-reversed"])
@pytest.mark.parametrize("case,seed", [(case, seed) for case in CASES for seed in SEEDS])
def test_the_state_from_resolving_is_already_in_round_trip_form(case: dict[str, Any], seed: str, reverse: bool,
                                                                validated: bool) -> None:
    """Every turn of bot games in every case, resolved as the audit does: with the order validated first (then the
    resolution takes validate's play, kept) and without; also with the action's keys reversed."""
    kept = []
    real = cyclone._checked_play

    def spy(state: State) -> Any:
        played = real(state)
        kept.append(played is not None)
        return played

    with mock.patch.object(cyclone, "_checked_play", spy):
        given, phases = _resolve_as_audited(case, seed, reverse, validated, kept)
    assert given == phases  # every turn gives its state
    assert any(kept) == validated  # validate's play served the resolution exactly when it ran
    if validated:
        assert all(kept)  # every order resolved



@pytest.mark.parametrize("key", ["winners", "ended", "over"])  # set, never read (the last two: at the end)
def test_a_state_lacking_a_key_the_turn_sets_still_gives_the_state_in_form(key: str) -> None:
    """No game's state lacks one, but a state without a key the turn sets must not get it last (out of order)."""
    case = ENGINE.simulation_cases[2]
    state = roundtrip(start(ENGINE, case["options"], player_list(case["players"], case.get("fields")), "lacking").final)
    checked = 0
    for number in range(1, 2000):
        lacking = {name: value for name, value in state.items() if name != key}
        outcome, after = ENGINE.resolve_applied(lacking, Rng("lacking", "phase", number))
        applied = roundtrip(ENGINE.apply_outcome(lacking, roundtrip(outcome)))
        checked += 1
        assert after is None or (in_roundtrip_form(after) and repr(after) == repr(applied))
        outcome, state = ENGINE.resolve_applied(state, Rng("lacking", "phase", number))
        if state["over"]:
            break
    assert state["over"] and checked > 5
