"""Golden Strider's rule 15 report over HTTP: content, the latest round, every format,
public facts only, the robot race's report, and Tarnished drugs kept out of it.

The app runs on a real Redis with the Flask test client; queued resolutions are run by
a real RQ worker in burst mode (no gunicorn needed: the subject is the report route).
The scripted race and its rows, worked by hand from the rulebook, are the engine
test's (tests/engines/golden_strider/test_report.py).
"""
from __future__ import annotations

import json

import pytest

from engines import registry
from engines.golden_strider import robot
from engines.rng import Rng
from service.app import create_app
from runtime.context import Context
from tests.engines.golden_strider.helpers import NAMES
from tests.engines.golden_strider.test_report import EXPECTED, SCRIPT, _line, _unstruck
from tests.platform.helpers import Api, run_queued_jobs

FORMATS = ("json", "text", "markdown", "bbcode")
LEAKS = ('"drug": "energiza"', '"r1": "energiza"', '"energiza": 2')
ROW_KEYS = {"runner", "name", "cards", "played", "D", "M", "B", "R", "S", "P", "O", "cf", "auto", "trip",
            "forfeited"}


@pytest.fixture()
def http(ctx: Context) -> Api:
    return Api(create_app(ctx).test_client())


def _game(http: Api, options: dict, joins: list[dict]) -> tuple[str, str, dict[str, str]]:
    status, created = http.post("/games", {"type": "golden-strider", "seed": "report-http", "options": options})
    assert status == 201, created
    game_id, gm = created["game_id"], created["gm_token"]
    tokens = {}
    for body in joins:
        status, joined = http.post(f"/games/{game_id}/players", body)
        assert status == 201, joined
        tokens[joined["player_id"]] = joined["token"]
    status, body = http.post(f"/games/{game_id}/start", token=gm)
    assert status == 200, body
    return game_id, gm, tokens


def _scripted_race(http: Api, ctx: Context, rounds: int) -> tuple[str, str, dict[str, str]]:
    """The engine test's scripted Steeplechase, every order sent over HTTP."""
    joins = [{"name": f"Player {i + 1}", "runner": NAMES[i]} for i in range(6)]
    game_id, gm, tokens = _game(http, {"variant": "steeplechase"}, joins)
    for script in SCRIPT[:rounds]:
        for player, cards, card, move, bank, *deduct in script:
            body = {"type": "play", "card": card, "move": move, "bank": bank, "deduct": deduct[0] if deduct else "move"}
            if cards:
                body["cards"] = cards
            status, answer = http.post(f"/games/{game_id}/actions", body, token=tokens[player])
            assert status == 202, answer
        if len(script) < len(tokens):  # someone sent nothing: the GM resolves (rule 13)
            status, answer = http.post(f"/games/{game_id}/actions", {"type": "gm.resolve_now", "reason": "NMR"},
                                       token=gm)
            assert status == 202, answer
        run_queued_jobs(ctx)
    return game_id, gm, tokens


def _rows(report: dict) -> list[tuple[str, str]]:
    return [_unstruck(_line(row, report["notes"])) for row in report["rows"]]


def _markdown(line: str) -> str:
    """A hand-worked row as the Markdown table row (struck card ~~like this~~)."""
    name, cards, numbers, remarks = (part.strip() for part in line.split("|"))
    cf = "cf" if remarks.startswith("cf") else ""
    note = remarks.removeprefix("cf").strip()
    cells = [name, cards.replace("~", "~~"), *numbers.split(), cf, note]
    return "| " + " | ".join(cells) + " |"


def test_report_latest_and_a_given_round_in_every_format(http: Api, ctx: Context) -> None:
    game_id, gm, tokens = _scripted_race(http, ctx, 4)
    path = f"/games/{game_id}/report"
    status, latest = http.get(path)
    assert status == 200, latest
    assert (latest["game_id"], latest["round"], latest["format"]) == (game_id, 4, "json")
    assert latest["report"]["round"] == 4 and len(latest["report"]["rows"]) == 6
    assert _rows(latest["report"]) == [_unstruck(line) for line in EXPECTED[4]]
    for fmt in FORMATS:
        status, body = http.get(f"{path}?format={fmt}")
        assert status == 200 and set(body) == {"game_id", "round", "format", "report"}, body
        assert (body["round"], body["format"]) == (4, fmt)  # the latest names its round
        assert isinstance(body["report"], dict if fmt == "json" else str)
        for round_no in (1, 2, 3):
            status, given = http.get(f"{path}?round={round_no}&format={fmt}")
            assert status == 200 and (given["round"], given["format"]) == (round_no, fmt)
    status, second = http.get(f"{path}?round=2")
    assert _rows(second["report"]) == [_unstruck(line) for line in EXPECTED[2]]
    text = http.get(f"{path}?round=2&format=text")[1]["report"]
    assert text.startswith("Golden Strider - round 2 (70 squares)\n")
    for want in EXPECTED[2]:  # every row, cell by cell (the text strikes ~like this~)
        name = want.split("|")[0].strip()
        got = [line for line in text.splitlines() if line.startswith(name + " ")]
        assert len(got) == 1 and got[0].replace("~", "").split() == want.replace("~", "").replace("|", " ").split()
    markdown = http.get(f"{path}?round=2&format=markdown")[1]["report"]
    assert _markdown(EXPECTED[2][1]) in markdown.splitlines()  # Elliott's trip, with its note
    markdown = http.get(f"{path}?round=4&format=markdown")[1]["report"]
    assert _markdown(EXPECTED[4][4]) in markdown.splitlines()  # McKean's cf
    bbcode = http.get(f"{path}?round=3&format=bbcode")[1]["report"]
    mckean = "Tom McKean | 5/0 5/0 5/0 3/1 [s]10/2[/s] 0/3 | - 10 0 0 18 1 2 | |".split(" | ")  # EXPECTED[3][0]
    cells = [mckean[0], mckean[1], *mckean[2].split(), "", ""]  # no cf; the Notes column (Elliott's NMR)
    assert "[tr]" + "".join(f"[td]{cell}[/td]" for cell in cells) + "[/tr]" in bbcode.splitlines()
    assert _unstruck(EXPECTED[3][0])[0] == "Tom McKean | 5/0 5/0 5/0 3/1 10/2 0/3 | - 10 0 0 18 1 2 |"


def test_report_errors(http: Api, ctx: Context) -> None:
    joins = [{"name": f"Player {i + 1}", "runner": NAMES[i]} for i in range(6)]
    game_id, _, _ = _game(http, {}, joins)
    path = f"/games/{game_id}/report"
    status, body = http.get(path)
    assert status == 404 and body["error"]["code"] == "no_such_round"  # nothing played yet
    game_id, _, _ = _scripted_race(http, ctx, 1)
    path = f"/games/{game_id}/report"
    status, body = http.get(f"{path}?round=2&format=text")
    assert status == 404 and body["error"]["code"] == "no_such_round" and body["error"]["details"]["rounds"] == [1]
    for query in ("round=0", "round=x", "format=pdf"):
        assert http.get(f"{path}?{query}")[0] == 422, query


def test_report_shows_only_public_facts_to_everyone(http: Api, ctx: Context) -> None:
    game_id, gm, tokens = _scripted_race(http, ctx, 2)
    viewers = {"public": None, "p1": tokens["p1"], "p2": tokens["p2"], "gm": gm}

    def everyone(fmt: str) -> set[str]:
        answers = [http.get(f"/games/{game_id}/report?format={fmt}", token) for token in viewers.values()]
        assert {status for status, _ in answers} == {200}
        return {json.dumps(body, sort_keys=True) for _, body in answers}

    before = {fmt: everyone(fmt) for fmt in FORMATS}
    assert all(len(bodies) == 1 for bodies in before.values())  # the same report for every viewer
    # a sealed order for round 3 is in: no report moves on or changes, for anyone
    secret = {"type": "play", "card": "1/2", "move": 1, "bank": 0}
    assert http.post(f"/games/{game_id}/actions", secret, token=tokens["p1"])[0] == 202
    assert {fmt: everyone(fmt) for fmt in FORMATS} == before
    body = http.get(f"/games/{game_id}/report")[1]
    assert body["round"] == 2
    assert set(body["report"]) == {"round", "race_length", "variant", "columns", "rows", "notes"}
    assert all(set(row) == ROW_KEYS for row in body["report"]["rows"])


def test_robot_race_report_over_http(http: Api, ctx: Context) -> None:
    joins = [{"name": f"Robot {i + 1}", "runner": NAMES[i]} for i in range(6)]
    game_id, gm, tokens = _game(http, {"variant": "robot"}, joins)
    path = f"/games/{game_id}/report"
    assert http.get(path)[0] == 404  # the race has not been run
    engine = registry.get("golden-strider", http.get(f"/games/{game_id}")[1]["version"])
    for player, token in tokens.items():  # p1 runs the rulebook's example, the others random robots
        body = ({"type": "submit_robot", "algorithm": robot.EXAMPLE} if player == "p1"
                else engine.bot_action({"stage": "robots"}, player, Rng("report-http", player)))
        assert http.post(f"/games/{game_id}/actions", body, token=token)[0] == 202
    run_queued_jobs(ctx)
    status, game = http.get(f"/games/{game_id}")
    assert game["status"] == "finished"
    played = game["state"]["rounds_played"]
    assert played == list(range(1, len(played) + 1)) and len(played) > 6
    status, latest = http.get(path)
    assert status == 200 and latest["round"] == played[-1] == latest["report"]["round"]
    assert latest["report"]["variant"] == "robot" and len(latest["report"]["rows"]) == 6
    # the example's Steve Ovett: M2 B4 (nothing owed in rounds 1-2), never banking from round 7
    for round_no in played:
        body = http.get(f"{path}?round={round_no}")[1]
        assert body["round"] == round_no and len(body["report"]["rows"]) == 6
        ovett = next(r for r in body["report"]["rows"] if r["name"] == "Steve Ovett")
        if round_no <= 2:
            assert (ovett["D"], ovett["M"], ovett["B"]) == (0, 2, 4)
        if round_no >= 7:
            assert ovett["B"] == 0
    for fmt in FORMATS[1:]:
        status, body = http.get(f"{path}?format={fmt}")
        assert status == 200 and body["round"] == played[-1] and f"round {played[-1]} (60 squares)" in body["report"]


def _clean_start(action: dict) -> dict:
    """The bots' first order, made certain: r1 (manager p1's first athlete) on Energiza, all others clean."""
    if not action.get("cards"):
        return action
    doped = action["runner"] == "r1"
    return {"type": "play", "runner": action["runner"], "cards": [6, 6, 6, 6, 6], "card": "6/0", "move": 3,
            "bank": 3, "drug": "energiza" if doped else "clean", **({"energiza": 2} if doped else {})}


def test_tarnished_drugs_stay_out_of_reports_events_and_state_until_the_end(http: Api, ctx: Context) -> None:
    """Ruling 13, over HTTP: during the race and the accusation phase no other manager sees a drug."""
    joins = [{"name": f"Manager {i}", "runners": [f"Athlete {i}a", f"Athlete {i}b"]} for i in range(1, 5)]
    game_id, gm, tokens = _game(http, {"variant": "tarnished", "race_length": 30}, joins)
    engine = registry.get("golden-strider", http.get(f"/games/{game_id}")[1]["version"])
    number = 0
    while (state := ctx.loader.load(game_id)["engine"])["stage"] == "round":
        number += 1
        for player in http.get(f"/games/{game_id}", gm)[1]["phase"]["awaiting"]:
            while (action := engine.bot_action(state, player, Rng("report-http", number, player))) is not None:
                status, answer = http.post(f"/games/{game_id}/actions", _clean_start(action), token=tokens[player])
                assert status == 202, (action, answer)
                state = ctx.loader.load(game_id)["engine"]
        run_queued_jobs(ctx)
    assert state["stage"] == "accusation" and number > 2
    assert [r["drug"] for r in state["runners"]] == ["energiza"] + ["clean"] * 7
    accuse = {"type": "accuse", "runner": "Athlete 1a"}
    assert http.post(f"/games/{game_id}/actions", accuse, token=tokens["p2"])[0] == 202
    for token in (tokens["p2"], tokens["p3"], None):
        seen = [http.get(f"/games/{game_id}", token)[1], http.get(f"/games/{game_id}/events?limit=1000", token)[1]]
        seen += [http.get(f"/games/{game_id}/report?round={n}&format={fmt}", token)[1]
                 for n in range(1, number + 1) for fmt in ("json", "text")]
        assert all("error" not in body for body in seen)
        shown = json.dumps(seen)
        # r1's drug as a value, as a view lists it, or its Energiza points (option names like energiza_max are public)
        assert not [leak for leak in LEAKS if leak in shown]
    assert LEAKS[1] in json.dumps(http.get(f"/games/{game_id}", tokens["p1"])[1])  # the owner sees it
    for token in (tokens["p1"], gm):  # the owner's and the GM's events hold r1's order and drug use
        events = json.dumps(http.get(f"/games/{game_id}/events?limit=1000", token)[1])
        assert LEAKS[0] in events and LEAKS[2] in events
