"""Bad input gets a clear error in the documented shape and records nothing."""
from __future__ import annotations

from urllib.parse import quote

import pytest

from runtime.context import Context
from tests.platform.conftest import Game, new_game
from tests.platform.helpers import Api


def _error(body: dict, code: str | None = None) -> dict:
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message", "details"}
    assert body["error"]["message"]
    if code:
        assert body["error"]["code"] == code, body
    return body["error"]


def _seq(api: Api, game: Game) -> int:
    return api.get(game.path())[1]["seq"]


@pytest.mark.parametrize("raw,code", [
    (b"{not json", "invalid_json"),
    (b"[1, 2]", "not_an_object"),
    (b"\xff\xfe{}", "invalid_json"),
    (b"", "empty_body"),
    (b"[" * 5000 + b"]" * 5000, "invalid_json"),
])
def test_malformed_bodies_are_400_and_record_nothing(api: Api, game: Game, raw: bytes, code: str) -> None:
    before = _seq(api, game)
    status, body = api.post(game.path("/actions"), token=game.tokens["p1"], raw=raw)
    assert status == 400
    _error(body, code)
    assert _seq(api, game) == before


def test_oversized_body_is_413(api: Api, game: Game) -> None:
    before = _seq(api, game)
    status, body = api.post(game.path("/actions"), {"type": "bid", "amount": 1, "pad": "x" * 70_000},
                            token=game.tokens["p1"])
    assert status == 413
    _error(body, "body_too_large")
    assert _seq(api, game) == before


def test_schema_errors_name_each_field(api: Api, game: Game) -> None:
    status, body = api.post(game.path("/actions"), {"type": "bid", "amount": "lots", "colour": "red"},
                            token=game.tokens["p1"])
    assert status == 422
    details = _error(body)["details"]
    assert "amount" in details and "colour" in details


def test_unknown_order_type_lists_the_known_ones(api: Api, game: Game) -> None:
    status, body = api.post(game.path("/actions"), {"type": "teleport"}, token=game.tokens["p1"])
    assert status == 422
    assert "bid" in _error(body)["details"]["type"][0]


def test_rule_errors_name_the_rule(api: Api, game: Game) -> None:
    status, body = api.post(game.path("/actions"), {"type": "bid", "amount": 51}, token=game.tokens["p1"])
    assert status == 422
    error = _error(body, "rule_violation")
    assert error["details"]["rule"]


def test_unknown_game_is_404(api: Api) -> None:
    for path in ("/games/gnope", "/games/gnope/events", "/games/gnope/audit", "/games/gnope/export"):
        status, body = api.get(path)
        assert status == 404, path
        _error(body, "not_found")
    status, body = api.post("/games/gnope/actions", {"type": "bid", "amount": 1})
    assert status == 404


def test_unknown_route_and_method_are_json(api: Api) -> None:
    status, body = api.get("/nowhere")
    assert status == 404
    _error(body)
    status, body = api.call("DELETE", "/games")
    assert status == 405
    _error(body, "method_not_allowed")


def test_missing_and_bad_tokens_are_401(api: Api, game: Game) -> None:
    status, body = api.post(game.path("/actions"), {"type": "bid", "amount": 1})
    assert status == 401
    _error(body, "unauthorized")
    status, body = api.post(game.path("/actions"), {"type": "bid", "amount": 1}, token="not-a-token")
    assert status == 401
    status, body = api.call("POST", game.path("/actions"), {"type": "bid", "amount": 1},
                            headers={"Authorization": "Basic abc"})
    assert status == 401


def test_a_token_from_another_game_is_401(api: Api, game: Game) -> None:
    other = new_game(api, players=2)
    status, _ = api.post(game.path("/actions"), {"type": "bid", "amount": 1}, token=other.tokens["p1"])
    assert status == 401
    status, _ = api.post(game.path("/actions"), {"type": "gm.pause", "reason": "x"}, token=other.gm)
    assert status == 401


def test_repeated_bad_tokens_are_rate_limited(api: Api, game: Game) -> None:
    statuses = [api.get(game.path(), token=f"guess-{i}")[0] for i in range(25)]
    assert statuses[0] == 401
    assert statuses[-1] == 429
    assert api.get(game.path(), token=game.tokens["p1"])[0] in (200, 429)


def test_create_game_validates_type_options_and_deadlines(api: Api) -> None:
    status, body = api.post("/games", {"type": "chess"})
    assert status == 422 and "type" in _error(body)["details"]
    status, body = api.post("/games", {"type": "extreme-ways", "options": {"no_such_option": 1}})
    assert status == 422 and "options" in _error(body)["details"]
    status, body = api.post("/games", {"type": "extreme-ways", "deadlines": {"lunch": 60}})
    assert status == 422 and "deadlines" in _error(body)["details"]
    status, body = api.post("/games", {"type": "extreme-ways", "deadlines": {"bidding": -5}})
    assert status == 422
    status, body = api.post("/games", {})
    assert status == 422 and "type" in _error(body)["details"]


def test_players_cannot_start_or_use_gm_actions(api: Api) -> None:
    game = new_game(api, start=False)
    status, body = api.post(game.path("/start"), token=game.tokens["p1"])
    assert status == 403
    status, body = api.post(game.path("/start"))
    assert status == 401
    api.post(game.path("/start"), token=game.gm)
    status, body = api.post(game.path("/actions"), {"type": "gm.pause", "reason": "mine now"}, token=game.tokens["p1"])
    assert status == 403


def test_orders_before_start_and_joins_after_start_are_409(api: Api) -> None:
    game = new_game(api, start=False)
    status, body = api.post(game.path("/actions"), {"type": "bid", "amount": 1}, token=game.tokens["p1"])
    assert status == 409
    _error(body, "not_started")
    api.post(game.path("/start"), token=game.gm)
    status, body = api.post(game.path("/players"), {"name": "Late"})
    assert status == 409
    _error(body, "signup_closed")
    status, body = api.post(game.path("/start"), token=game.gm)
    assert status == 409


def test_sign_up_rules(api: Api) -> None:
    game = new_game(api, players=1, start=False)
    status, body = api.post(game.path("/players"), {"name": "player 1"})
    assert status == 422 and "name" in _error(body)["details"]
    status, body = api.post(game.path("/players"), {"name": ""})
    assert status == 422
    status, body = api.post(game.path("/players"), {"name": "Garnet Hoarder", "garnets": 9})
    assert status == 403 and "garnets" in _error(body)["details"]
    status, body = api.post(game.path("/players"), {"name": "Garnet Holder", "garnets": 9}, token=game.gm)
    assert status == 201
    status, body = api.post(game.path("/players"), {"name": "Again"}, token=game.tokens["p1"])
    assert status == 403


def test_bad_query_parameters_are_422(api: Api, game: Game) -> None:
    assert api.get(game.path("/events?after=-1"))[0] == 422
    assert api.get(game.path("/events?limit=abc"))[0] == 422
    assert api.get(game.path("/replay?at=99999"))[0] == 422


def test_gm_action_validation(api: Api, game: Game) -> None:
    status, body = api.post(game.path("/actions"), {"type": "gm.pause"}, token=game.gm)
    assert status == 422 and "reason" in _error(body)["details"]
    status, body = api.post(game.path("/actions"), {"type": "gm.extend_deadline", "reason": "r"}, token=game.gm)
    assert status == 422
    status, body = api.post(game.path("/actions"), {"type": "gm.eject", "player_id": "p99", "reason": "r"},
                            token=game.gm)
    assert status == 422
    status, body = api.post(game.path("/actions"), {"type": "gm.resume", "reason": "r"}, token=game.gm)
    assert status == 409
    status, body = api.post(game.path("/actions"), {"type": "bid", "amount": 3}, token=game.gm)
    assert status == 422 and "on_behalf_of" in _error(body)["details"]


def test_health_and_game_types(api: Api, ctx: Context) -> None:
    status, body = api.get("/health")
    assert status == 200 and body["status"] == "ok" and body["store"]["ok"]
    status, body = api.get("/game-types")
    assert status == 200
    names = {t["name"] for t in body["game_types"]}
    assert "extreme-ways" in names
    ew = next(t for t in body["game_types"] if t["name"] == "extreme-ways")
    assert ew["options_schema"]["properties"] and ew["actions"]


@pytest.mark.parametrize("game_id", ["g" * 65, "g.1", "g 1", "g\n", "g\u2028"])
def test_a_game_id_no_game_can_have_is_a_404_on_reads_writes_and_lists(api: Api, game: Game, game_id: str) -> None:
    """One rule for what a game id can be (eventlog.keys.plausible_game_id): 1-64 letters, digits, '_' and '-'."""
    status, body = api.get(f"/games/{quote(game_id)}")
    assert status == 404 and _error(body, "not_found")["message"] == f"No game {game_id!r}."
    status, body = api.post(f"/games/{quote(game_id)}/actions", {"type": "bid", "amount": 1}, token=game.tokens["p1"])
    assert status == 404, body
    status, body = api.post("/me/games", {"tokens": [{"game_id": game_id, "token": game.tokens["p1"]}]})
    if len(game_id) > 64:  # the list's own schema says so first, naming the field
        assert status == 422 and "game_id" in body["error"]["details"]["tokens"]["0"], body
    else:
        assert status == 200 and [r["error"]["code"] for r in body["refused"]] == ["not_found"], body
