"""What opens when a game ends, chosen by its GM at creation (issue 18 item 11): everything (the default, so that
anyone can verify the game), or only what the game's rules reveal, with the full log for the GM and each
player's receipts still verifiable from their own view of the log."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from cli import main as cli

from replays.audit import verify
from replays.views import opens_at_end
from runtime.context import Context
from tests.platform.conftest import Game
from tests.platform.helpers import Api, run_queued_jobs


def _tossed(api: Api, ctx: Context, **create: object) -> tuple[Game, dict]:
    """A coin toss to one point, played to its end: p1 calls heads, p2 tails, so exactly one of them wins.
    Returns the game and p1's receipt."""
    status, created = api.post("/games", {"type": "test-coin", "seed": "r" * 32, "options": {"target": 1},
                                          **create})
    assert status == 201, created
    game = Game(created["game_id"], created["gm_token"], {})
    for name in ("Ann", "Bob"):
        status, joined = api.post(game.path("/players"), {"name": name})
        game.tokens[joined["player_id"]] = joined["token"]
    assert api.post(game.path("/start"), token=game.gm)[0] == 200
    status, receipt = api.post(game.path("/actions"), {"type": "call", "side": "heads"}, token=game.tokens["p1"])
    assert status == 202, receipt
    assert api.post(game.path("/actions"), {"type": "call", "side": "tails"}, token=game.tokens["p2"])[0] == 202
    run_queued_jobs(ctx)
    assert api.get(game.path())[1]["status"] == "finished"
    return game, receipt["receipt"]


def _event_as_seen_by(api: Api, game: Game, token: str | None, seq: int) -> dict:
    return next(e for e in api.get(game.path("/events"), token)[1]["events"] if e["seq"] == seq)


def test_by_default_everything_opens_at_the_end(api: Api, ctx: Context) -> None:
    game, receipt = _tossed(api, ctx)
    created = api.get(game.path("/events"))[1]["events"][0]
    assert created["data"]["reveal_at_end"] == "everything", "the choice is recorded in game.created"
    body = api.get(game.path())[1]
    assert body["reveal_at_end"] == "everything" and body["seed"] == "r" * 32
    assert _event_as_seen_by(api, game, None, receipt["seq"])["data"]["action"] == {"type": "call", "side": "heads"}
    status, export = api.get(game.path("/export"))
    assert status == 200 and export["format"] == "arbiter-export/1" and verify(export)["ok"]
    assert api.get(game.path("/audit"))[1]["ok"]


def test_rulebook_keeps_what_the_rules_hide_after_the_end(api: Api, ctx: Context) -> None:
    game, receipt = _tossed(api, ctx, reveal_at_end="rulebook")
    for token in (None, game.tokens["p2"]):
        body = api.get(game.path(), token)[1]
        assert body["reveal_at_end"] == "rulebook" and body["result"] is not None and "seed" not in body
        seen = _event_as_seen_by(api, game, token, receipt["seq"])
        assert seen["data"] == {"phase": 1, "sealed": True} and "salt" not in seen and seen["actor"] == "sealed"
        final = api.get(game.path("/events"), token)[1]["events"][-1]
        assert final["data"]["next"] is None and final["data"]["seed"] is None
        frames = api.get(game.path("/replay"), token)[1]["frames"]
        assert "heads" not in str([f["event"] for f in frames if f["seq"] == receipt["seq"]])
        assert "seed" not in frames[-1]["view"]
        status, error = api.get(game.path("/audit"), token)
        assert status == 403 and "rulebook" in error["error"]["message"]
    # the GM has everything: the seed, the audit and the full export, which verifies
    assert api.get(game.path(), game.gm)[1]["seed"] == "r" * 32
    assert api.get(game.path("/audit"), game.gm)[1]["ok"]
    status, full = api.get(game.path("/export"), game.gm)
    assert status == 200 and full["format"] == "arbiter-export/1" and verify(full)["ok"]


def test_rulebook_each_player_can_still_verify_their_own_receipts(api: Api, ctx: Context) -> None:
    game, receipt = _tossed(api, ctx, reveal_at_end="rulebook")
    status, mine = api.get(game.path("/export"), game.tokens["p1"])
    assert status == 200 and mine["format"] == "arbiter-view/1" and mine["viewer"] == "p1"
    assert mine["head_hash"] == api.get(game.path())[1]["head_hash"]
    own = next(e for e in mine["events"] if e["seq"] == receipt["seq"])
    assert own["hash"] == receipt["hash"] and own["data"]["action"]["side"] == "heads" and "salt" in own
    report = verify(mine)
    assert report["ok"] and report["hash_chain"]["whole_events_checked"] >= 1, report
    status, theirs = api.get(game.path("/export"), game.tokens["p2"])
    assert "heads" not in str(next(e for e in theirs["events"] if e["seq"] == receipt["seq"]))
    # a forged view fails: p1's order changed, or a link broken
    forged = copy.deepcopy(mine)
    next(e for e in forged["events"] if e["seq"] == receipt["seq"])["data"]["action"]["side"] = "tails"
    assert not verify(forged)["ok"]
    unlinked = copy.deepcopy(mine)
    unlinked["events"][3]["prev_hash"] = "0" * 64
    assert not verify(unlinked)["ok"]
    served = api.post("/replays/verify", mine)[1]
    assert served.pop("signed")["included"] >= 1  # the API checks the view's signed checkpoints too (issue 29)
    assert verify(mine) == served


def test_rulebook_arbiter_verify_checks_a_players_receipt_offline(api: Api, ctx: Context, tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    game, receipt = _tossed(api, ctx, reveal_at_end="rulebook")
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(api.get(game.path("/export"), game.tokens["p1"])[1]), encoding="utf-8")
    assert cli.main(["verify", str(path), "--receipt", f"{receipt['seq']}:{receipt['hash']}"]) == 0
    assert cli.main(["verify", str(path), "--receipt", f"{receipt['seq']}:{'f' * 64}"]) == 1
    capsys.readouterr()


def test_reveal_at_end_is_checked_and_old_games_open_everything(api: Api) -> None:
    status, error = api.post("/games", {"type": "test-coin", "reveal_at_end": "nothing"})
    assert status == 422 and "reveal_at_end" in str(error["error"]["details"])
    assert opens_at_end({"status": "finished"}), "a game recorded before the choice opens as it always did"


@pytest.mark.parametrize("reveal", ["everything", "rulebook"])
def test_the_choice_changes_nothing_before_the_end(api: Api, reveal: str) -> None:
    status, created = api.post("/games", {"type": "test-coin", "seed": "r" * 32, "reveal_at_end": reveal})
    game = Game(created["game_id"], created["gm_token"], {})
    for name in ("Ann", "Bob"):
        game.tokens[api.post(game.path("/players"), {"name": name})[1]["player_id"]] = "x"
    for path in ("/audit", "/export"):  # closed to the public until the end, as before (401 or 403)
        assert api.get(game.path(path))[0] in (401, 403)
        assert api.get(game.path(path), game.gm)[0] == 200
