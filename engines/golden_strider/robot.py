"""Robot variant: declarative algorithms (no code) turned into each round's plan.

An algorithm is ``{"cards": [5 cards], "rules": [rule, ...]}``; each round the first
rule whose ``when`` holds for the previous round's report chooses the card and the
split (see docs/games/golden-strider.md).  No rule matching means rule 13.
"""
from __future__ import annotations

import copy
from typing import Any

from engines.golden_strider import rules
from engines.golden_strider.race import Plan, active, apply_round, race_length, resolve_round


def robot_hand(algorithm: dict[str, Any], runner: dict[str, Any]) -> list[rules.Card]:
    """The cards the robot holds: before round 1, the algorithm's starting cards."""
    return runner["cards"] if runner["cards"] is not None else rules.starting_hand(algorithm["cards"])


def measures(state: dict[str, Any], runner: dict[str, Any], hand: list[rules.Card]) -> dict[str, int]:
    """What the previous round's report shows about this runner (and the leader).

    ``hand`` is the hand the robot plays from, so in round 1 ``best_card`` and
    ``oldest_card`` read its starting cards.
    """
    leader = max((r["square"] for r in state["runners"] if not r["withdrawn"]), default=0)
    return {
        "round": state["round"],
        "square": runner["square"],
        "position": runner["position"],
        "owed": runner["owed"],
        "to_finish": race_length(state["options"]) - runner["square"],
        "behind_leader": leader - runner["square"],
        "best_card": max((c["value"] for c in hand), default=0),
        "oldest_card": hand[rules.default_card(hand)]["value"] if hand else 0,
    }


def matches(when: dict[str, dict[str, int]], seen: dict[str, int]) -> bool:
    """Every condition holds: each measure within its min/max."""
    return all(
        bound.get("min", seen[name]) <= seen[name] <= bound.get("max", seen[name])
        for name, bound in when.items()
    )


def pick_card(hand: list[rules.Card], how: str) -> int:
    """The card a rule names: oldest (rule 13 order), newest, highest or lowest."""
    indices = range(len(hand))
    if how == "newest":
        return max(indices, key=lambda i: (hand[i]["turn"], hand[i]["value"]))
    if how == "highest":
        return max(indices, key=lambda i: (hand[i]["value"], -hand[i]["turn"]))
    if how == "lowest":
        return min(indices, key=lambda i: (hand[i]["value"], hand[i]["turn"]))
    return rules.default_card(hand)


def split_amounts(value: int, move: int | str, bank: int | str) -> tuple[int, int]:
    """A rule's movement and banking for a card of ``value`` (before restitution).

    "all" takes the whole card; numbers are capped by the card; whatever is left
    ("rest", or numbers adding up to less than the card) goes to movement.
    """
    if move == "all":
        return value, 0
    if bank == "all":
        return 0, value
    m = min(move, value) if isinstance(move, int) else None
    b = min(bank, value - (m or 0)) if isinstance(bank, int) else None
    if b is None:
        return (m if m is not None else value), value - (m if m is not None else value)
    return value - b, b


def plan_for(algorithm: dict[str, Any], state: dict[str, Any], runner: dict[str, Any]) -> Plan | None:
    """This round's plan from the first matching rule (None: no move received)."""
    hand = robot_hand(algorithm, runner)
    seen = measures(state, runner, hand)
    for rule in algorithm["rules"]:
        if not matches(rule.get("when") or {}, seen):
            continue
        index = pick_card(hand, rule["card"])
        move, bank = split_amounts(hand[index]["value"], rule["move"], rule["bank"])
        return {
            "card": index, "move": move, "bank": bank, "deduct": rule["deduct"], "cards": algorithm["cards"],
        }
    return {"card": None, "cards": algorithm["cards"]}


# The rulebook's example algorithm, written in the format (also in the doc and tests).
EXAMPLE = {
    "name": "Rulebook example",
    "cards": [6, 6, 6, 6, 6],
    "rules": [
        {"when": {"round": {"min": 1, "max": 5}}, "card": "oldest", "move": 2, "bank": 4, "deduct": "move"},
        {"when": {"round": 6}, "card": "oldest", "bank": 4, "move": "rest", "deduct": "move"},
        {"card": "oldest", "move": "all"},
    ],
}


def run_race(state: dict[str, Any]) -> dict[str, Any]:
    """Robot variant: every round played from the algorithms, recorded in one outcome.

    A robot with no algorithm starts on the default cards and is played by rule 13.
    """
    work = state  # apply_round returns a new state each round and never changes the one it is given
    algorithms = {p: copy.deepcopy(a) for p, a in state["algorithms"].items()}
    default_cards = state["options"]["default_cards"]
    rounds = []
    while True:
        plans = {}
        for runner in active(work):
            algorithm = algorithms.get(runner["owner"])
            plans[runner["id"]] = (
                plan_for(algorithm, work, runner) if algorithm
                else {"card": None, "cards": default_cards}
            )
        outcome = resolve_round(work, plans)
        rounds.append(outcome["public"])
        work = apply_round(work, outcome)
        if outcome["public"]["over"]:
            break
    return {"public": {"algorithms": algorithms, "rounds": rounds}, "private": {}, "secret": {}}
