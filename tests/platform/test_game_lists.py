"""GET /v1/games (filters, pages, public fields only) and POST /v1/me/games (many tokens at once), and the
401s that say how to authenticate."""
from __future__ import annotations

from runtime.context import Context
from service.answers import GamesPageSchema, MyGamesSchema
from tests.platform.conftest import Game, new_game
from tests.platform.helpers import Api

SUMMARY_FIELDS = {"game_id", "name", "type", "version", "status", "created_at", "players", "max_players",
                  "open_to_join", "phase"}


def _walk(api: Api, query: str, limit: int, after: str | None = None) -> list[dict]:
    seen: list[dict] = []
    for _ in range(50):
        status, page = api.get(f"/games?limit={limit}{query}" + (f"&after={after}" if after else ""))
        assert status == 200 and GamesPageSchema().validate(page) == {}, page
        seen += page["games"]
        after = page["next_after"]
        if after is None:
            return seen
    raise AssertionError("the pages never ended")


def test_filters_by_type_and_status_newest_first(api: Api) -> None:
    waiting = new_game(api, players=1, start=False)
    running = new_game(api, players=2)
    coin = new_game(api, players=2, game_type="test-coin", start=False)
    listed = {g["game_id"]: g for g in _walk(api, "", 100)}
    assert {waiting.id, running.id, coin.id} <= set(listed)
    assert listed[waiting.id]["status"] == "signup" and listed[waiting.id]["open_to_join"] is True
    assert listed[running.id]["phase"]["name"] == "bidding" and listed[running.id]["players"] == 2
    assert listed[running.id]["open_to_join"] is False  # Extreme Ways takes nobody after the start
    assert [g["game_id"] for g in _walk(api, "&type=test-coin", 100)] == [coin.id]
    assert [g["game_id"] for g in _walk(api, "&type=extreme-ways&status=running", 100)] == [running.id]
    assert [g["game_id"] for g in _walk(api, "&status=signup", 100)] == [coin.id, waiting.id]  # newest first


def test_pages_cover_every_game_once_even_when_games_are_created_meanwhile(api: Api) -> None:
    made = [new_game(api, players=1, start=False).id for _ in range(5)]
    status, first = api.get("/games?limit=2")
    assert status == 200 and len(first["games"]) == 2
    late = new_game(api, players=1, start=False).id  # sorts before the cursor: never shifts a page
    rest = _walk(api, "", 2, first["next_after"])
    ids = [g["game_id"] for g in first["games"] + rest]
    assert sorted(ids) == sorted(made) and late not in ids and len(set(ids)) == len(ids)


def test_lists_show_public_fields_only(api: Api) -> None:
    new_game(api, players=2)
    for game in _walk(api, "", 100):
        assert set(game) == SUMMARY_FIELDS  # no seed, tokens, options, state or player names


def test_bad_list_parameters_are_422_with_the_field(api: Api) -> None:
    for query, field in [("type=chess", "type"), ("status=lost", "status"), ("after=gnope", "after"),
                         ("limit=0", "limit"), ("limit=101", "limit")]:
        status, body = api.get(f"/games?{query}")
        assert status == 422 and field in body["error"]["details"], (query, body)


def test_my_games_lists_each_tokens_game_and_refuses_bad_ones_one_by_one(api: Api, game: Game) -> None:
    other = new_game(api, players=2, game_type="test-coin")
    tokens = [{"game_id": game.id, "token": game.tokens["p1"]}, {"game_id": other.id, "token": other.gm},
              {"game_id": game.id, "token": "not-a-token"}, {"game_id": "gmissing", "token": "x"},
              {"game_id": other.id, "token": game.tokens["p2"]}]  # a token of another game
    status, body = api.post("/me/games", {"tokens": tokens})
    assert status == 200 and MyGamesSchema().validate(body) == {}, body
    mine = body["games"]
    assert [g["game"]["game_id"] for g in mine] == [game.id, other.id]
    assert mine[0]["you"] == {"role": "player", "player_id": "p1", "teams": []} and mine[0]["awaiting_you"] is True
    assert mine[1]["you"] == {"role": "gm"} and mine[1]["awaiting_you"] is False
    assert [(r["index"], r["error"]["code"]) for r in body["refused"]] == [
        (2, "unauthorized"), (3, "not_found"), (4, "unauthorized")]
    assert api.post(game.path("/actions"), {"type": "bid", "amount": 1}, token=game.tokens["p1"])[0] == 202
    assert api.post("/me/games", {"tokens": tokens[:1]})[1]["games"][0]["awaiting_you"] is False


def test_my_games_takes_tokens_only_in_a_valid_body(api: Api) -> None:
    for body in [{"tokens": []}, {"tokens": [{"game_id": "g1"}]}, {"tokens": [{"game_id": "g", "token": "t"}] * 101}]:
        status, reply = api.post("/me/games", body)
        assert status == 422 and "tokens" in reply["error"]["details"], reply


def test_401s_carry_www_authenticate_and_a_missing_token_on_a_running_audit_is_401(api: Api, game: Game) -> None:
    for path in ("/audit", "/export"):
        response = api.client.get(f"/v1{game.path(path)}")
        assert response.status_code == 401 and response.headers["WWW-Authenticate"].startswith("Bearer")
        assert api.get(game.path(path), game.tokens["p1"])[0] == 403
        assert api.get(game.path(path), game.gm)[0] == 200
    response = api.client.post(f"/v1{game.path('/actions')}", json={"type": "pass"})
    assert response.status_code == 401 and response.headers["WWW-Authenticate"].startswith("Bearer")
    assert "WWW-Authenticate" not in api.client.get(f"/v1{game.path()}").headers


def test_typed_operations_serve_only_games_of_their_type(api: Api, game: Game) -> None:
    assert api.get(f"/game-types/extreme-ways{game.path()}")[0] == 200
    assert api.get(f"/game-types/test-coin{game.path()}")[0] == 404
    status, body = api.post(f"/game-types/test-coin{game.path('/actions')}", {"type": "call", "side": "heads"},
                            token=game.tokens["p1"])
    assert status == 404, body
    assert api.post(f"/game-types/extreme-ways{game.path('/actions')}", {"type": "bid", "amount": 2},
                    token=game.tokens["p1"])[0] == 202


def test_games_created_in_the_same_instant_page_by_id(ctx: Context) -> None:
    from eventlog import index, keys

    ctx.redis.zadd(keys.GAMES, {f"g{i}": 1000.0 for i in range(5)} | {"gold": 999.0, "gnew": 1001.0})
    walked, after = [], None
    while True:
        page = index.newest_first(ctx.redis, after, 2)
        if not page:
            break
        walked += page
        after = page[-1]
    assert walked == ["gnew", "g4", "g3", "g2", "g1", "g0", "gold"]


def test_events_and_replay_take_the_same_after_cursor(api: Api, game: Game) -> None:
    """Issue 19: one rule for `after` on both: 0 to 2^53, past the end an empty page with no next one."""
    last = api.get(game.path("/events"))[1]["events"][-1]["seq"]
    for after in (last, last + 5, 2**53):
        status, events = api.get(game.path(f"/events?after={after}"))
        assert status == 200 and events["events"] == [] and events["next_after"] is None
        status, replay = api.get(game.path(f"/replay?after={after}"))
        assert status == 200 and replay["frames"] == [] and replay["next_after"] is None, replay
    for path in ("/events?after=-1", "/replay?after=-1", f"/events?after={2**53 + 1}", f"/replay?after={2**53 + 1}"):
        assert api.get(game.path(path))[0] == 422, path
    assert [f["seq"] for f in api.get(game.path(f"/replay?after={last - 2}"))[1]["frames"]] == [last - 1, last]


def test_a_game_types_own_create_takes_its_options_and_phases_only(api: Api) -> None:
    status, created = api.post("/game-types/test-coin/games", {"options": {"target": 2}, "deadlines": {"toss": 60}})
    assert status == 201 and created["type"] == "test-coin" and created["deadlines"] == {"toss": 60}
    status, body = api.post("/game-types/test-coin/games", {"type": "extreme-ways"})
    assert status == 422 and "type" in body["error"]["details"]
    status, body = api.post("/game-types/test-coin/games", {"deadlines": {"bidding": 60}})
    assert status == 422 and "deadlines" in body["error"]["details"]
    assert api.post("/game-types/chess/games", {})[0] == 404


def test_boolean_options_take_true_or_false_only(api: Api) -> None:
    for path, body in [("/games", {"type": "test-coin"}), ("/game-types/test-coin/games", {})]:
        status, reply = api.post(path, {**body, "options": {"late_joins": 0}})
        assert status == 422 and "late_joins" in reply["error"]["details"]["options"], reply
        assert api.post(path, {**body, "options": {"late_joins": False}})[0] == 201
