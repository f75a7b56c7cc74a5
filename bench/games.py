"""Setting up games for a benchmark, through the same commands the API runs."""
from __future__ import annotations

from dataclasses import dataclass

from engines import registry
from engines.rng import Rng
from service import commands
from runtime.context import Context


@dataclass
class Game:
    game_id: str
    gm_token: str
    tokens: dict[str, str]  # player id -> token


def make_game(ctx: Context, game_type: str = "extreme-ways", players: int = 4, *, start: bool = True,
              deadlines: dict[str, int] | None = None, resolve_early: bool = True) -> Game:
    created = commands.create_game(ctx, {"type": game_type, "deadlines": deadlines or {},
                                         "resolve_early": resolve_early})
    game = Game(created["game_id"], created["gm_token"], {})
    for index in range(players):
        joined = commands.join(commands.sender(ctx, game.game_id, None, {"name": f"Bench {index + 1}"}))[1]
        game.tokens[joined["player_id"]] = joined["token"]
    if start:
        commands.start(commands.sender(ctx, game.game_id, game.gm_token, {}))
    return game


def bot_orders(ctx: Context, game: Game, seed: str = "bench") -> dict[str, dict]:
    """A legal order for each awaiting player who has one (bots may pass by sending nothing)."""
    record = ctx.loader.load(game.game_id)
    engine = registry.get(record["type"], record["version"])
    phase = engine.phase(record["engine"])
    orders = {}
    for actor in phase.awaiting:
        action = engine.bot_action(record["engine"], actor, Rng(seed, game.game_id, actor))
        if action is not None:
            orders[actor] = action
    return orders
