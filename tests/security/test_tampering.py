"""Tampering with the stored log, directly in Redis: audit (API), verify (API) and
`arbiter verify` (offline) all name the first broken seq; a re-forged chain is caught by
recomputing the rulings, and by the receipts players kept."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import orjson
import pytest

from engines.canonical import canonical_json
from eventlog import keys, snapshots
from eventlog.events import event_hash
from runtime.context import Context
from tests.platform.conftest import Game, new_game
from tests.platform.helpers import Api, run_queued_jobs


def _played(api: Api, ctx: Context) -> tuple[Game, dict[str, dict]]:
    """Seq 1 created, 2-5 joined, 6 started, 7-10 bids, 11 resolved, 12-13 bids."""
    game = new_game(api, players=4, seed="tamper")
    receipts: dict[str, dict] = {}
    for pid, amount in (("p1", 4), ("p2", 3), ("p3", 2), ("p4", 1)):
        status, body = api.post(game.path("/actions"), {"type": "bid", "amount": amount}, token=game.tokens[pid])
        assert status == 202
        receipts[pid] = body
    run_queued_jobs(ctx)
    for pid in ("p1", "p2"):
        assert api.post(game.path("/actions"), {"type": "bid", "amount": 1}, token=game.tokens[pid])[0] == 202
    events = api.get(game.path("/events"), game.gm)[1]["events"]
    assert [e["type"] for e in events][10] == "phase.resolved" and len(events) == 13
    # The snapshot the loader keeps of a longer game (one every 64 events), written now so
    # the tamper below meets one: an attacker edits the stream and leaves the cache alone.
    snapshots.put(ctx.redis, game.id, ctx.loader.load(game.id))
    return game, receipts


def _rewrite(ctx: Context, game_id: str, seq: int, change: Callable[[dict], None], rechain: bool) -> None:
    """Edit one event in place (the stream is rebuilt with the same entry ids); with
    ``rechain`` the attacker also recomputes every hash from there on.  The game's snapshot
    and every process's cached fold are left as they were, as an attacker would."""
    stream = keys.events(game_id)
    entries = ctx.redis.xrange(stream)
    pipe = ctx.redis.pipeline(transaction=True)
    pipe.delete(stream)
    prev = None
    for entry_id, fields in entries:
        event = orjson.loads(fields[b"e"])
        if event["seq"] == seq:
            change(event)
        if rechain and event["seq"] >= seq:
            event["prev_hash"] = prev
            event["hash"] = event_hash(prev, {k: v for k, v in event.items() if k != "hash"})
        prev = event["hash"]
        pipe.xadd(stream, {"e": canonical_json(event), "h": event["hash"]}, id=entry_id)
    pipe.execute()
    assert ctx.redis.exists(keys.snapshot(game_id)), "the tamper should leave the snapshot in place"


def _set(path: str, value: Any) -> Callable[[dict], None]:
    def change(event: dict) -> None:
        *parents, last = path.split(".")
        target = event
        for name in parents:
            target = target[name]
        target[last] = value
    return change


def _verify_offline(tmp_path: Path, export: dict, receipts: list[str]) -> tuple[int, str, dict]:
    file = tmp_path / "game.json"
    file.write_text(json.dumps(export))
    args = [sys.executable, "-m", "cli.main", "verify", str(file)]
    for receipt in receipts:
        args += ["--receipt", receipt]
    done = subprocess.run(args, capture_output=True, text=True, timeout=60)
    return done.returncode, done.stderr, json.loads(done.stdout or "{}")


CASES = {
    "a sealed bid's amount": (8, "data.action.amount", 49),
    "the first event": (1, "data.name", "Forged"),
    "the last event": (13, "data.action.amount", 2),
    "who acted": (9, "actor", "p1"),
    "an outcome": (11, "data.outcome.forged", True),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_one_changed_payload_is_named_as_the_first_broken_link(api: Api, ctx: Context, tmp_path: Path,
                                                                case: str) -> None:
    game, _ = _played(api, ctx)
    seq, path, value = CASES[case]
    _rewrite(ctx, game.id, seq, _set(path, value), rechain=False)
    status, audit = api.get(game.path("/audit"), game.gm)
    assert status == 200
    assert not audit["ok"] and audit["hash_chain"]["first_broken_seq"] == seq, audit
    assert audit["divergences"][0]["seq"] == seq
    status, export = api.get(game.path("/export"), game.gm)
    assert status == 200
    status, verified = api.post("/replays/verify", export)
    assert status == 200 and not verified["ok"] and verified["hash_chain"]["first_broken_seq"] == seq
    code, stderr, _ = _verify_offline(tmp_path, export, [])
    assert code == 1 and f"FAILED at seq {seq}" in stderr, stderr


def test_a_reforged_chain_is_caught_by_recomputing_the_outcome(api: Api, ctx: Context, tmp_path: Path) -> None:
    game, _ = _played(api, ctx)
    _rewrite(ctx, game.id, 11, _set("data.outcome.forged", True), rechain=True)
    status, audit = api.get(game.path("/audit"), game.gm)
    assert audit["hash_chain"]["ok"]  # the attacker re-hashed everything...
    assert not audit["ok"] and audit["divergences"][0]["seq"] == 11, audit  # ...but the ruling is recomputed
    assert audit["divergences"][0]["check"] == "recompute"


def test_a_reforged_order_is_caught_by_the_players_receipt(api: Api, ctx: Context, tmp_path: Path) -> None:
    game, receipts = _played(api, ctx)
    mine = receipts["p2"]  # p2's bid of 3 at seq 8, receipt kept from the 202
    assert mine["seq"] == 8
    _rewrite(ctx, game.id, 8, _set("data.action.amount", 1), rechain=True)  # still a legal bid
    status, export = api.get(game.path("/export"), game.gm)
    code, stderr, report = _verify_offline(tmp_path, export, [f"{mine['seq']}:{mine['hash']}"])
    assert code == 1, stderr
    assert {"seq": 8, "check": "receipt", "problem": "the event at this seq has another hash"} in report["divergences"]
