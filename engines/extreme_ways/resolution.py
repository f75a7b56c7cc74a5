"""Resolutions of Extreme Ways: Loki's Auction, the Moving Phase and the EC vote.

Each ``resolve`` returns an outcome in the contract's shape with every random draw in
it; ``apply_outcome`` only reads that record.
"""
from __future__ import annotations

import copy
from typing import Any

from engines.contract import JSON, State, not_now
from engines.extreme_ways import rules
from engines.extreme_ways.players import active_players, ec_candidates
from engines.rng import Rng


def resolve(state: State, rng: Rng) -> JSON:
    """The outcome of the open phase, missing orders defaulted, every draw recorded."""
    stage = state["stage"]
    if stage == "bidding":
        return _resolve_bidding(state)
    if stage == "moving":
        return _resolve_moving(state, rng)
    if stage == "ec_vote":
        return _resolve_ec_vote(state, rng)
    raise not_now("game over", "The game is over.")


def _resolve_bidding(state: State) -> JSON:
    """Loki's Auction: rank by distinct amount, only packet receivers pay (the others' bids are refunded)."""
    number = state["round"]
    active = active_players(state)
    bids = {p: amount for p, amount in state["bids"].items() if amount is not None and p in active}
    awarded = rules.award_packets(bids)
    packets = rules.round_packets(state["rounds"][number - 1]["options"],
                                  state["secret_rounds"][number - 1])
    packet_of = {p: k for k, winners in awarded.items() for p in winners}
    paid = {p: bids[p] for p in packet_of}
    leftover = rules.leftover_packets(awarded) if rules.reveals_leftover_packets(state["options"]) else []
    private: dict[str, Any] = {}
    for p in active:
        packet, cost = packet_of.get(p), paid.get(p, 0)
        mine: dict[str, Any] = {"round": number, "bid": bids.get(p), "packet": packet, "paid": cost,
                                "gold": state["gold"][p] - cost}
        if packet is not None:
            mine["contents"] = packets[packet]  # made for this outcome: shared, never changed
        private[p] = mine
    return {
        "public": {
            "phase": "bidding",
            "round": number,
            "announcement": _announcement(state["options"]["announce"], awarded, bids),
            "revealed_packets": {k: packets[k] for k in leftover},
        },
        "private": private,
        "secret": {"round": number, "bids": bids, "packets": awarded, "paid": paid},
    }


def _announcement(mode: str, awarded: dict[str, list[str]], bids: dict[str, int]) -> JSON:
    """What the MM Winner decision announces after each auction."""
    if mode == "none":
        return None
    if mode == "winners":
        return {k: list(v) for k, v in awarded.items()}
    return {k: {"players": list(v), "amount": bids[v[0]]} for k, v in awarded.items()}


def _resolve_moving(state: State, rng: Rng) -> JSON:
    """Moving Phase: randomise missing options, move, award Tokens of Life and garnets, find the EC."""
    active = active_players(state)
    total = len(state["rounds"])
    choices: dict[str, list[str | None]] = {}
    randomised: dict[str, dict[str, str]] = {}
    rebounds: dict[str, JSON] = {}
    for p in active:
        sub = state["moves"].get(p) or {"options": [None] * total, "rebound": None}
        if sub["rebound"] is not None:
            rebounds[p] = sub["rebound"]
        letters = list(sub["options"])
        missing = [i for i, letter in enumerate(letters)
                   if letter is None and not (p in rebounds and rebounds[p]["round"] == i + 1)]
        randomised[p] = {}
        if missing:  # randomised from the player's own stream, in round order
            draw = rng.fork("options", p)
            for i in missing:
                letters[i] = draw.choice(rules.OPTIONS)
                randomised[p][str(i + 1)] = letters[i]
        choices[p] = letters
    played_rounds = [
        {"candidates": r["options"], "true": s["true"]}
        for r, s in zip(state["rounds"], state["secret_rounds"])
    ]
    paths = rules.play_moves(choices, rebounds, played_rounds, active)
    positions = {p: paths[p][-1] for p in active}
    distances = {p: rules.manhattan(positions[p]) for p in active}
    tokens = rules.tokens_of_life(positions)
    counts = rules.tokens_per_player(tokens, active)
    awarded = {p: rules.garnets_awarded(state["gold"][p], counts[p] > 0) for p in active}
    garnets = {p: state["garnets"][p] + awarded.get(p, 0) for p in state["players"]}
    tiebreak = rules.tiebreak_garnets(state["options"], state["garnets"], awarded)
    elimination = _find_ec(state, active, distances, counts, tiebreak, rng.fork("ec"))
    return {
        "public": {
            "phase": "moving",
            "positions": positions,
            "distances": distances,
            "gold": {p: state["gold"][p] for p in active},
            "tokens_of_life": tokens,
            "tokens": counts,
            "garnets_awarded": awarded,
            "elimination": elimination,
        },
        "private": {p: {"options": choices[p], "randomised": randomised[p]} for p in active},
        "secret": {"paths": paths, "garnets": garnets},
    }


def _find_ec(state: State, active: list[str], distances: dict[str, int], counts: dict[str, int],
             garnets: dict[str, int], rng: Rng) -> JSON:
    """The Elimination Candidate: lowest distance among those eligible; a tie goes to a
    vote of the Token of Life holders (in join order), or straight to the garnet/random tie-break."""
    exclude = rules.ec_excludes_token_holders(state["options"])
    eligible = [p for p in active if not (exclude and counts[p] > 0)]
    tied = rules.lowest_distance(distances, eligible)
    voters = [p for p in active if counts[p] > 0]
    out: JSON = {"candidates": tied, "voters": [], "ec": None, "decided_by": None}
    if len(tied) == 1:
        out.update(ec=tied[0], decided_by="lowest distance")
    elif len(tied) > 1 and voters:
        out["voters"] = voters
    elif len(tied) > 1:
        ec, how = rules.break_tie(tied, garnets, rng)
        out.update(ec=ec, decided_by=how)
    else:
        out["decided_by"] = "nobody eligible"
    return out


def _resolve_ec_vote(state: State, rng: Rng) -> JSON:
    """Tally the Token holders' votes; a tie goes to fewest garnets, then random."""
    elim = state["elimination"]
    candidates = ec_candidates(state)
    voters = [v for v in elim["voters"] if v not in state["ejected"]]
    votes = {v: state["votes"][v] for v in voters if state["votes"].get(v) in candidates}
    tally = rules.tally_votes(votes, candidates)
    if not candidates:
        ec, how = None, "nobody eligible"
    elif len(candidates) == 1:
        ec, how = candidates[0], "only candidate left"
    else:
        top = rules.most_voted(votes, candidates)
        awarded = state["results"]["garnets_awarded"]
        before = {p: held - awarded.get(p, 0) for p, held in state["garnets"].items()}
        garnets = rules.tiebreak_garnets(state["options"], before, awarded)
        ec, how = (top[0], "vote") if len(top) == 1 else rules.break_tie(top, garnets, rng)
    return {
        "public": {"phase": "ec_vote", "tally": tally, "ec": ec, "decided_by": how},
        "private": {},
        "secret": {"votes": votes},
    }


def apply_outcome(state: State, outcome: JSON) -> State:
    """Fold a recorded outcome into the state, reading it only (never re-drawing).

    A new state that shares every part it does not change with ``state`` (and the parts it
    takes whole with ``outcome``): states are never mutated, so nothing needs copying, and a
    fold of a long game no longer copies the whole state at every resolution.
    """
    new = dict(state)
    public = outcome["public"]
    if public["phase"] == "bidding":
        gold, packets_won = dict(state["gold"]), dict(state["packets_won"])
        for p, mine in outcome["private"].items():
            gold[p] = mine["gold"]
            if mine["packet"] is not None:
                packets_won[p] = [*packets_won[p], {"round": mine["round"], "packet": mine["packet"],
                                                    "paid": mine["paid"], "contents": mine["contents"]}]
        new["gold"], new["packets_won"] = gold, packets_won
        new["auctions"] = [*state["auctions"], {"public": public, "secret": outcome["secret"]}]
        new["bids"] = {}
        new["round"] += 1
        if new["round"] > len(new["rounds"]):
            new["stage"], new["round"] = "moving", None
    elif public["phase"] == "moving":
        new["played"] = {"choices": {p: mine["options"] for p, mine in outcome["private"].items()},
                         "randomised": {p: mine["randomised"] for p, mine in outcome["private"].items()},
                         "paths": outcome["secret"]["paths"]}
        new["garnets"] = dict(outcome["secret"]["garnets"])
        new["results"] = {k: v for k, v in public.items() if k not in ("phase", "elimination")}
        new["elimination"] = public["elimination"]
        new["stage"] = "ec_vote" if new["elimination"]["voters"] else "over"
    elif public["phase"] == "ec_vote":
        elimination = copy.copy(state["elimination"])  # a new dict: states are never mutated
        elimination.update(ec=public["ec"], decided_by=public["decided_by"],
                           tally=dict(public["tally"]), votes=dict(outcome["secret"]["votes"]))
        new["elimination"] = elimination
        new["stage"] = "over"
    return new
