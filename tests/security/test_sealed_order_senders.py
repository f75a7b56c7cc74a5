"""Who sent a sealed order is not told to others: the phase's awaiting list says whose orders are missing, and
an order that settles nothing (gold bought with garnets in Extreme Ways) must not show at all (issue 18 item 12)."""
from __future__ import annotations

from tests.platform.conftest import new_game
from tests.platform.helpers import Api


def _game_with_garnets(api: Api) -> tuple[str, str, dict[str, str]]:
    status, created = api.post("/games", {"type": "extreme-ways", "seed": "s" * 32})
    assert status == 201, created
    game_id, gm = created["game_id"], created["gm_token"]
    tokens = {}
    for name in ("Ann", "Bob", "Cy"):
        status, joined = api.post(f"/games/{game_id}/players", {"name": name, "garnets": 2}, token=gm)
        assert status == 201, joined
        tokens[joined["player_id"]] = joined["token"]
    assert api.post(f"/games/{game_id}/start", token=gm)[0] == 200
    return game_id, gm, tokens


def test_buying_gold_changes_nothing_that_others_see(api: Api) -> None:
    """Extreme Ways: the bidding phase awaits bids; a purchase is private, so neither awaiting nor the log
    tells anyone else that one happened."""
    game_id, gm, tokens = _game_with_garnets(api)
    before = {who: api.get(f"/games/{game_id}", token)[1]["phase"]["awaiting"]
              for who, token in (("public", None), ("p2", tokens["p2"]))}
    status, body = api.post(f"/games/{game_id}/actions", {"type": "buy_gold", "garnets": 1}, token=tokens["p1"])
    assert status == 202, body
    for who, token in (("public", None), ("p2", tokens["p2"])):
        assert api.get(f"/games/{game_id}", token)[1]["phase"]["awaiting"] == before[who] == ["p1", "p2", "p3"]
        shown = api.get(f"/games/{game_id}/events", token)[1]["events"][-1]
        assert shown["actor"] != "p1" and "p1" not in str(shown), f"{who} learns who sent a sealed order"
        assert shown["data"] == {"phase": 1, "sealed": True}
    assert api.get(f"/games/{game_id}/events", tokens["p1"])[1]["events"][-1]["actor"] == "p1"
    assert api.get(f"/games/{game_id}/events", gm)[1]["events"][-1]["actor"] == "p1"


def test_a_bid_takes_its_sender_off_awaiting_and_the_log_still_says_nothing_of_who(api: Api) -> None:
    game = new_game(api, players=2)
    assert api.post(game.path("/actions"), {"type": "bid", "amount": 3}, token=game.tokens["p1"])[0] == 202
    assert api.get(game.path(), game.tokens["p2"])[1]["phase"]["awaiting"] == ["p2"]
    assert api.get(game.path("/events"), game.tokens["p2"])[1]["events"][-1]["actor"] == "sealed"
