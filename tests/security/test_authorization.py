"""Object-level authorization: every endpoint against every kind of token, on every game
type, gets the documented status; a refused request records nothing; and no other
player's sealed order reaches a caller through any body, header or error message."""
from __future__ import annotations

import json
import re
from typing import Any

import pytest

from engines import registry
from service.context import Context
from tests.faults import figures
from tests.platform.conftest import Game
from tests.security.conftest import address_of
from tests.platform.helpers import Api
from tests.security.helpers import GAME_TYPES, awaiting, bot_order, seq, started

KINDS = ("none", "stranger", "player", "other_gm", "gm")  # stranger: a player token of another game


def _tokens(game: Game, other: Game, player: str) -> dict[str, str | None]:
    return {"none": None, "stranger": other.tokens["p1"], "player": game.tokens[player],
            "other_gm": other.gm, "gm": game.gm}


# Documented statuses while a game is running (API.md): reading is open, the full log is
# the GM's, a token of another game is never valid here.
READS = {
    "": {"none": 200, "stranger": 401, "player": 200, "other_gm": 401, "gm": 200},
    "/events": {"none": 200, "stranger": 401, "player": 200, "other_gm": 401, "gm": 200},
    "/replay": {"none": 200, "stranger": 401, "player": 200, "other_gm": 401, "gm": 200},
    "/replay?at=1": {"none": 200, "stranger": 401, "player": 200, "other_gm": 401, "gm": 200},
    "/audit": {"none": 403, "stranger": 401, "player": 403, "other_gm": 401, "gm": 200},
    "/export": {"none": 403, "stranger": 401, "player": 403, "other_gm": 401, "gm": 200},
}
WRITES: dict[str, tuple[Any, dict[str, int]]] = {
    "/start": (None, {"none": 401, "stranger": 401, "player": 403, "other_gm": 401, "gm": 409}),
    "/players": ({"name": "Latecomer"}, {"none": 409, "stranger": 401, "player": 403, "other_gm": 401, "gm": 409}),
    "/actions gm": ({"type": "gm.extend_deadline", "seconds": 60, "reason": "matrix"},
                    {"none": 401, "stranger": 401, "player": 403, "other_gm": 401, "gm": 202}),
}


@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_every_endpoint_against_every_token_kind(api: Api, ctx: Context, game_type: str) -> None:
    game = started(api, game_type)
    other = started(api, game_type, seed="another game")
    player = awaiting(api, game)[0]
    tokens = _tokens(game, other, player)
    checked = 0
    for suffix, expected in READS.items():
        for kind in KINDS:
            status, body = api.get(game.path(suffix), tokens[kind])
            assert status == expected[kind], (game_type, suffix, kind, body)
            checked += 1
    report = {kind: api.get(game.path("/report"), tokens[kind])[0] for kind in KINDS}
    assert report["stranger"] == report["other_gm"] == 401
    assert report["none"] == report["player"] == report["gm"] and report["gm"] in (200, 404), report
    checked += len(KINDS)
    for what, (body, expected) in WRITES.items():
        path = what.split()[0]
        for kind in KINDS:
            before = seq(api, game)
            status, answer = api.post(game.path(path), body, token=tokens[kind])
            assert status == expected[kind], (game_type, what, kind, answer)
            if status >= 400:
                assert seq(api, game) == before, f"a refused {what} by {kind} was recorded"
            checked += 1
    # The player's own order: only their token (or the GM naming them) may send it.
    order = bot_order(ctx, game, player)
    assert order is not None, f"{game_type}: no bot order for {player}"
    for kind, status_wanted in (("none", 401), ("stranger", 401), ("other_gm", 401)):
        before = seq(api, game)
        status, answer = api.post(game.path("/actions"), order, token=tokens[kind])
        assert status == status_wanted, (game_type, kind, answer)
        assert seq(api, game) == before
    others = [p for p in game.tokens if p != player]
    status, answer = api.post(game.path("/actions"), {**order, "on_behalf_of": player}, token=game.tokens[others[0]])
    assert status == 403, answer
    status, answer = api.post(game.path("/actions"), order, token=tokens["player"])
    assert status == 202, (game_type, order, answer)
    figures.record(f"authorization matrix {game_type}", requests_checked=checked + 5)


def _sealed_player(api: Api, ctx: Context, game: Game) -> tuple[str, str, dict, dict] | None:
    """A player who must act now with a sealed order, a witness, and two different orders."""
    ready = awaiting(api, game)
    record = ctx.loader.load(game.id)
    engine = registry.get(record["type"], record["version"])
    for secret_holder in ready:
        first = bot_order(ctx, game, secret_holder, "a")
        if first is None or not engine.actions[first["type"]].sealed:
            continue
        for attempt in range(40):
            second = bot_order(ctx, game, secret_holder, f"b{attempt}")
            if second is not None and second != first and engine.actions[second["type"]].sealed:
                witness = next(p for p in game.tokens if p != secret_holder)
                return secret_holder, witness, first, second
    return None


# Random per game, so blanked here: ids, times, the salts and the hashes over them.  What the
# hashes could give away is tested where it can be: tests/security/test_commitments.py.
_VOLATILE = re.compile(r'"(at|hash|prev_hash|head_hash|salt|deadline|created_at|game_id|seed_commitment)": "[^"]*"')


def _seen_by(api: Api, game: Game, token: str | None, order_probe: dict) -> str:
    """Everything a caller can read about the game, with ids and times blanked."""
    pieces: list[Any] = []
    for suffix in ("", "/events", "/replay", "/replay?at=1", "/audit", "/export", "/report"):
        response = api.client.get(f"/v1{game.path(suffix)}", environ_base={"REMOTE_ADDR": address_of(token)},
                                  headers={"Authorization": f"Bearer {token}"} if token else {})
        headers = {k: v for k, v in response.headers.items() if k not in ("Date", "Content-Length")}
        pieces.append([response.status_code, headers, response.get_json(silent=True)])
    if token:  # error messages: the witness tries the secret holder's very order, and nonsense
        for body in (order_probe, {**order_probe, "on_behalf_of": "p1"}, {"type": order_probe["type"], "x": 1}):
            pieces.append(api.post(game.path("/actions"), body, token=token))
    text = json.dumps(pieces, sort_keys=True).replace(game.id, "GAME")
    return _VOLATILE.sub(r'"\1": "-"', text)


@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_another_players_sealed_order_changes_nothing_others_see(api: Api, ctx: Context, game_type: str) -> None:
    """Non-interference: two games alike except for one player's sealed order look the
    same, byte for byte, to the public and to every other player."""
    twins = [started(api, game_type, seed="twins"), started(api, game_type, seed="twins")]
    found = _sealed_player(api, ctx, twins[0])
    if found is None:
        pytest.skip(f"{game_type}: no sealed order is open at the start")
    holder, witness, first, second = found
    for twin, order in zip(twins, (first, second)):
        status, body = api.post(twin.path("/actions"), order, token=twin.tokens[holder])
        assert status == 202, body
    assert twins[0].tokens.keys() == twins[1].tokens.keys()
    for viewer in (None, witness):
        views = [_seen_by(api, twin, twin.tokens[viewer] if viewer else None, first) for twin in twins]
        assert views[0] == views[1], f"{game_type}: {viewer or 'the public'} can tell {holder}'s sealed orders apart"
    # and the holder and the GM do see their order
    own = [e for e in api.get(twins[1].path("/events"), twins[1].tokens[holder])[1]["events"]
           if e["type"] == "action.submitted" and e["actor"] == holder]
    assert {k: own[0]["data"]["action"].get(k) for k in second} == second
