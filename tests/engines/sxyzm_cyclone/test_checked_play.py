"""What a play finds is kept for the next call in the same thread, and that must never change a result:

- ``resolve_applied`` takes the play ``validate`` just made of the same order on the same state (an audit and
  the service check an order, record it with ``apply_action``, then resolve it) instead of playing it again:
  byte for byte the resolution played afresh, and only for the state ``apply_action`` made from the state
  validate checked, with that order;
- the first move of a turn on a board equal to one the last play left without a winner (the same colours and
  bases) is not checked for a winner unless it puts a cube into a base: any other board is checked.
"""
from __future__ import annotations

import copy
import threading
from functools import cache
from typing import Any
from unittest import mock

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines.contract import RuleError
from engines.driver import play_bots, player_list
from engines.rng import Rng
from engines.sxyzm_cyclone import ENGINE
from engines.sxyzm_cyclone import engine as cyclone
from engines.sxyzm_cyclone.board import COLOURS
from engines.sxyzm_cyclone.bots import random_moves
from engines.sxyzm_cyclone.rules import legal_moves
from engines.sxyzm_cyclone.turns import active_colours
from tests.engines.sxyzm_cyclone import scenario

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
    # (An equal order read again as from JSON: test_validates_play_serves_only_the_very_action_it_checked.)
    kind = data.draw(st.sampled_from(["equal copy of a value", "another turn"]))
    if kind == "equal copy of a value":  # equal, but not the state validate checked
        containers = sorted(k for k, v in state.items() if k != "order" and type(v) in (dict, list))
        key = data.draw(st.sampled_from(containers))
        changed = {**state, key: copy.deepcopy(state[key])}
        applied = ENGINE.apply_action(changed, player, action)
    else:
        other_state, other_player, other_action = other
        if other_state is state and not other_action["moves"] and not action["moves"]:
            return  # the same (empty) order on the same state
        if not _validated(other_state, other_player, other_action):
            return  # an order no check lets through can break the play (a buried cube lifted, then missing)
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


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(turns(), st.data())
def test_validates_play_never_serves_its_order_with_a_move_changed_added_or_left_out(turn: tuple,
                                                                                   data: st.DataObject) -> None:
    """The order validate checked, recorded on the very state it checked with one move's target changed, a move
    added or one left out (every other cube and target the very strings validate read): played afresh."""
    state, player, action = turn
    moves = action["moves"]
    if not moves or not _validated(state, player, action):
        return
    changed = [dict(move) for move in moves]
    change = data.draw(st.sampled_from(["target", "added", "left out"]))
    if change == "target":
        index = data.draw(st.integers(0, len(moves) - 1))
        others = [c for c in state["colours"] if c not in (moves[index]["toward"], state["current"])]
        if not others:
            return
        changed[index]["toward"] = data.draw(st.sampled_from(others))
    elif change == "added":
        changed.append(dict(moves[-1]))
    else:
        del changed[data.draw(st.integers(0, len(moves) - 1))]
    cyclone._last.checked = None
    expected, _ = _resolution_or_error(ENGINE.apply_action(state, player, {"type": "turn", "moves": changed}))
    ENGINE.validate(state, player, action)
    applied = ENGINE.apply_action(state, player, {"type": "turn", "moves": changed})
    assert _resolution_or_error(applied) == (expected, 1)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(turns())
def test_validates_play_serves_only_the_very_action_it_checked(turn: tuple) -> None:
    """The order validate checked, recorded on the very state it checked from an equal action that is another
    object (as read again from JSON): played afresh, to the same resolution.  validate's play serves only what
    apply_action made of the very action and state it checked (neither is ever changed in place)."""
    state, player, action = turn
    if not _validated(state, player, action):
        return
    expected = _played_afresh(ENGINE.apply_action(state, player, action))
    ENGINE.validate(state, player, action)
    applied = ENGINE.apply_action(state, player, orjson.loads(orjson.dumps(action)))
    assert _resolved_counting_plays(applied) == (expected, 1)


def _forget() -> None:
    cyclone._last.checked = cyclone._last.left = None


def _checked_and_resolved(state: State, player: str, action: dict[str, Any]) -> bytes:
    """validate's answer, then the resolution of the order (when valid), as bytes; or the error either raises
    (a forged board can break the play in any way)."""
    try:
        ENGINE.validate(state, player, action)
        return _resolved(ENGINE.apply_action(state, player, action))
    except RuleError as exc:
        return orjson.dumps([exc.rule, exc.message, exc.details])
    except Exception as exc:  # noqa: BLE001 - any error must be the same error
        return orjson.dumps([type(exc).__name__, repr(exc.args)])


def _fresh(state: State, player: str, action: dict[str, Any]) -> bytes:
    """``_checked_and_resolved`` with nothing kept from earlier calls, keeping what they kept."""
    kept = cyclone._last.checked, cyclone._last.left
    _forget()
    checked = _checked_and_resolved(state, player, action)
    cyclone._last.checked, cyclone._last.left = kept
    return checked


def test_whole_games_checked_and_resolved_as_an_audit_does_are_those_played_afresh() -> None:
    """Rule 'the game ends with the winning action', as an audit meets it: each turn validated, recorded and
    resolved on the state the last resolution gave, round-tripped as the fold stores it (validate's play and
    the board each play left serve the next call), says what the same calls say with nothing kept."""
    served = 0
    for case in range(len(ENGINE.simulation_cases)):
        for seed in range(2):
            state = _game_states(case, seed)[0]
            _forget()
            for number in range(1, 400):
                phase = ENGINE.phase(state)
                if phase is None:
                    break
                player = phase.awaiting[0] if phase.awaiting else None
                if player is None:
                    state = ENGINE.resolve_applied(state, Rng(SEED, "phase", state["turn"]))[1]
                    continue
                action = ENGINE.bot_action(state, player, Rng(SEED, "bot", case, seed, number))
                expected = _fresh(state, player, action)
                served += cyclone._left_without_winner(state, active_colours(state))
                ENGINE.validate(state, player, action)
                applied = ENGINE.apply_action(state, player, action)
                outcome, after = ENGINE.resolve_applied(applied, Rng(SEED, "phase", state["turn"]))
                assert orjson.dumps([outcome, after], option=orjson.OPT_SORT_KEYS) == expected
                state = orjson.loads(orjson.dumps(after, option=orjson.OPT_SORT_KEYS))
    assert served > 100  # the boards plays left were recognised in their stored form


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(turns(), st.data())
def test_a_board_a_play_did_not_leave_is_checked_for_winners(turn: tuple, data: st.DataObject) -> None:
    """Rule 'the game ends with the winning action': after a play, a board unlike the one it left (here forged
    so that a colour has won: three cubes in another's base, a cube more, or one moved to another base), or the same
    board with other colours in play, is checked as if nothing were kept."""
    state, player, action = turn
    if not _validated(state, player, action):
        return
    after = ENGINE.resolve_applied(ENGINE.apply_action(state, player, action), Rng(SEED, "phase", 1))[1]
    phase = ENGINE.phase(after)
    if phase is None or not phase.awaiting:
        return
    bases = dict(after["bases"])
    winner, home = data.draw(st.permutations(after["colours"]))[:2]
    change = data.draw(st.sampled_from(["a winner", "one more", "one moved", "equal", "colours"]))
    forged = {**after, "bases": bases}
    if change == "a winner":
        bases[home] = bases[home] + [f"{winner}-{n}" for n in (1, 2, 3)]
    elif change == "one more":
        bases[home] = bases[home] + [f"{winner}-1"]
    elif change == "one moved" and bases[home]:  # from one base to another
        bases[home], bases[winner] = bases[home][:-1], bases[winner] + bases[home][-1:]
    elif change == "equal":  # the stored form of the board left: served, and must say the same
        forged = orjson.loads(orjson.dumps(after))
    else:
        forged["colours"] = [c for c in after["colours"] if c != winner or c == after["current"]]
    mover = phase.awaiting[0]
    moves = random_moves(forged, forged["current"], forged["roll"], Rng(SEED, "forged", data.draw(st.integers())))
    order = {"type": "turn", "moves": moves}
    expected = _fresh(forged, mover, order)
    ENGINE.validate(state, player, action)
    ENGINE.resolve_applied(ENGINE.apply_action(state, player, action), Rng(SEED, "phase", 1))
    assert _checked_and_resolved(forged, mover, order) == expected


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(turns(), st.data())
def test_a_board_a_play_left_with_a_winner_is_checked_for_winners(turn: tuple, data: st.DataObject) -> None:
    """Rule 'the game ends with the winning action': a play that ends with a winner leaves nothing kept, so the
    next turn on its board (only a forged log has one that goes on) still finds the winner after its first
    move, and refuses a second."""
    state, _, _ = turn
    winner, home = data.draw(st.permutations(state["colours"]))[:2]
    forged = {**state, "bases": {**state["bases"], home: state["bases"][home] + [f"{winner}-{n}" for n in (1, 2, 3)]}}
    mover = ENGINE.phase(state).awaiting[0]
    first = legal_moves(forged, forged["current"])[:1]
    if not first or not _validated(forged, mover, {"type": "turn", "moves": first}):
        return
    left = {**forged, "bases": orjson.loads(orjson.dumps(cyclone._last.checked.played.board["bases"]))}
    twice = {"type": "turn", "moves": first * 2}
    expected = _fresh(left, mover, twice)
    assert _checked_and_resolved(left, mover, twice) == expected


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(turns(), st.data())
def test_the_colours_in_play_are_the_last_plays_only_on_its_very_lists(turn: tuple, data: st.DataObject) -> None:
    """The colours in play (the candidates to win, and the turn order) are the last play's only on a state that
    holds the very colours, players and ejected lists it found them from, as the next turn's does: with another
    of any of them (a player ejected, a seat empty, one colour more), the turn resolves as with nothing kept."""
    state, player, action = turn
    if not _validated(state, player, action):
        return
    after = ENGINE.resolve_applied(ENGINE.apply_action(state, player, action), Rng(SEED, "phase", 1))[1]
    phase = ENGINE.phase(after)
    if phase is None or not phase.awaiting or cyclone._last.left is None:
        return
    mover = phase.awaiting[0]
    other = data.draw(st.sampled_from([p for p in after["players"] if p["id"] != mover]))
    change = data.draw(st.sampled_from(["none", "ejected", "players", "colours"]))
    forged = dict(after)
    if change == "ejected":
        forged["ejected"] = [*after["ejected"], other["id"]]
    elif change == "players":
        forged["players"] = [p for p in after["players"] if p is not other]
    elif change == "colours":  # a colour nobody plays (a colour left out changes nothing the colours in play do)
        missing = [c for c in COLOURS if c not in after["colours"]]
        if not missing:
            return
        forged["colours"] = [*after["colours"], missing[0]]
    moves = random_moves(after, after["current"], after["roll"], Rng(SEED, "lists", data.draw(st.integers())))
    order = {"type": "turn", "moves": moves}
    expected = _fresh(forged, mover, order)
    assert _checked_and_resolved(forged, mover, order) == expected


def _stored(state: State, **changes: Any) -> State:
    """The state as the fold stores it (round-tripped), with ``changes``."""
    return {**orjson.loads(orjson.dumps(state, option=orjson.OPT_SORT_KEYS)), **changes}


def _three_blue_cubes_in_yellows_base(**changes: Any) -> State:
    """A three-player board on which blue has won by the three-player rule (three cubes in one opponent's
    base), not by the two-player one (all five), and yellow is to move."""
    start = scenario.board(scenario.game(3), {"yellow:4": ["yellow-4", "yellow-5"]},
                           {"yellow": ["blue-1", "blue-2", "blue-3"]})
    return {**start, "current": "yellow", **changes}


def test_a_board_left_without_winner_among_other_candidates_is_checked_for_winners() -> None:
    """Rule 'the game ends with the winning action': a board a play left without a winner while blue was
    ejected (no candidate) is checked again once blue is a candidate: blue's win ends the turn at its first move."""
    ejected = _three_blue_cubes_in_yellows_base(ejected=["p1"])
    ENGINE.validate(ejected, "p2", scenario.order(("yellow-1", "green")))  # blue's win is not yellow's
    after = _stored(ENGINE.resolve_applied(ENGINE.apply_action(ejected, "p2", scenario.order(
        ("yellow-1", "green"))), Rng(SEED, "phase", 1))[1], ejected=[], current="green")
    twice = scenario.order(("green-1", "blue"), ("green-2", "blue"))
    with pytest.raises(RuleError) as refused:
        ENGINE.validate(after, "p3", twice)
    assert refused.value.rule == cyclone.RULE_WON


def test_a_board_left_without_winner_with_other_colours_in_play_is_checked_for_winners() -> None:
    """Rule 'the game ends with the winning action' (by the number of colours in play): a board a play left
    without a winner with two colours in play, where blue needs all five cubes, is checked again with three
    (green's player ejected, so the same candidates), where three cubes win."""
    two = _three_blue_cubes_in_yellows_base(colours=["blue", "yellow"])
    ENGINE.validate(two, "p2", scenario.order(("yellow-1", "blue")))
    after = _stored(ENGINE.resolve_applied(ENGINE.apply_action(two, "p2", scenario.order(
        ("yellow-1", "blue"))), Rng(SEED, "phase", 1))[1], colours=["blue", "yellow", "green"], ejected=["p3"])
    assert after["current"] == "blue"
    twice = scenario.order(("blue-4", "yellow"), ("blue-5", "yellow"))
    with pytest.raises(RuleError) as refused:
        ENGINE.validate(after, "p1", twice)
    assert refused.value.rule == cyclone.RULE_WON


def test_a_board_left_without_winner_is_kept_with_the_candidates_it_was_checked_for() -> None:
    """Rule 'the game ends with the winning action': a play on a state's very lists, then a play with blue's
    player ejected (other candidates) that leaves a board on which blue has won; on that board with the first
    lists again (blue a candidate), blue's win ends green's turn at its first move.  The board kept from the
    second play is kept with its own candidates, not the first play's."""
    cyclone._last.checked = cyclone._last.left = None
    before = {**scenario.board(scenario.game(3), {"yellow:4": ["yellow-4", "yellow-5"]}), "current": "yellow"}
    ENGINE.validate(before, "p2", scenario.order(("yellow-1", "green")))
    won = _three_blue_cubes_in_yellows_base()
    ENGINE.validate({**before, "bases": won["bases"], "ejected": ["p1"]}, "p2", scenario.order(("yellow-1", "green")))
    left = cyclone._last.checked.played.board
    after = {**before, "spaces": left["spaces"], "bases": left["bases"], "current": "green"}
    with pytest.raises(RuleError) as refused:
        ENGINE.validate(after, "p3", scenario.order(("green-1", "blue"), ("green-2", "blue")))
    assert refused.value.rule == cyclone.RULE_WON


def test_a_play_is_kept_for_its_own_thread_only() -> None:
    """What validate kept serves the resolution in its thread; another thread (a worker's) plays afresh."""
    state = _game_states(0, 0)[0]
    player = ENGINE.phase(state).awaiting[0]
    action = {"type": "turn", "moves": random_moves(state, state["current"], state["roll"], Rng(SEED, "thread"))}
    applied = ENGINE.apply_action(state, player, action)
    expected = _played_afresh(applied)
    ENGINE.validate(state, player, action)
    applied = ENGINE.apply_action(state, player, action)
    elsewhere: list[tuple[bytes, int]] = []
    thread = threading.Thread(target=lambda: elsewhere.append(_resolved_counting_plays(applied)))
    thread.start()
    thread.join()
    assert elsewhere == [(expected, 1)]
    assert _resolved_counting_plays(applied) == (expected, 0)
