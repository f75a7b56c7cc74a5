"""Issue 29: the key file (made on first use, rotated with its old keys kept), the rollback a signed checkpoint kept
outside Redis reveals after a full restart, and `arbiter verify` with notes, keys and a fork's proof file."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from redis import Redis

from cli import main as cli
from eventlog import keys, notes
from runtime import signing
from runtime.config import Settings
from runtime.context import Context
from service.app import create_app
from tests.platform.conftest import new_game
from tests.platform.helpers import Api, run_queued_jobs


@pytest.fixture()
def keyed(settings: Settings, tmp_path: Path) -> Context:
    return Context(replace(settings, signing_key=str(tmp_path / "keys" / "signing.key"), origin="games.example"))


def test_a_rotation_keeps_the_old_key_and_what_it_signed_verifies(keyed: Context, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    api = Api(create_app(keyed).test_client())
    path = Path(keyed.settings.signing_key or "")
    assert path.stat().st_mode & 0o777 == 0o600  # made on first use, for its owner only
    game = new_game(api, players=2, game_type="test-coin")
    before = api.post(game.path("/actions"), {"type": "call", "side": "heads"}, token=game.tokens["p1"])[1]
    old = api.get("/keys")[1]["keys"]
    assert [(k["name"], k["status"]) for k in old] == [("games.example", "active")]

    assert cli.main(["keys", "rotate", "--file", str(path)]) == 0
    monkeypatch.setattr(signing, "RECHECK_S", 0.0)  # the running process looks at the file again at once
    after = api.post(game.path("/actions"), {"type": "call", "side": "tails"}, token=game.tokens["p2"])[1]
    listed = api.get("/keys")[1]["keys"]
    assert [k["status"] for k in listed] == ["active", "retired"] and listed[1]["vkey"] == old[0]["vkey"]
    assert listed[1]["retired_at"] is not None
    verifiers = [notes.parse_vkey(k["vkey"]) for k in listed]
    assert notes.open_note(before["receipt"]["note"], verifiers).by.vkey == old[0]["vkey"]
    assert notes.open_note(after["receipt"]["note"], verifiers).by.vkey == listed[0]["vkey"]
    # a fresh process reads the rotated file as it is
    assert Context(keyed.settings).keys.listing() == listed
    # a key file moved away does not stop the orders: the key read last still signs
    path.rename(path.with_name("moved.key"))
    moved = api.post(game.path("/actions"), {"type": "gm.pause", "reason": "key moved"}, token=game.gm)
    assert moved[0] == 202 and notes.open_note(moved[1]["receipt"]["note"], verifiers).by.vkey == listed[0]["vkey"]


def test_a_store_that_went_back_under_its_signed_checkpoint_says_so_after_a_full_restart(keyed: Context) -> None:
    api = Api(create_app(keyed).test_client())
    game = new_game(api, players=2, game_type="test-coin", options={"target": 5})
    redis = Redis.from_url(keyed.settings.redis_url)
    kept, kept_seq = redis.dump(keys.events(game.id)), api.get(game.path())[1]["seq"]
    for player, side in (("p1", "heads"), ("p2", "tails")):
        assert api.post(game.path("/actions"), {"type": "call", "side": side}, token=game.tokens[player])[0] == 202
    run_queued_jobs(keyed)  # the toss resolves: a checkpoint at its seq, kept beside the key file
    resolved = api.get(game.path())[1]["seq"]
    assert resolved == kept_seq + 3 and keyed.witness is not None and keyed.witness.seq_of(game.id) == resolved

    redis.restore(keys.events(game.id), 0, kept, replace=True)  # the store lost its last writes ...
    redis.delete(keys.snapshot(game.id))
    restarted = Context(keyed.settings)  # ... and every process restarted: no cache remembers the game
    fresh = Api(create_app(restarted).test_client())
    events = restarted.store.read(game.id, after=kept_seq)
    assert [(e["type"], e["data"]) for e in events] == [("log.rolled_back", {"from_seq": resolved,
                                                                             "to_seq": kept_seq})]
    health = fresh.get("/health")[1]
    assert [(r["game_id"], r["from_seq"]) for r in health["log_rollbacks"]] == [(game.id, resolved)]
    create_app(Context(keyed.settings))  # another process starting says nothing twice
    assert len(restarted.store.read(game.id, after=kept_seq)) == 1


def test_arbiter_verify_takes_notes_and_keys_and_writes_a_forks_proof(api: Api, ctx: Context, tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    game = new_game(api, players=2, game_type="test-coin")
    redis = Redis.from_url(ctx.settings.redis_url)
    kept = redis.dump(keys.events(game.id))
    lost = api.post(game.path("/actions"), {"type": "call", "side": "heads"}, token=game.tokens["p1"])[1]
    redis.restore(keys.events(game.id), 0, kept, replace=True)
    checkpoint = api.get(game.path("/checkpoint"))[1]
    export = api.get(game.path("/export"), token=game.gm)[1]
    vkey = api.get("/keys")[1]["keys"][0]["vkey"]
    (tmp_path / "game.json").write_text(json.dumps(export))
    (tmp_path / "receipt.json").write_text(json.dumps(lost))  # the 202's body as the player kept it
    (tmp_path / "checkpoint.txt").write_text(checkpoint["note"])  # the note's own text
    proof = tmp_path / "proof.json"
    args = ["verify", str(tmp_path / "game.json"), "--note", str(tmp_path / "receipt.json"), "--note",
            str(tmp_path / "checkpoint.txt"), "--key", vkey, "--proof", str(proof)]
    capsys.readouterr()
    assert cli.main(args) == 1
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert {(d["seq"], d["check"]) for d in report["divergences"]} == {(lost["seq"], "signed_receipt"),
                                                                       (lost["seq"], "fork")}
    assert f"FAILED at seq {lost['seq']}" in err and str(proof) in err
    written = json.loads(proof.read_text())
    assert written["keys"] == [vkey]
    heads = {notes.parse_checkpoint(notes.open_note(n, [notes.parse_vkey(vkey)]).text).head
             for n in written["forks"][0]["notes"]}
    assert heads == {lost["hash"], checkpoint["head_hash"]}  # anyone with the key sees one seq, two hashes
    # without --key the file's own keys are used, and the report says so
    assert cli.main(args[:-4] + ["--proof", str(proof)]) == 1
    assert json.loads(capsys.readouterr().out)["signed"]["keys_from"].startswith("the file")
    assert cli.main(["verify", str(tmp_path / "game.json"), "--key", "nonsense"]) == 2


def test_rotations_at_once_keep_every_retired_key(tmp_path: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    path = tmp_path / "signing.key"
    assert signing.ensure_key_file(path, "games.example") and not signing.ensure_key_file(path, "other")
    first = signing.read_key_file(path).active.verifier.vkey
    with ThreadPoolExecutor(4) as pool:
        olds = [old for old, _new in pool.map(lambda _: signing.rotate(path), range(8))]
    keys = signing.read_key_file(path)
    assert len(keys.retired) == 8 and first in olds and {v for v, _ in keys.retired} == set(olds)
    assert keys.active.name == "games.example"
