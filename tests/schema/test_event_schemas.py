"""The log's events as /v1/openapi.json types them: the generic ``Event`` (a union on ``type``, each event type's
data typed) and each game type's ``<Type>Event`` (its options, orders, sign-up fields, setup and outcome records
and result typed) hold for real events, closed (a field the code adds or drops without the document fails).

Checked: every recorded game (tests/fixtures/games, every real game type) whole, as its GM exports it; the same
games stored and read through the API, generic and typed, by the GM, a player and the public while they run
(sealed orders and outcome records cut); and a live coin-toss game through every event type (late joins, a quit,
an ejection, every GM action, a rollback, a GM-entered and a team-seen order, a log kept closed at the end)."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest
from redis import Redis

from engines import registry
from eventlog import keys
from replays.fold import FOLDS
from runtime.context import Context
from service.auth import digest, role_value, token_field
from service.openapi import document, pascal
from service.openapi.events import GAME_SPECIFIC, event_name
from service.app import create_app
from tests.platform.conftest import new_game
from tests.platform.helpers import Api, run_queued_jobs
from tests.schema.declared import problems, published_validator

FIXTURES = sorted((Path(__file__).parents[1] / "fixtures" / "games").glob("*.json"))
GM_TOKEN, PLAYER_TOKEN = "gm-token-" + "g" * 32, "player-token-" + "p" * 32


@pytest.fixture()
def api(ctx: Context) -> Api:
    return Api(create_app(ctx).test_client())


@lru_cache(maxsize=None)
def _validator(component: str) -> Any:
    return published_validator(component)


def _check(events: list[dict[str, Any]], game_type: str, where: str) -> None:
    """Each event against the generic Event and its game type's own union, both closed."""
    for event in events:
        for union in ("Event", f"{pascal(game_type)}Event"):
            member = event_name(event["type"], pascal(game_type) if union != "Event" else "")
            for component in (member, union):  # the member first: its errors name the field
                found = problems(_validator(component), event)
                assert not found, (where, component, event["seq"], event["type"], found)


def _log(api: Api, path: str, token: str | None) -> list[dict[str, Any]]:
    """The whole log at ``path`` (…/events), page after page."""
    events: list[dict[str, Any]] = []
    after: int | None = 0
    while after is not None:
        status, page = api.get(f"{path}?after={after}&limit=1000", token)
        assert status == 200, page
        events += page["events"]
        after = page["next_after"]
    return events


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_a_recorded_game_as_exported_matches_both_schemas(path: Path) -> None:
    recorded = json.loads(path.read_text())
    _check(recorded["events"], recorded["type"], path.stem)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_a_recorded_game_read_through_the_api_matches_both_schemas(path: Path, ctx: Context, api: Api) -> None:
    """The game stored up to its last event (still running: others' sealed orders and outcome records cut), read by
    its GM, its first player and the public, on the generic route and its game type's own; and the typed game itself
    (its options, players' sign-up fields, state) as each of them reads it."""
    recorded = json.loads(path.read_text())
    events, game_id, game_type = recorded["events"][:-1], recorded["game_id"], recorded["type"]
    tokens = {token_field(digest(GM_TOKEN)): role_value("gm", digest(GM_TOKEN)),
              token_field(digest(PLAYER_TOKEN)): role_value("player", digest(PLAYER_TOKEN), "p1")}
    for event in events:
        ctx.store.append(game_id, event, private=tokens if event["seq"] == 1 else None)
    seen = {}
    for viewer, token in (("gm", GM_TOKEN), ("p1", PLAYER_TOKEN), ("public", None)):
        for route in (f"/games/{game_id}/events", f"/game-types/{game_type}/games/{game_id}/events"):
            shown = _log(api, route, token)
            assert [e["seq"] for e in shown] == [e["seq"] for e in events]
            _check(shown, game_type, f"{path.stem} as {viewer} on {route}")
            seen[viewer] = shown
        status, game = api.get(f"/game-types/{game_type}/games/{game_id}", token)
        assert status == 200 and not problems(_validator(f"{pascal(game_type)}Game"), game), (viewer, problems(
            _validator(f"{pascal(game_type)}Game"), game))
        _check_replay(api, game_type, game_id, token, len(events), viewer)
    assert seen["gm"] == events  # the GM's view is the log itself: what the recorded game was checked as
    hidden = registry.latest(game_type).meta.hidden_information
    assert not hidden or seen["public"] != events, "nothing was cut for the public: the cut forms went unchecked"


def _check_replay(api: Api, game_type: str, game_id: str, token: str | None, last: int, viewer: str) -> None:
    """The typed replay, a page of frames (the last page: the game's end) and one frame at the last seq, against
    ``<Type>Replay``, closed; each frame's event as on the typed log."""
    route, p = f"/game-types/{game_type}/games/{game_id}/replay", pascal(game_type)
    for query in (f"after={max(0, last - 40)}&limit=500", f"at={last}"):
        status, replay = api.get(f"{route}?{query}", token)
        assert status == 200, (viewer, query, replay)
        assert not problems(_validator(f"{p}Replay"), replay), (viewer, query, problems(_validator(f"{p}Replay"),
                                                                                         replay))
        frames = replay.get("frames") or [replay]
        assert frames[-1]["seq"] == last and frames[-1]["view"]["state"] is not None
        _check([frame["event"] for frame in frames], game_type, f"{game_id} replay as {viewer}")


def test_a_game_of_another_type_is_not_found_on_a_typed_route(api: Api) -> None:
    """Every typed operation on a game: 404 under another game type's path (nothing sent is recorded), the generic
    answer under its own."""
    game = new_game(api, players=2)
    before = api.get(f"/games/{game.id}/events")[1]["events"]
    for part in ("", "/events", "/replay"):
        assert api.get(f"/game-types/test-coin/games/{game.id}{part}")[0] == 404
        assert api.get(f"/game-types/extreme-ways/games/{game.id}{part}")[0] == 200
    pause = {"type": "gm.pause", "reason": "Holiday"}
    assert api.post(f"/game-types/test-coin/games/{game.id}/actions", pause, token=game.gm)[0] == 404
    assert api.post(f"/game-types/test-coin/games/{game.id}/players", {"name": "Late"})[0] == 404
    assert api.get(f"/games/{game.id}/events")[1]["events"] == before
    assert api.post(f"/game-types/extreme-ways/games/{game.id}/actions", pause, token=game.gm)[0] == 202


def _coin_game_with_every_event(api: Api, ctx: Context) -> tuple[str, str, dict[str, str]]:
    """A coin-toss game through every event type: its id, the GM's token and the players' tokens."""
    status, created = api.post("/games", {"type": "test-coin", "options": {"target": 2}, "reveal_at_end": "rulebook",
                                          "seed": "every-event-" + "x" * 32})
    assert status == 201, created
    game_id, gm, tokens = created["game_id"], created["gm_token"], {}
    for name, team in (("Ann", "red"), ("Bob", "red"), ("Cy", "blue"), ("Di", None)):
        status, joined = api.post(f"/games/{game_id}/players", {"name": name, "team": team})
        assert status == 201, joined
        tokens[joined["player_id"]] = joined["token"]
    orders = [(gm, {"type": "gm.eject", "player_id": "p4", "reason": "Never came"})]  # struck off at sign-up
    orders += [(gm, {"type": "gm.pause", "reason": "Waiting"}), (gm, {"type": "gm.resume", "reason": "Back"})]
    for token, order in orders:
        assert api.post(f"/games/{game_id}/actions", order, token=token)[0] == 202
    assert api.post(f"/games/{game_id}/start", token=gm)[0] == 200
    redis = Redis.from_url(ctx.settings.redis_url)
    kept = redis.dump(keys.events(game_id))
    assert api.post(f"/games/{game_id}/actions", {"type": "call", "side": "heads"}, token=tokens["p1"])[0] == 202
    redis.restore(keys.events(game_id), 0, kept, replace=True)  # Redis lost the call: log.rolled_back
    status, late = api.post(f"/games/{game_id}/players", {"name": "Eve", "team": "blue"})  # a late join
    assert status == 201, late
    tokens[late["player_id"]] = late["token"]
    orders = [(tokens["p1"], {"type": "call", "side": "heads"}), (tokens["p2"], {"type": "call", "side": "tails"}),
              (gm, {"type": "call", "side": "heads", "on_behalf_of": "p3"}),
              (gm, {"type": "gm.extend_deadline", "seconds": 60, "reason": "More time"}),
              (gm, {"type": "gm.pause", "reason": "Holiday"}), (gm, {"type": "gm.resume", "reason": "Back"}),
              (tokens["p3"], {"type": "quit"}), (gm, {"type": "gm.eject", "player_id": late["player_id"],
                                                     "reason": "Two accounts"}),
              (gm, {"type": "gm.resolve_now", "reason": "Everyone is in"})]
    for token, order in orders:
        status, body = api.post(f"/games/{game_id}/actions", order, token=token)
        assert status == 202, (order, body)
    run_queued_jobs(ctx)
    for _ in range(20):  # p1 and p2 call apart: one scores each toss, until one has 2
        status, game = api.get(f"/games/{game_id}", gm)
        if game["status"] == "finished":
            break
        for player, side in (("p1", "heads"), ("p2", "tails")):
            assert api.post(f"/games/{game_id}/actions", {"type": "call", "side": side}, token=tokens[player])[0] == 202
        run_queued_jobs(ctx)
    assert game["status"] == "finished"
    return game_id, gm, tokens


def test_a_live_game_through_every_event_type_matches_both_schemas(api: Api, ctx: Context) -> None:
    game_id, gm, tokens = _coin_game_with_every_event(api, ctx)
    seen: dict[str, list[dict[str, Any]]] = {}
    for viewer, token in (("gm", gm), ("p1", tokens["p1"]), ("p3", tokens["p3"]), ("public", None)):
        for route in (f"/games/{game_id}/events", f"/game-types/test-coin/games/{game_id}/events"):
            seen[viewer] = _log(api, route, token)
            _check(seen[viewer], "test-coin", f"as {viewer} on {route}")
    assert {e["type"] for e in seen["gm"]} == set(FOLDS)  # every event type, checked
    forms = [e for e in seen["public"] if e["type"] == "action.submitted"]
    assert forms and all(e["data"].get("sealed") for e in forms)  # the log stays closed: sealed to the public
    p1 = {e["data"].get("sealed", False) for e in seen["p1"] if e["type"] == "action.submitted"}
    assert p1 == {True, False}  # a player's own orders and their team's whole, the others' sealed
    assert any("teams" in e["data"] for e in seen["p1"] if e["type"] == "action.submitted")
    assert any(e["data"].get("entered_by") == "gm" for e in seen["gm"] if e["type"] == "action.submitted")
    assert [e["data"]["seed"] for e in seen["public"] if e["data"].get("next", 0) is None] == [None]


def test_every_event_type_has_its_data_typed_and_a_loosened_one_fails() -> None:
    """Not a free-form object anywhere: each event type's data lists its fields, and the typed unions name each game
    type's own parts; an undeclared field, a missing one or a wrong type in real data fails."""
    schemas = document()["components"]["schemas"]
    generic = schemas["Event"]
    assert generic["discriminator"]["propertyName"] == "type"
    assert set(generic["discriminator"]["mapping"]) == set(FOLDS)
    for name in registry.names():
        p = pascal(name)
        union = schemas[f"{p}Event"]
        assert set(union["discriminator"]["mapping"]) == set(FOLDS)
        for kind, target in [*generic["discriminator"]["mapping"].items(), *union["discriminator"]["mapping"].items()]:
            member = schemas[target.rsplit("/", 1)[1]]
            assert member["properties"]["type"]["enum"] == [kind]
            data = member["properties"]["data"]
            for variant in data.get("oneOf", [data]):
                shape = schemas[variant["$ref"].rsplit("/", 1)[1]] if "$ref" in variant else variant
                assert shape["properties"] and shape["required"], (target, variant)
                assert shape.get("additionalProperties") in (None, False), (target, variant)
        typed = {kind: schemas[event_name(kind, p)]["properties"]["data"] for kind in GAME_SPECIFIC}
        assert typed["phase.resolved"]["properties"]["outcome"] == {"$ref": f"#/components/schemas/{p}Outcome"}
        assert typed["phase.resolved"]["properties"]["result"]["allOf"] == [{"$ref": f"#/components/schemas/"
                                                                             f"{p}Result"}]
        assert typed["game.created"]["properties"]["options"]["$ref"].startswith(f"#/components/schemas/{p}")
        action = typed["action.submitted"]["oneOf"][0]["properties"]["action"]
        assert set(action["discriminator"]["mapping"]) == set(registry.latest(name).actions)
    resolved = json.loads((FIXTURES[0]).read_text())["events"][-1]
    assert resolved["type"] == "phase.resolved"
    check = _validator("Event")
    assert not problems(check, resolved)
    assert problems(check, {**resolved, "data": {**resolved["data"], "extra": 1}})
    assert problems(check, {**resolved, "data": {k: v for k, v in resolved["data"].items() if k != "trigger"}})
    assert problems(check, {**resolved, "data": {**resolved["data"], "number": "1"}})
    assert problems(check, {**resolved, "type": "phase.unheard_of"})
