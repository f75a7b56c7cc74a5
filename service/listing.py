"""Lists of games: every game (filtered, paged) for finding one to join, and the games of many tokens at
once for a bot that comes back after a restart.  Both show only what anyone may see of a game, plus, for a
token's own games, who the token is and whether the open phase waits for it."""
from __future__ import annotations

from typing import Any

from engines import registry
from eventlog import index, keys
from replays.fold import FoldError, Record, engine_for
from replays.views import teams_of
from runtime.context import Context
from service.auth import caller_for
from service.errors import ApiError, invalid
from service.guards import load
from service.membership import still_playing
from service.schemas import GAME_STATUSES, MyGamesRequestSchema

SCAN_LIMIT = 500  # games looked at per page at most: a filter that matches few games pages on, never stalls
CHUNK = 100


def summary(record: Record) -> dict[str, Any]:
    """A game's public facts for a list: nothing that depends on who asks."""
    engine = engine_for(record)
    seated = sum(1 for p in record["players"] if still_playing(p))
    status = record["status"]
    phase = record.get("phase") if status in ("running", "paused") else None
    takes_players = status == "signup" or (status == "running" and engine.meta.late_joins)
    return {
        "game_id": record["game_id"], "name": record.get("name"), "type": record["type"],
        "version": record["version"], "status": status, "created_at": record["created_at"],
        "players": seated, "max_players": engine.meta.max_players,
        "open_to_join": takes_players and seated < engine.meta.max_players,
        "phase": None if phase is None else {"name": phase["name"], "number": phase["number"],
                                             "deadline": None if status == "paused" else phase["deadline"]},
    }


def list_games(ctx: Context, game_type: str | None, status: str | None, after: str | None,
               limit: int) -> dict[str, Any]:
    """A page of games, newest first.  ``next_after`` is null only when no game is left to look at."""
    problems = {}
    if game_type is not None and registry.latest(game_type) is None:
        problems["type"] = [f"Choose one of: {', '.join(registry.names())}."]
    if status is not None and status not in GAME_STATUSES:
        problems["status"] = [f"Choose one of: {', '.join(GAME_STATUSES)}."]
    if after is not None and index.created(ctx.redis, after) is None:
        problems["after"] = ["Not a cursor this list gave (pass next_after as it came)."]
    if problems:
        raise invalid("Bad list parameters.", problems)
    games: list[dict[str, Any]] = []
    looked, cursor, exhausted = 0, after, False
    while len(games) < limit and looked < SCAN_LIMIT:
        ids = index.newest_first(ctx.redis, cursor, min(CHUNK, SCAN_LIMIT - looked), status)
        if not ids:
            exhausted = True
            break
        for game_id in ids:
            looked += 1
            cursor = game_id
            record = _record(ctx, game_id)
            if record is not None and (game_type in (None, record["type"])) and status in (None, record["status"]):
                games.append(summary(record))
                if len(games) == limit:
                    break
    if not exhausted and not index.newest_first(ctx.redis, cursor, 1, status):
        exhausted = True
    return {"games": games, "next_after": None if exhausted else cursor}


def _record(ctx: Context, game_id: str) -> Record | None:
    """The game's record, or None for a game that cannot be listed (gone, or a log that cannot be folded)."""
    try:
        return ctx.loader.load(game_id)
    except FoldError:
        return None


def my_games(ctx: Context, body: dict[str, Any], client: str) -> dict[str, Any]:
    """The games of every token in ``body``, each checked like any token (a bad one counts toward that game's
    throttle); refused tokens are listed with the error a single request would have had."""
    held = load(MyGamesRequestSchema, body)["tokens"]
    games, refused = [], []
    for number, item in enumerate(held):
        game_id = item["game_id"]
        try:
            games.append(_mine(ctx, game_id, item["token"], client))
        except ApiError as exc:
            refused.append({"index": number, "game_id": game_id, **exc.body()})
    return {"games": games, "refused": refused}


def _mine(ctx: Context, game_id: str, token: str, client: str) -> dict[str, Any]:
    record = _record(ctx, game_id) if keys.plausible_game_id(game_id) else None
    if record is None:
        raise ApiError(404, "not_found", f"No game {game_id!r}.")
    caller = caller_for(ctx.store, game_id, f"Bearer {token}", client)
    if caller.role == "gm":
        return {"game": summary(record), "you": {"role": "gm"}, "awaiting_you": False}
    player = caller.player_id or ""
    phase = engine_for(record).phase(record["engine"]) if record["engine"] is not None and record[
        "status"] == "running" else None
    return {"game": summary(record), "you": {"role": "player", "player_id": player,
                                             "teams": list(teams_of(record, player))},
            "awaiting_you": phase is not None and player in phase.awaiting}
