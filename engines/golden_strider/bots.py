"""Random legal orders so whole races can be simulated (and sealed orders swapped)."""
from __future__ import annotations

from typing import Any

from engines.golden_strider import rules
from engines.golden_strider.orders import own_runners
from engines.golden_strider.race import hand_for
from engines.golden_strider.schemas import CARD_PICKS, DRUGS
from engines.golden_strider.tarnished import starting_total
from engines.rng import Rng


def random_cards(rng: Rng, total: int) -> list[int]:
    """Five cards 0-10 with the given total: start level and shift points at random."""
    cards = [total // 5 + (1 if i < total % 5 else 0) for i in range(5)]
    for _ in range(8):
        i, j = rng.below(5), rng.below(5)
        if i != j and cards[i] > 0 and cards[j] < 10:
            cards[i] -= 1
            cards[j] += 1
    return cards


def play(state: dict[str, Any], player_id: str, rng: Rng) -> dict[str, Any] | None:
    """An order for the first of the player's runners still without one this round."""
    waiting = [r for r in own_runners(state, player_id) if r["id"] not in state["orders"]]
    if not waiting:
        return None
    runner = waiting[0]
    opts = state["options"]
    order: dict[str, Any] = {"type": "play", "runner": runner["id"]}
    drug = runner.get("drug")
    if runner["cards"] is None:
        if opts["variant"] == "tarnished":
            drug = rng.choice(DRUGS)
            order["drug"] = drug
        order["cards"] = random_cards(rng, starting_total(drug, opts))
    hand = hand_for(state, runner, order)
    mode = opts["seven_turn_rule"]
    legal = [i for i in range(len(hand)) if rules.keeps_seven_turn_rule(hand, i, state["round"], mode)]
    index = rng.choice(legal)
    value = hand[index]["value"]
    net = value - min(runner["owed"], value)
    bank = rng.randint(net // 3, (net + 1) // 2)  # banking about half keeps the cards high
    order.update(card=rules.card_label(hand[index]), move=net - bank, bank=bank)
    if drug == "energiza":
        order["energiza"] = rng.randint(0, opts["energiza_max"])
        if not runner.get("boost_used") and runner["square"] >= state["race_length"] - 15:
            order["boost"] = opts["energiza_boost"]
    return order


def accuse(state: dict[str, Any], player_id: str, rng: Rng) -> dict[str, Any]:
    """Accuse nobody or one of the other managers' athletes at random: one who ran (ruling 14: a withdrawn
    athlete cannot be accused)."""
    others = [r["id"] for r in state["runners"] if r["owner"] != player_id and not r["withdrawn"]]
    return {"type": "accuse", "runner": rng.choice([None, *others])}


def robot(rng: Rng) -> dict[str, Any]:
    """A random algorithm: bank for a few rounds, then run on the chosen cards."""
    early = rng.randint(1, 6)
    return {
        "type": "submit_robot",
        "algorithm": {
            "name": f"bot {early}",
            "cards": random_cards(rng, 30),
            "rules": [
                {"when": {"round": {"max": early}}, "card": rng.choice(CARD_PICKS),
                 "move": rng.randint(0, 4), "bank": "rest", "deduct": rng.choice(("move", "bank"))},
                {"when": {"owed": {"min": 3}}, "card": "highest", "move": "all"},
                {"card": rng.choice(CARD_PICKS), "bank": rng.randint(0, 2)},
            ],
        },
    }
