"""Bot games from 7 to 60 players played to the end, with the game's invariants checked after every
event (every order and every resolution), and a planted bug that the checks catch."""
from __future__ import annotations

from typing import Any

import pytest

from engines.driver import play_bots, player_list
from engines.elemental_tag import ENGINE
from engines.elemental_tag import rules as tag_rules
from engines.elemental_tag.schemas import ELEMENTS

State = dict[str, Any]


def sign_ups(count: int) -> list[dict[str, Any]]:
    """A mix like a forum's: most players in elements (teams of one to five), a few in the underworld."""
    fields = []
    for index in range(count):
        if index % 4 == 3:
            fields.append({})
        else:
            fields.append({"element": ELEMENTS[(index // 4) % len(ELEMENTS)], "guild": ELEMENTS[index % 3]})
    return fields


class Invariants:
    """The checks, run on each state in turn; an AssertionError names the broken one."""

    def __init__(self) -> None:
        self.before: State | None = None
        self.steps = 0

    def __call__(self, state: State) -> None:
        self.steps += 1
        players, teams = state["players"], state["teams"]
        squares = [tuple(p["pos"]) for p in players.values() if p["pos"] is not None]
        assert len(squares) == len(set(squares)), "two players share a square"
        if state["size"]:
            assert all(1 <= x <= state["size"] and 1 <= y <= state["size"] for x, y in squares), "off the map"
        listed = [m for team in teams.values() for m in team["members"]]
        assert sorted(listed) == sorted(players), "a player in no team, or in two"
        assert all(players[m]["team"] == tid for tid, team in teams.items() for m in team["members"])
        assert all(team["members"] for team in teams.values()), "an empty team"
        held = [team["element"] for team in teams.values() if team["element"]]
        assert len(held) == len(set(held)), "two teams of one element"
        if state["stage"] != "bidding":
            assert all(team["points"] > 0 for team in teams.values()), "a team at no points still plays"
            assert state["it"] in players or not players, "it is nobody in the game"
        gone = {m for e in state["eliminated"] for m in e["members"]} | set(state["departed"])
        assert set(state["roster"]) == set(players) | gone, "a player lost track of"
        assert (state["stage"] == "over") == (len(teams) <= 1), "the game's end and its teams disagree"
        before = self.before
        if before is not None and before["turn"] != state["turn"] and before["size"] and state["stage"] == "moving":
            for player, now in players.items():
                if player in before["players"] and before["stage"] == "moving":
                    (x, y), (a, b) = before["players"][player]["pos"], now["pos"]
                    assert max(abs(x - a), abs(y - b)) <= 1, f"{player} moved more than one step"
        self.before = state


@pytest.mark.parametrize("count", [7, 13, 30, 60])
def test_bot_games_from_7_to_60_players_keep_every_invariant_to_the_end(count: int) -> None:
    check = Invariants()
    played = play_bots(ENGINE, {}, player_list(count, sign_ups(count)), f"bots-{count}", check=check)
    assert ENGINE.phase(played.final) is None
    assert check.steps == len(played.records)
    result = ENGINE.result(played.final)
    assert len(result["players"]) == count
    assert sum(team["place"] == "last standing" for team in result["teams"]) <= 1
    if count == 60:
        mapped = next(state for state in played.states if state["size"])
        assert mapped["size"] == 11 if len(mapped["players"]) > 50 else mapped["size"] < 11  # ruling 2


def _everyone_arrives(positions: dict, targets: dict, rulings: object = None) -> tuple[dict, list]:
    """A planted bug: collisions are never resolved, everyone goes where they asked."""
    return {p: tuple(targets[p]) for p in positions}, []


def test_a_planted_bug_is_caught_by_the_invariants(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tag_rules.grid, "resolve_moves", _everyone_arrives)
    with pytest.raises(AssertionError, match="share a square"):
        play_bots(ENGINE, {}, player_list(13, sign_ups(13)), "bots-13", check=Invariants())


def test_a_planted_bug_in_elimination_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Teams at no points kept in the game: caught at the first round one runs out."""
    def never(board: dict, turn: int) -> list:
        return []

    monkeypatch.setattr(tag_rules, "eliminate", never)
    with pytest.raises(AssertionError, match="at no points"):
        play_bots(ENGINE, {}, player_list(7, sign_ups(7)), "bots-7", check=Invariants(), max_phases=400)
