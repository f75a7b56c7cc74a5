"""Bots that play a game over HTTP, reading the full state from the store only to
choose their random legal orders (the orders themselves go through the API)."""
from __future__ import annotations

from typing import Any, Callable

from engines import registry
from eventlog import clock
from engines.rng import Rng
from runtime.config import Settings
from runtime.context import Context
from tests.e2e.follow import Logs, past
from tests.e2e.stack import Stack


def create_and_join(stack: Stack, game_type: str, players: int, fields: list[dict] | None = None,
                    **create: Any) -> tuple[str, str, dict[str, str]]:
    status, created = stack.call("POST", "/games", {"type": game_type, **create})
    assert status == 201, created
    game_id, gm = created["game_id"], created["gm_token"]
    tokens: dict[str, str] = {}
    for index in range(players):
        extra = fields[index] if fields else {}
        status, joined = stack.call("POST", f"/games/{game_id}/players", {"name": f"Runner {index + 1}", **extra},
                                    token=gm if extra else None)
        assert status == 201, joined
        tokens[joined["player_id"]] = joined["token"]
    status, body = stack.call("POST", f"/games/{game_id}/start", token=gm)
    assert status == 200, body
    return game_id, gm, tokens


def play_to_the_end(stack: Stack, settings: Settings, game_id: str, gm: str, tokens: dict[str, str],
                    skip: Callable[[int, str], bool] = lambda number, player: False,
                    phase_timeout: float = 30.0, receipts: list[dict] | None = None) -> dict[str, Any]:
    """Bots send orders for every awaiting player (unless ``skip``) and wait for each
    phase to be resolved by the worker; returns the final public game body."""
    ctx = Context(settings)
    logs = Logs(settings.redis_url)
    engine = None
    while True:
        status, game = stack.call("GET", f"/games/{game_id}")
        assert status == 200
        if game["status"] == "finished":
            return game
        engine = engine or registry.get(game["type"], game["version"])
        number = game["phase"]["number"]
        state = ctx.loader.load(game_id)["engine"]
        missing = False
        for player in game["phase"]["awaiting"]:
            action = None if skip(number, player) else engine.bot_action(state, player, Rng("e2e-bots", number, player))
            if action is None:
                missing = True
                continue
            token = tokens.get(player, gm)
            status, body = stack.call("POST", f"/games/{game_id}/actions", action, token=token)
            assert status == 202, (action, body)
            if receipts is not None:
                receipts.append(body["receipt"])
        if missing:
            hurry(stack, game_id, gm, game["phase"])
        logs.wait([game_id], past(number), phase_timeout)


def hurry(stack: Stack, game_id: str, gm: str, phase: dict[str, Any]) -> None:
    """The GM brings the deadline of a phase that waits for a missing order to a second or two from now: it is still
    resolved at its deadline, by the scheduler, without the test sitting out the rest of it.  (Never a deadline
    already that near: one that passed meanwhile would move the next phase's.)"""
    soon = clock.after(1)
    if clock.parse(soon) >= clock.parse(phase["deadline"]):
        return
    status, body = stack.call("POST", f"/games/{game_id}/actions",
                              {"type": "gm.extend_deadline", "deadline": soon, "reason": "the bots are done"}, token=gm)
    assert status == 202, body
