"""GET /v1/games/{id}/board.svg: the caller's own view drawn, nothing more."""
from __future__ import annotations

import importlib

from tests.platform.conftest import Game, new_game
from tests.platform.helpers import Api


def _svg(api: Api, game: Game, token: str | None) -> tuple[int, str, dict[str, str]]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    response = api.client.get(f"/v1/games/{game.id}/board.svg", headers=headers)
    return response.status_code, response.get_data(as_text=True), dict(response.headers)


def test_each_callers_board_is_their_own_view_drawn(api: Api) -> None:
    game = new_game(api, players=3)
    status, _ = api.post(game.path("/actions"), {"type": "bid", "amount": 7}, token=game.tokens["p2"])
    assert status == 202
    render = importlib.import_module("engines.extreme_ways.board_svg").render
    for token in (game.tokens["p1"], game.tokens["p2"], game.gm, None):
        status, svg, headers = _svg(api, game, token)
        assert status == 200 and headers["Content-Type"].startswith("image/svg+xml")
        assert svg == render(api.get(game.path(), token)[1]["state"])
        assert headers["Vary"] == "Authorization" and "default-src 'none'" in headers["Content-Security-Policy"]
    p1, p2 = _svg(api, game, game.tokens["p1"])[1], _svg(api, game, game.tokens["p2"])[1]
    assert "Player 1 (you: 50 gold" in p1 and "Player 2 (you:" not in p1
    assert "Player 2 (you: 50 gold" in p2
    assert "gold" not in _svg(api, game, None)[1]


def test_a_player_named_script_is_drawn_as_text(api: Api) -> None:
    game = new_game(api, players=2, start=False)
    status, _ = api.post(game.path("/players"), {"name": "<script>alert(1)</script>"})
    assert status == 201
    assert _svg(api, game, None)[0] == 409  # not started: nothing to draw
    assert api.post(game.path("/start"), token=game.gm)[0] == 200
    svg = _svg(api, game, None)[1]
    assert "<script" not in svg and "&lt;script&gt;alert(1)&lt;/script&gt;" in svg


def test_an_unknown_game_is_404(api: Api) -> None:
    assert api.client.get("/v1/games/nope/board.svg").status_code == 404


def test_asked_for_json_the_board_comes_with_the_seq_it_was_drawn_at(api: Api) -> None:
    game = new_game(api, players=3)
    response = api.client.get(f"/v1/games/{game.id}/board.svg", headers={"Accept": "application/json"})
    assert response.status_code == 200 and response.json["svg"] == _svg(api, game, None)[1]
    assert response.json["seq"] == api.get(game.path())[1]["seq"]
