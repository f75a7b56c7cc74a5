"""The audit catches forged Strategic Aspect logs (as tests/replays/test_audit_forgeries.py does for the
other games' recorded games): a reforged next phase, a game forged to end early, and a forged turn order."""
from __future__ import annotations

import copy
import json
from pathlib import Path

from replays.audit import verify
from tests.forgery import rehashed

RECORDED = Path(__file__).parents[2] / "fixtures" / "games" / "recorded-sa.json"


def _document() -> dict:
    return json.loads(RECORDED.read_text())


def _first_open(events: list[dict]) -> int:
    return next(i for i, e in enumerate(events) if e["type"] == "phase.resolved" and e["data"]["next"] is not None)


def test_a_reforged_next_phase_is_caught_where_it_is_named() -> None:
    document = _document()
    assert verify(copy.deepcopy(document))["ok"]
    events = document["events"]
    index = _first_open(events)
    events[index]["data"]["next"]["name"] = "auction"
    document["events"] = rehashed(events, index)
    document["head_hash"] = events[-1]["hash"]
    report = verify(document)
    assert not report["ok"] and report["hash_chain"]["ok"]
    assert report["divergences"][0]["seq"] == index + 1


def test_a_game_forged_to_end_early_is_caught() -> None:
    document = _document()
    events = document["events"]
    index = _first_open(events)
    final = events[-1]["data"]
    events[index]["data"].update(next=None, result=final["result"], seed=final["seed"])
    document["events"] = rehashed(events, index)
    document["head_hash"] = events[-1]["hash"]
    report = verify(document)
    assert not report["ok"] and report["divergences"][0]["seq"] == index + 1


def test_rule_turn_order_a_forged_order_is_caught() -> None:
    """A GM who rewrote a drawn turn order (to favour someone) cannot hide it: the order comes from the seed."""
    document = _document()
    events = document["events"]
    index = next(i for i, e in enumerate(events) if e["type"] == "phase.resolved"
                 and e["data"]["outcome"].get("secret", {}).get("orders"))
    orders = events[index]["data"]["outcome"]["secret"]["orders"]
    orders[0] = orders[0][::-1]
    document["events"] = rehashed(events, index)
    document["head_hash"] = events[-1]["hash"]
    report = verify(document)
    assert not report["ok"] and report["divergences"][0]["seq"] == index + 1
