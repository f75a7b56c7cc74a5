"""The quick validation asks whether the actor is a player of the game from the players' ids, read once per
players list (``orders._player_ids``, kept in ``kept.LAST.players``): every state of a game holds the same list.
Only speed: an order is let through at once exactly where the plain check (``check_order``) passes, whichever
players list was asked about before."""
from __future__ import annotations

import random
from typing import Any

from engines.driver import load_action
from engines.golden_strider import ENGINE, orders
from engines.golden_strider.engine import check_order
from engines.rng import Rng
from tests.engines.golden_strider.test_fast_paths import _outcome, _played_states


def _round_and_order() -> tuple[dict[str, Any], dict[str, Any]]:
    state = next(s for s in _played_states() if s["stage"] == "round" and s["round"] > 1)
    return state, load_action(ENGINE, ENGINE.bot_action(state, "p1", Rng("players", "p1")))


def _without(state: dict[str, Any], player_id: str) -> dict[str, Any]:
    """The state with another players list, lacking ``player_id`` (whose runner stays)."""
    return {**state, "players": [p for p in state["players"] if p["id"] != player_id]}


def test_each_players_list_is_asked_about_as_it_is() -> None:
    """Lists taking turns, each asked about twice in a row: the answer is always the list's own."""
    state, action = _round_and_order()
    other = _without(state, "p1")
    for current in (state, other, other, state, state, other):
        quick = bool(orders.plainly_valid_play(current, "p1", action))
        assert quick == (current is state)
        assert _outcome(ENGINE.validate, current, "p1", action) == _outcome(check_order, current, "p1", action)


def test_odd_players_lists_are_answered_as_the_plain_check_answers() -> None:
    """Ids missing, repeated, of other types or unhashable, and actors that are not players: let through at once only
    where check_order passes, and validate answers as check_order does."""
    rng = random.Random("players")
    state, action = _round_and_order()
    odd: list[Any] = ["p1", "p2", "P1", " p1", 1, None, ["p1"], {"id": "p1"}]
    for _ in range(500):
        players = [dict(p) for p in state["players"]]
        for player in rng.sample(players, rng.randint(0, 3)):
            if rng.random() < 0.2:
                del player["id"]
            else:
                player["id"] = rng.choice(odd)
        current = {**state, "players": players}
        actor = rng.choice(["p1", "p1", "p2", "p3"])
        plain = _outcome(check_order, current, actor, action)
        if orders.plainly_valid_play(current, actor, action):
            assert plain == ("ok", None)
        assert _outcome(ENGINE.validate, current, actor, action) == plain
