"""A game whose log cannot be folded (an event written straight into Redis that does not fit the game).

Every endpoint answers 503 ``corrupt_log`` naming the seq (not a bare 500, and never the
fold's own words, which could quote hidden data); its GM still gets the audit and the
export, built from the raw events, so the corruption can be diagnosed.
"""
from __future__ import annotations

from typing import Any

import pytest

from eventlog.events import seal
from runtime.context import Context
from tests.platform.conftest import Game
from tests.platform.helpers import Api

CORRUPTIONS: dict[str, tuple[str, dict[str, Any]]] = {
    "an order without its action": ("action.submitted", {"phase": 1}),
    "an event type no fold knows": ("player.vanished", {"player_id": "p1"}),
    "a deadline extension with no data": ("gm.extend_deadline", {}),
    # Fold fine and break every later step unless the fold reads them: a deadline not a date.
    "a deadline extension to a number": ("gm.extend_deadline", {"reason": "x", "phase": 1, "deadline": 5}),
    "a deadline extension without a time zone": ("gm.extend_deadline", {"reason": "x", "phase": 1,
                                                                        "deadline": "2030-01-01T00:00:00"}),
    "a pause with a text for its time left": ("gm.pause", {"reason": "x", "remaining": "soon"}),
}


def _corrupt(ctx: Context, game: Game, case: str) -> int:
    kind, data = CORRUPTIONS[case]
    seq, head = ctx.store.head(game.id)
    ctx.store.append(game.id, seal(seq + 1, head, kind, "p1", data))
    return seq + 1


def _is_corrupt_log(status: int, body: dict, seq: int) -> bool:
    error = body["error"]
    return (status == 503 and error["code"] == "corrupt_log" and error["details"] == {"seq": seq}
            and f"seq {seq}" in error["message"] and "Error" not in error["message"])


@pytest.mark.parametrize("case", sorted(CORRUPTIONS))
def test_every_endpoint_says_corrupt_log_and_records_nothing(api: Api, ctx: Context, game: Game, case: str) -> None:
    assert api.get(game.path())[0] == 200  # the loader has the healthy record cached: the tail must still be folded
    bad = _corrupt(ctx, game, case)
    p1 = game.tokens["p1"]
    for method, path, body, token in [
        ("GET", game.path(), None, None),
        ("GET", game.path(), None, p1),
        ("GET", game.path("/events"), None, game.gm),
        ("GET", game.path("/replay"), None, p1),
        ("GET", game.path("/report"), None, p1),
        ("POST", game.path("/actions"), {"type": "bid", "amount": 1}, p1),
        ("POST", game.path("/actions"), {"type": "gm.pause", "reason": "look"}, game.gm),
        ("POST", game.path("/players"), {"name": "Late"}, None),
        ("POST", game.path("/start"), None, game.gm),
        ("GET", game.path("/audit"), None, p1),  # only the GM may diagnose a game that cannot be known finished
        ("GET", game.path("/export"), None, None),
    ]:
        status, answer = api.call(method, path, body, token=token)
        assert _is_corrupt_log(status, answer, bad), (method, path, status, answer)
    assert ctx.store.head(game.id)[0] == bad  # nothing was recorded
    assert api.get(game.path("/audit"), token="not-a-token")[0] == 401


@pytest.mark.parametrize("case", sorted(CORRUPTIONS))
def test_the_gm_gets_an_audit_and_an_export_that_name_the_seq(api: Api, ctx: Context, game: Game, case: str) -> None:
    bad = _corrupt(ctx, game, case)
    status, audit = api.get(game.path("/audit"), game.gm)
    assert status == 200 and not audit["ok"] and audit["hash_chain"]["ok"], audit
    assert audit["events"] == bad and audit["divergences"][-1]["seq"] == bad
    assert audit["divergences"][-1]["check"] == "fold"
    assert audit["final"]["seq"] == bad - 1  # folded up to the event before
    status, export = api.get(game.path("/export"), game.gm)
    assert status == 200 and export["status"] == "corrupt" and export["seed"] is None
    assert [e["seq"] for e in export["events"]] == list(range(1, bad + 1))
    assert export["events"][-1]["type"] == CORRUPTIONS[case][0] and export["type"] == "extreme-ways"
    assert export["head_hash"] == ctx.store.head(game.id)[1]
    status, verified = api.post("/replays/verify", export)
    assert status == 200 and not verified["ok"] and verified["divergences"][-1]["seq"] == bad, verified
