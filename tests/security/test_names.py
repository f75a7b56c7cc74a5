"""Issue 18 item 7: player names are normalised, and none hides text or passes for another."""
from __future__ import annotations

import pytest

from tests.platform.conftest import new_game
from tests.platform.helpers import Api


def _join(api: Api, game_id: str, name: str) -> tuple[int, dict]:
    return api.post(f"/games/{game_id}/players", {"name": name})


@pytest.fixture()
def signup(api: Api) -> str:
    game = new_game(api, players=0, start=False)
    status, body = _join(api, game.id, "Ann")
    assert status == 201, body
    return game.id


@pytest.mark.parametrize("lookalike", ["Ａｎｎ", "\u0410nn", "ann", " Ann ", "A\u043f\u043f"[:1] + "nn", "ANN"])
def test_a_name_that_looks_like_a_taken_one_is_refused(api: Api, signup: str, lookalike: str) -> None:
    status, body = _join(api, signup, lookalike)
    assert status == 422 and body["error"]["details"]["name"], body


@pytest.mark.parametrize("pair", [("Ian", "lan"), ("Bob0", "BobO"), ("Clark", "Clark"[:3] + "rk"), ("Vern", "Vem")])
def test_latin_look_alikes_are_refused_too(api: Api, pair: tuple[str, str]) -> None:
    game = new_game(api, players=0, start=False)
    assert _join(api, game.id, pair[0])[0] == 201
    status, body = _join(api, game.id, pair[1])
    assert status == 422, body


@pytest.mark.parametrize("name", ["Eve\nMallory", "Eve\u202eyrollaM", "E\u200bve", "Eve\u2028x", "\u00adEve",
                                  "Eve\u2066x\u2069", "\u3000 ", "\t", "Eve\x00", "Eve\ue000"])
def test_hidden_characters_and_blank_names_are_refused(api: Api, signup: str, name: str) -> None:
    status, body = _join(api, signup, name)
    assert status == 422 and "name" in body["error"]["details"], body
    status, game = api.get(f"/games/{signup}")
    assert [p["name"] for p in game["players"]] == ["Ann"]  # nothing was recorded


def test_a_name_is_stored_in_its_normal_form(api: Api, signup: str) -> None:
    status, body = _join(api, signup, "  Ｂｏｂ   the\u00a0Great ")
    assert status == 201 and body["name"] == "Bob the Great", body
    status, game = api.get(f"/games/{signup}")
    assert [p["name"] for p in game["players"]] == ["Ann", "Bob the Great"]


def test_distinct_names_in_other_scripts_are_welcome(api: Api, signup: str) -> None:
    for name in ("Анна", "Ἀθηνᾶ", "José", "李雷"):
        status, body = _join(api, signup, name)
        assert status == 201 and body["name"] == name, body


# -- issue 28 item 8: Unicode's confusable skeletons and default-ignorables, and every typed name --------------

@pytest.mark.parametrize("lookalike", ["\ua4eenn", "\u0251nn", "A\u0578n"])
def test_unicode_confusables_of_a_taken_name_are_refused(api: Api, signup: str, lookalike: str) -> None:
    """UTS #39: Lisu A (U+A4EE), Latin alpha (U+0251), Armenian vo (U+0578) pass for Latin letters."""
    status, body = _join(api, signup, lookalike)
    assert status == 422 and body["error"]["details"]["name"], body


@pytest.mark.parametrize("invisible", ["\ufe0f", "\u034f", "\u180b", "\u17b4", "\u1160"])
def test_a_name_with_a_default_ignorable_character_is_refused(api: Api, signup: str, invisible: str) -> None:
    status, body = _join(api, signup, "Ann" + invisible)
    assert status == 422 and body["error"]["details"]["name"], body
    status, body = _join(api, signup, "Bob" + invisible)  # not only beside a taken name: invisible is refused
    assert status == 422 and body["error"]["details"]["name"], body


@pytest.mark.parametrize("blank", ["\u3164", "\u2800", "\u115f", "\u0301", "\u2800Ann", "\u0301Bob", "\u2800\u3000"])
def test_names_that_draw_nothing_or_lean_on_nothing_are_refused(api: Api, signup: str, blank: str) -> None:
    status, body = _join(api, signup, blank)
    assert status == 422 and body["error"]["details"]["name"], body
    status, game = api.get(f"/games/{signup}")
    assert [p["name"] for p in game["players"]] == ["Ann"]


def _golden_strider(api: Api, **fields: object) -> tuple[str, tuple[int, dict]]:
    status, created = api.post("/games", {"type": "golden-strider", "seed": "names"})
    assert status == 201, created
    first = api.post(f"/games/{created['game_id']}/players", {"name": "Ann", "runner": "Swift"})
    assert first[0] == 201, first
    return created["game_id"], api.post(f"/games/{created['game_id']}/players", {"name": "Bob", **fields})


@pytest.mark.parametrize("runner", ["Dash\x01", "Dash\nNews", "[b]Dash[/b]", "Dash\u202eyrev", "Dash\u200b",
                                    "\u3164", "Da\ufe0fsh"])
def test_runner_names_get_the_player_names_check(api: Api, runner: str) -> None:
    """A runner named with U+0001 made board.svg invalid XML for every viewer; newlines, BBCode and a
    right-to-left override went into forum reports."""
    game_id, (status, body) = _golden_strider(api, runner=runner)
    assert status == 422 and body["error"]["details"]["runner"], body
    status, game = api.get(f"/games/{game_id}")
    assert [p["name"] for p in game["players"]] == ["Ann"]


@pytest.mark.parametrize("runner", ["Sw\u0456ft", "Ann", "\u0410nn"])
def test_a_runner_name_that_looks_like_a_name_in_the_game_is_refused(api: Api, runner: str) -> None:
    _game_id, (status, body) = _golden_strider(api, runner=runner)
    assert status == 422 and body["error"]["details"]["runner"], body


def test_a_runner_name_is_stored_in_its_normal_form(api: Api) -> None:
    game_id, (status, body) = _golden_strider(api, runner="  Ｄａｓｈ  ")
    assert status == 201, body
    status, game = api.get(f"/games/{game_id}")
    assert [p["fields"]["runner"] for p in game["players"]] == ["Swift", "Dash"]


def _robot_race(api: Api) -> tuple[str, dict[str, str]]:
    status, created = api.post("/games", {"type": "golden-strider", "seed": "robot-names",
                                          "options": {"variant": "robot"}})
    assert status == 201, created
    tokens = {}
    for number in range(6):
        status, joined = api.post(f"/games/{created['game_id']}/players", {"name": f"Owner {number}"})
        assert status == 201, joined
        tokens[joined["player_id"]] = joined["token"]
    started = api.post(f"/games/{created['game_id']}/start", token=created["gm_token"])
    assert started[0] == 200, started
    return created["game_id"], tokens


@pytest.mark.parametrize("name", ["Bolt\x01", "Bolt\nNews", "[url]Bolt[/url]", "Bolt\u202etlob", "Bo\u200blt"])
def test_a_robot_algorithm_s_name_gets_the_same_check(api: Api, name: str) -> None:
    """A robot's algorithm is named by its player and shown to everyone at the end."""
    from engines.golden_strider.bots import robot
    from engines.rng import Rng

    game_id, tokens = _robot_race(api)
    order = robot(Rng("names", "robot"))
    status, body = api.post(f"/games/{game_id}/actions", {**order, "algorithm": {**order["algorithm"], "name": name}},
                            token=tokens["p1"])
    assert status == 422 and body["error"]["details"]["algorithm"]["name"], body
    status, body = api.post(f"/games/{game_id}/actions", order, token=tokens["p1"])
    assert status == 202, body
