"""The forum report with the map: every format, names escaped in each, and only what the caller may see."""
from __future__ import annotations

import pytest

from engines.contract import GM, PUBLIC, RuleError
from engines.driver import player_list, start
from engines.elemental_tag import ENGINE
from tests.engines.elemental_tag.helpers import FIRE3_WATER2_ALONE2, on_map, resolve, send, signed_up

HOSTILE = "**Bo[b]** <i>x</i> [url=http://evil]y[/url] `z` |q|\nforged line"


def _moved() -> dict:
    fields = FIRE3_WATER2_ALONE2
    played = start(ENGINE, {}, [*player_list(6, fields[:6]), {"id": "p7", "name": HOSTILE, "fields": {}}], "rep")
    state = on_map(played.final, {"p1": (1, 1), "p2": (2, 1), "p3": (5, 5), "p4": (3, 3), "p5": (4, 4),
                                  "p6": (1, 5), "p7": (2, 2)}, it="p7")
    state = send(state, "p7", type="move", direction="n", tags=["p2"])
    state = send(send(state, "p1", type="move", direction="e"), "p4", type="move", direction="sw")
    return resolve(state)[1]


def test_the_report_has_the_map_moves_collisions_it_points_and_eliminations() -> None:
    data = ENGINE.report(_moved(), None, "json", PUBLIC)
    assert data["round"] == 3 and data["title"] == "Moving round 1" and data["size"] == 5
    assert data["map"][0].split() == ["1", "2", "3", "4", "5"] and len(data["map"]) == 6
    by_id = {p["id"]: p for p in data["players"]}
    assert by_id["p4"]["move"] == "sw" and by_id["p4"]["square"] == [2, 4] and by_id["p6"]["move"] == "stay"
    assert data["collisions"][0]["players"] == ["p1", "p2", "p7"] and data["tagged"] == "p2" and data["it"] == "p2"
    row = data["map"][1].split()
    assert row[0] == "1" and row[1] == by_id["p1"]["key"] and row[2] == by_id["p2"]["key"]
    assert {t["points"] for t in data["teams"] if t["team"] == "t4"} == {25 - 2 - 1}
    assert "gm" not in data and "tags" not in str(data)


def test_each_format_escapes_player_names() -> None:
    state = _moved()
    text = ENGINE.report(state, None, "text", PUBLIC)
    assert "\nforged line" not in text and "forged line" in text
    markdown = ENGINE.report(state, None, "markdown", PUBLIC)
    assert r"\*\*Bo\[b\]\*\* \<i\>x\</i\>" in markdown and "**Bo[b]**" not in markdown
    assert "```\n" in markdown
    bbcode = ENGINE.report(state, None, "bbcode", PUBLIC)
    assert "[url=" not in bbcode and "[noparse][[/noparse]url=http://evil[noparse]][/noparse]" in bbcode
    assert bbcode.count("[code]") == 1 and "[*]" in bbcode
    for out in (text, markdown, bbcode):  # the map holds keys, never names
        grid = out.split("\n")[2:9]
        assert all("Bo" not in line for line in grid)


def test_only_the_gm_gets_the_rounds_secrets() -> None:
    state = _moved()
    assert ENGINE.report(state, None, "json", GM)["gm"]["tags"] == ["p2"]
    assert "gm" not in ENGINE.report(state, None, "json", "p1")


def test_every_round_has_a_report_and_an_unplayed_one_is_refused() -> None:
    state = signed_up(FIRE3_WATER2_ALONE2)
    with pytest.raises(RuleError):
        ENGINE.report(state, None, "json", PUBLIC)
    _, state = resolve(state)
    first = ENGINE.report(state, 1, "json", PUBLIC)
    assert first["kind"] == "bidding" and first["it"] == state["it"] and len(first["players"]) == 7
    with pytest.raises(RuleError):
        ENGINE.report(state, 2, "json", PUBLIC)
    with pytest.raises(RuleError):
        ENGINE.report(state, 1, "html", PUBLIC)


def test_after_the_end_the_report_still_keeps_the_secrets_to_the_gm_and_the_closed_view_hides_them() -> None:
    state = {**_moved(), "stage": "over"}
    assert "gm" not in ENGINE.report(state, None, "json", PUBLIC) and "gm" in ENGINE.report(state, None, "json", GM)
    assert "hidden" in ENGINE.view(state, "p1") and "hidden" not in ENGINE.closed_view(state, "p1")


def test_the_bidding_report_names_the_tied_players_and_who_was_drawn() -> None:
    state = signed_up(FIRE3_WATER2_ALONE2)
    for player in ("p1", "p4"):
        state = send(state, player, type="bid", amount=0)
    for player in ("p2", "p3", "p5", "p6", "p7"):
        state = send(state, player, type="bid", amount=2)
    _, state = resolve(state)
    text = ENGINE.report(state, 1, "text", PUBLIC)
    assert "the lowest bid was tied (Player 1, Player 4); drawn by lot" in text
    assert f"{state['names'][state['it']]} is it" in text and "Round 1: who's it" in text
