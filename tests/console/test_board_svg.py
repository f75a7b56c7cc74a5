"""Each game's board drawn from a bot-played game's view: valid SVG, names escaped, only what the view holds."""
from __future__ import annotations

import importlib
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from engines import registry
from engines.driver import play_bots, player_list

SVG = "{http://www.w3.org/2000/svg}"
PLAYERS = {"elemental-tag": 4, "extreme-ways": 3, "golden-strider": 6, "strategic-aspect": 3, "sxyzm-cyclone": 3}
EVIL = "<script>alert(1)</script>"


def _played(game: str) -> tuple[Any, Any]:
    engine = registry.get(game)
    players = player_list(PLAYERS[game])
    players[0]["name"] = EVIL
    return engine, play_bots(engine, None, players, "console-seed")


def _render(game: str, view: dict[str, Any]) -> str:
    return importlib.import_module(f"engines.{game.replace('-', '_')}.board_svg").render(view)


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_every_state_of_a_bot_game_draws_as_svg_with_names_escaped(game: str) -> None:
    engine, played = _played(game)
    for state in (played.states[1], played.states[len(played.states) // 2], played.final):
        svg = _render(game, engine.view(state, "p2"))
        root = ET.fromstring(svg)  # well-formed: a name cannot open an element
        assert root.tag == f"{SVG}svg"
        assert "<script" not in svg
        assert not list(root.iter(f"{SVG}script"))
        assert "None" not in _texts(svg) and "undefined" not in _texts(svg)  # Python's None never reaches a label
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in _render(game, engine.view(played.final, "p2"))


def _texts(svg: str) -> str:
    return " ".join("".join(t.itertext()) for t in ET.fromstring(svg).iter(f"{SVG}text"))


def test_the_tag_grid_puts_every_player_with_a_square_on_it() -> None:
    engine, played = _played("elemental-tag")
    view = engine.view(played.states[len(played.states) // 2], "p1")
    root = ET.fromstring(_render("elemental-tag", view))
    drawn = [g.get("data-player") for g in root.iter(f"{SVG}g") if g.get("class") == "player"]
    assert drawn == [p["id"] for p in view["players"] if p.get("square")]
    assert len([r for r in root.iter(f"{SVG}rect") if r.get("class") == "square"]) == view["size"] ** 2


def test_the_strider_track_has_a_square_per_step_and_every_runner() -> None:
    engine, played = _played("golden-strider")
    view = engine.view(played.states[len(played.states) // 2], "p1")
    root = ET.fromstring(_render("golden-strider", view))
    assert len([r for r in root.iter(f"{SVG}rect") if r.get("class") == "square"]) == view["race_length"] + 1
    assert sorted(g.get("data-runner") for g in root.iter(f"{SVG}g") if g.get("class") == "runner") == sorted(
        r["id"] for r in view["runners"])


def test_the_cyclone_board_draws_every_cube_on_a_path_in_its_stack() -> None:
    engine, played = _played("sxyzm-cyclone")
    view = engine.view(played.states[len(played.states) // 2], "p1")
    root = ET.fromstring(_render("sxyzm-cyclone", view))
    on_paths = sorted(c for p in view["paths"].values() if p["open"] for s in p["spaces"] for c in s["stack"])
    assert on_paths and sorted(g.get("data-cube") for g in root.iter(f"{SVG}g") if g.get("class") == "cube") == on_paths


def test_extreme_ways_draws_the_map_once_positions_are_known() -> None:
    engine, played = _played("extreme-ways")
    running = ET.fromstring(_render("extreme-ways", engine.view(played.states[2], "p1")))
    assert not [g for g in running.iter(f"{SVG}g") if g.get("class") == "position"]
    final = engine.view(played.final, "p1")
    root = ET.fromstring(_render("extreme-ways", final))
    assert sorted(g.get("data-player") for g in root.iter(f"{SVG}g") if g.get("class") == "position") == sorted(
        final["results"]["positions"])
    assert f'{final["you"]["gold"]} gold' in _texts(_render("extreme-ways", final))


def test_extreme_ways_shows_a_player_their_own_gold_only() -> None:
    engine, played = _played("extreme-ways")
    state = played.states[len(played.states) // 2]
    mine = engine.view(state, "p1")["you"]
    as_p1 = _texts(_render("extreme-ways", engine.view(state, "p1")))
    assert f'you: {mine["gold"]} gold, {mine["garnets"]} garnets' in as_p1 and as_p1.count("gold") == 1
    assert "gold" not in _texts(_render("extreme-ways", engine.view(state, None)))


def test_strategic_aspect_draws_the_cycle_spaces_and_every_cyclist() -> None:
    engine, played = _played("strategic-aspect")
    view = engine.view(played.states[len(played.states) // 2], "p1")
    root = ET.fromstring(_render("strategic-aspect", view))
    assert len([r for r in root.iter(f"{SVG}rect") if r.get("class") == "space"]) == view["cycle"]["length"] + 1
    for rider in view["standings"]:
        assert f'space {rider["position"]}, steps {rider["shown"]}' in _texts(_render("strategic-aspect", view))


PHONE_PX = 390  # a phone's width (CSS pixels), where the page shows the board at most that wide


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_every_label_is_readable_on_a_phone(game: str) -> None:
    """Scaled to a 390 px phone, no text is smaller than 8 px (Golden Strider's 60-square track was 3.5 px)."""
    engine, played = _played(game)
    root = ET.fromstring(_render(game, engine.view(played.states[len(played.states) // 2], "p2")))
    scale = min(1.0, PHONE_PX / float(root.get("width")))
    smallest = min(float(t.get("font-size")) for t in root.iter(f"{SVG}text") if t.get("font-size"))
    assert smallest * scale >= 8, f"{smallest} units at {scale:.2f}: {smallest * scale:.1f} px"
