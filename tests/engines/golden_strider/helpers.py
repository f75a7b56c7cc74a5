"""Small scenario builders for the Golden Strider tests (pure, no platform)."""
from __future__ import annotations

import copy
from typing import Any

from engines.driver import player_list, run_phase, start, submit
from engines.golden_strider import ENGINE

NAMES = ["Steve Ovett", "Seb Coe", "Steve Cram", "Peter Elliott", "Tom McKean", "John Walker",
         "Said Aouita", "Filbert Bayi", "Jim Ryun", "Herb Elliott"]


def new_game(count: int = 6, options: dict[str, Any] | None = None, fields: list[dict] | None = None) -> dict:
    """A started game with ``count`` players (runners named after famous milers)."""
    players = player_list(count, fields or [{"runner": NAMES[i]} for i in range(count)])
    return start(ENGINE, options or {}, players, "test-seed").final


def with_runner(state: dict, runner_id: str, **changes: Any) -> dict:
    """A copy of ``state`` with one runner's fields changed (cards as "v/t" labels)."""
    new = copy.deepcopy(state)
    runner = next(r for r in new["runners"] if r["id"] == runner_id)
    if "cards" in changes and changes["cards"] is not None:
        changes["cards"] = [
            {"value": int(c.split("/")[0]), "turn": int(c.split("/")[1])} for c in changes["cards"]
        ]
    runner.update(changes)
    return new


def mid_race(count: int = 6, round_no: int = 3, options: dict[str, Any] | None = None) -> dict:
    """A game at ``round_no`` with every runner on square 0 holding five 6-cards."""
    state = new_game(count, options)
    state = copy.deepcopy(state)
    state["round"] = round_no
    for runner in state["runners"]:
        runner["cards"] = [{"value": 6, "turn": max(0, round_no - 5 + i)} for i in range(5)]
    return state


def order(state: dict, player: str, **body: Any) -> dict:
    """Submit a play order through the validation gate."""
    return submit(ENGINE, state, player, {"type": "play", **body})


def resolve(state: dict) -> tuple[dict, dict]:
    """Resolve the open phase: (outcome, new state)."""
    return run_phase(ENGINE, state, "test-seed", 1)


def row(outcome: dict, runner_id: str) -> dict:
    return next(r for r in outcome["public"]["rows"] if r["runner"] == runner_id)


def runner(state: dict, runner_id: str) -> dict:
    return next(r for r in state["runners"] if r["id"] == runner_id)


def first_round(state: dict, cards: list[int] | None = None, **play: Any) -> dict:
    """Every player sends starting cards and plays the first one, all for movement."""
    cards = cards or [6, 6, 6, 6, 6]
    for p in state["players"]:
        body = {"cards": cards, "card": f"{cards[0]}/0", **play}
        state = order(state, p["id"], **body)
    return state
