"""Player A never sees B's sealed order, packets or gold through any endpoint."""
from __future__ import annotations

import json

from runtime.context import Context
from tests.platform.conftest import Game, new_game
from tests.platform.helpers import Api, run_queued_jobs

SECRET_BID = 37


def _everything_p1_can_read(api: Api, game: Game) -> str:
    token = game.tokens["p1"]
    bodies = [api.get(game.path(), token)[1], api.get(game.path("/events"), token)[1],
              api.get(game.path("/replay"), token)[1], api.get(game.path("/replay?at=6"), token)[1],
              api.get(game.path("/audit"), token)[1], api.get(game.path("/export"), token)[1]]
    return json.dumps(bodies)


def test_a_sealed_bid_is_seen_only_by_its_author_and_the_gm(api: Api, game: Game) -> None:
    status, _ = api.post(game.path("/actions"), {"type": "bid", "amount": SECRET_BID}, token=game.tokens["p2"])
    assert status == 202
    seen_by_p1 = _everything_p1_can_read(api, game)
    assert f'"amount": {SECRET_BID}' not in seen_by_p1
    assert f'"amount": {SECRET_BID}' not in json.dumps(api.get(game.path("/events"))[1])
    own = api.get(game.path("/events"), game.tokens["p2"])[1]["events"][-1]
    assert own["data"]["action"]["amount"] == SECRET_BID
    gm = api.get(game.path("/events"), game.gm)[1]["events"][-1]
    assert gm["data"]["action"]["amount"] == SECRET_BID
    hidden = api.get(game.path("/events"), game.tokens["p1"])[1]["events"][-1]
    assert hidden["data"] == {"phase": 1, "sealed": True}


def test_rule_errors_do_not_reveal_other_orders(api: Api, game: Game) -> None:
    api.post(game.path("/actions"), {"type": "bid", "amount": SECRET_BID}, token=game.tokens["p2"])
    status, body = api.post(game.path("/actions"), {"type": "bid", "amount": 500}, token=game.tokens["p1"])
    assert status == 422
    assert f"{SECRET_BID}" not in body["error"]["message"] and '"amount": 37' not in json.dumps(body)


def test_a_player_cannot_act_for_another(api: Api, game: Game) -> None:
    status, body = api.post(game.path("/actions"), {"type": "bid", "amount": 5, "on_behalf_of": "p2"},
                            token=game.tokens["p1"])
    assert status == 403
    events = api.get(game.path("/events"), game.gm)[1]["events"]
    assert all(e["type"] != "action.submitted" for e in events)


def test_the_gm_may_enter_an_order_for_a_player(api: Api, game: Game) -> None:
    status, body = api.post(game.path("/actions"), {"type": "bid", "amount": 5, "on_behalf_of": "p2"}, token=game.gm)
    assert status == 202, body
    event = api.get(game.path("/events"), game.gm)[1]["events"][-1]
    assert event["actor"] == "p2" and event["data"]["entered_by"] == "gm"


def test_audit_and_export_are_closed_until_the_end(api: Api, game: Game) -> None:
    for path in ("/audit", "/export"):
        assert api.get(game.path(path))[0] == 401  # no token: who are you?
        assert api.get(game.path(path), game.tokens["p1"])[0] == 403  # a player: not yours until the end
        assert api.get(game.path(path), game.gm)[0] == 200


def test_the_seed_is_shown_to_the_gm_only_until_the_end(api: Api, game: Game) -> None:
    assert "seed" not in api.get(game.path())[1]
    assert "seed" not in api.get(game.path(), game.tokens["p1"])[1]
    assert api.get(game.path(), game.gm)[1]["seed"] == "fixed-seed"
    assert "fixed-seed" not in json.dumps(api.get(game.path("/events"), game.tokens["p1"])[1])


def test_packets_won_are_private_to_their_winner(api: Api, ctx: Context) -> None:
    game = new_game(api, players=4)
    for pid, amount in (("p1", 4), ("p2", 3), ("p3", 2), ("p4", 1)):
        assert api.post(game.path("/actions"), {"type": "bid", "amount": amount}, token=game.tokens[pid])[0] == 202
    run_queued_jobs(ctx)
    resolved = [e for e in api.get(game.path("/events"), game.gm)[1]["events"] if e["type"] == "phase.resolved"]
    assert resolved, "the first auction was not resolved"
    full = resolved[0]["data"]["outcome"]
    assert set(full.get("private", {})) >= {"p1", "p2"}
    p2_events = api.get(game.path("/events"), game.tokens["p2"])[1]["events"]
    p2_view = [e for e in p2_events if e["type"] == "phase.resolved"]
    assert set(p2_view[0]["data"]["outcome"].get("private", {})) == {"p2"}
    assert "secret" not in p2_view[0]["data"]["outcome"]
    public = [e for e in api.get(game.path("/events"))[1]["events"] if e["type"] == "phase.resolved"]
    assert "private" not in public[0]["data"]["outcome"]
    assert json.dumps(full["private"]["p1"]) not in json.dumps(api.get(game.path(), game.tokens["p2"])[1])


def test_gm_fixed_draws_and_private_sign_up_fields_stay_hidden(api: Api) -> None:
    fixed = {"moves": [[7, 1], [-7, 2], [3, -9], [-4, -8]], "true": 2}
    rounds = [{"A": fixed, "B": fixed, "C": fixed, "D": fixed} for _ in range(2)]
    status, created = api.post("/games", {"type": "extreme-ways", "options": {"bidding_rounds": 2, "rounds": rounds}})
    assert status == 201, created
    gid, gm = created["game_id"], created["gm_token"]
    status, joined = api.post(f"/games/{gid}/players", {"name": "Rich", "garnets": 12345}, token=gm)
    assert status == 201
    api.post(f"/games/{gid}/players", {"name": "Poor"})
    nosy = api.post(f"/games/{gid}/players", {"name": "Nosy"})[1]["token"]
    for token in (None, nosy):
        seen = json.dumps([api.get(f"/games/{gid}", token)[1], api.get(f"/games/{gid}/events", token)[1],
                           api.get(f"/games/{gid}/replay", token)[1]])
        assert "12345" not in seen
        assert '"true": 2' not in seen
    assert "12345" in json.dumps(api.get(f"/games/{gid}", joined["token"])[1])
    assert api.get(f"/games/{gid}", gm)[1]["options"]["rounds"][0]["A"]["true"] == 2


def test_gold_is_private_until_the_end(api: Api, ctx: Context) -> None:
    game = new_game(api, players=4)
    for pid, amount in (("p1", 4), ("p2", 3), ("p3", 2), ("p4", 1)):
        api.post(game.path("/actions"), {"type": "bid", "amount": amount}, token=game.tokens[pid])
    run_queued_jobs(ctx)
    assert api.get(game.path())[1]["phase"]["number"] == 2
    mine = json.dumps(api.get(game.path(), game.tokens["p1"])[1])
    assert '"gold": 46' in mine  # 50 less the 4 paid for packet 1
    for token in (None, game.tokens["p2"], game.tokens["p3"]):
        seen = json.dumps([api.get(game.path(), token)[1], api.get(game.path("/events"), token)[1]])
        assert '"gold": 46' not in seen and '"paid": 4' not in seen
