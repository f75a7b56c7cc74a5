"""Who plays, after the start: late joins, a player's own quit, and GM ejections, each recorded with
the engine's ruling and replayed by the audit.  A change that ends the game finishes it exactly as
a resolution would (result, seed revealed, audit and export open), for every game type."""
from __future__ import annotations

from typing import Any

import pytest

from engines import registry
from engines.contract import Engine
from replays.fold import fold
from runtime.context import Context
from tests.platform.conftest import Game, new_game
from tests.platform.helpers import Api, run_queued_jobs

EJECT = {"type": "gm.eject", "reason": "inactive"}


def started(api: Api, engine: Engine) -> Game:
    """A game of ``engine``'s first simulation case, started."""
    case = engine.simulation_cases[0]
    status, created = api.post("/games", {"type": engine.meta.name, "seed": "members-seed",
                                          "options": case.get("options", {})})
    assert status == 201, created
    game = Game(created["game_id"], created["gm_token"], {})
    for i in range(case["players"]):
        fields: dict[str, Any] = (case.get("fields") or [{}] * case["players"])[i]
        status, joined = api.post(game.path("/players"), {"name": f"Player {i + 1}", **fields}, token=game.gm)
        assert status == 201, joined
        game.tokens[joined["player_id"]] = joined["token"]
    assert api.post(game.path("/start"), token=game.gm)[0] == 200
    return game


@pytest.mark.parametrize("engine", registry.all_latest(), ids=lambda e: e.meta.name)
def test_ejections_that_end_a_game_finish_it_as_a_resolution_would(api: Api, ctx: Context, engine: Engine) -> None:
    """The GM ejects players one by one: whenever the engine says the game is over, the game is
    finished with the engine's result and its seed revealed, and anyone may audit and export it."""
    game = started(api, engine)
    for player_id in list(game.tokens):
        status, body = api.post(game.path("/actions"), {**EJECT, "player_id": player_id}, token=game.gm)
        if status == 409 and body["error"]["code"] == "finished":
            break
        assert status == 202, body
        record = fold(ctx.store.read(game.id))
        over = engine.phase(record["engine"]) is None
        assert (record["status"] == "finished") == over
        if over:
            break
    status, shown = api.get(game.path())
    if shown["status"] != "finished":
        return  # this game goes on without its players: deadlines (defaults) take it on
    assert shown["phase"] is None
    assert shown["result"] == engine.result(fold(ctx.store.read(game.id))["engine"])
    assert shown["seed"] == "members-seed"
    audit = api.get(game.path("/audit"))
    assert audit[0] == 200 and audit[1]["ok"], audit
    assert api.get(game.path("/export"))[0] == 200
    assert api.post(game.path("/actions"), {**EJECT, "player_id": "p1"}, token=game.gm)[0] == 409


def test_two_player_sxyzm_cyclone_ends_when_one_is_ejected(api: Api) -> None:
    """The bug as a client found it: the engine said "over" and the game stayed running for ever."""
    game = new_game(api, players=2, game_type="sxyzm-cyclone")
    assert api.post(game.path("/actions"), {**EJECT, "player_id": "p2"}, token=game.gm)[0] == 202
    shown = api.get(game.path())[1]
    assert shown["status"] == "finished" and shown["seed"] == "fixed-seed" and shown["result"] is not None
    assert api.get(game.path("/audit"))[1]["ok"]


def test_a_player_quits_and_the_game_ends_with_the_other_as_winner(api: Api) -> None:
    game = new_game(api, players=2, game_type="test-coin")
    status, body = api.post(game.path("/actions"), {"type": "quit"}, token=game.tokens["p1"])
    assert status == 202, body
    shown = api.get(game.path())[1]
    assert shown["status"] == "finished" and shown["result"] == {"winner": "p2"}
    assert [p["left"] for p in shown["players"]] == ["quit", None]
    events = api.get(game.path("/events"))[1]["events"]
    assert events[-1]["type"] == "player.quit" and events[-1]["actor"] == "p1"
    assert api.get(game.path("/audit"))[1]["ok"]


def test_a_quit_that_leaves_the_game_going_refuses_the_quitters_later_orders(api: Api) -> None:
    game = new_game(api, players=3, game_type="test-coin")
    assert api.post(game.path("/actions"), {"type": "quit"}, token=game.tokens["p2"])[0] == 202
    status, body = api.post(game.path("/actions"), {"type": "call", "side": "heads"}, token=game.tokens["p2"])
    assert status == 409 and body["error"]["details"]["rule"] == "left the game"
    status, body = api.post(game.path("/actions"), {"type": "quit"}, token=game.tokens["p2"])
    assert status == 409 and body["error"]["code"] == "already_left"
    assert api.get(game.path())[1]["status"] == "running"


def test_only_a_player_quits(api: Api) -> None:
    game = new_game(api, players=3, game_type="test-coin")
    assert api.post(game.path("/actions"), {"type": "quit"}, token=game.gm)[0] == 403
    assert api.post(game.path("/actions"), {"type": "quit"})[0] == 401
    status, body = api.post(game.path("/actions"), {"type": "quit", "why": "bored"}, token=game.tokens["p1"])
    assert status == 422 and "why" in body["error"]["details"]
    assert len(api.get(game.path("/events"))[1]["events"]) == 5  # created, three joins, started: nothing more


def test_a_leave_that_closes_the_round_opens_the_next_phase(api: Api, ctx: Context) -> None:
    game = new_game(api, players=3, game_type="test-coin", options={"leave_ends_round": True})
    assert api.post(game.path("/actions"), {"type": "call", "side": "heads"}, token=game.tokens["p1"])[0] == 202
    assert api.post(game.path("/actions"), {**EJECT, "player_id": "p3"}, token=game.gm)[0] == 202
    shown = api.get(game.path(), game.gm)[1]
    assert shown["phase"]["number"] == 2 and shown["state"]["round"] == 2 and shown["state"]["called"] == []
    event = api.get(game.path("/events"), game.gm)[1]["events"][-1]
    assert event["data"]["next"]["number"] == 2
    assert api.get(game.path("/audit"))[0] in (401, 403)  # still running: the GM's audit only
    assert api.get(game.path("/audit"), game.gm)[1]["ok"]


def test_a_late_join_where_the_game_allows_it(api: Api, ctx: Context) -> None:
    game = new_game(api, players=2, game_type="test-coin")
    status, joined = api.post(game.path("/players"), {"name": "Latecomer", "team": "red"})
    assert status == 201, joined
    shown = api.get(game.path(), joined["token"])[1]
    assert shown["state"]["scores"][joined["player_id"]] == 0 and "p3" in shown["phase"]["actors"]
    assert api.post(game.path("/actions"), {"type": "call", "side": "tails"}, token=joined["token"])[0] == 202
    assert api.get(game.path("/audit"), game.gm)[1]["ok"]


def test_a_late_join_refused_by_the_game_records_nothing(api: Api) -> None:
    game = new_game(api, players=2, game_type="test-coin", options={"late_joins": False})
    before = len(api.get(game.path("/events"))[1]["events"])
    status, body = api.post(game.path("/players"), {"name": "Latecomer"})
    assert status == 409 and body["error"]["details"]["rule"] == "sign-up"
    assert len(api.get(game.path("/events"))[1]["events"]) == before
    ew = new_game(api, players=2)
    assert api.post(ew.path("/players"), {"name": "Latecomer"})[0] == 409


def test_team_mates_see_each_others_sealed_calls_and_their_team_tally(api: Api, ctx: Context) -> None:
    status, created = api.post("/games", {"type": "test-coin", "seed": "teams"})
    game = Game(created["game_id"], created["gm_token"], {})
    for name, team in (("Ann", "red"), ("Bo", "red"), ("Cy", "blue")):
        joined = api.post(game.path("/players"), {"name": name, "team": team})[1]
        game.tokens[joined["player_id"]] = joined["token"]
    api.post(game.path("/start"), token=game.gm)
    assert api.post(game.path("/actions"), {"type": "call", "side": "heads"}, token=game.tokens["p1"])[0] == 202

    def last_call(viewer: str) -> dict[str, Any]:
        events = api.get(game.path("/events"), game.tokens[viewer])[1]["events"]
        return next(e for e in reversed(events) if e["type"] == "action.submitted")["data"]

    assert last_call("p2")["action"] == {"type": "call", "side": "heads"}  # a team-mate
    assert last_call("p3") == {"phase": 1, "sealed": True}                  # the other team
    assert api.get(game.path(), game.tokens["p2"])[1]["you"]["teams"] == ["team:red"]
    for player in ("p2", "p3"):
        api.post(game.path("/actions"), {"type": "call", "side": "tails"}, token=game.tokens[player])
    run_queued_jobs(ctx)
    resolved = [e for e in api.get(game.path("/events"), game.tokens["p3"])[1]["events"]
                if e["type"] == "phase.resolved"][0]["data"]["outcome"]
    assert set(resolved.get("private", {})) == {"team:blue"}
