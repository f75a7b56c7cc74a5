"""Games of every registered type, set up generically, and a bot order for any awaiting player."""
from __future__ import annotations

from typing import Any

from engines import registry
from engines.rng import Rng
from service.context import Context
from tests.platform.conftest import Game, new_game
from tests.platform.helpers import Api

GAME_TYPES = registry.names()


def started(api: Api, game_type: str, players: int | None = None, seed: str = "security") -> Game:
    """A running game with the fewest players its rules start with (at least three)."""
    engine = registry.latest(game_type)
    first = players or max(engine.meta.min_players, 3)
    for count in range(first, engine.meta.max_players + 1):
        game = new_game(api, players=count, game_type=game_type, seed=seed, start=False)
        status, body = api.post(game.path("/start"), token=game.gm)
        if status == 200:
            return game
        assert status == 409 and body["error"]["code"] == "cannot_start", body
    raise AssertionError(f"{game_type} would not start with {first}..{engine.meta.max_players} players")


def awaiting(api: Api, game: Game) -> list[str]:
    status, body = api.get(game.path(), game.gm)
    assert status == 200, body
    return list(body["phase"]["awaiting"]) if body.get("phase") else []


def bot_order(ctx: Context, game: Game, player: str, tag: str = "bot") -> dict[str, Any] | None:
    record = ctx.loader.load(game.id)
    engine = registry.get(record["type"], record["version"])
    return engine.bot_action(record["engine"], player, Rng("security", tag, player))


def seq(api: Api, game: Game) -> tuple[int, str]:
    body = api.get(game.path(), game.gm)[1]
    return body["seq"], body["head_hash"]
