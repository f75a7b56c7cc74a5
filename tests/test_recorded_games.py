"""Recorded whole games (tests/fixtures/games) replayed on every change (18xx style).

Each must still verify against its seed with the engine version it was played under,
and fold to the same final result: a failure means rules changed by accident.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from engines.canonical import canonical_json
from replays.audit import verify
from replays.fold import engine_for, fold

FIXTURES = sorted((Path(__file__).parent / "fixtures" / "games").glob("*.json"))


def test_there_are_recorded_games_for_every_engine() -> None:
    types = {json.loads(path.read_text())["type"] for path in FIXTURES}
    assert {"extreme-ways", "sxyzm-cyclone", "golden-strider"} <= types


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_a_recorded_game_still_verifies_and_ends_the_same(path: Path) -> None:
    document = json.loads(path.read_text())
    report = verify(document)
    assert report["ok"], report["divergences"][:3]
    assert report["outcomes"]["checked"] == sum(e["type"] in ("game.started", "phase.resolved")
                                                for e in document["events"])
    record = fold(document["events"])
    recorded = document["events"][-1]["data"]["result"]
    folded = engine_for(record).result(record["engine"])  # from the folded state, not the recorded event
    assert canonical_json(folded) == canonical_json(recorded)
    assert record["version"] == document["version"]
