"""The forum report of SXYZM Cyclone: the open turn's position, the same for everyone, names escaped."""
from __future__ import annotations

import pytest

from engines import driver, registry
from engines.contract import RuleError

ENGINE = registry.latest("sxyzm-cyclone")

EVIL = "[b]Winner[/b]\nAnn"


def _played() -> driver.Played:
    players = driver.player_list(2)
    players[0]["name"] = EVIL
    return driver.play_bots(ENGINE, {}, players, "report")


def test_the_report_of_a_finished_game_names_the_winners_and_the_finished_cubes() -> None:
    state = _played().final
    data = ENGINE.report(state, None, "json")
    assert data["status"] == "finished" and data["round"] == state["turn"] and data["winners"]
    assert [r["colour"] for r in data["rows"]] == [p["colour"] for p in state["players"]]
    text = ENGINE.report(state, None, "text")
    assert text.startswith(f"SXYZM Cyclone - turn {state['turn']}\nThe game is over")
    assert "\n".join(data["diagram"]) in text


def test_the_report_of_the_open_turn_says_whose_turn_and_the_roll() -> None:
    played = driver.start(ENGINE, {}, driver.player_list(2), "report-open")
    state = driver.fold(ENGINE, played)
    data = ENGINE.report(state, None, "json")
    assert data["current"] == {"player": "Player 1" if state["current"] == state["players"][0]["colour"]
                               else "Player 2", "colour": state["current"], "roll": state["roll"]}
    assert f"rolled {state['roll']}." in ENGINE.report(state, 1, "markdown")


def test_a_name_is_shown_never_obeyed_in_every_format() -> None:
    state = _played().final
    for fmt in ("text", "markdown", "bbcode"):
        report = ENGINE.report(state, None, fmt)
        assert "\nAnn" not in report, fmt  # the name's line break cannot start a line of its own
        assert ("[b]Winner" in report) == (fmt == "text"), fmt  # nor bold a line where the format could


def test_only_the_open_turn_has_a_report() -> None:
    state = _played().final
    with pytest.raises(RuleError, match="only the position at turn"):
        ENGINE.report(state, 1, "json")
