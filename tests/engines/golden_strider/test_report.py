"""Rule 15: the game report of a scripted race, row by row, in every format."""
from __future__ import annotations

import pytest

from engines.contract import RuleError
from engines.golden_strider import ENGINE

from .helpers import new_game, order, resolve

# Three scripted rounds: (player, starting cards or None, card, move, bank)
SCRIPT = [
    [("p1", [6, 6, 6, 6, 6], "6/0", 3, 3), ("p2", [10, 8, 6, 4, 2], "10/0", 8, 2),
     ("p3", [7, 7, 7, 7, 2], "2/0", 2, 0), ("p4", [6, 6, 6, 6, 6], "6/0", 0, 6),
     ("p5", [5, 5, 5, 5, 10], "5/0", 4, 1), ("p6", [6, 6, 6, 6, 6], "6/0", 4, 2)],
    [("p1", None, "6/0", 6, 0), ("p2", None, "8/0", 4, 4),
     ("p3", None, "7/0", 7, 0), ("p4", None, "10/1", 10, 0),
     ("p5", None, "10/0", 5, 5), ("p6", None, "6/0", 3, 3)],
    [("p1", None, "6/0", 6, 0), ("p2", None, "6/0", 6, 0),
     ("p3", None, "7/0", 1, 6), ("p4", None, "6/0", 6, 0)],  # p5 and p6 send nothing
]

# Expected rows per round in report order: name, cards (~played~), D M B R S P O cf
EXPECTED = {
    1: [
        "Seb Coe | 2/0 4/0 6/0 8/0 ~10/0~ 4/1 | - 8 2 4 8 1 - |",
        "Tom McKean | ~5/0~ 5/0 5/0 5/0 10/0 3/1 | - 4 1 3 4 2 - |",
        "John Walker | 6/0 6/0 6/0 6/0 6/0 5/1 | - 4 2 5 4 2 - |",
        "Steve Ovett | 6/0 6/0 6/0 6/0 6/0 8/1 | - 3 3 8 3 4 - |",
        "Steve Cram | ~2/0~ 7/0 7/0 7/0 7/0 2/1 | - 2 0 2 2 5 - |",
        "Peter Elliott | 6/0 6/0 6/0 6/0 6/0 10/1 | - 0 6 10 0 6 - |",
    ],
}


def _play(rounds: int) -> dict:
    state = new_game(6)
    for script in SCRIPT[:rounds]:
        for player, cards, card, move, bank in script:
            body = {"card": card, "move": move, "bank": bank}
            if cards:
                body["cards"] = cards
            state = order(state, player, **body)
        _, state = resolve(state)
    return state


def _line(row: dict) -> str:
    cards = " ".join(f"~{c}~" if i == row["played"] else c for i, c in enumerate(row["cards"]))
    nums = [row["D"] or "-", row["M"], row["B"], row["R"], row["S"], row["P"], row["O"] or "-"]
    numbers = " ".join(str(n) for n in nums)
    return f"{row['name']} | {cards} | {numbers} | {'cf' if row['cf'] else ''}".rstrip()


def test_rule_15_report_round_one_row_by_row() -> None:
    report = ENGINE.report(_play(1), 1, "json")
    for got, want in zip(report["rows"], EXPECTED[1]):
        # the played card is marked in the text; the JSON says which index was played
        if "~" in want:
            assert _line(got) == want
        else:  # several equal cards: any one of them may be the struck one
            assert _line(got).replace("~", "") == want


def test_rule_15_report_round_three_overtaking_restitution_and_no_move_received() -> None:
    state = _play(3)
    rows = {r["name"]: r for r in ENGINE.report(state, 2, "json")["rows"]}
    # round 2: from round-1 places; no overtaking costs yet (rule 9)
    assert all(r["O"] == 0 for r in rows.values())
    assert (rows["Seb Coe"]["S"], rows["Seb Coe"]["P"], rows["Seb Coe"]["R"]) == (12, 1, 8)
    assert (rows["Peter Elliott"]["S"], rows["Peter Elliott"]["P"], rows["Peter Elliott"]["R"]) == (10, 2, 1)
    assert [rows[n]["P"] for n in ("Tom McKean", "Steve Ovett", "Steve Cram")] == [3, 3, 3]  # level on 9
    assert rows["Tom McKean"]["R"] == 10     # 2 x 5 banked + 1 bonus, capped (rule 7)
    third = {r["name"]: r for r in ENGINE.report(state, 3, "json")["rows"]}
    assert third["Tom McKean"]["auto"] and third["Tom McKean"]["B"] == 0  # rule 13
    assert third["John Walker"]["auto"]
    for name, r in third.items():
        before = rows[name]["P"]
        assert r["O"] == max(0, before - r["P"])  # rules 9-11: net places gained, from round 3
    latest = ENGINE.report(state, None, "json")
    assert latest["round"] == 3


def test_rule_15_report_in_every_format() -> None:
    state = _play(1)
    text = ENGINE.report(state, 1, "text")
    assert "Player" in text and "Seb Coe" in text and "~10/0~" in text
    markdown = ENGINE.report(state, 1, "markdown")
    assert "| Seb Coe | 2/0 4/0 6/0 8/0 ~~10/0~~ 4/1 | - | 8 | 2 | 4 | 8 | 1 | - |  |" in markdown
    bbcode = ENGINE.report(state, 1, "bbcode")
    assert "[td][s]10/0[/s][/td]" not in bbcode and "[s]10/0[/s] 4/1[/td]" in bbcode
    assert bbcode.startswith("[b]Golden Strider - round 1") and "[table]" in bbcode


def test_rule_15_report_for_a_round_not_yet_played() -> None:
    state = _play(1)
    with pytest.raises(RuleError) as err:
        ENGINE.report(state, 2, "json")
    assert err.value.rule == "report"
    with pytest.raises(RuleError):
        ENGINE.report(new_game(6), None, "text")
    with pytest.raises(RuleError):
        ENGINE.report(state, 1, "pdf")


def test_rule_15_report_is_the_same_for_every_viewer() -> None:
    state = _play(2)
    assert ENGINE.report(state, 1, "json", "p1") == ENGINE.report(state, 1, "json", None)
