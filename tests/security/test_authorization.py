"""Object-level authorization: every endpoint against every kind of token, in every state
of a game (sign-up, running, paused, finished), on every game type, gets the documented
status; a refused request records nothing; and no other player's sealed order reaches a
caller through any body, header or error message."""
from __future__ import annotations

import json
import re
from typing import Any

import pytest

from engines import registry
from runtime.context import Context
from tests.faults import figures
from tests.platform.conftest import Game
from tests.security.conftest import address_of
from tests.platform.helpers import Api
from tests.security.helpers import GAME_TYPES, awaiting, bot_order, finished, seq, signed_up, started

KINDS = ("none", "stranger", "player", "other_gm", "gm")  # stranger: a player token of another game


def _tokens(game: Game, other: Game, player: str) -> dict[str, str | None]:
    return {"none": None, "stranger": other.tokens["p1"], "player": game.tokens[player],
            "other_gm": other.gm, "gm": game.gm}


STATES = ("signup", "running", "paused", "finished")
# Elemental Tag takes a late sign-up only while six or more players remain (rule 5): the matrix plays six.
MATRIX_PLAYERS = {"elemental-tag": 6}
READS = ("", "/events", "/replay", "/replay?at=1", "/audit", "/export", "/report")
# The writes of the matrix: (path, body); "order" is the player's own legal order.
WRITES: dict[str, tuple[str, Any]] = {
    "start": ("/start", None),
    "join": ("/players", {"name": "Latecomer"}),
    "gm.extend_deadline": ("/actions", {"type": "gm.extend_deadline", "seconds": 60, "reason": "matrix"}),
    "gm.pause": ("/actions", {"type": "gm.pause", "reason": "matrix"}),
    "gm.resume": ("/actions", {"type": "gm.resume", "reason": "matrix"}),
    "order": ("/actions", None),
}


def _read_status(state: str, suffix: str, kind: str, has_report: bool, open_turn: bool = False) -> int:
    """API.md: reading is open to everyone; the full log (audit, export) is the GM's until
    the game is over; a token of another game is never valid here (401).  The turn report
    (docs/clients.md) exists only for game types that have one (404 otherwise); before the
    start it is 409 not_started, and before the first round is resolved there is no round
    to report (404 no_such_round), except where the report is of the open turn (``open_turn``:
    SXYZM Cyclone, docs/games/sxyzm-cyclone.md "Forum report")."""
    if kind in ("stranger", "other_gm"):
        return 401
    if suffix in ("/audit", "/export"):
        if kind == "gm" or state == "finished":
            return 200
        return 401 if kind == "none" else 403  # no token: say a token is needed (issue 19)
    if suffix == "/report":
        if not has_report:
            return 404
        before_a_round = 200 if open_turn else 404
        return {"signup": 409, "running": before_a_round, "paused": before_a_round, "finished": 200}[state]
    return 200


def _write_status(state: str, what: str, kind: str, late: bool = False) -> int:
    """The API reference: no token where one is needed is 401, a player's token for the GM's work 403;
    what the state does not allow now is 409.  Anyone may join while sign-up is open (the
    GM too, for a player), and while the game runs where it takes late joins (``late``); a
    player token cannot register others.  The GM may pause a game
    in sign-up or running, and enters a player's order by naming them."""
    if kind in ("stranger", "other_gm"):
        return 401
    if what == "join":
        return 403 if kind == "player" else (201 if state == "signup" or (state, late) == ("running", True) else 409)
    if what == "order":
        if kind == "none":
            return 401
        return 202 if state == "running" else 409
    if kind == "none":
        return 401
    if kind == "player":
        return 403
    allowed = {"start": ("signup", 200), "gm.extend_deadline": ("running", 202), "gm.resume": ("paused", 202)}
    if what == "gm.pause":
        return 202 if state in ("signup", "running") else 409
    wanted, status = allowed[what]
    return status if state == wanted else 409


def _in_state(api: Api, ctx: Context, game_type: str, state: str, players: int) -> Game:
    if state == "signup":
        return signed_up(api, game_type, players, seed="matrix")
    if state == "finished":
        return finished(api, ctx, game_type)
    game = started(api, game_type, players, seed="matrix")
    if state == "paused":
        status, answer = api.post(game.path("/actions"), {"type": "gm.pause", "reason": "matrix"}, token=game.gm)
        assert status == 202, answer
    return game


@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_every_endpoint_against_every_token_kind_in_every_state(api: Api, ctx: Context, game_type: str) -> None:
    """Each endpoint x token kind x game state gets its documented status; a refused write
    records nothing, an accepted one exactly one event (on a fresh game in that state)."""
    reference = started(api, game_type, MATRIX_PLAYERS.get(game_type), seed="matrix")
    player = awaiting(api, reference)[0]
    order = bot_order(ctx, reference, player)
    assert order is not None, f"{game_type}: no bot order for {player}"
    other = started(api, game_type, seed="another game")
    has_report = hasattr(registry.latest(game_type), "report")
    checked = 0
    for state in STATES:
        game = _in_state(api, ctx, game_type, state, len(reference.tokens))
        status, body = api.get(game.path(), game.gm)
        assert body["status"] == state, body
        actor = player if player in game.tokens else next(iter(game.tokens))
        for suffix in READS:
            for kind in KINDS:
                status, body = api.get(game.path(suffix), _tokens(game, other, actor)[kind])
                wanted = _read_status(state, suffix, kind, has_report, game_type == "sxyzm-cyclone")
                assert status == wanted, (game_type, state, suffix, kind, body)
                checked += 1
        for what, (path, body) in WRITES.items():
            for kind in KINDS:
                wanted = _write_status(state, what, kind, registry.latest(game_type).meta.late_joins)
                target = _in_state(api, ctx, game_type, state, len(reference.tokens)) if wanted < 400 else game
                token = _tokens(target, other, actor)[kind]
                if what == "order":
                    body = {**order, "on_behalf_of": actor} if kind == "gm" else order
                before = seq(api, target)
                status, answer = api.post(target.path(path), body, token=token)
                assert status == wanted, (game_type, state, what, kind, answer)
                after = seq(api, target)
                if status >= 400:
                    assert after == before, f"a refused {what} by {kind} in {state} was recorded"
                else:
                    assert after[0] == before[0] + 1, f"an accepted {what} by {kind} in {state}: not one event"
                checked += 1
        # another player of this game may not send the player's order either
        someone = next(p for p in game.tokens if p != actor)
        before = seq(api, game)
        status, answer = api.post(game.path("/actions"), {**order, "on_behalf_of": actor}, token=game.tokens[someone])
        assert status == 403 and seq(api, game) == before, (state, answer)
        checked += 1
    figures.record(f"authorization matrix {game_type}", states=len(STATES), requests_checked=checked)


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
_VOLATILE = re.compile(
    r'"(at|hash|prev_hash|head_hash|salt|deadline|created_at|game_id|seed_commitment|note)": "[^"]*"')


def _seen_by(api: Api, game: Game, token: str | None, order_probe: dict) -> str:
    """Everything a caller can read about the game, with ids and times blanked."""
    pieces: list[Any] = []
    for suffix in ("", "/events", "/replay", "/replay?at=1", "/audit", "/export", "/report"):
        response = api.client.get(f"/v1{game.path(suffix)}", environ_base={"REMOTE_ADDR": address_of(token)},
                                  headers={"Authorization": f"Bearer {token}"} if token else {})
        headers = {k: v for k, v in response.headers.items() if k not in ("Date", "Content-Length")}
        if "ETag" in headers:  # "<seq>-<hash over the head's hash>": the seq stays, the hash is per game
            headers["ETag"] = headers["ETag"].split("-", 1)[0]
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
