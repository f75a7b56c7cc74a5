"""A recompute divergence shows what differs: each differing leaf's JSON pointer into the event's data, the recorded
value and the recomputed one, in the audit, ``POST /v1/replays/verify`` and ``arbiter verify``."""
from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Iterator

import pytest

from cli import main as cli
from cli import simulate
from replays.audit import DIFFERENCES_SHOWN, differences, verify
from runtime.context import Context
from service.app import create_app
from tests.forgery import rehashed
from tests.platform.helpers import Api

FIXTURES = Path(__file__).parent.parent / "fixtures" / "games"
RECORDED: dict[str, str] = {}
for _path in sorted(FIXTURES.glob("*.json"), key=lambda p: (len(p.name), p.name)):
    RECORDED.setdefault(json.loads(_path.read_text())["type"], _path.name)


def _leaves(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """Every leaf of a JSON value with its pointer, objects' keys in sorted order."""
    if isinstance(value, dict):
        for name in sorted(value):
            yield from _leaves(value[name], f"{path}/{name.replace('~', '~0').replace('/', '~1')}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaves(item, f"{path}/{index}")
    else:
        yield path, value


def _at(value: Any, pointer: str) -> tuple[Any, str]:
    """The container holding ``pointer``'s leaf, and its key (or index)."""
    *parents, last = [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]
    for part in parents:
        value = value[int(part)] if isinstance(value, list) else value[part]
    return value, last


def _forged(document: dict[str, Any]) -> tuple[dict[str, Any], int, str, int]:
    """The export with the first whole-number leaf of its first outcome raised by one, the chain re-sealed: the seq,
    the leaf's pointer into the event's data, and its true value."""
    forged = copy.deepcopy(document)
    events = forged["events"]
    index = next(i for i, e in enumerate(events) if e["type"] == "phase.resolved")
    path, value = next((p, v) for p, v in _leaves(events[index]["data"]["outcome"], "/outcome")
                       if isinstance(v, int) and not isinstance(v, bool))
    holder, last = _at(events[index]["data"], path)
    holder[int(last) if isinstance(holder, list) else last] = value + 1
    forged["head_hash"] = rehashed(events, index)[-1]["hash"]
    return forged, index + 1, path, value


def _recomputed_at(report: dict[str, Any], seq: int) -> dict[str, Any]:
    return next(d for d in report["divergences"] if d["seq"] == seq and d["check"] == "recompute")


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_a_tampered_outcome_names_the_path_and_both_values(name: str) -> None:
    document = json.loads((FIXTURES / RECORDED[name]).read_text())
    forged, seq, path, value = _forged(document)
    report = verify(forged)
    assert not report["ok"] and report["hash_chain"]["ok"]
    found = _recomputed_at(report, seq)
    assert found["differences"] == [{"path": path, "recorded": value + 1, "recomputed": value, "missing": None}]
    assert found["differences_total"] == 1


def test_a_dropped_and_an_added_key_name_the_side_they_are_missing_from() -> None:
    document = json.loads((FIXTURES / RECORDED["extreme-ways"]).read_text())
    events = document["events"]
    index = next(i for i, e in enumerate(events) if e["type"] == "phase.resolved")
    outcome = events[index]["data"]["outcome"]
    dropped = sorted(outcome["public"])[0]
    true_value = outcome["public"].pop(dropped)
    outcome["public"]["zz/added~"] = [1, 2]
    document["head_hash"] = rehashed(events, index)[-1]["hash"]
    found = _recomputed_at(verify(document), index + 1)
    assert found["differences"] == [
        {"path": f"/outcome/public/{dropped}", "recorded": None, "recomputed": true_value, "missing": "recorded"},
        {"path": "/outcome/public/zz~1added~0", "recorded": [1, 2], "recomputed": None, "missing": "recomputed"},
    ]
    assert found["differences_total"] == 2


def test_differences_walk_leaves_in_sorted_key_order_and_stop_at_the_limit() -> None:
    recorded = {"b": [1, 2, 3], "a": {"x": True, "y": "1"}, "c": None}
    recomputed = {"a": {"x": 1, "y": 1}, "b": [1, 5], "c": None, "d": {"e": 0}}
    shown, total = differences(recorded, recomputed, "/outcome")
    assert shown == [
        {"path": "/outcome/a/x", "recorded": True, "recomputed": 1, "missing": None},
        {"path": "/outcome/a/y", "recorded": "1", "recomputed": 1, "missing": None},
        {"path": "/outcome/b/1", "recorded": 2, "recomputed": 5, "missing": None},
        {"path": "/outcome/b/2", "recorded": 3, "recomputed": None, "missing": "recomputed"},
        {"path": "/outcome/d", "recorded": None, "recomputed": {"e": 0}, "missing": "recorded"},
    ]
    assert total == 5
    assert differences(recorded, copy.deepcopy(recorded)) == ([], 0)
    many, total = differences({f"k{i:03}": i for i in range(50)}, {f"k{i:03}": -i for i in range(50)})
    assert total == 49 and len(many) == DIFFERENCES_SHOWN  # k000 is 0 on both sides
    assert [d["path"] for d in many] == [f"/k{i:03}" for i in range(1, DIFFERENCES_SHOWN + 1)]


def test_the_api_and_the_cli_show_the_differences(ctx: Context, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    api = Api(create_app(ctx).test_client())
    gid = simulate.run(ctx, "extreme-ways", 3, "differences", {}, echo=None)["game_id"]
    status, export = api.get(f"/games/{gid}/export")
    assert status == 200
    forged, seq, path, value = _forged(export)
    expected = {"path": path, "recorded": value + 1, "recomputed": value, "missing": None}

    status, report = api.post("/replays/verify", forged)
    assert status == 200 and _recomputed_at(report, seq)["differences"] == [expected]

    for event in forged["events"]:  # the same forgery as the log of another game in the store
        ctx.store.append("g-forged", event)
    status, audited = api.get("/games/g-forged/audit")
    assert status == 200, audited
    assert _recomputed_at(audited, seq)["differences"] == [expected]
    assert _recomputed_at(audited, seq)["differences_total"] == 1

    (tmp_path / "forged.json").write_text(json.dumps(forged))
    assert cli.main(["verify", str(tmp_path / "forged.json")]) == 1
    printed = json.loads(capsys.readouterr().out)
    assert _recomputed_at(printed, seq)["differences"] == [expected]
