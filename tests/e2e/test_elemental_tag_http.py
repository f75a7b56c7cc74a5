"""A whole elemental Tag game over HTTP with a real RQ worker and short deadlines: an elimination by
bids, a re-placement, an ejection by team vote, an admission by team vote, a late sign-up, then bots to the end;
the report with the map in every format, the audit, the export and its offline verification."""
from __future__ import annotations

from typing import Any

from runtime.config import Settings
from tests.e2e.follow import Logs, past
from tests.e2e.play import create_and_join, play_to_the_end
from tests.e2e.stack import Stack

FIELDS = [{"element": "fire", "guild": "fire"}, {"element": "fire"}, {"element": "fire"},
          {"element": "water"}, {"element": "water"}, {}, {}]
DEADLINES = {"bidding": 3, "placement": 3, "moving": 3}
OPTIONS = {"element_points": 20, "underworld_points": 12}  # a shorter game than the rulebook's 45 and 25
PLACE_POINTS = {1: 3, 2: 2, 3: 2, 4: 1, 5: 1, 6: 1}


def _game(stack: Stack, game_id: str, token: str | None = None) -> dict[str, Any]:
    status, body = stack.call("GET", f"/games/{game_id}", token=token)
    assert status == 200, body
    return body


def _send(stack: Stack, game_id: str, token: str, order: dict[str, Any]) -> None:
    status, body = stack.call("POST", f"/games/{game_id}/actions", order, token=token)
    assert status == 202, (order, body)


def _next_phase(stack: Stack, logs: Logs, game_id: str, number: int) -> dict[str, Any]:
    logs.wait([game_id], past(number), 30)
    return _game(stack, game_id)


def _everyone_stays(stack: Stack, game_id: str, tokens: dict[str, str], game: dict[str, Any]) -> None:
    for player in game["phase"]["awaiting"]:
        _send(stack, game_id, tokens[player], {"type": "move", "direction": "stay"})


def test_a_whole_elemental_tag_game_over_http(stack: Stack, settings: Settings) -> None:
    stack.start_worker("worker-et")
    logs = Logs(settings.redis_url)
    game_id, gm, tokens = create_and_join(stack, "elemental-tag", 7, FIELDS, seed="e2e-elemental-tag",
                                          deadlines=DEADLINES, options=OPTIONS)

    # Round 1: p6 bids lowest and is it; p7 bids all 12 of its points and is out before the map is made.
    bids = {"p1": 1, "p2": 1, "p3": 1, "p4": 2, "p5": 2, "p6": 0, "p7": 12}
    for player, amount in bids.items():
        _send(stack, game_id, tokens[player], {"type": "bid", "amount": amount})
    game = _next_phase(stack, logs, game_id, 1)
    view = game["state"]
    assert view["it"] == "p6" and [e["members"] for e in view["eliminated"]] == [["p7"]]
    assert {t["element"]: t["points"] for t in view["teams"]} == {"fire": 17, "water": 16, None: 12}
    squares = {p["id"]: p["square"] for p in view["players"]}
    assert len({tuple(sq) for sq in squares.values()}) == 6

    # Round 2: p1 asks for a new place (3 points); the others keep theirs.
    _send(stack, game_id, tokens["p1"], {"type": "place", "replace": True})
    for player in ("p2", "p3", "p4", "p5", "p6"):
        _send(stack, game_id, tokens[player], {"type": "place", "replace": False})
    game = _next_phase(stack, logs, game_id, 2)
    view = game["state"]
    moved = {p["id"]: p["square"] for p in view["players"]}
    assert moved["p1"] != squares["p1"] and {p: moved[p] for p in moved if p != "p1"} == \
        {p: squares[p] for p in squares if p not in ("p1", "p7")}
    assert view["last_round"]["replaced"] == ["p1"]
    assert {t["element"]: t["points"] for t in view["teams"]}["fire"] == 14

    # Moving round 1: fire votes p3 out; p6 applies to water (team actions first: the moves close the round).
    _send(stack, game_id, tokens["p1"], {"type": "vote", "motion": "eject", "player_id": "p3"})
    _send(stack, game_id, tokens["p2"], {"type": "vote", "motion": "eject", "player_id": "p3"})
    _send(stack, game_id, tokens["p6"], {"type": "apply", "element": "water"})
    seen_by_mate = stack.call("GET", f"/games/{game_id}/events?limit=1000", token=tokens["p2"])[1]["events"]
    seen_by_other = stack.call("GET", f"/games/{game_id}/events?limit=1000", token=tokens["p4"])[1]["events"]
    assert any(e["data"].get("action", {}).get("motion") == "eject" and e["actor"] == "p1" for e in seen_by_mate)
    assert not any("eject" in str(e["data"].get("action", {})) for e in seen_by_other)
    _everyone_stays(stack, game_id, tokens, game)
    game = _next_phase(stack, logs, game_id, 3)
    view = game["state"]
    teams = {t["team"]: t for t in view["teams"]}
    fire = next(t for t in teams.values() if t["element"] == "fire")
    assert fire["members"] == ["p1", "p2"] and fire["points"] == 14 - 4
    alone = {t["members"][0]: t["points"] for t in teams.values() if t["element"] is None}
    assert alone["p3"] == 10 and view["applications"] == {"p6": "water"}

    # Moving round 2: water admits p6 (both members vote).
    for player in ("p4", "p5"):
        _send(stack, game_id, tokens[player], {"type": "vote", "motion": "admit", "player_id": "p6"})
    _everyone_stays(stack, game_id, tokens, game)
    game = _next_phase(stack, logs, game_id, 4)
    view = game["state"]
    water = next(t for t in view["teams"] if t["element"] == "water")
    assert water["members"] == ["p4", "p5", "p6"] and water["points"] == 16
    assert {e["event"] for e in view["last_round"]["team_events"]} == {"admitted"}

    # A late sign-up (six players are left): an underworld player with 10 points on an empty square.
    status, joined = stack.call("POST", f"/games/{game_id}/players", {"name": "Latecomer", "element": "fire"})
    assert status == 201, joined
    tokens[joined["player_id"]] = joined["token"]
    view = _game(stack, game_id)["state"]
    late = next(p for p in view["players"] if p["id"] == joined["player_id"])
    assert late["element"] is None and late["square"] not in [p["square"] for p in view["players"] if p is not late]
    assert next(t for t in view["teams"] if t["members"] == [late["id"]])["points"] == 10

    # The report of that round, with the map, in every format; the public's has no secrets.
    for fmt in ("json", "text", "markdown", "bbcode"):
        status, body = stack.call("GET", f"/games/{game_id}/report?round=4&format={fmt}")
        assert status == 200 and body["round"] == 4, body
        if fmt == "json":
            assert body["report"]["size"] == 5 and len(body["report"]["map"]) == 6 and "gm" not in body["report"]
        else:
            assert "Moving round 2" in body["report"] and "Runner 6" in body["report"]

    # Bots to the end (p6 the it player's team water pays 2 a round, so an end comes).
    final = play_to_the_end(stack, settings, game_id, gm, tokens, phase_timeout=30)
    assert final["status"] == "finished" and final["seed"] == "e2e-elemental-tag"
    result = final["result"]
    assert len(result["players"]) == 8 and sum(t["place"] == "last standing" for t in result["teams"]) <= 1
    first_out = next(t for t in result["teams"] if t["members"] == ["p7"])
    assert first_out["place"] == len([t for t in result["teams"] if t["place"] != "last standing"])
    assert next(p for p in result["players"] if p["player_id"] == "p7")["score"] == \
        PLACE_POINTS.get(first_out["place"], 0)

    status, audit = stack.call("GET", f"/games/{game_id}/audit")
    assert status == 200 and audit["ok"], audit
    status, exported = stack.call("GET", f"/games/{game_id}/export")
    assert status == 200
    status, verified = stack.call("POST", "/replays/verify", exported)
    assert status == 200 and verified["ok"], verified
