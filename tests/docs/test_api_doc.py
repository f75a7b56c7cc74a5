"""docs/api.md (and the answers the game docs show) executed against the API on a real Redis: the shape of each
answer the doc sketches, every GM action's body and refusals, and every row of the error table, each produced by a
request here.  A row without a request, or an answer that stops matching the doc, fails."""
from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any, Callable

import pytest
from freezegun import freeze_time

from runtime.context import Context
from tests.docs.markdown import (
    API_DOC,
    DOCS,
    GAME_DOCS,
    Row,
    answers,
    code_spans,
    json_objects,
    matches,
    sketch,
    tables,
)
from tests.platform.conftest import Game, new_game
from tests.platform.helpers import Api

ERRORS = ("status", "code", "when")
GM_TABLE = ("type", "body", "does", "refused with")
ENDPOINTS = ("method and path", "who", "does")


def _endpoint(path: str) -> Row:
    """The endpoints table's row whose first code span is ``path`` (``POST /v1/games``)."""
    return next(row for row in tables(API_DOC, ENDPOINTS) if code_spans(row["method and path"])[0] == path)


def _sketches_after(text: str, status: str) -> list[dict[str, Any]]:
    """The key sketches the doc writes after ``**<status>**``."""
    return [sketch(span) for span in re.findall(rf"\*\*{status}\*\* `([^`]+)`", text)]


def _bid(api: Api, game: Game, player: str, amount: int = 1) -> tuple[int, Any]:
    return api.post(game.path("/actions"), {"type": "bid", "amount": amount}, token=game.tokens[player])


def _gm(api: Api, game: Game, kind: str, **fields: Any) -> tuple[int, Any]:
    return api.post(game.path("/actions"), {"type": kind, "reason": "docs", **fields}, token=game.gm)


# -- the answers the docs sketch -----------------------------------------------------------------------------------
def test_the_202_for_an_order_a_quit_and_a_gm_action_is_what_api_md_sketches(api: Api) -> None:
    order, other = _sketches_after(_endpoint("POST /v1/games/{id}/actions")["does"], "202")
    game = new_game(api)
    status, first = _bid(api, game, "p1")
    assert status == 202 and matches(order, first) == [] and first["phase"]["resolves"] is False
    for player in ("p2", "p3"):
        _bid(api, game, player)
    status, last = _bid(api, game, "p4")
    assert status == 202 and matches(order, last) == [] and last["phase"]["resolves"] is True
    assert last["phase"]["number"] == first["phase"]["number"] == 1 and last["phase"]["name"] == "bidding"
    quit_status, quit_answer = api.post(game.path("/actions"), {"type": "quit"}, token=game.tokens["p4"])
    gm_status, gm_answer = _gm(api, game, "gm.extend_deadline", seconds=60)
    assert (quit_status, gm_status) == (202, 202)
    assert matches(other, quit_answer) == [] and matches(other, gm_answer) == []


def test_the_201_for_a_creation_and_a_sign_up_is_what_api_md_sketches(api: Api) -> None:
    (created_sketch,) = _sketches_after(_endpoint("POST /v1/games")["does"], "201")
    (joined_sketch,) = _sketches_after(_endpoint("POST /v1/games/{id}/players")["does"], "201")
    status, created = api.post("/games", {"type": "extreme-ways"})
    assert status == 201 and matches(created_sketch, created) == []
    status, joined = api.post(f"/games/{created['game_id']}/players", {"name": "Ann"})
    assert status == 201 and matches(joined_sketch, joined) == []


def test_every_answer_a_doc_shows_has_the_apis_keys(api: Api) -> None:
    """``201``/``202`` answers written in the docs: the keys the API sends, no more, no fewer."""
    game = new_game(api, start=False)
    status, created = api.post("/games", {"type": "extreme-ways"})
    status, joined = api.post(game.path("/players"), {"name": "Docs"})
    api.post(game.path("/start"), token=game.gm)
    _, accepted = _bid(api, game, "p1")
    real = {"gm_token": created, "player_id": joined, "receipt": accepted}
    shown = [(s, b, w) for path in [API_DOC, *GAME_DOCS, *sorted(DOCS.glob("*.md"))] for s, b, w in answers(path)
             if s in (201, 202)]
    assert shown, "no answer examples found"
    for _, body, where in shown:
        kind = next(key for key in real if key in body)
        assert set(body) == set(real[kind]), f"{where}: the doc shows {sorted(body)}, the API {sorted(real[kind])}"


# -- GM actions -----------------------------------------------------------------------------------------------------
def _past_the_deadline(api: Api, game: Game, kind: str, body: dict[str, Any]) -> tuple[int, Any]:
    """``kind`` sent five seconds after the open phase's deadline (a GM action, or p1's order)."""
    _, shown = api.get(game.path(), token=game.gm)
    deadline = datetime.fromisoformat(shown["phase"]["deadline"].replace("Z", "+00:00"))
    with freeze_time(deadline + timedelta(seconds=5)):
        if kind.startswith("gm."):
            return _gm(api, game, kind, **body)
        return api.post(game.path("/actions"), {"type": kind, **body}, token=game.tokens["p1"])


def _start(api: Api, game: Game) -> tuple[int, Any]:
    return api.post(game.path("/start"), token=game.gm)


def _internal(api: Api, monkeypatch: pytest.MonkeyPatch) -> tuple[int, Any]:
    """A bug, planted: the 500 is the envelope all the same."""
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a planted bug")

    monkeypatch.setattr("service.api.commands.create_game", broken)
    return api.post("/games", {"type": "extreme-ways"})


GM_REFUSALS: dict[str, Callable[[Api, str, dict[str, Any]], tuple[int, Any]]] = {
    "not_started": lambda api, kind, body: _gm(api, new_game(api, start=False), kind, **body),
    "paused": lambda api, kind, body: _paused_then(api, kind, body),
    "deadline_passed": lambda api, kind, body: _past_the_deadline(api, new_game(api), kind, body),
    "invalid": lambda api, kind, body: _gm(api, new_game(api), kind, **(
        {"player_id": "p99"} if kind == "gm.eject" else {"seconds": 1, "deadline": "2099-01-01T00:00:00Z"})),
    "not_running": lambda api, kind, body: _paused_then(api, kind, body),
    "not_paused": lambda api, kind, body: _gm(api, new_game(api), kind, **body),
    "already_left": lambda api, kind, body: (_gm(api, game := new_game(api), kind, **body), _gm(api, game, kind,
                                                                                               **body))[1],
}


def _paused_then(api: Api, kind: str, body: dict[str, Any]) -> tuple[int, Any]:
    game = new_game(api)
    assert _gm(api, game, "gm.pause")[0] == 202
    return _gm(api, game, kind, **body)


def _gm_rows() -> list[Any]:
    return [pytest.param(row, id=code_spans(row["type"])[0]) for row in tables(API_DOC, GM_TABLE)]


@pytest.mark.parametrize("row", _gm_rows())
def test_every_gm_action_takes_its_documented_body_and_needs_a_reason(api: Api, row: Row) -> None:
    kind = code_spans(row["type"])[0]
    body = {k: v for k, v in json_objects(code_spans(row["body"])[0])[0].items() if k != "reason"}
    game = new_game(api)
    if kind == "gm.resume":
        assert _gm(api, game, "gm.pause")[0] == 202
    status, answer = api.post(game.path("/actions"), {"type": kind, **body}, token=game.gm)
    assert status == 422 and "reason" in answer["error"]["details"], (row.where, answer)
    status, answer = _gm(api, game, kind, **body)
    assert status == 202, (row.where, answer)


@pytest.mark.parametrize("row", _gm_rows())
def test_every_gm_action_is_refused_as_its_row_says(api: Api, row: Row) -> None:
    kind = code_spans(row["type"])[0]
    body = {k: v for k, v in json_objects(code_spans(row["body"])[0])[0].items() if k != "reason"}
    for status, codes in re.findall(r"(\d{3}) ((?:`\w+`(?:, )?)+)", row["refused with"]):
        for code in re.findall(r"`(\w+)`", codes):
            got, answer = GM_REFUSALS[code](api, kind, body)
            assert (got, answer["error"]["code"]) == (int(status), code), (row.where, code, answer)


# -- the error table -----------------------------------------------------------------------------------------------
def _started(api: Api) -> Game:
    return new_game(api)


def _finished(api: Api) -> Game:
    game = new_game(api, players=2, game_type="test-coin", options={"target": 1})
    for player in ("p1", "p2"):
        api.post(game.path("/actions"), {"type": "quit"}, token=game.tokens[player])
    return game


def _throttled(api: Api) -> tuple[int, Any]:
    game = new_game(api, players=2, game_type="test-coin", start=False)
    answer: tuple[int, Any] = (0, None)
    for attempt in range(25):
        answer = api.get(game.path(), token=f"bad-token-{attempt}")
    return answer


def _ejected_player_orders(api: Api) -> tuple[int, Any]:
    game = _started(api)
    _gm(api, game, "gm.eject", player_id="p3")
    return _bid(api, game, "p3")


def _full(api: Api) -> tuple[int, Any]:
    game = new_game(api, players=8, game_type="test-coin", start=False)
    return api.post(game.path("/players"), {"name": "Ninth"})


# Each code of the table, produced: (status, body) of a request that gets it.
ERROR_REQUESTS: dict[str, Callable[[Api, Context], tuple[int, Any]]] = {
    "empty_body": lambda api, ctx: api.call("POST", "/games", raw=b""),
    "invalid_json": lambda api, ctx: api.call("POST", "/games", raw=b"{not json"),
    "not_an_object": lambda api, ctx: api.call("POST", "/games", raw=b"[1, 2]"),
    "duplicate_key": lambda api, ctx: api.call("POST", "/games", raw=b'{"type": "extreme-ways", "type": "x"}'),
    "unauthorized": lambda api, ctx: api.post(_started(api).path("/actions"), {"type": "bid", "amount": 1}),
    "forbidden": lambda api, ctx: (lambda g: api.post(g.path("/actions"), {"type": "gm.pause", "reason": "x"},
                                                      token=g.tokens["p1"]))(_started(api)),
    "gm_only_fields": lambda api, ctx: api.post(new_game(api, start=False).path("/players"),
                                                {"name": "Zed", "garnets": 3}),
    "not_found": lambda api, ctx: api.get("/games/g-no-such-game"),
    "no_such_round": lambda api, ctx: api.get(new_game(api, game_type="strategic-aspect").path("/report?round=9")),
    "method_not_allowed": lambda api, ctx: api.call("DELETE", "/games"),
    "not_enough_players": lambda api, ctx: _start(api, new_game(api, players=1, start=False)),
    "cannot_start": lambda api, ctx: _start(api, new_game(api, players=3, game_type="sxyzm-cyclone", start=False,
                                                          options={"side": "two-colour"})),
    "already_started": lambda api, ctx: _start(api, _started(api)),
    "signup_closed": lambda api, ctx: api.post(_started(api).path("/players"), {"name": "Late"}),
    "game_full": lambda api, ctx: _full(api),
    "not_started": lambda api, ctx: (lambda g: _bid(api, g, "p1"))(new_game(api, start=False)),
    "finished": lambda api, ctx: (lambda g: _gm(api, g, "gm.resolve_now"))(_finished(api)),
    "paused": lambda api, ctx: (lambda g: (_gm(api, g, "gm.pause"), _bid(api, g, "p1"))[1])(_started(api)),
    "not_running": lambda api, ctx: (lambda g: (_gm(api, g, "gm.pause"), _gm(api, g, "gm.pause"))[1])(_started(api)),
    "not_paused": lambda api, ctx: _gm(api, _started(api), "gm.resume"),
    "deadline_passed": lambda api, ctx: _past_the_deadline(api, _started(api), "bid", {"amount": 1}),
    "already_left": lambda api, ctx: (lambda g: (_gm(api, g, "gm.eject", player_id="p2"),
                                                 _gm(api, g, "gm.eject", player_id="p2"))[1])(_started(api)),
    "not_now": lambda api, ctx: _ejected_player_orders(api),
    "body_too_large": lambda api, ctx: api.call("POST", "/games", raw=b'{"name": "' + b"x" * 70_000 + b'"}'),
    "unsupported_media_type": lambda api, ctx: (lambda r: (r.status_code, r.get_json()))(
        api.client.post("/v1/games", data=b'{"type": "extreme-ways"}', content_type="text/plain")),
    "invalid": lambda api, ctx: api.post("/games", {"type": "extreme-ways", "options": {"garnet_rate": "lots"}}),
    "rule_violation": lambda api, ctx: _bid(api, _started(api), "p1", 10_000),
    "idempotency_key_reused": lambda api, ctx: (lambda g: (
        api.post(g.path("/actions"), {"type": "bid", "amount": 1}, token=g.tokens["p1"],
                 headers={"Idempotency-Key": "k"}),
        api.post(g.path("/actions"), {"type": "bid", "amount": 2}, token=g.tokens["p1"],
                 headers={"Idempotency-Key": "k"}))[1])(_started(api)),
    "not_an_export": lambda api, ctx: api.post("/replays/verify", {"hello": "world"}),
    "too_many_bad_tokens": lambda api, ctx: _throttled(api),
}
NEEDS_MONKEYPATCH = {"internal": _internal}

# Codes a request through the test client cannot reach; each is produced by the test named here, which must
# name it too (the server in front of Flask, a store that stops, a log that cannot fold, a bug).
ELSEWHERE = {
    "bad_request": "tests/platform/test_http_envelope.py",
    "uri_too_long": "tests/platform/test_http_envelope.py",
    "headers_too_large": "tests/platform/test_http_envelope.py",
    "store_unavailable": "tests/faults/test_frozen_store.py",
    "corrupt_log": "tests/platform/test_corrupt_log.py",
    "busy": "tests/security/test_verify_limits.py",
    "too_many_requests": "tests/security/test_verify_limits.py",
}
# No game's options leave nothing to play today; the code stays for a game whose options could.
UNREACHED = {"nothing_to_play"}


def _error_cases() -> list[Any]:
    cases = []
    for row in tables(API_DOC, ERRORS):
        for code in code_spans(row["code"]):
            cases.append(pytest.param(row, code, id=f"{row['status']}-{code}"))
    return cases


@pytest.mark.parametrize("row, code", _error_cases())
def test_every_row_of_the_error_table_is_what_the_api_answers(api: Api, ctx: Context, row: Row, code: str,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    if code in NEEDS_MONKEYPATCH:
        status, body = NEEDS_MONKEYPATCH[code](api, monkeypatch)
        assert int(row["status"]) == status and body["error"]["code"] == code, (row.where, status, body)
        return
    if code in UNREACHED:
        pytest.skip(f"{code}: no game reaches it")
    if code in ELSEWHERE:
        assert code in (API_DOC.parents[1] / ELSEWHERE[code]).read_text(), f"{ELSEWHERE[code]} never meets {code}"
        return
    assert code in ERROR_REQUESTS, f"{row.where}: no request here produces {code!r}; add one"
    status, body = ERROR_REQUESTS[code](api, ctx)
    assert int(row["status"]) == status and body["error"]["code"] == code, (row.where, status, body)
    assert set(body["error"]) == {"code", "message", "details"}


def test_every_produced_code_is_a_row_of_the_table() -> None:
    documented = {code for row in tables(API_DOC, ERRORS) for code in code_spans(row["code"])}
    assert set(ERROR_REQUESTS) | set(ELSEWHERE) | set(NEEDS_MONKEYPATCH) | UNREACHED == documented


def test_the_error_envelope_api_md_shows_is_the_apis(api: Api) -> None:
    shown = next(o for o in json_objects(API_DOC.read_text()) if "error" in o)
    _, body = api.get("/games/g-no-such-game")
    assert set(shown) == set(body) and set(shown["error"]) == set(body["error"])


def test_the_clients_guide_names_only_codes_of_the_reference_with_their_status() -> None:
    """docs/clients.md's table of the usual codes: each is a row of api.md's table, with the same status."""
    reference = {code: row["status"] for row in tables(API_DOC, ERRORS) for code in code_spans(row["code"])}
    guide = tables(DOCS / "clients.md", ("status", "codes", "what to do"))
    assert guide
    for row in guide:
        for code in code_spans(row["codes"]):
            assert reference.get(code) == row["status"], (row.where, code, reference.get(code))


# -- the events table -----------------------------------------------------------------------------------------------
EVENTS = ("type", "data")
MEMBERSHIP = {"outcome", "next", "result", "seed"}  # "what a membership change records (below)"


def _data_keys(cell: str) -> tuple[set[str], set[str]]:
    """(required, allowed) keys of an events-table cell: its first ``{a, b?, c: …}`` sketch (``?``: optional), and
    what its prose adds (the code spans that are plain names, a membership change's keys)."""
    sketched = code_spans(cell)[0]
    depth, parts, part = 0, [], ""
    for char in sketched.strip()[1:-1]:
        if char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(part)
            part = ""
        else:
            part += char
    parts.append(part)
    named = [re.match(r"\s*(\w+)(\??)", p) for p in parts]
    required = {m.group(1) for m in named if m and not m.group(2)}
    allowed = {m.group(1) for m in named if m} | {s for s in code_spans(cell)[1:] if re.fullmatch(r"\w+", s)}
    return required, allowed | (MEMBERSHIP if "membership change" in cell else set())


def _a_game_of_every_event(api: Api, ctx: Context) -> list[dict[str, Any]]:
    """A coin toss that records every event type but a rollback: joins before and after the start, an order the GM
    enters, every GM action, a resolution, a quit and an ejection; its log as the GM reads it."""
    from tests.platform.helpers import run_queued_jobs

    game = new_game(api, players=3, game_type="test-coin", start=False, options={"target": 5})
    api.post(game.path("/players"), {"name": "Teamed", "team": "red"})
    assert _start(api, game)[0] == 200
    api.post(game.path("/actions"), {"type": "call", "side": "heads", "on_behalf_of": "p1"}, token=game.gm)
    for kind, fields in (("gm.extend_deadline", {"seconds": 60}), ("gm.pause", {}), ("gm.resume", {}),
                         ("gm.resolve_now", {})):
        assert _gm(api, game, kind, **fields)[0] == 202, kind
    run_queued_jobs(ctx)
    assert api.post(game.path("/players"), {"name": "Late"})[0] == 201
    assert api.post(game.path("/actions"), {"type": "quit"}, token=game.tokens["p2"])[0] == 202
    assert _gm(api, game, "gm.eject", player_id="p3")[0] == 202
    _, page = api.get(game.path("/events?limit=1000"), token=game.gm)
    return page["events"]


def test_every_event_type_records_the_data_api_md_lists(api: Api, ctx: Context) -> None:
    rows = {t: row for row in tables(API_DOC, EVENTS) for t in code_spans(row["type"])}
    events = _a_game_of_every_event(api, ctx)
    assert set(rows) - {e["type"] for e in events} == {"log.rolled_back"}  # a rollback: tests/eventlog, faults
    for event in events:
        required, allowed = _data_keys(rows[event["type"]]["data"])
        data = set(event["data"])
        assert required <= data <= allowed, (rows[event["type"]].where, sorted(data), sorted(required), allowed)
