"""``resolve_applied`` takes the play ``validate`` just made of the same order on the same state (an audit and
the service check an order, record it with ``apply_action``, then resolve it) instead of playing it again.
That must never change a result: a resolution from validate's play is byte for byte the one played afresh,
and validate's play serves only the state ``apply_action`` made from the state it checked, with that order."""
from __future__ import annotations

import copy
from functools import cache
from typing import Any
from unittest import mock

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines.contract import RuleError
from engines.driver import play_bots, player_list
from engines.rng import Rng
from engines.sxyzm_cyclone import ENGINE
from engines.sxyzm_cyclone import engine as cyclone
from engines.sxyzm_cyclone.bots import random_moves
from engines.sxyzm_cyclone.rules import legal_moves

State = dict[str, Any]
SEED = "checked-play"


@cache
def _game_states(case: int, seed: int) -> list[State]:
    """The states awaiting a turn order in a bot game of a simulation case."""
    spec = ENGINE.simulation_cases[case]
    players = player_list(spec["players"], spec.get("fields"))
    played = play_bots(ENGINE, spec["options"], players, f"{SEED}-{seed}", bot_seed=f"bots-{seed}")
    return [s for s in played.states if (phase := ENGINE.phase(s)) is not None and phase.awaiting]


@st.composite
def turns(draw: st.DrawFn) -> tuple[State, str, dict[str, Any]]:
    """A state awaiting a turn, its player, and a turn order: a random legal one, sometimes changed (cut
    short, a move replaced by any move of the position) so that it may break a rule."""
    states = _game_states(draw(st.integers(0, len(ENGINE.simulation_cases) - 1)), draw(st.integers(0, 2)))
    state = draw(st.sampled_from(states))
    colour = state["current"]
    player = ENGINE.phase(state).awaiting[0]
    moves = random_moves(state, colour, state["roll"], Rng(SEED, "order", draw(st.integers(0, 10**6))))
    if moves and draw(st.booleans()):
        if draw(st.booleans()):
            moves = moves[:draw(st.integers(0, len(moves) - 1))]
        else:
            anything = legal_moves(state, colour) + [{"cube": "blue-1", "toward": "red"}]
            moves[draw(st.integers(0, len(moves) - 1))] = dict(draw(st.sampled_from(anything)))
    return state, player, {"type": "turn", "moves": moves}


def _resolved(state: State) -> bytes:
    """``resolve_applied`` of the state: its outcome and the state after it, as bytes."""
    outcome, after = ENGINE.resolve_applied(state, Rng(SEED, "phase", state["turn"]))
    return orjson.dumps([outcome, after], option=orjson.OPT_SORT_KEYS)


def _played_afresh(state: State) -> bytes:
    cyclone._last.checked = None
    with mock.patch.object(cyclone, "_play_turn", wraps=cyclone._play_turn) as play:
        resolved = _resolved(state)
    assert play.call_count == 1
    return resolved


def _validated(state: State, player: str, action: dict[str, Any]) -> bool:
    try:
        ENGINE.validate(state, player, action)
    except RuleError:
        return False
    return True


def _resolved_counting_plays(state: State) -> tuple[bytes, int]:
    with mock.patch.object(cyclone, "_play_turn", wraps=cyclone._play_turn) as play:
        resolved = _resolved(state)
    return resolved, play.call_count


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(turns())
def test_a_checked_order_resolves_from_validates_play_exactly_as_played_afresh(turn: tuple) -> None:
    state, player, action = turn
    cyclone._last.checked = None
    if not _validated(state, player, action):
        assert cyclone._last.checked is None  # nothing kept from a refused order
        return
    applied = ENGINE.apply_action(state, player, action)
    resolved, plays = _resolved_counting_plays(applied)
    assert plays == 0
    assert resolved == _played_afresh(applied)
    outcome, after = orjson.loads(resolved)
    assert orjson.dumps(ENGINE.apply_outcome(applied, outcome), option=orjson.OPT_SORT_KEYS) == \
        orjson.dumps(after, option=orjson.OPT_SORT_KEYS)
    ENGINE.validate(state, player, action)
    _resolved(applied)
    assert _resolved_counting_plays(applied) == (resolved, 1)  # validate's play serves one resolution


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(turns(), turns(), st.data())
def test_validates_play_never_serves_another_state_or_order(turn: tuple, other: tuple, data: st.DataObject) -> None:
    state, player, action = turn
    if not _validated(state, player, action):
        return
    kind = data.draw(st.sampled_from(["equal copy of a value", "equal strings", "another turn"]))
    if kind == "equal copy of a value":  # equal, but not the state validate checked
        containers = sorted(k for k, v in state.items() if k != "order" and type(v) in (dict, list))
        key = data.draw(st.sampled_from(containers))
        changed = {**state, key: copy.deepcopy(state[key])}
        applied = ENGINE.apply_action(changed, player, action)
    elif kind == "equal strings":  # the same order, read again (as from JSON): equal strings, other objects
        if not action["moves"]:
            return
        applied = ENGINE.apply_action(state, player, action)
        applied["order"] = [{k: "".join(list(v)) for k, v in move.items()} for move in applied["order"]]
    else:
        other_state, other_player, other_action = other
        if other_state is state and not other_action["moves"] and not action["moves"]:
            return  # the same (empty) order on the same state
        applied = ENGINE.apply_action(other_state, other_player, other_action)
    expected = _played_afresh(applied)
    ENGINE.validate(state, player, action)
    resolved, plays = _resolved_counting_plays(applied)
    assert plays == 1
    assert resolved == expected


def _resolution_or_error(state: State) -> tuple[bytes | str, int]:
    """``_resolved_counting_plays``, or the error's type when the order cannot be played on the state."""
    try:
        return _resolved_counting_plays(state)
    except Exception as exc:  # an order recorded on a state it was not checked on may name a cube not there
        return type(exc).__name__, 1


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(turns(), turns())
def test_validates_play_never_serves_its_order_recorded_on_another_state(turn: tuple, other: tuple) -> None:
    """Rule: a turn is played in the position it resolves in.  The very order validate checked, recorded
    with apply_action on another state, is played there afresh."""
    state, player, action = turn
    other_state = other[0]
    if other_state is state:
        return
    cyclone._last.checked = None
    expected = _resolution_or_error(ENGINE.apply_action(other_state, player, action))
    if not _validated(state, player, action):
        return
    assert _resolution_or_error(ENGINE.apply_action(other_state, player, action)) == expected
