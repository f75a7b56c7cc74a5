"""Golden Strider's Tarnished race: players and the public read only what the rulebook's report shows (P, S and
Runner) through every endpoint; the GM reads everything (issue 18 item 9)."""
from __future__ import annotations

import json

from runtime.context import Context
from tests.platform.helpers import Api, run_queued_jobs

TEAMS = (("Ann", ["Annabelle Icksteroid", "Lucas A. Doughnley"]), ("Bob", ["Sandra Loan", "Steve Roids"]),
         ("Cy", ["Non Chi Ting", "Jeff O'Dreen"]))
# Cards only a full report would print: r1's Enduron starting cards (they add up to 32).
TELLS = ("7/0", '"enduron"', '"cards"', '"owed"')


def _round_one(api: Api, ctx: Context, options: dict | None = None) -> tuple[str, str, dict[str, str]]:
    body = {"type": "golden-strider", "seed": "t" * 32, "options": {"variant": "tarnished", **(options or {})}}
    status, created = api.post("/games", body)
    assert status == 201, created
    game_id, gm = created["game_id"], created["gm_token"]
    tokens = {}
    for name, runners in TEAMS:
        status, joined = api.post(f"/games/{game_id}/players", {"name": name, "runners": runners})
        assert status == 201, joined
        tokens[joined["player_id"]] = joined["token"]
    assert api.post(f"/games/{game_id}/start", token=gm)[0] == 200
    play = {"type": "play", "runner": "r1", "drug": "enduron", "cards": [7, 7, 6, 6, 6], "card": "6/0", "move": 3,
            "bank": 3}
    assert api.post(f"/games/{game_id}/actions", play, token=tokens["p1"])[0] == 202
    status, body = api.post(f"/games/{game_id}/actions", {"type": "gm.resolve_now", "reason": "test"}, token=gm)
    assert status == 202, body
    run_queued_jobs(ctx)
    assert api.get(f"/games/{game_id}")[1]["state"]["rounds_played"] == [1]
    return game_id, gm, tokens


def _everything_readable(api: Api, game_id: str, token: str | None) -> dict[str, str]:
    """What ``token`` reads of the game, by endpoint (a player's own part, ``you``, left out)."""
    state = api.get(f"/games/{game_id}", token)[1]
    state["state"].pop("you", None)
    events = api.get(f"/games/{game_id}/events", token)[1]["events"]
    outcomes = [e["data"]["outcome"] for e in events if e["type"] == "phase.resolved"]
    frames = api.get(f"/games/{game_id}/replay", token)[1]["frames"]
    for frame in frames:
        if frame["view"] and frame["view"]["state"]:
            frame["view"]["state"].pop("you", None)
    reports = {fmt: api.get(f"/games/{game_id}/report?format={fmt}", token)[1]["report"]
               for fmt in ("json", "text", "markdown", "bbcode")}
    return {"state": json.dumps(state), "events": json.dumps([o["public"] for o in outcomes]),
            "replay": json.dumps([f["view"] for f in frames]), "report": json.dumps(reports)}


def test_players_and_the_public_read_only_p_s_and_runner(api: Api, ctx: Context) -> None:
    game_id, gm, tokens = _round_one(api, ctx)
    for who, token in (("the public", None), ("p2", tokens["p2"])):
        for endpoint, text in _everything_readable(api, game_id, token).items():
            assert not any(tell in text for tell in TELLS), f"{who} reads a full report row through {endpoint}"
    report = api.get(f"/games/{game_id}/report", tokens["p2"])[1]["report"]
    assert report["columns"] == ["P", "S", "Runner"]
    # p1 reads their own runners' rows in full, in the log and the view; the GM reads every row
    events = api.get(f"/games/{game_id}/events", tokens["p1"])[1]["events"]
    own = next(e for e in events if e["type"] == "phase.resolved")["data"]["outcome"]["private"]["p1"]["rows"]
    assert {row["runner"] for row in own} == {"r1", "r2"} and "7/0" in json.dumps(own)
    assert "7/0" in json.dumps(api.get(f"/games/{game_id}", tokens["p1"])[1]["state"]["you"])
    assert "7/0" in json.dumps(api.get(f"/games/{game_id}/report", gm)[1]["report"])
    gm_events = api.get(f"/games/{game_id}/events", gm)[1]["events"]
    assert "7/0" in json.dumps([e for e in gm_events if e["type"] == "phase.resolved"])


def test_the_gm_may_choose_the_full_report_for_everyone(api: Api, ctx: Context) -> None:
    game_id, _, tokens = _round_one(api, ctx, {"tarnished_report": "full"})
    readable = _everything_readable(api, game_id, tokens["p2"])
    assert all("7/0" in readable[endpoint] for endpoint in ("state", "events", "report"))
    assert all('"enduron"' not in text for text in readable.values()), "the drug itself is never in a report"
