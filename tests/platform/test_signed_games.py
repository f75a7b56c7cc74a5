"""Issue 29: signed receipts and checkpoints.  Every receipt carries a note the service signed; checkpoints are made
as phases close and on request; an export carries them; and the re-hashed forgeries that pass the hash chain (a
changed `at` or salt, two sealed orders swapped, the last events dropped with the head fixed up) are caught given
the players' receipts or a checkpoint, each naming its seq."""
from __future__ import annotations

import copy
from typing import Any

import pytest
from redis import Redis

from eventlog import keys, notes
from replays import proofs
from replays.audit import verify
from runtime.context import Context
from service.app import create_app
from tests.forgery import rehashed
from tests.platform.conftest import Game, new_game
from tests.platform.helpers import Api, run_queued_jobs


@pytest.fixture()
def api(ctx: Context) -> Api:
    return Api(create_app(ctx).test_client())


def _vkeys(api: Api) -> list[notes.Verifier]:
    status, body = api.get("/keys")
    assert status == 200
    return [notes.parse_vkey(k["vkey"]) for k in body["keys"]]


def _play(api: Api, ctx: Context, receipts: dict[int, str]) -> Game:
    """A coin toss to 2 points, every order's receipt kept by seq; played to its end."""
    game = new_game(api, players=2, game_type="test-coin", options={"target": 2})
    for _ in range(20):
        for player, side in (("p1", "heads"), ("p2", "tails")):
            status, body = api.post(game.path("/actions"), {"type": "call", "side": side}, token=game.tokens[player])
            assert status == 202, body
            receipts[body["seq"]] = body["receipt"]["note"]
        run_queued_jobs(ctx)
        if api.get(game.path())[1]["status"] == "finished":
            return game
    raise AssertionError("the coin toss did not finish")


def test_every_receipt_is_a_note_the_service_signed(api: Api, ctx: Context) -> None:
    status, created = api.post("/games", {"type": "test-coin", "seed": "signed"})
    gid, gm = created["game_id"], created["gm_token"]
    status, joined = api.post(f"/games/{gid}/players", {"name": "Ann"})
    assert status == 201 and joined["receipt"]["seq"] == 2
    api.post(f"/games/{gid}/players", {"name": "Bob"})
    status, started = api.post(f"/games/{gid}/start", token=gm)
    status, order = api.post(f"/games/{gid}/actions", {"type": "call", "side": "heads"}, token=joined["token"])
    status, paused = api.post(f"/games/{gid}/actions", {"type": "gm.pause", "reason": "tea"}, token=gm)
    assert status == 202
    vkeys = _vkeys(api)
    for answer in (joined, started, order, paused):
        receipt = answer["receipt"]
        cp = notes.parse_checkpoint(notes.open_note(receipt["note"], vkeys).text)
        assert (cp.origin, cp.size, cp.head, cp.prev_hash) == (f"{vkeys[0].name}/{gid}", receipt["seq"],
                                                              receipt["hash"], receipt["prev_hash"])
    # a sealed order's receipt commits to it without saying it: nothing of the call is in the note
    assert "heads" not in order["receipt"]["note"] and "call" not in order["receipt"]["note"]


def test_keys_and_checkpoints_are_served_and_exported(api: Api, ctx: Context) -> None:
    receipts: dict[int, str] = {}
    game = _play(api, ctx, receipts)
    status, body = api.get("/keys")
    assert status == 200 and [k["status"] for k in body["keys"]] == ["active"]
    vkey = body["keys"][0]["vkey"]
    status, head = api.get(game.path("/checkpoint"))
    assert status == 200
    cp = notes.parse_checkpoint(notes.open_note(head["note"], [notes.parse_vkey(vkey)]).text)
    assert (cp.size, cp.head, cp.kind) == (head["seq"], head["head_hash"], "checkpoint")
    assert api.get("/games/gnosuchgame/checkpoint")[0] == 404
    export = api.get(game.path("/export"))[1]
    resolved = [e["seq"] for e in export["events"] if e["type"] == "phase.resolved"]
    assert [notes.parse_checkpoint(notes.open_note(n, _vkeys(api)).text).size for n in export["checkpoints"]] == \
        resolved  # one at every resolution, the last at the end
    assert export["keys"] == [vkey]
    report = api.post("/replays/verify", {**export, "notes": list(receipts.values()) + [head]})[1]
    assert report["ok"] and report["signed"]["included"] == len(receipts) + 1 + len(resolved)
    assert report["signed"]["keys_from"] == "this server's"


Forged = tuple[dict[str, Any], dict[int, str], str, int, list[str]]


def _forged(api: Api, ctx: Context, forge: Any) -> Forged:
    """A finished game's export re-hashed by ``forge`` (which returns the first seq it changed), the receipts, the
    end's checkpoint, that seq, and the checkpoints the game made as its phases closed (which the forger drops)."""
    receipts: dict[int, str] = {}
    game = _play(api, ctx, receipts)
    export = api.get(game.path("/export"))[1]
    made = list(export["checkpoints"])  # kept by a player who exported the game before the forger
    end = api.get(game.path("/checkpoint"))[1]["note"]
    seq = forge(export["events"], receipts)
    export["head_hash"] = export["events"][-1]["hash"]
    export["checkpoints"] = []  # the forger drops the export's own: only the players' notes are left
    assert verify(copy.deepcopy(export))["hash_chain"]["ok"]  # the chain holds: the hash alone proves nothing
    return export, receipts, end, seq, made


def _sizes(notes_: list[str]) -> list[int]:
    return [int(note.split("\n")[1]) for note in notes_]


def _an_order(events: list[dict[str, Any]], receipts: dict[int, str]) -> int:
    return next(e["seq"] for e in events if e["type"] == "action.submitted" and e["seq"] in receipts)


def _changed_at(events: list[dict[str, Any]], receipts: dict[int, str]) -> int:
    seq = _an_order(events, receipts)
    events[seq - 1]["at"] = "2020-01-01T00:00:00.000000Z"
    rehashed(events, seq - 1)
    return seq


def _changed_salt(events: list[dict[str, Any]], receipts: dict[int, str]) -> int:
    seq = _an_order(events, receipts)
    events[seq - 1]["salt"] = "00" * 16
    rehashed(events, seq - 1)
    return seq


def _swapped_sealed_calls(events: list[dict[str, Any]], receipts: dict[int, str]) -> int:
    first = _an_order(events, receipts)
    one, two = events[first - 1], events[first]
    assert one["data"]["phase"] == two["data"]["phase"] and one["actor"] != two["actor"]
    one["data"]["action"], two["data"]["action"] = two["data"]["action"], one["data"]["action"]
    rehashed(events, first - 1)
    return first


@pytest.mark.parametrize("forge", [_changed_at, _changed_salt, _swapped_sealed_calls])
def test_a_rehashed_rewrite_is_caught_by_the_receipts_or_the_checkpoints(api: Api, ctx: Context, forge: Any) -> None:
    export, receipts, _end, seq, made = _forged(api, ctx, forge)
    report = api.post("/replays/verify", {**export, "notes": list(receipts.values())})[1]
    assert not report["ok"]
    rewrites = [d for d in report["divergences"] if d["check"] == "signed_receipt"]
    assert rewrites[0]["seq"] == seq and "a rewrite" in rewrites[0]["problem"]
    if forge is _swapped_sealed_calls:
        assert seq + 1 in [d["seq"] for d in rewrites]  # both bidders' receipts say so
    # the checkpoints alone: the first one after the change no longer fits the re-hashed chain
    report = api.post("/replays/verify", {**export, "notes": made})[1]
    first = min(d["seq"] for d in report["divergences"] if d["check"] == "signed_checkpoint")
    assert not report["ok"] and first == min(s for s in _sizes(made) if s >= seq)


def test_dropped_final_events_with_a_fixed_head_are_caught_by_a_checkpoint_or_a_receipt(api: Api, ctx: Context) -> None:
    def dropped(events: list[dict[str, Any]], receipts: dict[int, str]) -> int:
        lost = events[-3]["seq"]
        del events[-3:]
        return lost

    export, receipts, end, lost, _made = _forged(api, ctx, dropped)
    head = lost - 1
    assert verify(copy.deepcopy(export))["ok"]  # today's verify sees nothing wrong
    report = api.post("/replays/verify", {**export, "notes": [end]})[1]
    assert not report["ok"]
    [truncation] = [d for d in report["divergences"] if d["check"] == "truncation"]
    assert truncation["seq"] == head + 3 and f"beyond this log's head at seq {head}" in truncation["problem"]
    late = [note for seq, note in receipts.items() if seq > head]
    report = api.post("/replays/verify", {**export, "notes": late})[1]
    assert {d["seq"] for d in report["divergences"] if d["check"] == "truncation"} == {s for s in receipts if s > head}


def test_a_note_under_another_key_or_of_another_game_proves_nothing(api: Api, ctx: Context) -> None:
    receipts: dict[int, str] = {}
    game = _play(api, ctx, receipts)
    export = api.get(game.path("/export"))[1]
    stranger = notes.generate("arbiter.local")  # same name, another key: its id differs
    forged = stranger.sign(notes.checkpoint_text(notes.Checkpoint(f"arbiter.local/{game.id}", 999, "ab" * 32)))
    other = new_game(api, players=2, game_type="test-coin")
    elsewhere = api.get(other.path("/checkpoint"))[1]["note"]
    report = api.post("/replays/verify", {**export, "notes": [forged, elsewhere]})[1]
    assert report["ok"]
    assert [n["ok"] for n in report["signed"]["notes"][:2]] == [False, False]
    assert "no signature by a known key" in report["signed"]["notes"][0]["problem"]
    assert "another log" in report["signed"]["notes"][1]["problem"]
    # trusting only the stranger's key, the service's own checkpoints in the export prove nothing either
    report = api.post("/replays/verify", {**export, "vkeys": [stranger.verifier.vkey]})[1]
    assert report["signed"]["keys_from"] == "given" and report["signed"]["included"] == 0
    assert api.post("/replays/verify", {**export, "vkeys": ["nonsense"]})[0] == 422


def test_a_rollback_then_new_events_is_a_fork_the_notes_prove(api: Api, ctx: Context) -> None:
    game = new_game(api, players=2, game_type="test-coin")
    redis = Redis.from_url(ctx.settings.redis_url)
    kept = redis.dump(keys.events(game.id))
    status, lost = api.post(game.path("/actions"), {"type": "call", "side": "heads"}, token=game.tokens["p1"])
    redis.restore(keys.events(game.id), 0, kept, replace=True)  # Redis lost the order
    checkpoint = api.get(game.path("/checkpoint"))[1]  # the log went on with log.rolled_back at that seq
    assert checkpoint["seq"] == lost["seq"] and checkpoint["head_hash"] != lost["hash"]
    export = api.get(game.path("/export"), token=game.gm)[1]
    report = api.post("/replays/verify", {**export, "notes": [lost, checkpoint]})[1]
    [fork] = [d for d in report["divergences"] if d["check"] == "fork"]
    assert fork["seq"] == lost["seq"] and fork["notes"] == [lost["receipt"]["note"], checkpoint["note"]]
    assert [d["check"] for d in report["divergences"] if d["seq"] == lost["seq"]] == ["signed_receipt", "fork"]


def test_too_many_notes_are_refused_before_any_is_checked(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    game = new_game(api, players=2, game_type="test-coin")
    export = api.get(game.path("/export"), token=game.gm)[1]
    head = api.get(game.path("/checkpoint"))[1]
    assert api.post("/replays/verify", {**export, "notes": [head, head]})[0] == 200
    monkeypatch.setattr(proofs, "MAX_NOTES", 2)
    status, body = api.post("/replays/verify", {**export, "notes": [head, head, head]})
    assert status == 422 and "at most 2 signed notes" in body["error"]["message"]


def test_notes_are_taken_as_receipts_bodies_or_text() -> None:
    assert proofs.note_of({"receipt": {"note": "n"}}) == proofs.note_of({"note": "n"}) == proofs.note_of("n") == "n"
    with pytest.raises(ValueError):
        proofs.note_of(7)
