"""A whole 12-player Extreme Ways game over HTTP, every phase resolved by a real RQ
worker at short deadlines, then audit, export, offline verify and a tampered export."""
from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

from eventlog import clock
from runtime.config import Settings
from tests.e2e.play import create_and_join, play_to_the_end
from tests.e2e.stack import Stack


def test_twelve_players_play_extreme_ways_to_the_end(stack: Stack, settings: Settings, tmp_path: Path) -> None:
    stack.start_worker("worker-1")
    game_id, gm, tokens = create_and_join(
        stack, "extreme-ways", 12, seed="e2e-twelve", deadlines={"bidding": 2, "moving": 3, "ec_vote": 2})
    # p12 never bids in odd rounds, so those rounds wait for their deadline; the rest resolve early.
    receipts: list[dict] = []
    final = play_to_the_end(stack, settings, game_id, gm, tokens, receipts=receipts,
                            skip=lambda number, player: player == "p12" and number % 2 == 1)
    assert final["status"] == "finished"
    assert final["result"]["winners"]
    assert final["seed"] == "e2e-twelve"

    status, events = stack.call("GET", f"/games/{game_id}/events?limit=1000")
    resolved = [e for e in events["events"] if e["type"] == "phase.resolved"]
    assert {e["data"]["trigger"] for e in resolved} >= {"deadline", "early"}
    opened = {1: next(e for e in events["events"] if e["type"] == "game.started")["data"]["phase"]}
    for event in resolved:
        if event["data"]["next"]:
            opened[event["data"]["next"]["number"]] = event["data"]["next"]
    for event in events["events"]:
        if event["type"] == "gm.extend_deadline":  # play_to_the_end's GM hurries a phase its bots left waiting
            opened[event["data"]["phase"]] = {**opened[event["data"]["phase"]], "deadline": event["data"]["deadline"]}
    for event in resolved:
        if event["data"]["trigger"] == "deadline":  # never before its deadline
            assert clock.parse(event["at"]) > clock.parse(opened[event["data"]["number"]]["deadline"])

    status, audit = stack.call("GET", f"/games/{game_id}/audit")
    assert status == 200 and audit["ok"], audit
    assert audit["outcomes"]["checked"] == len(resolved) + 1

    status, exported = stack.call("GET", f"/games/{game_id}/export")
    assert status == 200 and exported["seed"] == "e2e-twelve"
    status, verified = stack.call("POST", "/replays/verify", exported)
    assert status == 200 and verified["ok"], verified

    path = tmp_path / "game.json"
    path.write_text(json.dumps(exported))
    cli = subprocess.run([sys.executable, "-m", "cli.main", "verify", str(path)], capture_output=True, text=True)
    assert cli.returncode == 0, cli.stderr
    by_seq = {e["seq"]: e for e in exported["events"]}
    assert receipts and all(by_seq[r["seq"]]["hash"] == r["hash"] for r in receipts)  # every 202 is in the log
    order = by_seq[receipts[0]["seq"]]
    checks = [arg for r in receipts[:5] for arg in ("--receipt", f"{r['seq']}:{r['hash']}")]
    cli = subprocess.run([sys.executable, "-m", "cli.main", "verify", str(path), *checks],
                         capture_output=True, text=True)
    assert cli.returncode == 0, cli.stderr
    cli = subprocess.run([sys.executable, "-m", "cli.main", "verify", str(path), "--receipt",
                          f"{order['seq']}:{'0' * 64}"], capture_output=True, text=True)
    assert cli.returncode == 1 and "another hash" in cli.stderr

    tampered = copy.deepcopy(exported)
    target = next(e for e in tampered["events"]
                  if e["type"] == "action.submitted" and e["data"]["action"]["type"] == "bid")
    target["data"]["action"]["amount"] += 1
    status, report = stack.call("POST", "/replays/verify", tampered)
    assert status == 200 and not report["ok"]
    assert report["hash_chain"]["first_broken_seq"] == target["seq"]
    path.write_text(json.dumps(tampered))
    cli = subprocess.run([sys.executable, "-m", "cli.main", "verify", str(path)], capture_output=True, text=True)
    assert cli.returncode == 1 and f"seq {target['seq']}" in cli.stderr
