"""Issue 29: the streams send the game's signed checkpoint after each event that closes a phase (and so at the end):
``event: checkpoint`` on SSE, a ``{"checkpoint"}`` line on NDJSON, ``{"game_id", "checkpoint"}`` on the many-games
stream; the note is the one the game keeps (its export's), and it verifies with ``GET /v1/keys``."""
from __future__ import annotations

import json

import pytest
import requests

from eventlog import notes
from runtime.checkpoints import closes_phase
from runtime.context import Context
from tests.platform.conftest import Game, new_game
from tests.platform.helpers import Api, run_queued_jobs
from tests.streams.client import Stream
from tests.streams.conftest import StreamServer


def _coin(api: Api) -> Game:
    return new_game(api, players=2, game_type="test-coin", options={"target": 2})


def _play_to_the_end(api: Api, ctx: Context, game: Game) -> None:
    for _ in range(20):
        for player, side in (("p1", "heads"), ("p2", "tails")):
            status, body = api.post(game.path("/actions"), {"type": "call", "side": side}, token=game.tokens[player])
            assert status == 202, body
        run_queued_jobs(ctx)
        if api.get(game.path())[1]["status"] == "finished":
            return
    raise AssertionError("the coin toss did not finish")


def _expected(api: Api, game: Game) -> list[tuple[int, str]]:
    """(seq, hash) of every event that closed a phase: where a checkpoint must follow."""
    events = api.get(game.path("/events?limit=1000"), game.gm)[1]["events"]
    return [(e["seq"], e["hash"]) for e in events if closes_phase(e)]


def _check(api: Api, game: Game, signed: list[dict], expected: list[tuple[int, str]]) -> None:
    vkeys = [notes.parse_vkey(k["vkey"]) for k in api.get("/keys")[1]["keys"]]
    assert [(s["seq"], s["head_hash"]) for s in signed] == expected
    assert all(s["after"] >= s["seq"] for s in signed), "each checkpoint comes after its event"
    for s in signed:
        cp = notes.parse_checkpoint(notes.open_note(s["note"], vkeys).text)
        assert (cp.size, cp.head, cp.kind) == (s["seq"], s["head_hash"], "checkpoint")
    export = api.get(game.path("/export"), game.gm)[1]
    assert [s["note"] for s in signed] == export["checkpoints"], "the notes the export carries, not signed anew"


@pytest.mark.parametrize("fmt", ["sse", "ndjson"])
def test_a_follower_gets_a_checkpoint_after_each_phase_live(api: Api, ctx: Context, streams: StreamServer,
                                                            fmt: str) -> None:
    game = _coin(api)
    stream = Stream(streams.url, game.id, None, fmt=fmt)
    assert stream.status == 200
    _play_to_the_end(api, ctx, game)
    events, end = stream.until_end()
    stream.close()
    expected = _expected(api, game)
    assert end is not None and len(expected) >= 2 and events[-1]["seq"] == expected[-1][0]
    _check(api, game, stream.signed, expected)  # the last one (the end's) before the end


def test_a_follower_catching_up_from_the_log_gets_them_too(api: Api, ctx: Context, streams: StreamServer) -> None:
    game = _coin(api)
    _play_to_the_end(api, ctx, game)
    stream = Stream(streams.url, game.id, game.tokens["p1"], fmt="ndjson")
    _, end = stream.until_end()
    stream.close()
    assert end is not None
    _check(api, game, stream.signed, _expected(api, game))


def test_no_checkpoint_where_no_phase_closed(api: Api, streams: StreamServer) -> None:
    game = _coin(api)
    stream = Stream(streams.url, game.id, game.gm, fmt="sse")
    backlog = stream.events(len(api.get(game.path("/events?limit=1000"), game.gm)[1]["events"]))
    status, body = api.post(game.path("/actions"), {"type": "call", "side": "heads"}, token=game.tokens["p1"])
    assert status == 202, body
    live = stream.events(1)  # the order: the phase waits for p2
    stream.close()
    assert live[0]["seq"] == body["seq"] and not any(closes_phase(e) for e in backlog + live)
    assert stream.signed == []


def test_the_many_games_stream_names_each_checkpoints_game(api: Api, ctx: Context, streams: StreamServer) -> None:
    game = _coin(api)
    _play_to_the_end(api, ctx, game)
    answer = requests.post(f"{streams.url}/me/stream", json={"tokens": [{"game_id": game.id, "token": game.gm}]},
                           stream=True, timeout=(5, 10))
    lines = [json.loads(line) for line in answer.iter_lines() if line.strip()]
    answer.close()
    signed = [line for line in lines if "checkpoint" in line]
    assert all(line["game_id"] == game.id for line in signed)
    assert [(s["checkpoint"]["seq"], s["checkpoint"]["head_hash"]) for s in signed] == _expected(api, game)
