"""Phases, views, hidden information, ejection and the options of the engine."""
from __future__ import annotations

import pytest
from marshmallow import ValidationError

from engines.driver import eject
from engines.contract import GM, RuleError
from engines.driver import load_options, submit
from engines.golden_strider import ENGINE

from .helpers import mid_race, new_game, order, resolve, row, runner, with_runner
from .test_tarnished import tarnished


def test_options_defaults_are_documented_values() -> None:
    opts = load_options(ENGINE, {})
    assert opts["variant"] == "standard" and opts["free_rounds"] == 2 and opts["max_rounds"] == 100
    assert opts["seven_turn_rule"] == "ahead" and opts["default_cards"] == [6, 6, 6, 6, 6]
    assert opts["place_points"] == [10, 8, 6, 5, 4, 3, 2, 1]
    with pytest.raises(ValidationError):
        load_options(ENGINE, {"default_cards": [6, 6, 6, 6, 5]})
    with pytest.raises(ValidationError):
        load_options(ENGINE, {"variant": "marathon"})
    assert ENGINE.default_deadlines == {"round": 172800, "accusation": 172800, "robots": 604800}


def test_starting_cards_are_secret_until_the_first_round_is_run() -> None:
    state = order(new_game(), "p1", cards=[10, 10, 10, 0, 0], card="0/0")
    assert ENGINE.view(state, None)["runners"][0]["cards"] is None
    assert "10, 10" not in str(ENGINE.view(state, "p2"))
    assert ENGINE.view(state, "p1")["you"]["orders"]["r1"]["cards"] == [10, 10, 10, 0, 0]
    assert ENGINE.view(state, GM)["gm"]["orders"]["r1"]["card"] == "0/0"
    assert ENGINE.view(state, None)["submitted"] == ["r1"]
    _, after = resolve(state)
    assert ENGINE.view(after, None)["runners"][0]["cards"][:4] == ["0/0", "10/0", "10/0", "10/0"]


def test_a_sealed_order_may_be_replaced_before_the_deadline() -> None:
    state = order(mid_race(), "p1", card="6/0", move=6)
    state = order(state, "p1", card="6/0", move=0, bank=6)
    assert row(resolve(state)[0], "r1")["B"] == 6


def test_tarnished_manager_is_awaited_until_both_runners_have_orders() -> None:
    state = order(tarnished(3), "p1", runner="r1", cards=[6] * 5, card="6/0")
    assert "p1" in ENGINE.phase(state).awaiting
    with pytest.raises(RuleError) as err:
        order(state, "p1", cards=[6] * 5, card="6/0")  # two runners: name one
    assert err.value.rule == "runner"
    with pytest.raises(RuleError):
        order(state, "p1", runner="Sandra Loan", cards=[6] * 5, card="6/0")  # not yours
    state = order(state, "p1", runner="lucas a. doughnley", cards=[6] * 5, card="6/0")
    assert "p1" not in ENGINE.phase(state).awaiting


def test_orders_out_of_phase_are_refused_with_409() -> None:
    with pytest.raises(RuleError) as err:
        submit(ENGINE, new_game(), "p1", {"type": "accuse", "runner": None})
    assert err.value.status == 409


def test_naming_a_card_not_held_is_refused() -> None:
    with pytest.raises(RuleError) as err:
        order(mid_race(), "p1", card="9/0", move=9)
    assert err.value.rule == "rule 5" and "9/0" in err.value.message


def test_eject_withdraws_the_runner_and_the_race_goes_on() -> None:
    state = eject(ENGINE, mid_race(6, 3), "p2")
    assert "p2" not in ENGINE.phase(state).actors
    outcome, after = resolve(state)
    assert len(outcome["public"]["rows"]) == 5
    assert runner(after, "r2")["withdrawn"]
    state = eject(ENGINE, tarnished(3), "p1")
    assert [r["withdrawn"] for r in state["runners"][:2]] == [True, True]


def test_race_ends_after_max_rounds_placed_by_square() -> None:
    state = mid_race(6, 5, {"max_rounds": 5})
    outcome, after = resolve(state)
    assert outcome["public"]["over"] and ENGINE.phase(after) is None
    assert ENGINE.result(after)["rounds"] == 5


def test_ruling_3_nobody_finishes_within_max_rounds_the_leaders_win() -> None:
    state = mid_race(6, 5, {"max_rounds": 5})
    for rid, square in {"r1": 20, "r2": 30, "r3": 30, "r4": 10, "r5": 5, "r6": 0}.items():
        state = with_runner(state, rid, square=square)
    outcome, after = resolve(state)  # nobody orders: everyone runs 6 (rule 13), 36 at best
    result = ENGINE.result(after)
    assert outcome["public"]["over"] and all(not s["finished"] for s in result["standings"])
    assert result["winners"] == ["p2", "p3"]  # level on 36: they share the win
    assert [s["place"] for s in result["standings"]] == [1, 1, 3, 4, 5, 6]


def test_runner_names_from_sign_up_are_unique() -> None:
    state = new_game(6, {}, [{"runner": "Zola"}, {"runner": "Zola"}] + [{}] * 4)
    assert [r["name"] for r in state["runners"][:3]] == ["Zola", "Zola (2)", "Player 3"]


def test_legal_actions_hint_lists_playable_cards() -> None:
    hint = ENGINE.legal_actions_hint(mid_race(6, 3), "p1")
    assert hint == [{"runner": "r1", "playable": ["6/0", "6/0", "6/0", "6/1", "6/2"], "owed": 0}]
