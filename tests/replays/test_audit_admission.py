"""The audit decides every recorded order again with the platform's gate, at the order's own ``at`` and for the phase
it names: a forger who re-seals the chain cannot slip in an order the live path would have refused.  Each forgery
below is re-hashed, so the hash chain holds and only the re-run of the admission catches it, naming its seq."""
from __future__ import annotations

import copy
from datetime import timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest

from eventlog import clock
from eventlog.events import now_iso
from replays.audit import verify
from runtime.context import Context
from service.app import create_app
from tests.forgery import rehashed
from tests.platform.helpers import Api

FIXTURES = Path(__file__).parent.parent / "fixtures" / "games"


def _export(name: str) -> dict[str, Any]:
    return orjson.loads((FIXTURES / name).read_bytes())


def _resealed(export: dict[str, Any], start: int) -> dict[str, Any]:
    export["head_hash"] = rehashed(export["events"], start)[-1]["hash"]
    return export


def _first_order(events: list[dict[str, Any]], after: int = 0) -> int:
    return next(i for i, e in enumerate(events) if e["type"] == "action.submitted" and e["seq"] > after)


def _found_at(report: dict[str, Any], seq: int, words: str) -> None:
    assert not report["ok"]
    assert report["hash_chain"]["ok"], "the forger re-sealed the chain: only the admission can catch it"
    first = report["divergences"][0]
    assert (first["seq"], first["check"]) == (seq, "recompute"), report["divergences"][:3]
    assert words in first["problem"], first


def relabelled_phase() -> tuple[dict[str, Any], int]:
    """An order whose ``phase`` names phase 99."""
    export = _export("recorded-ew.json")
    index = _first_order(export["events"])
    export["events"][index]["data"]["phase"] = 99
    return _resealed(export, index), index + 1


def after_its_deadline() -> tuple[dict[str, Any], int]:
    """An order whose ``at`` is an hour after the deadline of the phase it was recorded in."""
    export = _export("recorded-ew.json")
    events = export["events"]
    index = _first_order(events)
    opened = next(e for e in reversed(events[:index]) if e["type"] in ("game.started", "phase.resolved"))
    spec = opened["data"]["phase"] if opened["type"] == "game.started" else opened["data"]["next"]
    events[index]["at"] = now_iso(clock.parse(spec["deadline"]) + timedelta(hours=1))
    return _resealed(export, index), index + 1


def from_a_departed_player() -> tuple[dict[str, Any], int]:
    """An order after an ejection, relabelled as the ejected player's."""
    export = _export("recorded-ew-ejection.json")
    events = export["events"]
    ejection = next(e for e in events if e["type"] == "gm.eject")
    gone = ejection["data"]["player_id"]
    index = next(i for i, e in enumerate(events) if e["type"] == "action.submitted" and e["seq"] > ejection["seq"]
                 and e["actor"] != gone)
    events[index]["actor"] = gone
    return _resealed(export, index), index + 1


def while_paused() -> tuple[dict[str, Any], int]:
    """A GM's pause slipped in just before an order (the seqs after it renumbered)."""
    export = _export("recorded-ew.json")
    events = export["events"]
    index = _first_order(events)
    pause = {"seq": index + 1, "type": "gm.pause", "actor": "gm", "at": events[index]["at"],
             "data": {"reason": "forged", "remaining": 3600}, "prev_hash": "", "salt": "00" * 16, "hash": ""}
    events.insert(index, pause)
    for seq, event in enumerate(events, start=1):
        event["seq"] = seq
    return _resealed(export, index), index + 2


FORGERIES = {"a relabelled phase": (relabelled_phase, "phase"),
             "an order after its deadline": (after_its_deadline, "deadline"),
             "an order from a player who left": (from_a_departed_player, "left the game"),
             "an order while paused": (while_paused, "paused")}


def test_every_recorded_order_passes_the_gate_again() -> None:
    """The re-run is not a filter that refuses too much: every recorded game still verifies."""
    for path in sorted(FIXTURES.glob("*.json")):
        report = verify(orjson.loads(path.read_bytes()))
        assert report["ok"], (path.name, report["divergences"][:2])


@pytest.mark.parametrize("forgery", FORGERIES)
def test_a_resealed_forgery_fails_verify_naming_the_order(forgery: str) -> None:
    make, words = FORGERIES[forgery]
    export, seq = make()
    _found_at(verify(copy.deepcopy(export)), seq, words)


@pytest.mark.parametrize("forgery", FORGERIES)
def test_the_api_s_verify_names_the_same_order(ctx: Context, forgery: str) -> None:
    make, words = FORGERIES[forgery]
    export, seq = make()
    status, report = Api(create_app(ctx).test_client()).post("/replays/verify", export)
    assert status == 200, report
    _found_at(report, seq, words)
