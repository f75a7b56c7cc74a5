"""Games of every registered type, set up generically, a bot order for any awaiting player,
and bot-played games that reach a legal order of every action type."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

from engines import registry
from engines.contract import GM, RuleError
from engines.gate import admit
from engines.driver import load_action
from engines.rng import Rng
from runtime.context import Context
from tests.platform.conftest import Game, new_game
from tests.platform.helpers import Api, run_queued_jobs

GAME_TYPES = registry.names()

# Games that, played by bots, reach every order type of their game type between them.
# A game type not listed here uses its engine's simulation cases; a type whose orders are
# not all reached fails the tests that need them, so a new game type gets a line here.
SCENARIOS: dict[str, tuple[dict[str, Any], ...]] = {
    "extreme-ways": (
        # garnets to buy gold with; one bidding round of one-square moves ties the
        # Elimination Candidate often, so an EC vote comes up within a few seeds
        {"options": {"bidding_rounds": 1, "move_range": 1}, "players": 4, "fields": [{"garnets": 2}] * 4},
    ),
    "golden-strider": (
        {"options": {"variant": "tarnished", "race_length": 10, "max_rounds": 5}, "players": 3,
         "fields": [{"runners": [f"Athlete {i}a", f"Athlete {i}b"]} for i in range(1, 4)]},  # play, then accuse
        {"options": {"variant": "robot"}, "players": 6},  # submit_robot
    ),
    "sxyzm-cyclone": ({"options": {}, "players": 3},),
    # a suffice turn opens only after a departure: p4 quits after the scenario's fourth phase
    # (its first safety auction opens some 25-30 phases in: one long game finds it, where short ones keep missing)
    # A tie-breaking vote opens only when a ceremony ties and someone bought the vote: four cyclists' first long
    # game has one (without it the search played all eight seeds of the others, a minute or more, to find one).
    "strategic-aspect": ({"options": {}, "players": 3, "phases": 150},
                         {"options": {}, "players": 4, "quit": {"step": 3, "player": "p4"}},
                         {"options": {}, "players": 4, "phases": 150}),
}
# Options that end a game within a few phases (the authorization matrix needs a finished game).
QUICK: dict[str, dict[str, Any]] = {
    "extreme-ways": {"bidding_rounds": 1},
    "golden-strider": {"race_length": 10, "max_rounds": 5},
    "sxyzm-cyclone": {"max_turns": 1},
}


def signed_up(api: Api, game_type: str, players: int, seed: str = "security",
              options: dict[str, Any] | None = None, fields: list[dict[str, Any]] | None = None) -> Game:
    """A game in sign-up; players with sign-up fields are registered by the GM (some fields are the GM's)."""
    if not fields:
        return new_game(api, players=players, game_type=game_type, seed=seed, start=False, options=options or {})
    status, created = api.post("/games", {"type": game_type, "seed": seed, "options": options or {}})
    assert status == 201, created
    game = Game(created["game_id"], created["gm_token"], {})
    for index in range(players):
        extra = fields[index] if index < len(fields) else {}
        status, joined = api.post(game.path("/players"), {"name": f"Player {index + 1}", **extra},
                                  token=game.gm if extra else None)
        assert status == 201, joined
        game.tokens[joined["player_id"]] = joined["token"]
    return game


def started(api: Api, game_type: str, players: int | None = None, seed: str = "security",
            options: dict[str, Any] | None = None, fields: list[dict[str, Any]] | None = None) -> Game:
    """A running game with the fewest players its rules start with (at least three)."""
    engine = registry.latest(game_type)
    first = players or max(engine.meta.min_players, 3)
    for count in range(first, engine.meta.max_players + 1):
        game = signed_up(api, game_type, count, seed, options, fields)
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


def advance(api: Api, ctx: Context, game: Game, tag: str) -> bool:
    """Bots send their orders and the GM resolves the phase; False once the game no longer moves on."""
    status, body = api.get(game.path(), game.gm)
    if body["status"] != "running":
        return False
    number = body["phase"]["number"]
    for player in body["phase"]["awaiting"]:
        order = bot_order(ctx, game, player, f"{tag}-{number}")
        if order is not None and player in game.tokens:
            api.post(game.path("/actions"), order, token=game.tokens[player])
    api.post(game.path("/actions"), {"type": "gm.resolve_now", "reason": "next phase"}, token=game.gm)
    run_queued_jobs(ctx)
    after = api.get(game.path(), game.gm)[1]
    return after["status"] == "running" and after["phase"]["number"] != number


def finished(api: Api, ctx: Context, game_type: str, seed: str = "finished", phases: int = 300) -> Game:
    """A game that bots played to its end."""
    game = started(api, game_type, seed=seed, options=QUICK.get(game_type, {}))
    for _ in range(phases):
        if not advance(api, ctx, game, "finish"):
            break
    status, body = api.get(game.path(), game.gm)
    assert body["status"] == "finished", f"{game_type}: not over after {phases} phases"
    return game


@dataclass
class Legal:
    """An order that the rules accept from ``actor`` right now in ``game``."""

    game: Game
    scenario: int
    phase: int  # its number
    stage: str  # its name (bidding, moving, ...)
    actor: str  # a player id, or GM
    token: str
    order: dict[str, Any]


def _legal_now(engine: Any, state: Any, actor: str, order: dict[str, Any]) -> bool:
    try:
        admit(engine, state, actor, load_action(engine, order))
    except (RuleError, ValueError):  # marshmallow's ValidationError is a ValueError
        return False
    return True


def legal_orders(api: Api, ctx: Context, game_type: str, seeds: int = 8, phases: int = 40) -> Iterator[Legal]:
    """Bots play each scenario's games; the first time in a scenario that an order type is
    legal, yield such an order with the game held in that phase until the caller resumes.

    Candidates are the bots' orders (several draws per player) and each action type's
    documented example; the rules (``engine.validate``) say which are legal now.  Another
    seed is played while some order type has not been reached; once all have, it stops.
    """
    engine = registry.latest(game_type)
    scenarios = SCENARIOS.get(game_type) or tuple(engine.simulation_cases)
    reached: set[str] = set()
    seen: list[set[str]] = [set() for _ in scenarios]  # order types found so far, per scenario
    for attempt in range(seeds):
        for index, scenario in enumerate(scenarios):
            game = started(api, game_type, scenario.get("players"), f"legal-{index}-{attempt}",
                           scenario.get("options"), [dict(f) for f in scenario.get("fields", ())])
            for step in range(scenario.get("phases", phases)):
                record = ctx.loader.load(game.id)
                if record["status"] != "running":
                    break
                for actor, order in _candidates(engine, record["engine"], step):
                    record = ctx.loader.load(game.id)  # the caller may have changed it (an accepted order)
                    if order["type"] in seen[index] or not _legal_now(engine, record["engine"], actor, order):
                        continue
                    seen[index].add(order["type"])
                    reached.add(order["type"])
                    token = game.gm if actor == GM else game.tokens[actor]
                    yield Legal(game, index, record["phase"]["number"], engine.phase(record["engine"]).name,
                                actor, token, order)
                    if reached >= set(engine.actions):
                        return
                if not advance(api, ctx, game, f"legal-{attempt}"):
                    break
                _quit_on_cue(api, game, scenario, step)


def _quit_on_cue(api: Api, game: Game, scenario: dict[str, Any], step: int) -> None:
    """A scenario's ``quit`` ({"step", "player"}): that player quits after that step, for the orders that only a
    departure opens."""
    cue = scenario.get("quit")
    if cue and step == cue["step"]:
        status, body = api.post(game.path("/actions"), {"type": "quit"}, token=game.tokens[cue["player"]])
        assert status == 202, body


def _candidates(engine: Any, state: Any, step: int) -> Iterator[tuple[str, dict[str, Any]]]:
    phase = engine.phase(state)
    actors = phase.actors if phase is not None else ()
    for actor in actors:
        for draw in range(6):
            order = engine.bot_action(state, actor, Rng("legal", step, draw, actor))
            if order is not None:
                yield actor, order
    for kind, spec in engine.actions.items():
        example = {"type": kind, **dict(spec.example)}
        for actor in ((GM,) if spec.actor == "gm" else actors):
            yield actor, example
