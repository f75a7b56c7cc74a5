"""Fixtures for API tests: the Flask app on a real Redis, and a started game."""
from __future__ import annotations

from dataclasses import dataclass

import pytest

from service.app import create_app
from runtime.context import Context
from tests.platform.helpers import Api


@pytest.fixture()
def api(ctx: Context) -> Api:
    return Api(create_app(ctx).test_client())


@dataclass
class Game:
    id: str
    gm: str
    tokens: dict[str, str]

    def path(self, suffix: str = "") -> str:
        return f"/games/{self.id}{suffix}"


def new_game(api: Api, players: int = 4, game_type: str = "extreme-ways", start: bool = True, **create: object) -> Game:
    status, created = api.post("/games", {"type": game_type, "seed": "fixed-seed", **create})
    assert status == 201, created
    game = Game(created["game_id"], created["gm_token"], {})
    for i in range(players):
        status, joined = api.post(game.path("/players"), {"name": f"Player {i + 1}"})
        assert status == 201, joined
        game.tokens[joined["player_id"]] = joined["token"]
    if start:
        status, body = api.post(game.path("/start"), token=game.gm)
        assert status == 200, body
    return game


@pytest.fixture()
def game(api: Api) -> Game:
    return new_game(api)
