"""Random bot races to the finish, with invariants checked after every round."""
from __future__ import annotations

from typing import Iterator

import pytest

from engines.driver import Played, play_bots, player_list
from engines.golden_strider import ENGINE, race, rules
from engines.golden_strider.rules import CARD_LIFE, CARD_MAX

TEAMS = [{"runners": [f"Athlete {i}a", f"Athlete {i}b"]} for i in range(1, 6)]


def _value(label: str) -> int:
    return int(label.split("/")[0])


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
    assert last["round"] == state["round"] - 1
    by_id = {r["id"]: r for r in state["runners"]}
    assert sorted(row["runner"] for row in last["rows"]) == sorted(r["id"] for r in state["runners"]
                                                                   if not r["withdrawn"])
    squares = [row["S"] for row in last["rows"]]
    field = len(state["runners"])
    for row in last["rows"]:
        runner = by_id[row["runner"]]
        # rules 3, 6 and 11: a place is one more than the number of runners further on
        assert row["P"] == 1 + sum(square > row["S"] for square in squares), "position against squares"
        assert (runner["square"], runner["position"], runner["owed"]) == (row["S"], row["P"], row["O"])
        held = row["cards"][:-1]
        assert all(last["round"] - rules.parse_label(c)["turn"] <= CARD_LIFE for c in held), "rule 8"
        assert row["M"] + row["B"] + row["D"] == _value(row["cards"][row["played"]]), "rule 5"
        assert row["D"] >= 0 and row["M"] >= 0 and row["B"] >= 0
        banked = row["B"] + (opts["enduron_bank"] if runner.get("drug") == "enduron" else 0)
        penalty = row["trip"]["penalty"] if row.get("trip") else 0
        bonus = rules.positional_bonus(row["P"], field)
        assert row["R"] == max(0, min(CARD_MAX, 2 * banked + bonus) - penalty), "rules 6-7"
        assert row["cards"][-1] == f"{row['R']}/{last['round']}"
        if row.get("auto"):
            assert row["B"] == 0, "rule 13: movement only"
        if row.get("cf"):
            assert row["O"] > 0, "ruling 19: what is carried forward is owed"
    if last["round"] == 1:
        for row in last["rows"]:
            drug = by_id[row["runner"]].get("drug")
            total = opts["enduron_total"] if drug == "enduron" else 30
            assert sum(_value(c) for c in row["cards"][:5]) == total, "rule 2"


def every_round(played: Played) -> Iterator[dict]:
    """The state after each round, also inside a robot race (the whole race is one outcome)."""
    for before, record in zip(played.states, played.records):
        if record["type"] != "phase.resolved":
            continue
        public = record["outcome"]["public"]
        if "rounds" in public:  # Robot: fold its rounds one by one, as apply_outcome does
            state = before
            for entry in public["rounds"]:
                state = race.apply_round(state, {"public": entry})
                yield state
        elif "rows" in public:
            yield race.apply_round(before, record["outcome"])


CASES = [
    ({}, 6, None), ({}, 8, None), ({}, 10, None),
    ({"seven_turn_rule": "at_expiry"}, 10, None),
    ({"variant": "steeplechase"}, 8, None),
    ({"variant": "tarnished"}, 4, TEAMS[:4]),
    ({"variant": "tarnished"}, 5, TEAMS),
    ({"variant": "robot"}, 6, None),
    ({"variant": "robot"}, 8, None),
    ({"variant": "robot"}, 10, None),
]


@pytest.mark.parametrize("options,count,fields", CASES)
def test_bot_race_to_the_finish_keeps_the_invariants(options: dict, count: int, fields: list | None) -> None:
    played = play_bots(ENGINE, options, player_list(count, fields), "sim", check=check_invariants)
    final = played.final
    assert ENGINE.phase(final) is None
    seen = 0
    for state in every_round(played):  # the robot race too, round by round
        check_invariants(state)
        seen += 1
    assert seen == len(final["history"]) == final["round"] - 1 > 1
    assert state["runners"] == final["runners"]
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
