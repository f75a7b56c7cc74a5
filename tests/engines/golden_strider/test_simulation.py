"""Random bot races to the finish, with invariants checked after every round."""
from __future__ import annotations

import pytest

from engines.driver import play_bots, player_list
from engines.golden_strider import ENGINE, rules
from engines.golden_strider.rules import CARD_LIFE, CARD_MAX

TEAMS = [{"runners": [f"Athlete {i}a", f"Athlete {i}b"]} for i in range(1, 6)]


def check_invariants(state: dict) -> None:
    """Card totals, caps and ages; positions consistent with squares; report rows sane."""
    opts = state["options"]
    for runner in state["runners"]:
        cards = runner["cards"]
        if cards is None:
            continue
        assert all(0 <= c["value"] <= CARD_MAX for c in cards), "rule 7: no card above 10"
        if opts["seven_turn_rule"] == "ahead" or not state["history"]:
            assert len(cards) == rules.HAND_SIZE
        assert all(state["round"] - c["turn"] <= CARD_LIFE for c in cards), "rule 8: card held too long"
        assert cards == rules.sort_hand(cards), "oldest cards first"
        assert runner["owed"] >= 0
    if not state["history"]:
        return
    last = state["history"][-1]
    squares = {row["runner"]: row["S"] for row in last["rows"]}
    assert {row["runner"]: row["P"] for row in last["rows"]} == rules.positions(squares)
    for row in last["rows"]:
        assert row["M"] + row["B"] + row["D"] == int(row["cards"][row["played"]].split("/")[0]), "rule 5"
        assert 0 <= row["R"] <= CARD_MAX
        assert row["cards"][-1] == f"{row['R']}/{last['round']}"
    if last["round"] == 1:
        for row in last["rows"]:
            drug = next(r for r in state["runners"] if r["id"] == row["runner"]).get("drug")
            total = opts["enduron_total"] if drug == "enduron" else 30
            assert sum(int(c.split("/")[0]) for c in row["cards"][:5]) == total, "rule 2"


CASES = [
    ({}, 6, None), ({}, 8, None), ({}, 10, None),
    ({"seven_turn_rule": "at_expiry"}, 10, None),
    ({"variant": "steeplechase"}, 8, None),
    ({"variant": "tarnished"}, 4, TEAMS[:4]),
    ({"variant": "tarnished"}, 5, TEAMS),
    ({"variant": "robot"}, 8, None),
]


@pytest.mark.parametrize("options,count,fields", CASES)
def test_bot_race_to_the_finish_keeps_the_invariants(options: dict, count: int, fields: list | None) -> None:
    played = play_bots(ENGINE, options, player_list(count, fields), "sim", check=check_invariants)
    final = played.final
    assert ENGINE.phase(final) is None
    result = ENGINE.result(final)
    assert result["winners"]
    if options.get("variant") != "tarnished":
        assert result["standings"][0]["square"] >= final["race_length"] or result["rounds"] == 100
    # every round's report can be served in every format
    for entry in final["history"]:
        for fmt in ("json", "text", "markdown", "bbcode"):
            assert ENGINE.report(final, entry["round"], fmt)


def test_bot_races_with_missed_deadlines_still_finish() -> None:
    """Rule 13: runners whose orders never arrive are played by the referee."""
    played = play_bots(ENGINE, {}, player_list(6), "nmr", skip=lambda n, actor: actor in ("p2", "p5"),
                       check=check_invariants)
    rows = [r for e in played.final["history"] for r in e["rows"] if r["runner"] in ("r2", "r5")]
    assert rows and all(r["auto"] and r["B"] == 0 for r in rows)
