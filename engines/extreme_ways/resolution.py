"""Resolutions of Extreme Ways: Loki's Auction, the Moving Phase and the EC vote.

Each ``resolve`` returns an outcome in the contract's shape with every random draw in
it; ``apply_outcome`` only reads that record.  Outcomes are built in round-trip form (every
dict's keys inserted in sorted order: canonical JSON sorts them anyway), and so is what
``apply_outcome`` builds, so that ``resolve_applied`` can hand the audit the state after an
outcome as it is, with no round trip.
"""
from __future__ import annotations

from typing import Any

from engines.canonical import ORJSON_INTS, in_roundtrip_form, roundtrip, sorted_keys
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


def resolve_applied(state: State, rng: Rng) -> tuple[JSON, State | None]:
    """``resolve``, and the state after its outcome in round-trip form (``Engine.resolve_applied``): the outcome
    is built in that form, so ``apply_outcome`` of it is the outcome round-tripped applied, and what it makes is
    in form too; only the parts of the state that the phase's orders (``apply_action``, any key order, any value
    ``validate`` lets through) changed and the state after keeps need a look (``_SETTLE``).  None where applying
    raises or a part cannot be put in form (a forged order's float)."""
    outcome = resolve(state, rng)
    try:
        after = apply_outcome(state, outcome)
        return outcome, _SETTLE[state["stage"]](after)
    except Exception:  # a state no engine step makes: the audit applies the recorded outcome and says what fails
        return outcome, None


def _settled_auction(after: State) -> State | None:
    """After an auction: the orders changed gold (buy_gold) and garnets (buy_gold, gm.set_garnets) of players
    already keyed, so only their values need a look (plain ints, as nearly always), and purchases, which
    ``apply_action`` builds in sorted key order from the order's count (a float there shows in the gold too);
    the bids start over."""
    if _plain_counts(after["gold"], after["garnets"]):
        return after
    return _with_parts_in_form(after, ("gold", "garnets", "purchases"))


def _settled_moving(after: State) -> State | None:
    """After the Moving Phase: the submissions, keyed in the order they came.  ``apply_action`` builds each in
    sorted key order, its options a new list of letters or None (resolving read every one); only a rebound is
    as the log holds it, any key order, anything ``validate`` does not look at."""
    moves = after["moves"]
    if any(sub["rebound"] is not None for sub in moves.values()):
        return _with_parts_in_form(after, ("moves",))
    after["moves"] = sorted_keys(moves)
    return after


def _settled_vote(after: State) -> State | None:
    """After the EC vote: the ballots (in the order they came), gm.set_garnets's counts, and the elimination with
    the vote's result added among its keys."""
    after["elimination"] = sorted_keys(after["elimination"])
    return _with_parts_in_form(after, ("votes", "garnets"))


_SETTLE = {"bidding": _settled_auction, "moving": _settled_moving, "ec_vote": _settled_vote}
_INT_ONLY = frozenset({int})


def _plain_counts(gold: dict[str, Any], garnets: dict[str, Any]) -> bool:
    """Every value exactly an int, and the garnets' ones ints that orjson writes (gm.set_garnets sets any): the
    gold the outcome gives (which only matches the log where orjson writes it) or an ejected player's, as it was.
    C calls only: the audit asks after every auction."""
    counts = garnets.values()
    return (_INT_ONLY.issuperset(map(type, gold.values())) and _INT_ONLY.issuperset(map(type, counts))
            and (not counts or min(counts) in ORJSON_INTS and max(counts) in ORJSON_INTS))


def _with_parts_in_form(after: State, keys: tuple[str, ...]) -> State | None:
    """``after`` with those parts in round-trip form (``_in_form``), or None where one cannot be."""
    for key in keys:
        part = _in_form(after[key])
        if part is None:
            return None
        after[key] = part
    return after


def _in_form(part: JSON) -> JSON | None:
    """``part`` in round-trip form: as it is when it already is, else round-tripped; None where even that is not
    (a float), or it does not round-trip."""
    if in_roundtrip_form(part):
        return part
    try:
        part = roundtrip(part)
    except Exception:
        return None
    return part if in_roundtrip_form(part) else None


def _resolve_bidding(state: State) -> JSON:
    """Loki's Auction: rank by distinct amount, only packet receivers pay."""
    number = state["round"]
    active = active_players(state)
    placed = state["bids"]  # in the order the bids came
    bids = {p: placed[p] for p in sorted(placed) if placed[p] is not None and p in active}
    awarded = rules.award_packets(bids)
    packets = rules.round_packets(state["rounds"][number - 1]["options"],
                                  state["secret_rounds"][number - 1])
    packet_of = {p: k for k, winners in awarded.items() for p in winners}
    leftover = rules.leftover_packets(awarded) if rules.reveals_leftover_packets(state["options"]) else []
    gold = state["gold"]
    private: dict[str, Any] = {}
    paid: dict[str, Any] = {}  # the winners' bids, in sorted order as the bids are: filled in the loop below
    for p in sorted(active):
        packet = packet_of.get(p)
        if packet is None:  # (- 0: a count is what it would be after paying nothing, whatever its type)
            private[p] = {"bid": bids.get(p), "gold": gold[p] - 0, "packet": None, "paid": 0, "round": number}
        else:  # a winner bid (bids holds every winner); the contents: made for this outcome, shared, never changed
            cost = paid[p] = bids[p]
            private[p] = {"bid": cost, "contents": packets[packet], "gold": gold[p] - cost, "packet": packet,
                          "paid": cost, "round": number}
    return {
        "private": private,
        "public": {
            "announcement": _announcement(state["options"]["announce"], awarded, bids),
            "phase": "bidding",
            "revealed_packets": {k: packets[k] for k in leftover},
            "round": number,
        },
        "secret": {"bids": bids, "packets": awarded, "paid": paid, "round": number},
    }


def _announcement(mode: str, awarded: dict[str, list[str]], bids: dict[str, int]) -> JSON:
    """What the MM Winner decision announces after each auction."""
    if mode == "none":
        return None
    if mode == "winners":
        return {k: list(v) for k, v in awarded.items()}
    return {k: {"amount": bids[v[0]], "players": list(v)} for k, v in awarded.items()}


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
        randomised[p] = {}
        if None in letters:  # most submit every round: nothing to draw
            missing = [i for i, letter in enumerate(letters)
                       if letter is None and not (p in rebounds and rebounds[p]["round"] == i + 1)]
            if missing:  # forked only then (a fork hashes); a rng.choice of an option for each, in order
                picks = rng.fork("options", p).belows(len(rules.OPTIONS), len(missing))
                for i, pick in zip(missing, picks):
                    letters[i] = rules.OPTIONS[pick]
                    randomised[p][str(i + 1)] = letters[i]
        choices[p] = letters
    played_rounds = [
        {"candidates": r["options"], "true": s["true"]}
        for r, s in zip(state["rounds"], state["secret_rounds"])
    ]
    paths = rules.play_moves(choices, rebounds, played_rounds, active)  # in join order: what raises first
    ids = sorted(active)  # the outcome's dicts by player, in sorted order
    positions = {p: paths[p][-1] for p in ids}
    distances = {p: rules.manhattan(positions[p]) for p in ids}
    tokens = rules.tokens_of_life(positions)
    counts = rules.tokens_per_player(tokens, ids)
    awarded = {p: rules.garnets_awarded(state["gold"][p], counts[p] > 0) for p in ids}
    garnets = {p: state["garnets"][p] + awarded.get(p, 0) for p in sorted(state["players"])}
    tiebreak = rules.tiebreak_garnets(state["options"], state["garnets"], awarded)
    elimination = _find_ec(state, active, distances, counts, tiebreak, rng)
    return {  # randomised rounds are keyed by number: from round 10 on, "10" sorts before "2"
        "private": {p: {"options": choices[p],
                        "randomised": randomised[p] if total < 10 else sorted_keys(randomised[p])} for p in ids},
        "public": {
            "distances": distances,
            "elimination": elimination,
            "garnets_awarded": awarded,
            "gold": {p: state["gold"][p] for p in ids},
            "phase": "moving",
            "positions": positions,
            "tokens": counts,
            "tokens_of_life": tokens,
        },
        "secret": {"garnets": garnets, "paths": {p: paths[p] for p in ids}},
    }


def _find_ec(state: State, active: list[str], distances: dict[str, int], counts: dict[str, int],
             garnets: dict[str, int], rng: Rng) -> JSON:
    """The Elimination Candidate: lowest distance among those eligible; a tie goes to a
    vote of the Token of Life holders (in join order), or straight to the garnet/random tie-break
    (drawing from the phase's ``ec`` stream, forked only then)."""
    exclude = rules.ec_excludes_token_holders(state["options"])
    eligible = [p for p in active if not (exclude and counts[p] > 0)]
    tied = rules.lowest_distance(distances, eligible)
    voters = [p for p in active if counts[p] > 0]
    out: JSON = {"candidates": tied, "decided_by": None, "ec": None, "voters": []}
    if len(tied) == 1:
        out.update(ec=tied[0], decided_by="lowest distance")
    elif len(tied) > 1 and voters:
        out["voters"] = voters
    elif len(tied) > 1:
        ec, how = rules.break_tie(tied, garnets, rng.fork("ec"))
        out.update(ec=ec, decided_by=how)
    else:
        out["decided_by"] = "nobody eligible"
    return out


def _resolve_ec_vote(state: State, rng: Rng) -> JSON:
    """Tally the Token holders' votes; a tie goes to fewest garnets, then random."""
    elim = state["elimination"]
    candidates = ec_candidates(state)
    voters = [v for v in elim["voters"] if v not in state["ejected"]]
    votes = {v: state["votes"][v] for v in sorted(voters) if state["votes"].get(v) in candidates}
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
        "private": {},
        "public": {"decided_by": how, "ec": ec, "phase": "ec_vote", "tally": tally},
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
                packets_won[p] = [*packets_won[p], {"contents": mine["contents"], "packet": mine["packet"],
                                                    "paid": mine["paid"], "round": mine["round"]}]
        new["gold"], new["packets_won"] = gold, packets_won
        new["auctions"] = [*state["auctions"], {"public": public, "secret": outcome["secret"]}]
        new["bids"] = {}
        new["round"] += 1
        if new["round"] > len(new["rounds"]):
            new["stage"], new["round"] = "moving", None
    elif public["phase"] == "moving":
        new["played"] = {"choices": {p: mine["options"] for p, mine in outcome["private"].items()},
                         "paths": outcome["secret"]["paths"],
                         "randomised": {p: mine["randomised"] for p, mine in outcome["private"].items()}}
        new["garnets"] = dict(outcome["secret"]["garnets"])
        new["results"] = {k: v for k, v in public.items() if k not in ("phase", "elimination")}
        new["elimination"] = public["elimination"]
        new["stage"] = "ec_vote" if new["elimination"]["voters"] else "over"
    elif public["phase"] == "ec_vote":
        elimination = state["elimination"]
        if type(elimination) is dict:  # anything else (a tampered log) fails on update, as it always did
            elimination = dict(elimination)
        elimination.update(ec=public["ec"], decided_by=public["decided_by"],
                           tally=dict(public["tally"]), votes=dict(outcome["secret"]["votes"]))
        new["elimination"] = elimination
        new["stage"] = "over"
    return new
