"""The rule functions every fold and audit runs for every runner (reading hands back from their
labels, naming a card, rule 8) cache what they parse and skip the copies and helper calls they
used to make.  They must answer, and fail, exactly as the plain versions below do, on any hand
and any label, and a cached card must never be shared with a state."""
from __future__ import annotations

import random
from typing import Any

import pytest

from engines.contract import RuleError
from engines.golden_strider import rules
from engines.golden_strider.race import held


def _plain_parse(label: Any) -> dict[str, int]:
    value, turn = label.split("/", 1)
    return {"value": int(value), "turn": int(turn)}


def _plain_find(hand: list[dict[str, int]], label: Any) -> int:
    text = str(label).strip()
    try:
        if "/" in text:
            value, turn = (int(part) for part in text.split("/", 1))
            matches = [i for i, c in enumerate(hand) if c["value"] == value and c["turn"] == turn]
        else:
            value = int(text)
            matches = [i for i, c in enumerate(hand) if c["value"] == value]
    except ValueError:
        raise RuleError("rule 5", f"name a card as value/turn, like 6/0, not {label!r}") from None
    if not matches:
        held_ = " ".join(rules.card_label(c) for c in hand)
        raise RuleError("rule 5", f"you hold no card {text} (you hold {held_})", {"card": text})
    return matches[0]


def _plain_keeps(hand: list[dict[str, int]], index: int, round_no: int, mode: str) -> bool:
    rest = [rules.deadline(c) for i, c in enumerate(hand) if i != index]
    if mode == "at_expiry":
        return rules.deadline(hand[index]) <= round_no or all(d > round_no for d in rest)
    return all(d >= round_no + 1 + j for j, d in enumerate(sorted(rest)))


def _outcome(call: Any, *args: Any) -> Any:
    """What a call gives, or the type, message and (for a RuleError) rule and details of what it raises."""
    try:
        return ("ok", call(*args))
    except RuleError as exc:
        return ("rule", exc.rule, str(exc), dict(exc.details or {}), exc.status)
    except Exception as exc:
        return ("error", type(exc), str(exc))


LABELS = ["6/0", " 6/0 ", "6", "06/00", "+6/0", "6_0/0", "10/12", "0/0", "6/", "/0", "x", "6/0/1", "", "  ",
          "٦/٠", 6, None, "3/2", "3", "11/3"]


def _hand(rng: random.Random) -> list[dict[str, int]]:
    return [{"value": rng.randint(0, 10), "turn": rng.randint(0, 12)} for _ in range(rng.randint(0, 7))]


def test_find_card_names_the_same_card_or_the_same_error_as_the_plain_search() -> None:
    rng = random.Random("find")
    for _ in range(3000):
        hand = _hand(rng)
        label = rng.choice(LABELS + [rules.card_label(c) for c in hand] + [str(c["value"]) for c in hand])
        assert _outcome(rules.find_card, hand, label) == _outcome(_plain_find, hand, label)
        assert _outcome(rules.find_card, hand, label) == _outcome(_plain_find, hand, label)  # now cached


@pytest.mark.parametrize("mode", ["ahead", "at_expiry"])
def test_rule_8_answers_as_the_plain_check(mode: str) -> None:
    rng = random.Random(mode)
    for _ in range(3000):
        hand = _hand(rng) or [{"value": 1, "turn": 0}]
        round_no = rng.randint(1, 20)
        for index in range(len(hand)):
            assert rules.keeps_seven_turn_rule(hand, index, round_no, mode) == _plain_keeps(hand, index, round_no, mode)
        assert rules.expiring(hand, round_no) == [i for i, c in enumerate(hand) if rules.deadline(c) <= round_no]


def test_a_parsed_card_is_a_new_dict_every_time() -> None:
    first = rules.parse_label("7/3")
    first["value"] = 99  # whoever changes a card they were given changes only their own
    again = rules.parse_label("7/3")
    assert again == {"value": 7, "turn": 3} and list(again) == ["value", "turn"]
    assert again is not rules.parse_label("7/3")
    hands = [rules.parse_labels(["7/3", "2/0"], set()) for _ in range(2)]
    hands[0][0]["turn"] = -1
    assert rules.parse_labels(["7/3", "2/0"], set()) == [{"value": 7, "turn": 3}, {"value": 2, "turn": 0}]
    assert hands[1][0] is not hands[0][0]


@pytest.mark.parametrize("labels", [
    ["6/0", "5/1", "4/2"], ["6/0", "new/1"], ["6/0", 6], ["6/0", ["6/0"]], ["6"], "6/0", 7, ["6/0", None],
    ["99999999999999999999/0"],
])
def test_reading_a_hand_back_fails_as_reading_each_label_does(labels: Any) -> None:
    for gone in (set(), {0}, {1, 5}):
        expected = _outcome(lambda gone: [_plain_parse(c) for i, c in enumerate(labels) if i not in gone], gone)
        assert _outcome(rules.parse_labels, labels, gone) == expected
        assert _outcome(rules.parse_labels, labels, gone) == expected  # with what the first call cached


def test_the_hand_read_for_checking_is_the_runners_own_and_a_copy_for_everyone_else() -> None:
    cards = [{"value": 6, "turn": 0}]
    runner = {"cards": cards}
    assert held({}, runner, None) is cards
    assert held({"options": {"default_cards": [6, 6, 6, 6, 6]}}, {"cards": None}, {"cards": [2, 10, 6, 6, 6]}) == \
        rules.starting_hand([2, 10, 6, 6, 6])
