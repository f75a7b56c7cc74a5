"""Random legal orders for simulated games.  Bids come from a few round figures so that ties (re-bids,
20-20 draws) come up; bots sometimes send nothing, so every missed-deadline default is played too."""
from __future__ import annotations

from typing import Any

from engines.contract import JSON
from engines.rng import Rng
from engines.strategic_aspect import rules
from engines.strategic_aspect.views import legal

State = dict[str, Any]


def bot_action(state: State, actor: str, stage: str, rng: Rng) -> JSON | None:
    if rng.below(12) == 0:
        return None  # misses the deadline
    options = legal(state, actor)
    if stage == "move":
        return {"type": "move", "spaces": rng.choice(options["spaces"])}
    if stage == "steal":
        return {"type": "steal", "from": rng.choice(options["from"])}
    if stage == "buy_vote":
        return {"type": "buy_vote", "buy": rng.below(4) > 0}
    if stage in ("auction", "rebid"):
        cap = state["auction"]["cap"]
        figures = [n for n in (0, 5, 10, 15, rules.MAX_BID) if n <= cap]
        return {"type": "bid", "amount": rng.choice(figures) if rng.below(3) else rng.randint(0, cap)}
    if stage == "safety":
        choice = rng.choice(options["choice"])
        return {"type": "safety", "choice": choice, **({"to": rng.choice(options["to"])} if choice == "give" else {})}
    if stage == "accept":
        return {"type": "accept", "accept": rng.below(2) == 0}
    if stage == "vote":
        return {"type": "vote", "against": rng.choice(options["against"])}
    if stage == "tiebreak":
        return {"type": "tiebreak", "eliminate": rng.choice(options["eliminate"])}
    return {"type": "suffice", "choice": rng.choice(["add", "subtract", "ignore"])}
