"""Rule 8 at expiry in the audit's resolution: where validate let a play through (``kept.py``) and its card does not
expire this round, resolving takes it that no card does (``rules.keeps_seven_turn_rule``) and looks for none to
forfeit.  Only speed: the outcome and state must be what resolving afresh gives, when the card played expires with
another (that one forfeited), and when an order validate refused plays a card while another expires (rule 14)."""
from __future__ import annotations

import copy
import functools
from typing import Any

import pytest

from engines.contract import RuleError
from engines.driver import play_bots, player_list
from engines.golden_strider import ENGINE, kept
from tests.engines.golden_strider.test_kept import _afresh, _resolved


@functools.lru_cache(maxsize=1)
def _late_round() -> tuple[dict[str, Any], tuple[tuple[str, dict[str, Any]], ...]]:
    """A round of an at-expiry race after round 7 (a card received in round 0 can expire) with no order in yet, and
    the bots' orders for it."""
    played = play_bots(ENGINE, {"race_length": 90, "seven_turn_rule": "at_expiry"}, player_list(6), "expiry")
    for index, state in enumerate(played.states):
        if state["stage"] == "round" and state["round"] >= 8 and not state["orders"]:
            orders = [(r["actor"], r["action"]) for r in played.records[index:index + 6]]
            if all(record["kind"] == "action" for record in played.records[index:index + 6]):
                return state, tuple(orders)
    raise AssertionError("no such round")


def _expiring(hand_now: int) -> list[dict[str, int]]:
    """A hand whose first two cards expire in round ``hand_now`` (rule 8), the rest later."""
    gone = hand_now - 7
    return [{"turn": gone, "value": 5}, {"turn": gone, "value": 4}] + [{"turn": hand_now - 1, "value": 3}] * 3


def _round_with(card: str, move: int) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]], str]:
    """The late round, the first runner holding ``_expiring`` and its order playing ``card``, all to movement."""
    state, orders = copy.deepcopy(_late_round())
    runner = state["runners"][0]
    runner["cards"] = _expiring(state["round"])
    actor, order = orders[0]
    assert runner["owner"] == actor
    order.update(card=card, move=move, bank=0, deduct="move")
    order.pop("runner", None)
    return state, orders, actor


def _resolve_as_audited(state: dict[str, Any], orders: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """Validate (what it refuses is applied all the same, as the audit does) and apply every order."""
    for actor, order in orders:
        try:
            ENGINE.validate(state, actor, order)
        except RuleError:
            pass
        state = ENGINE.apply_action(state, actor, order)
    return state


def _first_row(state: dict[str, Any]) -> dict[str, Any]:
    outcome, _ = ENGINE.resolve_applied(copy.deepcopy(state), None)
    return next(row for row in outcome["public"]["rows"] if row["runner"] == state["runners"][0]["id"])


def test_a_card_played_as_it_expires_with_another_forfeits_the_other() -> None:
    state, orders, actor = _round_with(f"5/{_late_round()[0]['round'] - 7}", 5)
    ENGINE.validate(state, actor, orders[0][1])
    assert kept.LAST.checked is not None  # let through at once: what it found is kept
    state = _resolve_as_audited(state, orders)
    assert _resolved(state) == _afresh(state)
    assert _first_row(state)["forfeited"] == [1]  # what is compared: the other expiring card goes


@pytest.mark.parametrize("card", ["3", "4"])
def test_a_card_played_while_another_expires_is_refused_and_resolved_by_rule_14(card: str) -> None:
    """"3": a card that does not expire while two do, refused (rule 14 plays the lower of those, the 4, and the 5
    goes); "4": one of the two, let through, and the 5 goes."""
    state, orders, actor = _round_with(card, int(card))
    state = _resolve_as_audited(state, orders)
    assert _resolved(state) == _afresh(state)
    row = _first_row(state)
    assert (row.get("auto"), row.get("forfeited")) == ((True if card == "3" else None), [0])
