"""One stream for a bot's many games (``POST /v1/me/stream`` on the stream process, issue 32): each game's events as
its token sees them, in order, each line naming its game; a refused token or game is a line of its own and the others
go on; a finished game ends with its own end line, and the stream ends once every game has; `after` resumes."""
from __future__ import annotations

import json
from typing import Any, Iterator

import requests

from runtime.context import Context
from tests.platform.conftest import Game, new_game
from tests.platform.helpers import Api
from tests.security.helpers import finished
from tests.streams.conftest import StreamServer


def _events(api: Api, game: Game, token: str) -> list[dict[str, Any]]:
    status, body = api.get(game.path("/events?limit=1000"), token)
    assert status == 200, body
    return body["events"]


def _lines(streams: StreamServer, tokens: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    answer = requests.post(f"{streams.url}/me/stream", json={"tokens": tokens}, stream=True, timeout=(5, 10))
    assert answer.status_code == 200 and answer.headers["Content-Type"].startswith("application/x-ndjson")
    try:
        for line in answer.iter_lines(chunk_size=1):
            if line.strip():
                yield json.loads(line)
    finally:
        answer.close()


def _take(lines: Iterator[dict[str, Any]], count: int) -> list[dict[str, Any]]:
    return [next(lines) for _ in range(count)]


def test_one_stream_follows_many_games_each_as_its_token_sees_it(api: Api, streams: StreamServer) -> None:
    first, second = new_game(api, players=3), new_game(api, players=3)
    mine = [{"game_id": first.id, "token": first.tokens["p1"]}, {"game_id": second.id, "token": second.gm},
            {"game_id": "gnosuchgame", "token": "x" * 43}, {"game_id": second.id + "x", "token": "nope"}]
    backlog = len(_events(api, first, first.gm)) + len(_events(api, second, second.gm))
    lines = _lines(streams, mine)
    seen = _take(lines, backlog + 2)
    errors = {line["game_id"]: line["error"]["code"] for line in seen if "error" in line}
    # as on a game's own stream: a token that is not the game's is a 401, whether or not the game exists
    assert errors == {"gnosuchgame": "unauthorized", second.id + "x": "unauthorized"}
    status, sent = api.post(first.path("/actions"), {"type": "bid", "amount": 4}, token=first.tokens["p1"])
    assert status == 202, sent
    status, paused = api.post(second.path("/actions"), {"type": "gm.pause", "reason": "tea"}, token=second.gm)
    assert status == 202, paused
    seen += _take(lines, 2)
    by_game = {game.id: [line["event"] for line in seen if line.get("game_id") == game.id and "event" in line]
               for game in (first, second)}
    assert by_game[first.id] == _events(api, first, first.tokens["p1"]), "p1's view of the first game, in order"
    assert by_game[second.id] == _events(api, second, second.gm), "the GM's view of the second"
    assert by_game[first.id][-1]["data"]["action"] == {"type": "bid", "amount": 4}


def test_a_bad_token_is_refused_on_its_line_and_the_stream_ends_with_the_games(api: Api, ctx: Context,
                                                                               streams: StreamServer) -> None:
    over = finished(api, ctx, "extreme-ways")
    other = new_game(api, players=3)
    head = len(_events(api, over, over.gm))
    lines = list(_lines(streams, [{"game_id": over.id, "token": over.gm, "after": head - 2},
                                  {"game_id": other.id, "token": "not-a-token"}]))
    refused = [line for line in lines if "error" in line]  # games go on side by side: their lines interleave
    assert refused == [{"game_id": other.id, "error": refused[0]["error"]}]
    assert refused[0]["error"]["code"] == "unauthorized"
    lines.remove(refused[0])
    assert [line["event"]["seq"] for line in lines[:2]] == [head - 1, head]  # after resumes
    assert lines[2]["game_id"] == over.id and lines[2]["checkpoint"]["seq"] == head  # the end's (issue 29)
    assert lines[3:] == [{"game_id": over.id, "end": {"reason": "finished", "seq": head}},
                         {"end": {"reason": "finished"}}]


def test_the_lines_come_as_text_to_a_client_that_asks(api: Api, ctx: Context, streams: StreamServer) -> None:
    over = finished(api, ctx, "extreme-ways", seed="as-text")
    answer = requests.post(f"{streams.url}/me/stream", json={"tokens": [{"game_id": over.id, "token": over.gm}]},
                           headers={"Accept": "text/plain"}, timeout=10)
    assert answer.status_code == 200 and answer.headers["Content-Type"].startswith("text/plain")
    assert json.loads(answer.text.splitlines()[-1]) == {"end": {"reason": "finished"}}


def test_a_bad_body_is_a_422_before_anything_is_streamed(api: Api, streams: StreamServer) -> None:
    game = new_game(api, players=3)
    twice = [{"game_id": game.id, "token": game.gm}, {"game_id": game.id, "token": game.tokens["p1"]}]
    for body in ({"tokens": []}, {"tokens": twice}, {"tokens": [{"game_id": game.id}]}):
        answer = requests.post(f"{streams.url}/me/stream", json=body, timeout=10)
        assert answer.status_code == 422 and answer.json()["error"]["code"] == "invalid", answer.text
