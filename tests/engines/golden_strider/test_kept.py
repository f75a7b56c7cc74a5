"""The audit validates every order, applies it, then resolves the round: resolving takes each runner's card, rule 8
check and split (rules 5, 8, 12) from what validating found (``engines/golden_strider/kept.py``), but only for the
very order checked, on the very hands checked.  Only speed: the outcome and the state after it must be exactly
what resolving afresh gives, whatever was applied, changed or resolved in between."""
from __future__ import annotations

import copy
import functools
from typing import Any

import pytest

from engines.driver import play_bots, player_list
from engines.golden_strider import ENGINE, kept
from engines.rng import Rng
from tests.engines.golden_strider.test_resolve_applied import CASES, SEEDS, _skip_some


def _resolved(state: dict[str, Any]) -> str:
    """``resolve_applied`` of ``state`` (with whatever was kept for it), as text: outcome and state, types and key
    order too."""
    return repr(ENGINE.resolve_applied(state, Rng("kept", "phase", 1)))


def _afresh(state: dict[str, Any]) -> str:
    """``_resolved`` of a copy: nothing kept can be for it."""
    return _resolved(copy.deepcopy(state))


@pytest.mark.parametrize("case", [*ENGINE.simulation_cases, *CASES])
def test_every_round_resolved_after_its_orders_were_checked_is_the_round_resolved_afresh(
        case: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """Bot games of every case, orders validated and applied as the audit does, each phase resolved on the state
    they made from the state the last resolution gave: the same outcome and state as resolving a copy, plays kept
    were used, and the hands each round made go to the next with their labels."""
    used = []
    plays_for = kept.plays_for

    def counted(state: dict[str, Any]) -> dict[str, kept.Play] | None:
        plays = plays_for(state)
        used.append(len(plays or ()))
        return plays

    monkeypatch.setattr(kept, "plays_for", counted)
    labelled = 0
    for seed in SEEDS:
        played = play_bots(ENGINE, case["options"], player_list(case["players"], case.get("fields")), seed,
                           skip=_skip_some if seed.endswith("b") else None)
        state = played.states[0]
        for index, record in enumerate(played.records):
            if record["kind"] == "action":
                ENGINE.validate(state, record["actor"], record["action"])
                state = ENGINE.apply_action(state, record["actor"], record["action"])
                continue
            outcome, after = ENGINE.resolve_applied(state, Rng("kept", "phase", 1))
            labels = kept.LAST.labels
            assert repr((outcome, after)) == _afresh(state)
            kept.LAST.labels = labels  # as the audit left them, for the next round (the copy's are no use)
            if after is not None and after["stage"] == "round":
                labelled += all(id(r["cards"]) in kept.LAST.labels for r in after["runners"] if not r["withdrawn"])
            state = played.states[index + 1] if after is None else after
    assert sum(used) > 0 and labelled > 0 or case["options"].get("variant") == "robot"


@functools.lru_cache(maxsize=1)
def _round_and_orders() -> tuple[dict[str, Any], tuple[tuple[str, dict[str, Any]], ...]]:
    """A round well into a race (every hand held) with no order in yet, and the bots' orders for it."""
    played = play_bots(ENGINE, {"race_length": 60}, player_list(6), "kept")
    for index, state in enumerate(played.states):
        if state["stage"] == "round" and state["round"] >= 4 and not state["orders"]:
            orders = []
            for record in played.records[index:]:
                if record["kind"] != "action":
                    break
                orders.append((record["actor"], record["action"]))
            if len(orders) == 6:
                return state, tuple(orders)
    raise AssertionError("no such round")


def _fresh_round() -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]:
    state, orders = _round_and_orders()
    return copy.deepcopy(state), copy.deepcopy(list(orders))


def _give(state: dict[str, Any], actor: str, order: dict[str, Any]) -> dict[str, Any]:
    """Validate and apply, as the audit does."""
    ENGINE.validate(state, actor, order)
    return ENGINE.apply_action(state, actor, order)


def _other_play(state: dict[str, Any], actor: str, order: dict[str, Any]) -> dict[str, Any]:
    """A play for the actor's runner of another card than ``order``'s, all of it to movement."""
    runner = next(r for r in state["runners"] if r["owner"] == actor)
    card = next(c for c in runner["cards"] if f"{c['value']}/{c['turn']}" != order["card"])
    return {"type": "play", "card": f"{card['value']}/{card['turn']}", "move": card["value"], "bank": 0,
            "deduct": "move"}


def _owing(state: dict[str, Any], actor: str) -> dict[str, Any]:
    """``state`` (a new one) with the actor's runner owing 3 more points of restitution: the same orders split
    otherwise (rule 12)."""
    new = dict(state)
    new["runners"] = [dict(r, owed=r["owed"] + 3) if r["owner"] == actor else r for r in state["runners"]]
    return new


def _rest(state: dict[str, Any], orders: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    for actor, order in orders:
        state = _give(state, actor, order)
    return state


def test_an_order_applied_in_place_of_the_one_checked_is_played_as_applied() -> None:
    state, orders = _fresh_round()
    (actor, checked), rest = orders[0], orders[1:]
    other = _other_play(state, actor, checked)
    ENGINE.validate(state, actor, checked)
    state = _rest(ENGINE.apply_action(state, actor, other), rest)
    assert _resolved(state) == _afresh(state)
    assert _afresh(state) != _afresh(_rest(_give(_fresh_round()[0], actor, checked), rest))  # it would tell


def test_an_order_checked_on_one_state_and_applied_to_another_is_played_on_that_other() -> None:
    state, orders = _fresh_round()
    (actor, order), rest = orders[0], orders[1:]
    ENGINE.validate(state, actor, order)
    owing = _owing(state, actor)
    state = _rest(ENGINE.apply_action(owing, actor, order), rest)
    assert _resolved(state) == _afresh(state)


def test_orders_checked_before_the_state_changed_otherwise_are_played_on_the_changed_state() -> None:
    """A state made between two orders by something else than an order (a copy with a runner owing): what was
    checked before it no longer serves."""
    state, orders = _fresh_round()
    (actor, order), (second, later), rest = orders[0], orders[1], orders[2:]
    state = _owing(_give(state, actor, order), actor)
    state = _rest(_give(state, second, later), rest)
    assert _resolved(state) == _afresh(state)


def test_an_order_changed_after_it_was_checked_is_played_as_it_now_is() -> None:
    """Orders are never changed in place; if one were, its values are what resolving reads."""
    state, orders = _fresh_round()
    state = _rest(state, orders)
    for _, order in orders:  # another split
        order["move"], order["bank"] = order["move"] + order["bank"], 0
    assert _resolved(state) == _afresh(state)


def test_an_order_naming_another_card_after_it_was_checked_plays_that_card() -> None:
    """Two cards of the same value, received in different rounds: the same split, another card played."""
    state, orders = _fresh_round()
    now = state["round"]
    state["runners"][0]["cards"] = [{"turn": now - 3, "value": 5}, {"turn": now - 2, "value": 5}] + [
        {"turn": now - 1, "value": 3}] * 3
    (actor, order), rest = orders[0], orders[1:]
    assert state["runners"][0]["owner"] == actor
    order.update(card=f"5/{now - 3}", move=5, bank=0, deduct="move")
    state = _rest(_give(state, actor, order), rest)
    order["card"] = f"5/{now - 2}"
    assert _resolved(state) == _afresh(state)


def test_starting_cards_changed_after_the_first_order_was_checked_are_played_as_they_now_are() -> None:
    """Round 1: the hand is made from the order's starting cards (rule 2), so nothing found in it is kept."""
    state = copy.deepcopy(play_bots(ENGINE, {"race_length": 60}, player_list(6), "kept").states[0])
    orders = [(p["id"], {"type": "play", "cards": [2, 4, 6, 8, 10], "card": "6/0", "move": 6, "bank": 0,
                         "deduct": "move"}) for p in state["players"]]
    state = _rest(state, orders)
    orders[0][1]["cards"][:] = [6, 6, 6, 6, 6]  # the 6 is now the first card of the hand, not the third
    assert _resolved(state) == _afresh(state)


def test_a_state_other_than_the_one_the_orders_made_is_played_afresh() -> None:
    state, orders = _fresh_round()
    state = _owing(_rest(state, orders), orders[0][0])
    assert _resolved(state) == _afresh(state)


def test_an_order_for_another_runner_than_the_one_checked_goes_to_that_runner() -> None:
    """Tarnished: a manager's two athletes.  The runner found while validating serves only the very order checked."""
    played = play_bots(ENGINE, {"variant": "tarnished", "race_length": 40}, player_list(4), "kept")
    state = next(s for s in played.states if s["stage"] == "round" and s["round"] >= 2 and not s["orders"])
    first, second = (r for r in state["runners"] if r["owner"] == "p1")
    mine, card = first["cards"][0], second["cards"][0]
    checked = {"type": "play", "runner": first["name"], "card": f"{mine['value']}/{mine['turn']}",
               "move": mine["value"], "bank": 0, "deduct": "move"}
    other = {**checked, "runner": second["name"], "card": f"{card['value']}/{card['turn']}", "move": card["value"]}
    ENGINE.validate(state, "p1", checked)
    assert kept.LAST.checked is not None  # let through at once: what it found is kept
    assert list(ENGINE.apply_action(state, "p1", other)["orders"]) == [second["id"]]
