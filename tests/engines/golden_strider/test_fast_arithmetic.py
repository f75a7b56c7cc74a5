"""The round resolved from the orders (``race.resolve_orders``) writes out the rules' arithmetic for each runner:
the replacement card (twice the banking plus the positional bonus, at most 10, less a trip's penalty, the rest of
which is owed), restitution carried, and the overtaking cost.  Bot games rarely reach the bounds, so here every
order banks what it likes, runners owe and stand anywhere, and the outcome must be the plain resolution's."""
from __future__ import annotations

import copy
import random
from typing import Any

from engines.golden_strider import race, rules
from tests.engines.golden_strider.test_fast_paths import _plain_resolve, _played_states


def _rebanked(state: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A copy of a round's state with every runner owing and standing anywhere, and every order playing a held
    card split any way (a valid order: rules 5 and 12)."""
    state = copy.deepcopy(state)
    for runner in state["runners"]:
        runner["owed"] = rng.choice([0, 0, 1, 2, 5, 12])
        if rng.random() < 0.5:
            runner["square"] = rng.randint(0, 40)
    by_id = {runner["id"]: runner for runner in state["runners"]}
    for rid, order in state["orders"].items():
        card = rng.choice(race.held(state, by_id[rid], order))
        move = rng.randint(0, card["value"])
        order.update(card=rules.card_label(card), move=move, bank=card["value"] - move,
                     deduct=rng.choice(["move", "bank"]))
    return state


def test_a_round_of_any_splits_owed_and_squares_is_resolved_as_the_plain_rules_resolve_it() -> None:
    rng = random.Random("arithmetic")
    rounds = [s for s in _played_states() if s["stage"] == "round" and s["orders"]]
    capped = floored = owed = overtook = 0
    for _ in range(1500):
        state = _rebanked(rng.choice(rounds), rng)
        fast = race.resolve_orders(state)
        assert ("ok", fast) == _plain_resolve(state)
        for row in fast["public"]["rows"]:
            capped += row["R"] == rules.CARD_MAX and 2 * row["B"] > rules.CARD_MAX
            floored += bool(row.get("trip")) and row["R"] == 0
            owed += row["O"] > 0 and bool(row.get("trip"))
            overtook += row["O"] > 0 and not row.get("cf") and not row.get("trip")
    assert min(capped, floored, owed, overtook) > 20  # every bound reached, many times
