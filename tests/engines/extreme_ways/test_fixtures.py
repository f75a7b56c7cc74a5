"""Recorded whole games, replayed on every change: a changed outcome means a new version."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from engines.canonical import canonical_json
from engines.driver import Played, apply_record, fold
from engines.extreme_ways import ENGINE
from engines.rng import Rng

FIXTURES = sorted((Path(__file__).parent / "fixtures").glob("*.json"))


def _load(path: Path) -> dict:
    return json.loads(path.read_text())


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_recorded_game_replays_to_its_result(path: Path) -> None:
    game = _load(path)
    assert game["version"] == ENGINE.meta.version
    played = Played(game["options"], game["players"], game["seed"], game["setup"], game["records"])
    final = fold(ENGINE, played)
    assert canonical_json(ENGINE.result(final)) == canonical_json(game["result"])


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_recorded_game_audits_setup_and_every_outcome(path: Path) -> None:
    """Re-draw the setup and every resolution from the seed: the records must match."""
    game = _load(path)
    setup = ENGINE.setup(game["options"], game["players"], Rng(game["seed"], "setup"))
    assert canonical_json(setup) == canonical_json(game["setup"])
    state = ENGINE.initial_state(game["options"], game["players"], game["setup"])
    for record in game["records"]:
        if record["type"] == "phase.resolved":
            again = ENGINE.resolve(state, Rng(game["seed"], "phase", record["number"]))
            assert canonical_json(again) == canonical_json(record["outcome"])
        state = apply_record(ENGINE, state, record)


def test_the_vote_fixture_went_through_an_ec_vote() -> None:
    game = _load(Path(__file__).parent / "fixtures" / "vote_game.json")
    phases = [r["outcome"]["public"]["phase"] for r in game["records"] if r["type"] == "phase.resolved"]
    assert phases[-1] == "ec_vote" and phases.count("bidding") == 3
