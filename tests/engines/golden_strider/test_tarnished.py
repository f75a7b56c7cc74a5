"""Tarnished variant: managers of two runners, drugs, accusations and scoring."""
from __future__ import annotations

import copy
import json

import pytest
from marshmallow import ValidationError

from engines.driver import eject
from engines.contract import GM, RuleError, redact_outcome
from engines.driver import Played, play_bots, player_list, submit
from engines.golden_strider import ENGINE, rules

from .helpers import new_game, order, resolve, row, runner, with_runner

TARNISHED = {"variant": "tarnished"}
TEAMS = [
    {"runners": ["Annabelle Icksteroid", "Lucas A. Doughnley"]},
    {"runners": ["Sandra Loan", "Steve Roids"]},
    {"runners": ["Non Chi Ting", "Jeff O'Dreen"]},
    {"runners": ["Mary-Joanna Plant", "Colleen McClean"]},
]


def tarnished(managers: int = 3, options: dict | None = None) -> dict:
    return new_game(managers, {**TARNISHED, **(options or {})}, TEAMS[:managers])


def test_tarnished_managers_have_two_runners_each() -> None:
    state = tarnished(3)
    assert [r["owner"] for r in state["runners"]] == ["p1", "p1", "p2", "p2", "p3", "p3"]
    with pytest.raises(RuleError):
        new_game(6, TARNISHED)  # 3-5 managers


def test_tarnished_example_orders_are_expressible() -> None:
    """Annabelle Icksteroid Enduron 7/0, 7/0, 6/0, 6/0, 6/0 play 6/0 M3 B3(+1);
    Lucas A. Doughnley Clean 9/0, 8/0, 5/0, 4/0, 4/0 play 5/0 M1 B4."""
    state = tarnished(3)
    state = order(state, "p1", runner="Annabelle Icksteroid", drug="enduron", cards=[7, 7, 6, 6, 6],
                  card="6/0", move=3, bank=3)
    state = order(state, "p1", runner="Lucas A. Doughnley", drug="clean", cards=[9, 8, 5, 4, 4],
                  card="5/0", move=1, bank=4)
    assert "p1" not in ENGINE.phase(state).awaiting
    outcome, after = resolve(state)
    annabelle, lucas = row(outcome, "r1"), row(outcome, "r2")
    assert (annabelle["M"], annabelle["B"]) == (3, 3)  # the report shows the order, not the drug
    bonus = rules.positional_bonus(annabelle["P"], 6)
    assert annabelle["R"] == min(10, 2 * (3 + 1) + bonus)
    assert lucas["R"] == min(10, 2 * 4 + rules.positional_bonus(lucas["P"], 6))
    assert runner(after, "r1")["drug"] == "enduron"


def test_tarnished_results_table_ties_share_a_position() -> None:
    """The rulebook's table: four runners on 36 are all 1st, the next is 5th."""
    squares = {"a": 36, "b": 36, "c": 36, "d": 36, "e": 32, "f": 31, "g": 28, "h": 25}
    assert list(rules.positions(squares).values()) == [1, 1, 1, 1, 5, 6, 7, 8]


def test_tarnished_enduron_starting_cards_total_32_none_over_10() -> None:
    state = tarnished(3)
    order(state, "p1", runner="r1", drug="enduron", cards=[10, 10, 6, 6, 0], card="0/0")
    with pytest.raises(RuleError) as err:
        order(state, "p1", runner="r1", drug="enduron", cards=[6, 6, 6, 6, 6], card="6/0")
    assert err.value.rule == "rule 2"
    with pytest.raises(ValidationError):
        order(state, "p1", runner="r1", drug="enduron", cards=[12, 10, 10, 0, 0], card="0/0")
    with pytest.raises(RuleError):
        order(state, "p1", runner="r2", drug="clean", cards=[10, 10, 6, 6, 0], card="0/0")


def _enduron_round_one(options: dict | None = None) -> tuple[dict, dict]:
    """Round 1 run with r1 on Enduron (starting cards 32) and r2 clean (30): the outcome and the state after."""
    state = order(tarnished(3, options), "p1", runner="r1", drug="enduron", cards=[7, 7, 6, 6, 6], card="6/0",
                  move=3, bank=3)
    state = order(state, "p1", runner="r2", drug="clean", cards=[9, 8, 5, 4, 4], card="5/0", move=1, bank=4)
    return resolve(state)


def test_ruling_10_with_the_full_report_enduron_shows_in_round_one() -> None:
    """The GM's house rule ``tarnished_report: "full"``: the rule 15 report lists the starting cards, and an
    Enduron runner's add up to 32, there for anyone to see."""
    _, after = _enduron_round_one({"tarnished_report": "full"})
    rows = {r["runner"]: r for r in ENGINE.report(after, 1, "json", "p2")["rows"]}
    assert sum(int(c.split("/")[0]) for c in rows["r1"]["cards"][:5]) == 32
    assert sum(int(c.split("/")[0]) for c in rows["r2"]["cards"][:5]) == 30
    assert ENGINE.report(after, 1, "json", None) == ENGINE.report(after, 1, "json", GM)


def test_tarnished_the_race_report_is_p_s_runner_for_players_and_the_public() -> None:
    """"The race is the same as the standard game except" its report: P, S and Runner, nothing that adds up to
    32 or shows a square beyond M.  The manager and the GM are the only ones who see the rest."""
    _, after = _enduron_round_one()
    assert after["options"]["tarnished_report"] == "rulebook"
    for viewer in (None, "p2", "p1"):
        report = ENGINE.report(after, 1, "json", viewer)
        assert report["columns"] == ["P", "S", "Runner"]
        assert all(set(row) == {"P", "S", "runner", "name"} for row in report["rows"])
        assert [(r["P"], r["S"]) for r in report["rows"]] == sorted((r["P"], r["S"]) for r in report["rows"])
        text = ENGINE.report(after, 1, "text", viewer)
        assert text.splitlines()[2].split() == ["P", "S", "Runner"] and "7/0" not in text and "6/0" not in text
        for fmt in ("markdown", "bbcode"):
            assert "/0" not in ENGINE.report(after, 1, fmt, viewer)
    gm = ENGINE.report(after, 1, "text", GM)
    assert "7/0" in gm and "full report, GM only" in gm.splitlines()[0]


def test_tarnished_view_shows_others_only_the_rulebook_report() -> None:
    _, after = _enduron_round_one()
    for viewer in (None, "p2"):
        view = ENGINE.view(after, viewer)
        assert all(set(r) == {"id", "name", "player", "square", "position", "withdrawn"} for r in view["runners"])
        assert all(set(row) == {"P", "S", "runner"} for row in view["report"])
        shared = json.dumps({k: v for k, v in view.items() if k != "you"})
        assert "7/0" not in shared and "owed" not in shared
        if viewer == "p2":  # their own runners only
            assert {r["id"] for r in view["you"]["runner_details"]} == {row["runner"] for row in view["you"]["report"]}
            assert "7/0" not in json.dumps(view["you"]) and {r["id"] for r in view["you"]["runner_details"]} == {
                "r3", "r4"}
    mine = ENGINE.view(after, "p1")["you"]
    assert [r["id"] for r in mine["runner_details"]] == ["r1", "r2"] and mine["runner_details"][0]["cards"]
    assert {row["runner"] for row in mine["report"]} == {"r1", "r2"} and "cards" in mine["report"][0]
    gm = ENGINE.view(after, GM)
    assert all("cards" in r for r in gm["runners"]) and all("cards" in row for row in gm["report"])


def test_tarnished_the_log_shows_others_the_rulebook_report() -> None:
    """A round's outcome keeps every row (the audit recomputes it); what a viewer reads of it in the log is cut
    as the report is (``Engine.shown_outcome``): P, S and Runner, the manager's own rows in full."""
    outcome, after = _enduron_round_one()
    assert "cards" in outcome["public"]["rows"][0], "the recorded outcome is unchanged"
    for viewer in (None, "p2"):
        shown = ENGINE.shown_outcome(after, redact_outcome(outcome, viewer), viewer)
        assert all(set(row) == {"P", "S", "runner"} for row in shown["public"]["rows"])
        assert "/0" not in json.dumps(shown["public"]) and set(shown.get("private", {})) <= {viewer}
        assert {row["runner"] for row in shown.get("private", {}).get(viewer, {}).get("rows", [])} <= {"r3", "r4"}
        assert "7/0" not in json.dumps(shown) and "enduron" not in json.dumps(shown)
    own = ENGINE.shown_outcome(after, redact_outcome(outcome, "p1"), "p1")
    assert {row["runner"] for row in own["private"]["p1"]["rows"]} == {"r1", "r2"}
    assert own["private"]["p1"]["drugs"]["r1"]["drug"] == "enduron"
    full = tarnished(3, {"tarnished_report": "full"})
    assert ENGINE.shown_outcome(full, redact_outcome(outcome, "p2"), "p2") == redact_outcome(outcome, "p2")


def test_tarnished_a_game_recorded_before_the_option_reads_as_the_rulebook() -> None:
    _, after = _enduron_round_one()
    options = {k: v for k, v in after["options"].items() if k != "tarnished_report"}
    older = {**after, "options": options}
    assert ENGINE.report(older, 1, "json", "p2")["columns"] == ["P", "S", "Runner"]


def test_tarnished_enduron_replacement_still_capped_at_ten() -> None:
    state = order(tarnished(3), "p1", runner="r1", drug="enduron", cards=[7, 7, 6, 6, 6], card="6/0", bank=5)
    assert row(resolve(state)[0], "r1")["R"] == 10


def test_tarnished_energiza_adds_zero_to_two_movement() -> None:
    state = order(tarnished(3), "p1", runner="r1", drug="energiza", cards=[6] * 5, card="6/0",
                  move=6, bank=0, energiza=2)
    got = row(resolve(state)[0], "r1")
    assert got["M"] == 6 and got["S"] == 8  # total move can exceed 10; M shows the card only
    with pytest.raises(RuleError):
        order(tarnished(3), "p1", runner="r1", drug="energiza", cards=[6] * 5, card="6/0", energiza=3)
    with pytest.raises(RuleError) as err:
        order(tarnished(3), "p1", runner="r1", drug="clean", cards=[6] * 5, card="6/0", energiza=1)
    assert err.value.rule == "tarnished: energiza"


def _energiza_near_the_line(options: dict | None = None) -> dict:
    state = copy.deepcopy(tarnished(3, options))
    state["round"] = 12
    for r in state["runners"]:
        r["cards"] = [{"value": 6, "turn": t} for t in range(7, 12)]
        r["drug"] = "clean"
    state = with_runner(state, "r1", drug="energiza", square=57)
    return state


def test_tarnished_energiza_finishing_boost_when_crossing_the_line() -> None:
    state = order(_energiza_near_the_line(), "p1", runner="r1", card="6/7", move=1, bank=5, boost=4)
    outcome, after = resolve(state)
    assert row(outcome, "r1")["S"] == 62 and outcome["secret"]["drugs"]["r1"]["boost"] == 4
    assert runner(after, "r1")["boost_used"] is True


def test_tarnished_energiza_boost_past_post_mode_only_adds_distance_past_the_post() -> None:
    state = _energiza_near_the_line({"energiza_boost_mode": "past_post"})
    outcome, _ = resolve(order(state, "p1", runner="r1", card="6/7", move=1, bank=5, boost=4))
    assert row(outcome, "r1")["S"] == 58  # did not cross: the boost is kept
    outcome, _ = resolve(order(state, "p1", runner="r1", card="6/7", move=3, bank=3, boost=4))
    assert row(outcome, "r1")["S"] == 64


def test_tarnished_energiza_boost_only_once() -> None:
    state = with_runner(_energiza_near_the_line(), "r1", boost_used=True)
    with pytest.raises(RuleError):
        order(state, "p1", runner="r1", card="6/7", move=1, bank=5, boost=4)


def test_tarnished_drugs_are_secret_until_testing() -> None:
    state = order(tarnished(3), "p1", runner="r1", drug="energiza", cards=[6] * 5, card="6/0", energiza=2)
    outcome, after = resolve(state)
    assert "drugs" not in outcome["public"] and outcome["private"]["p1"]["drugs"]["r1"]["drug"] == "energiza"
    for viewer in (None, "p2"):
        view = ENGINE.view(after, viewer)
        assert "energiza" not in str(view)
    assert ENGINE.view(after, "p1")["you"]["drugs"]["r1"] == "energiza"
    assert ENGINE.view(after, GM)["gm"]["drugs"]["r1"] == "energiza"
    assert "energiza" not in str(ENGINE.report(after, None, "json"))


def test_ruling_11_energiza_may_be_added_when_nothing_is_left_for_movement() -> None:
    """"Add 0, 1, 2 to any Movement number": M 0 is one, by choice or because restitution took the card."""
    state = with_runner(_energiza_near_the_line(), "r1", square=30, owed=6)
    outcome, _ = resolve(order(state, "p1", runner="r1", card="6/7", energiza=2))
    got = row(outcome, "r1")
    assert (got["D"], got["M"], got["B"], got["S"]) == (6, 0, 0, 32) and got["O"] == 0
    state = with_runner(_energiza_near_the_line(), "r1", square=30)
    outcome, _ = resolve(order(state, "p1", runner="r1", card="6/7", move=0, bank=6, energiza=1))
    assert (row(outcome, "r1")["M"], row(outcome, "r1")["S"]) == (0, 31)


TEAMS_OF_FOUR = [{"runners": [f"Athlete {i}a", f"Athlete {i}b"]} for i in range(1, 5)]
DRUG_NAMES = ("enduron", "energiza")


def _race_to_the_accusations() -> Played:
    """Bots race four managers (random drugs) to the end; the states include the accusation phase."""
    return play_bots(ENGINE, TARNISHED, player_list(4, TEAMS_OF_FOUR), "secrecy")


def test_ruling_13_drugs_stay_hidden_during_the_accusation_phase() -> None:
    played = _race_to_the_accusations()
    accusing = [s for s in played.states if s["stage"] == "accusation"]
    assert len(accusing) >= 2  # the phase opened, and at least one accusation is in
    doped = {r["id"]: r["drug"] for r in accusing[-1]["runners"] if r["drug"] != "clean"}
    assert doped, "the seed gave nobody a drug: the test would prove nothing"
    players = [p["id"] for p in accusing[0]["players"]]
    for state in accusing:
        assert ENGINE.result(state) is None
        for viewer in (None, *players):
            view = ENGINE.view(state, viewer)
            shown = json.dumps({k: v for k, v in view.items() if k != "you"})
            assert not any(name in shown for name in DRUG_NAMES) and view.get("drugs") is None
            if viewer is not None:
                own = {r["id"] for r in state["runners"] if r["owner"] == viewer}
                assert set(view["you"]["drugs"]) == own
                assert view["you"]["accusation"] == state["accusations"].get(viewer)
            assert "accusations" not in shown  # who accused whom stays sealed too
        for fmt in ("json", "text"):
            assert not any(name in json.dumps(ENGINE.report(state, None, fmt)) for name in DRUG_NAMES)
    # the events a non-owner sees: every outcome cut to its public part and the viewer's own
    for record in played.records:
        if record["type"] != "phase.resolved":
            continue
        for viewer in players:
            shown = redact_outcome(record["outcome"], viewer)
            assert "secret" not in shown and set(shown.get("private", {})) <= {viewer}
            if "result" in shown["public"]:
                continue  # the accusation phase's own outcome: the tests, at the end of the game
            assert not any(name in json.dumps(shown["public"]) for name in DRUG_NAMES)
            own = {r["id"] for r in played.final["runners"] if r["owner"] == viewer}
            assert set(shown.get("private", {}).get(viewer, {}).get("drugs", {})) <= own


def test_ruling_13_every_drug_is_shown_once_the_game_is_over() -> None:
    final = _race_to_the_accusations().final
    drugs = {r["id"]: r["drug"] for r in final["runners"]}
    assert ENGINE.view(final, None)["drugs"] == drugs == ENGINE.view(final, "p2")["drugs"]
    assert {r["runner"]: r["drug"] for r in ENGINE.result(final)["runners"]} == drugs


def _finished(drugs: dict[str, str], squares: dict[str, int]) -> dict:
    state = copy.deepcopy(tarnished(3))
    for r in state["runners"]:
        r.update(drug=drugs.get(r["id"], "clean"), square=squares[r["id"]], cards=[])
    state.update(stage="accusation", race_over=True)
    return state


def _accuse(state: dict, accusations: dict[str, str | None]) -> dict:
    for player, accused in accusations.items():
        state = submit(ENGINE, state, player, {"type": "accuse", "runner": accused})
    return resolve(state)[1]


def test_tarnished_accused_cheats_are_disqualified_and_the_rest_move_up() -> None:
    squares = {"r1": 62, "r2": 50, "r3": 58, "r4": 40, "r5": 55, "r6": 30}
    state = _accuse(_finished({"r1": "energiza"}, squares), {"p2": "Annabelle Icksteroid"})
    result = ENGINE.result(state)
    places = {r["runner"]: r["place"] for r in result["runners"]}
    assert places["r1"] is None and places["r3"] == 1 and places["r5"] == 2
    scores = {m["player"]: m for m in result["managers"]}
    # default points 10 8 6 5 4: p2 = r3 1st (10) + r4 4th (5) + 1 for the disqualification
    assert scores["p2"]["score"] == 16 and scores["p2"]["accusation"] == 1
    assert scores["p1"]["score"] == 6  # r2 3rd only
    assert result["winners"] == ["p2"]


def test_tarnished_accusing_a_clean_runner_costs_one_point() -> None:
    squares = {"r1": 62, "r2": 50, "r3": 58, "r4": 40, "r5": 55, "r6": 30}
    state = _accuse(_finished({}, squares), {"p3": "r1", "p1": None})
    scores = {m["player"]: m for m in ENGINE.result(state)["managers"]}
    assert scores["p3"]["accusation"] == -1 and scores["p1"]["accusation"] == 0


def test_tarnished_default_is_to_accuse_nobody() -> None:
    squares = {"r1": 62, "r2": 50, "r3": 58, "r4": 40, "r5": 55, "r6": 30}
    state = _accuse(_finished({"r1": "enduron"}, squares), {})
    result = ENGINE.result(state)
    assert all(m["accused"] is None for m in result["managers"])
    assert not any(r["disqualified"] for r in result["runners"])


def test_tarnished_tie_goes_to_the_manager_with_the_highest_placed_runner() -> None:
    # p1: 1st + 6th = 10 + 3 = 13; p2: 2nd + 4th = 8 + 5 = 13 -> p1 wins the tie
    squares = {"r1": 62, "r2": 30, "r3": 58, "r4": 50, "r5": 55, "r6": 40}
    state = _accuse(_finished({}, squares), {})
    result = ENGINE.result(state)
    assert [m["score"] for m in result["managers"][:2]] == [13, 13]
    assert result["winners"] == ["p1"]


def test_tarnished_scoring_table_is_an_option() -> None:
    squares = {"r1": 62, "r2": 30, "r3": 58, "r4": 50, "r5": 55, "r6": 40}
    state = _finished({}, squares)
    state["options"]["place_points"] = [3, 2, 1]
    result = ENGINE.result(_accuse(state, {}))
    assert {m["player"]: m["score"] for m in result["managers"]} == {"p1": 3, "p2": 2, "p3": 1}


def test_tarnished_cannot_accuse_your_own_athlete() -> None:
    state = _finished({}, {"r1": 62, "r2": 30, "r3": 58, "r4": 50, "r5": 55, "r6": 40})
    with pytest.raises(RuleError):
        submit(ENGINE, state, "p1", {"type": "accuse", "runner": "Lucas A. Doughnley"})
    with pytest.raises(RuleError):
        submit(ENGINE, state, "p1", {"type": "accuse", "runner": "Nobody Atall"})


SQUARES = {"r1": 62, "r2": 50, "r3": 58, "r4": 40, "r5": 55, "r6": 30}


def test_ruling_14_several_managers_may_accuse_the_same_runner() -> None:
    """Rulebook: "Collusion between managers is not allowed, so they might end up accusing the same runner"."""
    state = _accuse(_finished({"r1": "energiza"}, SQUARES), {"p2": "r1", "p3": "Annabelle Icksteroid"})
    scores = {m["player"]: m for m in ENGINE.result(state)["managers"]}
    assert scores["p2"]["accusation"] == scores["p3"]["accusation"] == 1
    state = _accuse(_finished({}, SQUARES), {"p1": "r3", "p3": "r3"})
    scores = {m["player"]: m for m in ENGINE.result(state)["managers"]}
    assert scores["p1"]["accusation"] == scores["p3"]["accusation"] == -1


def test_ruling_14_a_withdrawn_athlete_cannot_be_accused() -> None:
    state = eject(ENGINE, _finished({"r3": "enduron"}, SQUARES), "p2")
    with pytest.raises(RuleError) as err:
        submit(ENGINE, state, "p1", {"type": "accuse", "runner": "Sandra Loan"})
    assert err.value.rule == "tarnished: disqualifications" and "withdrawn" in err.value.message


def test_ruling_14_a_bot_never_accuses_a_withdrawn_athlete() -> None:
    """The bots' accusations are orders the rules accept: never a runner the ejection withdrew."""
    from engines.golden_strider import bots
    from engines.rng import Rng

    state = eject(ENGINE, _finished({"r3": "enduron"}, SQUARES), "p2")
    withdrawn = {r["id"] for r in state["runners"] if r["withdrawn"]}
    accused = {bots.accuse(state, "p1", Rng("bots", "accuse", n))["runner"] for n in range(200)}
    assert withdrawn and not accused & withdrawn and accused - {None}
    for athlete in accused:
        submit(ENGINE, state, "p1", {"type": "accuse", "runner": athlete})  # each one the rules accept


def test_ruling_14_an_accusation_whose_athlete_is_withdrawn_afterwards_counts_as_none() -> None:
    state = submit(ENGINE, _finished({"r3": "enduron"}, SQUARES), "p1", {"type": "accuse", "runner": "r3"})
    state = eject(ENGINE, state, "p2")
    result = ENGINE.result(resolve(state)[1])
    p1 = next(m for m in result["managers"] if m["player"] == "p1")
    r3 = next(r for r in result["runners"] if r["runner"] == "r3")
    assert p1["accusation"] == 0 and not r3["tested"] and not r3["disqualified"] and r3["place"] is None
