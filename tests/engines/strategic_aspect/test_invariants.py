"""Whole bot games from 3 to 12 cyclists, checked after every event by invariants that can fail, and
shown failing on planted bugs."""
from __future__ import annotations

from typing import Any, Callable

import pytest

from engines.contract import PUBLIC
from engines.driver import play_bots, player_list
from engines.strategic_aspect import ENGINE, rules, views

State = dict[str, Any]
NEGATIVE_ALLOWED = ("auction", "rebid", "suffice")  # the only stages whose resolution may push steps below zero


def checker() -> Callable[[State], None]:
    """Compares each state with the one before it."""
    seen: list[State] = []

    def check(state: State) -> None:
        before = seen[-1] if seen else None
        seen.append(state)
        shuffled = {**state, "order": state["order"][::-1]}
        for viewer in [PUBLIC, *state["cyclists"]]:
            # Views are plain JSON (the conformance suite checks it), so equal data is an equal view.
            assert ENGINE.view(state, viewer) == ENGINE.view(shuffled, viewer), (
                f"{viewer} can see the rest of the turn order")
        if before is None:
            return
        for cyclist, steps in state["steps"].items():
            if steps < 0 and steps < before["steps"][cyclist]:
                assert before["stage"] in NEGATIVE_ALLOWED, (
                    f"{cyclist} went to {steps} steps in a {before['stage']} phase")
        gone = len(before["cyclists"]) - len(state["cyclists"])
        if len(state["eliminated"]) > len(before["eliminated"]):
            assert gone == 1, "a ceremony eliminates exactly one cyclist"
            assert state["cycle"]["number"] == before["cycle"]["number"] + 1 or state["stage"] == "over"
        if state["stage"] == "over":
            assert state["winner"] in state["cyclists"] and len(state["cyclists"]) >= 1
            assert ENGINE.result(state)["winner"] == state["winner"]
        elif state["cycle"]["kind"] in (rules.NORMAL, rules.FINAL):
            expected = rules.NORMAL if len(state["cyclists"]) > 2 else rules.FINAL
            assert state["cycle"]["kind"] == expected, "two cyclists race the final, more a normal cycle"
        for cyclist in state["cyclists"]:
            assert 0 <= state["position"][cyclist] <= state["cycle"]["length"]

    return check


@pytest.mark.parametrize("players", range(3, 13))
def test_rule_invariants_hold_through_whole_bot_games_of_3_to_12_cyclists(players: int) -> None:
    played = play_bots(ENGINE, {}, player_list(players), f"inv-{players}", check=checker())
    final = played.final
    assert ENGINE.phase(final) is None
    result = ENGINE.result(final)
    assert result["winner"] is not None and sum(r["winner"] for r in result["standings"]) == 1
    assert result["standings"][0]["id"] == result["winner"]
    assert len(final["eliminated"]) == players - 2, "one cyclist eliminated per ceremony until the final"


def test_a_planted_leak_of_the_turn_order_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    real = views.view

    def leaky(state: State, viewer: Any, hint: Any, result: Any) -> Any:
        return {**real(state, viewer, hint, result), "next_up": state["order"][:1]}

    monkeypatch.setattr(views, "view", leaky)
    with pytest.raises(AssertionError, match="rest of the turn order"):
        play_bots(ENGINE, {}, player_list(4), "planted", check=checker())


def test_a_planted_move_below_zero_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """A move that charges twice what it costs takes a cyclist with few steps below zero."""
    from engines.strategic_aspect import flow

    real = flow._move

    def dear(state: State, effect: Any, secret: Any) -> State:
        return real(state, {**effect, "steps": 2 * effect["steps"] if effect["steps"] < 0 else effect["steps"]}, secret)

    monkeypatch.setattr(flow, "_APPLY", {**flow._APPLY, "move": dear})
    with pytest.raises(AssertionError, match="steps in a move phase"):
        for seed in range(10):
            play_bots(ENGINE, {}, player_list(5), f"planted-{seed}", check=checker())


def test_a_planted_double_elimination_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    from engines.strategic_aspect import flow

    real = flow._eliminate

    def twice(state: State, effect: Any, secret: Any) -> State:
        state = real(state, effect, secret)
        extra = next(c for c in state["cyclists"] if c != effect["cyclist"])
        return {**state, "cyclists": [c for c in state["cyclists"] if c != extra]}

    monkeypatch.setattr(flow, "_APPLY", {**flow._APPLY, "eliminate": twice})
    with pytest.raises(AssertionError, match="exactly one"):
        play_bots(ENGINE, {}, player_list(5), "planted", check=checker())
