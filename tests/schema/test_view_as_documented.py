"""The API's viewer choice, board history and audit differences as /v1/openapi.json documents them: ``as`` (a plain
string) on /replay and /board.svg with their 403 and 422, ``at`` on /board.svg, and the audit's divergences typed
with their differences; real answers of each hold to the document, closed."""
from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from runtime.context import Context
from service.app import create_app
from service.openapi import document
from tests.forgery import rehashed
from tests.platform.conftest import Game, new_game
from tests.platform.helpers import Api
from tests.schema.declared import problems, published_validator

FIXTURE = Path(__file__).parents[1] / "fixtures" / "games" / "recorded-sx.json"


@pytest.fixture()
def api(ctx: Context) -> Api:
    return Api(create_app(ctx).test_client())


def _operation(path: str) -> dict[str, Any]:
    return document()["paths"][path]["get"]


def _holds(component: str, body: Any) -> None:
    found = problems(published_validator(component), body)
    assert not found, (component, found)


def test_as_and_at_are_documented_with_their_refusals() -> None:
    for path in ("/v1/games/{game_id}/replay", "/v1/games/{game_id}/board.svg"):
        operation = _operation(path)
        parameters = {p["name"]: p for p in operation["parameters"]}
        assert parameters["as"]["in"] == "query" and not parameters["as"]["required"]
        assert parameters["as"]["schema"] == {"type": "string"} and "GM" in parameters["as"]["description"]
        assert parameters["at"]["schema"]["type"] == "integer" and parameters["at"]["schema"]["minimum"] == 1
        assert "as" in operation["responses"]["403"]["description"]
        assert "as" in operation["responses"]["422"]["description"]
    assert "409" in _operation("/v1/games/{game_id}/board.svg")["responses"]


def test_answers_to_as_and_at_hold_to_the_document(api: Api) -> None:
    game: Game = new_game(api, players=3)
    replay, board = game.path("/replay"), game.path("/board.svg")
    status, body = api.get(f"{replay}?as=p2", game.tokens["p1"])
    assert status == 403 and "403" in _operation("/v1/games/{game_id}/replay")["responses"]
    _holds("ErrorResponse", body)
    status, body = api.get(f"{replay}?as=p9&at=1", game.gm)
    assert status == 422 and list(body["error"]["details"]) == ["as"]
    _holds("ErrorResponse", body)
    status, body = api.get(f"{replay}?as=p2&at=2", game.gm)
    assert status == 200
    _holds("Replay", body)
    status, body = api.call("GET", f"{board}?as=public&at=2", headers={"Accept": "application/json"})
    assert status == 409 and body["error"]["code"] == "not_started"  # seq 2: a sign-up, before the start
    started = api.get(game.path())[1]["seq"]
    status, body = api.call("GET", f"{board}?as=p1&at={started}", token=game.gm, headers={"Accept": "application/json"})
    assert status == 200 and body["seq"] == started
    _holds("BoardPicture", body)
    status, body = api.call("GET", f"{board}?at={started + 1}", headers={"Accept": "application/json"})
    assert status == 422
    _holds("ErrorResponse", body)


def test_a_divergence_holds_to_the_document_with_its_differences(api: Api) -> None:
    """A forged export (an outcome's number raised, the chain re-sealed): the report's recompute divergence has its
    differences, and the whole report holds to Audit, closed."""
    recorded = json.loads(FIXTURE.read_text())
    forged = copy.deepcopy(recorded)
    index = next(i for i, e in enumerate(forged["events"]) if e["type"] == "phase.resolved")
    forged["events"][index]["data"]["outcome"]["public"]["roll"] += 1
    forged["head_hash"] = rehashed(forged["events"], index)[-1]["hash"]
    status, report = api.post("/replays/verify", forged)
    assert status == 200 and not report["ok"], report
    found = [d for d in report["divergences"] if d["check"] == "recompute"]
    assert found and found[0]["differences"] and found[0]["differences_total"] >= 1
    assert found[0]["differences"][0]["path"].startswith("/outcome/public/")
    _holds("Audit", report)
    _holds("Audit", api.post("/replays/verify", recorded)[1])
    difference = document()["components"]["schemas"]["Divergence"]["properties"]["differences"]
    assert difference["items"] == {"$ref": "#/components/schemas/Difference"}
