"""Pure rule functions of Extreme Ways: moves, Info Packets, auctions, rebounds, results.

Names follow the rulebook: options A-D each with four candidate moves (one true move,
three false moves), Info Packets 1-4, gold pieces, Tokens of Life, garnets and the
Elimination Candidate.  Moves are ``[dx, dy]`` lists; nothing here draws from an Rng
except the documented generators, which take one explicitly.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from engines.rng import Rng

Move = list[int]
OPTIONS: tuple[str, ...] = ("A", "B", "C", "D")
PACKETS: tuple[str, ...] = ("1", "2", "3", "4")
# Token of Life directions: (name, coordinate index, +1 for highest / -1 for lowest).
DIRECTIONS: tuple[tuple[str, int, int], ...] = (
    ("highest_x", 0, 1),
    ("lowest_x", 0, -1),
    ("highest_y", 1, 1),
    ("lowest_y", 1, -1),
)
BONUS_GARNETS = 2
GOLD_PER_GARNET_AWARDED = 15


# -- move generation (setup) -------------------------------------------------------
def generate_candidates(rng: Rng, move_range: int) -> list[Move]:
    """Four distinct candidate moves, each coordinate uniform in [-range, range], never (0, 0)."""
    moves: list[Move] = []
    while len(moves) < 4:
        move = [rng.randint(-move_range, move_range), rng.randint(-move_range, move_range)]
        if move != [0, 0] and move not in moves:
            moves.append(move)
    return moves


def generate_round(rng: Rng, move_range: int) -> dict[str, Any]:
    """One bidding round: candidates and the true move's index for each of options A-D.

    The order of the moves in each option is random, so the true move is any of the four.
    """
    candidates = {letter: generate_candidates(rng, move_range) for letter in OPTIONS}
    true = {letter: rng.below(4) for letter in OPTIONS}
    return {"candidates": candidates, "true": true}


def false_indices(true_index: int) -> list[int]:
    """The indices of an option's three false moves, in candidate order."""
    return [i for i in range(4) if i != true_index]


def draw_split(rng: Rng, true: Mapping[str, int]) -> dict[str, int]:
    """Which false moves go to the single-move slots of the packets.

    B: the false move in Packet 3 (the other two are in Packet 2); C: the false move in
    Packet 4 (the other two in Packet 2); D: the false move in Packet 4 (the other two in
    Packet 3).  Values are candidate indices.
    """
    return {letter: rng.choice(false_indices(true[letter])) for letter in ("B", "C", "D")}


def packet_contents(
    candidates: Mapping[str, Sequence[Move]], true: Mapping[str, int], split: Mapping[str, int]
) -> dict[str, dict[str, Any]]:
    """The four Info Packets exactly as the rulebook defines them.

    Packet 1: the true move for A.  Packet 2: two false moves each of B and C.
    Packet 3: one false move of B and two of D.  Packet 4: one false move each of C and D.
    No packet repeats another's information; together they reveal every true move.
    """
    return {
        "1": {"A": {"true": list(candidates["A"][true["A"]])}},
        "2": {"B": {"false": _pair(candidates, true, split, "B")}, "C": {"false": _pair(candidates, true, split, "C")}},
        "3": {"B": {"false": _single(candidates, split, "B")}, "D": {"false": _pair(candidates, true, split, "D")}},
        "4": {"C": {"false": _single(candidates, split, "C")}, "D": {"false": _single(candidates, split, "D")}},
    }


def _single(candidates: Mapping[str, Sequence[Move]], split: Mapping[str, int], letter: str) -> list[Move]:
    """The false move of ``letter`` in its packet's single-move slot."""
    return [list(candidates[letter][split[letter]])]


def _pair(
    candidates: Mapping[str, Sequence[Move]], true: Mapping[str, int], split: Mapping[str, int], letter: str
) -> list[Move]:
    """The two false moves of ``letter`` not in a single-move slot, in candidate order."""
    return [list(candidates[letter][i]) for i in false_indices(true[letter]) if i != split[letter]]


def round_packets(
    options: Mapping[str, Sequence[Move]], secret: Mapping[str, Any]
) -> dict[str, dict[str, Any]]:
    """A round's Info Packets from its public options and its secret true moves and split."""
    return packet_contents(options, secret["true"], secret["split"])


# -- the auction ---------------------------------------------------------------------
def award_packets(bids: Mapping[str, int]) -> dict[str, list[str]]:
    """Rank bids by distinct amount: the highest amount's bidders share Packet 1, the next
    distinct amount Packet 2, and so on; bids below the fourth distinct amount get nothing."""
    bidders: dict[int, list[str]] = {}  # by amount, in one pass over the bids
    for player, amount in bids.items():
        bidders.setdefault(amount, []).append(player)
    amounts = sorted(bidders, reverse=True)[: len(PACKETS)]
    return {PACKETS[rank]: sorted(bidders[value]) for rank, value in enumerate(amounts)}


def leftover_packets(awarded: Mapping[str, Sequence[str]]) -> list[str]:
    """Packets nobody won because there were fewer than four distinct bids (addendum)."""
    return [packet for packet in PACKETS if packet not in awarded]


# -- moving --------------------------------------------------------------------------
def step(position: Sequence[int], move: Sequence[int]) -> Move:
    return [position[0] + move[0], position[1] + move[1]]


def rebound(position: Sequence[int], about: Sequence[int]) -> Move:
    """Twist: move to the point opposite one's own start of round, about the chosen player's."""
    return [2 * about[0] - position[0], 2 * about[1] - position[1]]


def manhattan(position: Sequence[int]) -> int:
    """Manhattan distance from Odin at (0, 0)."""
    return abs(position[0]) + abs(position[1])


def play_moves(
    choices: Mapping[str, Sequence[str | None]],
    rebounds: Mapping[str, Mapping[str, Any]],
    rounds: Sequence[Mapping[str, Any]],
    movers: Sequence[str],
) -> dict[str, list[Move]]:
    """Every mover's position after each round (index 0 is the start, (0, 0)).

    All moves of a round happen at once: a rebound reflects about the chosen player's
    position at the start of that round.  Players not in ``movers`` stay at the origin.
    """
    paths: dict[str, list[Move]] = {p: [[0, 0]] for p in choices}
    for number, rnd in enumerate(rounds, start=1):
        start = {p: path[-1] for p, path in paths.items()}
        for player in paths:
            here = start[player]
            use = rebounds.get(player)
            if player not in movers:
                nxt = list(here)
            elif use is not None and use["round"] == number:
                nxt = rebound(here, start.get(use["player_id"], [0, 0]))
            else:
                letter = choices[player][number - 1]
                assert letter is not None, "missing options are randomised before moving"
                nxt = step(here, rnd["candidates"][letter][rnd["true"][letter]])
            paths[player].append(nxt)
    return paths


# -- results -------------------------------------------------------------------------
def tokens_of_life(positions: Mapping[str, Sequence[int]]) -> dict[str, str | None]:
    """Who wins each extreme: tied first places are skipped and the Token goes to the
    next value that only one player holds (None if every value is shared)."""
    out: dict[str, str | None] = {}
    for name, axis, sign in DIRECTIONS:
        holders: dict[int, list[str]] = {}
        for player, pos in positions.items():
            holders.setdefault(pos[axis], []).append(player)
        winner = None
        for value in sorted(holders, reverse=sign > 0):  # the most extreme value first
            if len(holders[value]) == 1:
                winner = holders[value][0]
                break
        out[name] = winner
    return out


def tokens_held(tokens: Mapping[str, str | None], player: str) -> list[str]:
    """The extremes a player won, in the rulebook's order (never the mapping's key order)."""
    return [name for name, _axis, _sign in DIRECTIONS if tokens.get(name) == player]


def tokens_per_player(tokens: Mapping[str, str | None], players: Sequence[str]) -> dict[str, int]:
    counts = {p: 0 for p in players}
    for winner in tokens.values():
        if winner is not None:
            counts[winner] += 1
    return counts


def garnets_awarded(gold: int, is_winner: bool) -> int:
    """One garnet per 15 gold pieces left (rounded down), plus 2 for any winner."""
    return gold // GOLD_PER_GARNET_AWARDED + (BONUS_GARNETS if is_winner else 0)


def reveals_leftover_packets(options: Mapping[str, Any]) -> bool:
    """Whether the later addendum reveals unwon packets.  Unless the GM says, it follows
    ``announce``: with "none" it is off, as a leftover packet tells how many distinct bids
    there were, and the MM Winner's "no info is ever revealed" would be broken (ruling 7)."""
    if options["reveal_leftover_packets"] is not None:
        return bool(options["reveal_leftover_packets"])
    return options["announce"] != "none"


def ec_excludes_token_holders(options: Mapping[str, Any]) -> bool:
    """Whether Token of Life holders are skipped for EC.  New games record the option (true unless the GM
    says false: both texts exclude them); null is how games created before that default were recorded, and
    they keep the reading they were played under (later text: yes; earlier text: no)."""
    if options["ec_exclude_token_holders"] is not None:
        return bool(options["ec_exclude_token_holders"])
    return options["ec_rule"] == "later"


def lowest_distance(distances: Mapping[str, int], eligible: Sequence[str]) -> list[str]:
    """The eligible players tied at the lowest Manhattan distance (sorted ids)."""
    if not eligible:
        return []
    low = min(distances[p] for p in eligible)
    return sorted(p for p in eligible if distances[p] == low)


def tally_votes(votes: Mapping[str, str], candidates: Sequence[str]) -> dict[str, int]:
    """Votes per candidate; ballots for anyone else are not counted."""
    tally = {c: 0 for c in candidates}
    for choice in votes.values():
        if choice in tally:
            tally[choice] += 1
    return tally


def most_voted(votes: Mapping[str, str], candidates: Sequence[str]) -> list[str]:
    """The candidates with the most votes (all candidates if nobody voted for any)."""
    tally = tally_votes(votes, candidates)
    top = max(tally.values(), default=0)
    return sorted(c for c in candidates if tally[c] == top)


def fewest_garnets(garnets: Mapping[str, int], candidates: Sequence[str]) -> list[str]:
    low = min(garnets[c] for c in candidates)
    return sorted(c for c in candidates if garnets[c] == low)


def tiebreak_garnets(
    options: Mapping[str, Any], before_award: Mapping[str, int], awarded: Mapping[str, int]
) -> dict[str, int]:
    """The garnets an EC tie-break compares: after this game's award (default) or before it."""
    if options["ec_tiebreak_garnets"] == "before_award":
        return dict(before_award)
    return {p: held + awarded.get(p, 0) for p, held in before_award.items()}


def break_tie(candidates: Sequence[str], garnets: Mapping[str, int], rng: Rng) -> tuple[str, str]:
    """Elimination Candidate tie-break after the vote: fewest garnets, then random."""
    low = fewest_garnets(garnets, candidates)
    if len(low) == 1:
        return low[0], "fewest garnets"
    return rng.choice(low), "random"
