"""``as`` on /replay and /board.svg: the GM sees the game as any viewer, byte for byte what that viewer's own token
gets; nobody else sees more than their own view through it."""
from __future__ import annotations

from typing import Any

import pytest

from engines import registry
from engines.rng import Rng
from replays.fold import engine_for
from runtime.context import Context
from tests.platform.conftest import Game
from tests.platform.helpers import Api, run_queued_jobs

PHASES = 3  # resolved before the checks; then the next phase's first order is sent and left sealed


def _case(game_type: str) -> dict[str, Any]:
    """The simulation case with the fewest players (its fields and options)."""
    engine = registry.latest(game_type)
    assert engine is not None
    return min(engine.simulation_cases, key=lambda case: case["players"])


def _played(api: Api, ctx: Context, game_type: str) -> Game:
    """A game of ``game_type`` bots played through the API for a few phases, one sealed order pending."""
    case = _case(game_type)
    status, created = api.post("/games", {"type": game_type, "seed": "view-as", "options": case.get("options", {}),
                                          "resolve_early": True})
    assert status == 201, created
    game = Game(created["game_id"], created["gm_token"], {})
    fields = case.get("fields") or [{} for _ in range(case["players"])]
    for index in range(case["players"]):
        extra = fields[index] if index < len(fields) else {}
        status, joined = api.post(game.path("/players"), {"name": f"Bot {index + 1}", **extra},
                                  token=game.gm if extra else None)
        assert status == 201, joined
        game.tokens[joined["player_id"]] = joined["token"]
    assert api.post(game.path("/start"), token=game.gm)[0] == 200
    for number in range(1, PHASES + 2):
        record = ctx.loader.load(game.id)
        if record["status"] == "finished":
            break
        phase = engine_for(record).phase(record["engine"])
        bots = Rng("view-as", "bots", number)
        awaiting = list(phase.awaiting)
        last = number == PHASES + 1
        for actor in awaiting[:1] if last else awaiting:
            action = engine_for(record).bot_action(ctx.loader.load(game.id)["engine"], actor, bots.fork(actor))
            if action is not None:
                api.post(game.path("/actions"), action, token=game.tokens.get(actor, game.gm))
        if not last:
            run_queued_jobs(ctx)
    return game


def _get(api: Api, path: str, token: str | None) -> tuple[int, bytes]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    response = api.client.get(f"/v1{path}", headers=headers)
    return response.status_code, response.get_data()


@pytest.mark.parametrize("game_type", registry.names())
def test_the_gm_sees_each_viewer_exactly_as_that_viewer_does(api: Api, ctx: Context, game_type: str) -> None:
    game = _played(api, ctx, game_type)
    seq = api.get(game.path(), game.gm)[1]["seq"]
    assert seq > len(game.tokens) + 2  # the game went past its sign-up
    differs = 0
    for at in range(1, seq + 1):
        for route in (f"/replay?at={at}", f"/board.svg?at={at}"):
            sep = "&"
            public = _get(api, game.path(route), None)
            assert _get(api, game.path(f"{route}{sep}as=public"), game.gm) == public
            assert _get(api, game.path(f"{route}{sep}as=public"), None) == public
            gm = _get(api, game.path(route), game.gm)
            assert _get(api, game.path(f"{route}{sep}as=gm"), game.gm) == gm
            for player, token in game.tokens.items():
                own = _get(api, game.path(route), token)
                assert own[0] in (200, 409, 404)
                assert _get(api, game.path(f"{route}{sep}as={player}"), game.gm) == own, (route, player)
                assert _get(api, game.path(f"{route}{sep}as={player}"), token) == own
                differs += own != gm
    engine = registry.latest(game_type)
    assert engine is not None
    if engine.meta.hidden_information:
        assert differs  # the test can tell views apart: a player's is not the GM's everywhere


def test_a_sealed_order_is_cut_for_the_others_in_the_gms_view_as_them(api: Api, ctx: Context) -> None:
    game = _played(api, ctx, "extreme-ways")
    seq = api.get(game.path(), game.gm)[1]["seq"]
    last = api.get(game.path(f"/replay?at={seq}"), game.gm)[1]["event"]
    assert last["type"] == "action.submitted" and last["data"]["action"]["type"] in ("bid", "pass")
    author = last["actor"]
    for player in game.tokens:
        shown = api.get(game.path(f"/replay?at={seq}&as={player}"), game.gm)[1]["event"]
        if player == author:
            assert shown == last
        else:
            assert shown["actor"] == "sealed" and shown["data"] == {"phase": last["data"]["phase"], "sealed": True}
            assert "salt" not in shown


@pytest.mark.parametrize("route", ["/replay", "/replay?at=3", "/board.svg", "/board.svg?at=9"])
def test_only_the_gm_may_see_as_another_viewer(api: Api, ctx: Context, route: str) -> None:
    game = _played(api, ctx, "extreme-ways")
    sep = "&" if "?" in route else "?"
    players = sorted(game.tokens)
    refused = [(game.tokens[players[0]], players[1]), (game.tokens[players[0]], "gm"), (None, players[0]),
               (None, "gm"), (game.tokens[players[0]], "p99"), (None, "p99"), (game.tokens[players[1]], "")]
    for token, viewer in refused:
        status, body = api.get(game.path(f"{route}{sep}as={viewer}"), token)
        assert status == 403, (token, viewer, body)
        assert body["error"] == {"code": "forbidden", "details": {},
                                 "message": "Only the game's GM may see the game as another player."}
    for viewer in ("p99", "", "GM", "Public", "p1%20"):
        status, body = api.get(game.path(f"{route}{sep}as={viewer}"), game.gm)
        assert status == 422, (viewer, body)
        assert list(body["error"]["details"]) == ["as"]


def test_the_board_at_a_seq_is_that_seqs_view_drawn(api: Api, ctx: Context) -> None:
    import importlib

    game = _played(api, ctx, "golden-strider")
    render = importlib.import_module("engines.golden_strider.board_svg").render
    seq = api.get(game.path(), game.gm)[1]["seq"]
    started = next(at for at in range(1, seq + 1)
                   if api.get(game.path(f"/replay?at={at}"))[1]["event"]["type"] == "game.started")
    status, body = api.get(game.path(f"/board.svg?at={started - 1}"))
    assert status == 409 and body["error"]["code"] == "not_started"
    pictures = set()
    for at in range(started, seq + 1):
        view = api.get(game.path(f"/replay?at={at}"))[1]["view"]["state"]
        response = api.client.get(f"/v1{game.path(f'/board.svg?at={at}')}", headers={"Accept": "application/json"})
        assert response.status_code == 200 and response.json["seq"] == at
        assert response.json["svg"] == render(view)
        pictures.add(response.json["svg"])
    assert len(pictures) > 1  # the board moves with the seq
    for bad in ("0", str(seq + 1), "x", "-1"):
        status, body = api.get(game.path(f"/board.svg?at={bad}"))
        assert status == 422 and list(body["error"]["details"]) == ["at"]
