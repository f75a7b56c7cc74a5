"""Games a GM worked out by hand (tests/fixtures/checked/): every phase's result, reasoned from the rulebook.

The recorded games under tests/fixtures/games are bot games recorded by the engine itself: a golden master,
which catches a change but not a rule the engine always had wrong.  Each file here is a small game whose every
phase a person resolved from the rulebook, writing the reasoning (``why``) beside the numbers.  This test plays
it through the engine and compares each phase's recorded outcome (``outcome``), the GM's view after it
(``view``), and the result, with those numbers: the engine's own output is never the expectation.  Chance is
fixed by the GM in the options where the game allows it; where it does not (Strategic Aspect's turn orders,
Elemental Tag's placement), the seed's draws are written in the file as given, like a GM's dice, and checked,
and everything that follows from them was worked out by hand.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engines import registry
from engines.contract import GM
from engines.driver import run_phase, start, submit

CHECKED = Path(__file__).parent.parent / "fixtures" / "checked"
GAMES = sorted(CHECKED.glob("*.json"))


def at(data: Any, path: str) -> Any:
    """The value at a dotted path: ``public.positions.p1``; in a list a number is an index and ``runner=r3``
    the element whose ``runner`` is ``r3`` (a report's row)."""
    for key in path.split("."):
        if isinstance(data, list) and "=" in key:
            field, value = key.split("=", 1)
            data = next(row for row in data if str(row.get(field)) == value)
        else:
            data = data[int(key)] if isinstance(data, list) else data[key]
    return data


def _matches(path: str, want: Any, got: Any) -> bool:
    """A row picked by ``field=value`` is compared on the columns worked out; anything else exactly."""
    if "=" in path.rsplit(".", 1)[-1] and isinstance(want, dict) and isinstance(got, dict):
        return all(got.get(column) == value for column, value in want.items())
    return got == want


def _expect(what: str, got: Any, expected: dict[str, Any], why: list[str]) -> None:
    wrong = {path: (want, _found(got, path)) for path, want in expected.items()
             if not _matches(path, want, _found(got, path))}
    assert not wrong, f"{what}: " + "; ".join(f"{p}: worked out {w!r}, engine {g!r}" for p, (w, g) in wrong.items()) \
        + "\nthe reasoning: " + " ".join(why)


def _found(data: Any, path: str) -> Any:
    try:
        return at(data, path)
    except (KeyError, IndexError, TypeError, StopIteration):
        return "<missing>"


def test_every_game_has_a_game_a_gm_checked() -> None:
    checked = {json.loads(path.read_text())["game"] for path in GAMES}
    assert checked >= {name for name in registry.names() if not name.startswith("test-")}


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_a_game_worked_out_by_hand_from_the_rulebook(path: Path) -> None:
    game = json.loads(path.read_text())
    engine = registry.latest(game["game"])
    played = start(engine, game.get("options"), game["players"], game["seed"])
    _expect("setup", played.setup, game.get("setup", {}), game.get("setup_why", []))
    state = played.final
    for number, phase in enumerate(game["phases"], 1):
        now = engine.phase(state)
        assert now is not None and now.name == phase["phase"], f"phase {number}: {now} is not {phase['phase']}"
        for actor, order in phase["orders"]:
            state = submit(engine, state, actor, order)
        outcome, state = run_phase(engine, state, game["seed"], number)
        _expect(f"phase {number} ({phase['phase']})", outcome, phase.get("outcome", {}), phase["why"])
        _expect(f"the GM's view after phase {number} ({phase['phase']})", engine.view(state, GM), phase.get("view", {}),
                phase["why"])
    assert engine.phase(state) is None, "the game goes on after the last phase worked out"
    _expect("result", engine.result(state), game["result"], game.get("result_why", []))
