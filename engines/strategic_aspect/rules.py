"""The handbook's numbers and the small pure rules built on them (no state machine here: see flow.py).

Each function cites the handbook section it implements; the game's doc (docs/games/strategic-aspect.md)
gives the rulings taken where the handbook is silent.
"""
from __future__ import annotations

from typing import Any

State = dict[str, Any]

# Basics: every cyclist starts on space 0 with thirty steps; a cycle is thirty spaces.
START_STEPS = 30
CYCLE_SPACES = 30
# Basics: the six moves, spaces -> steps earned (+) or spent (-).
MOVES = {1: 1, 2: 2, 3: 3, 4: -1, 5: -3, 6: -6}
# Stealing steps: landing on 12, 18 or 24 lets a cyclist take five steps from one who has five.
STEAL_SPACES = (12, 18, 24)
STEAL_AMOUNT = 5
# Tie-breaking vote: a space from 11-25 without 12, 18, 24, bought for ten steps.
TIEBREAK_SPACES = tuple(s for s in range(11, 26) if s not in STEAL_SPACES)
VOTE_PRICE = 10
# Safety auction: bids from zero to twenty; a 20-20 tie costs the loser forty.
MAX_BID = 20
DRAW_LOSER_PAYS = 40
# Safety options: at most five transfers.
MAX_TRANSFERS = 5
# Sudden death: fifteen spaces, stealing on 12 only.
SUDDEN_DEATH_SPACES = 15
SUDDEN_DEATH_STEAL_SPACES = (12,)

# Cycle kinds: a normal cycle (tie-break vote, auction, ceremony), the final, sudden death, a suffice cycle.
NORMAL, FINAL, SUDDEN_DEATH, SUFFICE = "normal", "final", "sudden_death", "suffice"

RULE_MOVE = "basics: the six moves"
RULE_BELOW_ZERO = "basics: never below zero steps"
RULE_EXACT = "ruling: space 30 must be hit exactly"
RULE_STEAL = "stealing steps"
RULE_VOTE = "tie-breaking vote"
RULE_BID = "safety auction"
RULE_SAFETY = "safety options"
RULE_ACCEPT = "safety options: the receiver must agree"
RULE_CEREMONY = "elimination ceremony"
RULE_TIEBREAK = "tie-breaking vote: the holder chooses among the tied"
RULE_SUFFICE = "quitting/ejections: suffice cycle"


def legal_moves(steps: int, position: int, length: int, exact: bool) -> list[int]:
    """Basics and transitioning: the moves a cyclist may make.  A move may not take its cyclist below
    zero steps, so one who is negative may only move 1-3 (which earn); with the ``exact_finish``
    option a move may not pass the last space."""
    return [n for n, delta in MOVES.items()
            if (delta >= 0 or steps + delta >= 0) and (not exact or position + n <= length)]


def steal_spaces(kind: str) -> tuple[int, ...]:
    """Stealing steps on 12, 18, 24; sudden death keeps only 12; a suffice cycle has no moves."""
    if kind == SUDDEN_DEATH:
        return SUDDEN_DEATH_STEAL_SPACES
    return STEAL_SPACES if kind in (NORMAL, FINAL) else ()


def steal_targets(state: State, thief: str) -> list[str]:
    """Stealing steps: any one other cyclist still in the game who has at least five steps."""
    return [c for c in state["cyclists"] if c != thief and state["steps"][c] >= STEAL_AMOUNT]


def may_buy_vote(state: State, cyclist: str) -> str | None:
    """Tie-breaking vote: why ``cyclist`` may not buy it now, or None if they may.  It is for sale on its
    space in normal cycles until someone buys it; the buyer pays ten steps they have (ruling: "ten positive
    steps" means the buyer holds at least ten, so the purchase never takes them below zero)."""
    cycle = state["cycle"]
    if cycle["kind"] != NORMAL or cycle["tiebreak_space"] is None:
        return "this cycle has no tie-breaking vote"
    if cycle["vote_holder"] is not None:
        return "the tie-breaking vote has already been bought this cycle"
    if state["position"].get(cyclist) != cycle["tiebreak_space"]:
        return f"only a cyclist who lands on space {cycle['tiebreak_space']} may buy the vote"
    if state["steps"][cyclist] < VOTE_PRICE:
        return f"buying the vote takes ten positive steps; you have {state['steps'][cyclist]}"
    return None


def auction_result(bids: dict[str, int], rebid: bool) -> str:
    """Safety auction: 'won' (different bids), 'destroyed' (0-0, or any tied re-bid), 'draw' (20-20, the
    randomizer picks), or 'rebid' (a tie at 1-19)."""
    first, second = bids.values()
    if first != second:
        return "won"
    if rebid or first == 0:
        return "destroyed"
    return "draw" if first == MAX_BID else "rebid"


def auction_payments(bids: dict[str, int], result: str, winner: str | None) -> dict[str, int]:
    """Safety auction: both pay what they bid, except after a 20-20 tie, where the drawn winner pays
    nothing and the loser forty."""
    if result == "draw":
        return {c: 0 if c == winner else DRAW_LOSER_PAYS for c in bids}
    return dict(bids)


def ceremony_candidates(state: State) -> list[str]:
    """Elimination ceremony: anyone may be voted for except the cyclist who keeps safety."""
    keeper = safety_keeper(state)
    return [c for c in state["cyclists"] if c != keeper]


def safety_keeper(state: State) -> str | None:
    safety = state["safety"]
    return safety["holder"] if safety and safety["status"] == "kept" else None


def automatic_voters(state: State) -> list[str]:
    """Elimination ceremony: a cyclist with negative steps has their vote cast against themselves, unless
    safe (a keeper of safety casts no vote at all)."""
    keeper = safety_keeper(state)
    return [c for c in state["cyclists"] if c != keeper and state["steps"][c] < 0]


def ceremony_voters(state: State) -> list[str]:
    """Elimination ceremony: everyone but the keeper of safety votes; negative cyclists' votes are cast
    for them (``automatic_voters``), so they are not asked."""
    keeper = safety_keeper(state)
    automatic = automatic_voters(state)
    return [c for c in state["cyclists"] if c != keeper and c not in automatic]


def usable_vote_holder(state: State) -> str | None:
    """Tie-breaking vote: the holder may use it if still in the game and not protected by safety."""
    holder = state["cycle"]["vote_holder"]
    if holder is None or holder not in state["cyclists"] or holder == safety_keeper(state):
        return None
    return holder


def count_votes(candidates: list[str], ballots: dict[str, str]) -> dict[str, int]:
    """Elimination ceremony: the number of votes each candidate received (secret ballots, public counts)."""
    counts = {c: 0 for c in candidates}
    for target in ballots.values():
        counts[target] += 1
    return counts


def most_voted(counts: dict[str, int]) -> list[str]:
    top = max(counts.values())
    return [c for c, n in counts.items() if n == top]


def suffice_distance(state: State, cyclist: str) -> int:
    """Quitting/ejections: in a suffice cycle a cyclist may add or subtract the spaces they have left
    to the end of the cycle (30, or 15 in sudden death)."""
    return max(0, state["cycle"]["length"] - state["position"][cyclist])


SUFFICE_SIGN = {"add": 1, "subtract": -1, "ignore": 0}
