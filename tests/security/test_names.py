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
