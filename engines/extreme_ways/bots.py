"""Random legal orders for simulated Extreme Ways games."""
from __future__ import annotations

from engines.contract import JSON, Phase, State
from engines.extreme_ways.players import ec_candidates
from engines.extreme_ways.rules import OPTIONS
from engines.rng import Rng


def bot_action(state: State, actor: str, phase: Phase | None, rng: Rng) -> JSON | None:
    """Bid, pass or buy gold; submit random options (sometimes leaving rounds to chance,
    sometimes rebounding); vote for a random tied player.  Bots sometimes send nothing,
    so the defaults for missing orders are played too."""
    if phase is None or actor not in phase.actors:
        return None
    if phase.name == "bidding":
        return None if rng.below(4) == 0 else _bidding(state, actor, rng)  # some miss the deadline
    if phase.name == "moving":
        return None if rng.below(6) == 0 else _moving(state, actor, phase, rng)
    candidates = ec_candidates(state)
    return {"type": "ec_vote", "player_id": rng.choice(candidates)} if candidates else None


def _bidding(state: State, actor: str, rng: Rng) -> JSON:
    gold, garnets = state["gold"][actor], state["garnets"][actor]
    roll = rng.below(10)
    if roll == 0 and garnets > 0 and state["options"]["allow_buy_gold"]:
        return {"type": "buy_gold", "garnets": rng.randint(1, garnets)}
    if roll <= 2 or gold < 1:
        return {"type": "pass"}
    return {"type": "bid", "amount": rng.randint(1, min(gold, 12))}


def _moving(state: State, actor: str, phase: Phase, rng: Rng) -> JSON:
    total = len(state["rounds"])
    options: list[str | None] = [None if rng.below(8) == 0 else rng.choice(OPTIONS) for _ in range(total)]
    rebound = None
    others = [p for p in phase.actors if p != actor]
    if state["options"]["rebound_twist"] and others and rng.below(2) == 0:
        rebound = {"round": rng.randint(1, total), "player_id": rng.choice(others)}
    return {"type": "move", "options": options, "rebound": rebound}
