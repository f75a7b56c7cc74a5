"""The documented Game (with its typed phase) is what GET /v1/games/{id} returns in every status, to every
viewer; 429 and 503 are documented where they can happen."""
from __future__ import annotations

from datetime import timedelta

import pytest
from freezegun import freeze_time
from marshmallow import INCLUDE

from eventlog import clock
from cli import simulate
from runtime.context import Context
from service.openapi import document
from service.answers import GameSchema
from tests.platform.conftest import Game, new_game
from tests.platform.helpers import Api


def _check(body: dict) -> None:
    errors = GameSchema(unknown=INCLUDE).validate(body)
    assert errors == {}, errors
    documented = set(document()["components"]["schemas"]["Game"]["properties"])
    assert set(body) <= documented, set(body) - documented  # nothing the document does not mention
    if body["phase"] is not None:
        assert set(body["phase"]) <= set(document()["components"]["schemas"]["Phase"]["properties"])


def _views(api: Api, game: Game) -> list[dict]:
    tokens = [None, game.gm, *game.tokens.values()]
    return [api.get(game.path(), token)[1] for token in tokens]


def test_signup_and_running(api: Api) -> None:
    game = new_game(api, start=False)
    for body in _views(api, game):
        _check(body)
        assert body["phase"] is None and body["status"] == "signup"
    assert api.post(game.path("/start"), token=game.gm)[0] == 200
    for body in _views(api, game):
        _check(body)
        phase = body["phase"]
        assert phase["number"] == 1 and phase["name"] == "bidding" and phase["sealed"] is True
        assert sorted(phase["awaiting"]) == sorted(game.tokens) and clock.parse(phase["deadline"])


def test_paused(api: Api, game: Game) -> None:
    deadline = clock.parse(api.get(game.path())[1]["phase"]["deadline"])
    with freeze_time(deadline - timedelta(seconds=90)):
        assert api.post(game.path("/actions"), {"type": "gm.pause", "reason": "x"}, token=game.gm)[0] == 202
    for body in _views(api, game):
        _check(body)
        assert body["phase"]["deadline"] is None and body["phase"]["paused_remaining_seconds"] == 90


def test_finished(api: Api, ctx: Context) -> None:
    report = simulate.run(ctx, "extreme-ways", 5, "shape", {}, echo=None)
    status, body = api.get(f"/games/{report['game_id']}")
    assert status == 200
    _check(body)
    assert body["phase"] is None and body["result"] and body["seed"] == "shape"


@pytest.mark.parametrize("path, method", [("/v1/games/{game_id}", "get"), ("/v1/games/{game_id}/actions", "post"),
                                          ("/v1/games/{game_id}/audit", "get")])
def test_429_and_503_are_documented_where_a_token_or_the_store_is_read(path: str, method: str) -> None:
    responses = document()["paths"][path][method]["responses"]
    assert {"429", "503"} <= set(responses)
    assert "corrupt_log" in responses["503"]["description"]


def test_verify_and_game_types_read_no_store_and_no_token() -> None:
    for path, method in [("/v1/replays/verify", "post"), ("/v1/game-types", "get")]:
        assert not {"429", "503"} & set(document()["paths"][path][method]["responses"])
