"""Shortcuts in the work only the audit does (setup re-drawn from the seed, every phase resolved) must say exactly
what the plain rules say, on any input a re-hashed log can hold (the plain versions are here or in
test_fast_paths):

- ``draw_split`` draws its three choices of three in one ``belows(3, 3)`` when every true index is one of 0-3;
- ``packet_contents`` reads a pair's two false moves from a table keyed by the true and single-slot indices;
- the auction's resolution fills what the winners paid as it goes through the players.
"""
from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engines.extreme_ways import ENGINE, rules
from engines.extreme_ways.resolution import _announcement
from engines.rng import Rng
from tests.engines.extreme_ways.helpers import new_game
from tests.engines.extreme_ways.test_fast_paths import CANDIDATES, outcome_or_error, plain_packet_contents

SETTINGS = settings(max_examples=400, deadline=None)

# What a re-hashed log's GM-fixed rounds may hold where an index goes: in range or not, numbers equal to an index
# that are not ints (True == 1, 2.0 == 2), and values that are no number (a list cannot even be hashed).
ODD_INDEX = st.one_of(st.integers(0, 3), st.integers(-2, 5), st.booleans(), st.sampled_from([0.0, 2.0, 1.5, None]),
                      st.just([1]), st.just("1"))


def plain_draw_split(rng: Rng, true: Any) -> dict[str, int]:
    return {letter: rng.choice(rules.false_indices(true[letter])) for letter in ("B", "C", "D")}


@SETTINGS
@given(seed=st.text(max_size=4), true=st.fixed_dictionaries({x: ODD_INDEX for x in rules.OPTIONS}))
def test_draw_split_draws_what_the_plain_choices_draw(seed: str, true: dict[str, Any]) -> None:
    fast, plain = Rng(seed, "split", 1), Rng(seed, "split", 1)
    assert repr(rules.draw_split(fast, true)) == repr(plain_draw_split(plain, true))  # repr: ints, not bools
    assert fast.below(1000) == plain.below(1000)  # the streams stand at the same place afterwards


@SETTINGS
@given(seed=st.text(max_size=4))
def test_draw_split_of_drawn_rounds(seed: str) -> None:
    """The usual case: true indices as setup draws them."""
    rng = Rng(seed, "round", 1)
    true = rules.generate_round(rng, 2)["true"]
    fast, plain = Rng(seed, "split", 1), Rng(seed, "split", 1)
    assert repr(rules.draw_split(fast, true)) == repr(plain_draw_split(plain, true))


@SETTINGS
@given(candidates=CANDIDATES,
       true=st.dictionaries(st.sampled_from(rules.OPTIONS), ODD_INDEX, min_size=3),
       split=st.dictionaries(st.sampled_from(("B", "C", "D", "A")), ODD_INDEX, min_size=2))
def test_packet_contents_with_odd_indices_are_the_plain_packets(candidates: Any, true: Any, split: Any) -> None:
    """The same packets (repr: the same types) or the same error, whatever the indices are."""
    fast = outcome_or_error(rules.packet_contents, candidates, true, split)
    assert repr(fast) == repr(outcome_or_error(plain_packet_contents, candidates, true, split))


@SETTINGS
@given(candidates=CANDIDATES, true=st.fixed_dictionaries({x: st.integers(0, 3) for x in rules.OPTIONS}),
       picks=st.fixed_dictionaries({x: st.integers(0, 2) for x in ("B", "C", "D")}))
def test_packet_contents_of_real_splits_are_the_plain_packets(candidates: Any, true: Any, picks: Any) -> None:
    """Every split setup can draw (a false index for each of B, C and D): the table's every entry is read."""
    split = {x: rules.false_indices(true[x])[k] for x, k in picks.items()}
    packets = rules.packet_contents(candidates, true, split)
    assert packets == plain_packet_contents(candidates, true, split)
    given = [move for option in candidates.values() for move in option]
    for packet in packets.values():
        for option in packet.values():
            for kind, value in option.items():
                for move in [value] if kind == "true" else value:
                    assert not any(move is m for m in given), "the packets' moves are copies"


def plain_resolve_bidding(state: Any) -> dict[str, Any]:
    """Loki's Auction as the rules read: the bids of players still in, ranked; only packet winners pay."""
    number = state["round"]
    active = [p for p in state["players"] if p not in state["ejected"]]
    placed = state["bids"]
    bids = {p: placed[p] for p in sorted(placed) if placed[p] is not None and p in active}
    awarded = rules.award_packets(bids)
    packets = rules.round_packets(state["rounds"][number - 1]["options"], state["secret_rounds"][number - 1])
    packet_of = {p: k for k, winners in awarded.items() for p in winners}
    paid = {p: amount for p, amount in bids.items() if p in packet_of}
    leftover = rules.leftover_packets(awarded) if rules.reveals_leftover_packets(state["options"]) else []
    private: dict[str, Any] = {}
    for p in sorted(active):
        packet, cost = packet_of.get(p), paid.get(p, 0)
        private[p] = {"bid": bids.get(p), "gold": state["gold"][p] - cost, "packet": packet, "paid": cost,
                      "round": number}
        if packet is not None:
            private[p]["contents"] = packets[packet]
        private[p] = dict(sorted(private[p].items()))
    return {
        "private": private,
        "public": {"announcement": _announcement(state["options"]["announce"], awarded, bids), "phase": "bidding",
                   "revealed_packets": {k: packets[k] for k in leftover}, "round": number},
        "secret": {"bids": bids, "packets": awarded, "paid": paid, "round": number},
    }


PLAYERS = [f"p{i}" for i in range(1, 12)]  # joined in an order that is not sorted ("p10" < "p2")
BIDDERS = st.sampled_from([*PLAYERS, "p12"])  # p12 never joined
GOLD = st.one_of(st.integers(0, 60), st.just(True), st.just(2.5))


@SETTINGS
@given(bids=st.dictionaries(BIDDERS, st.one_of(st.none(), st.integers(1, 9)), max_size=12),
       gold=st.fixed_dictionaries({p: GOLD for p in PLAYERS}),
       ejected=st.lists(st.sampled_from(PLAYERS), unique=True, max_size=2),
       announce=st.sampled_from(["none", "winners", "winners_and_amounts"]))
def test_an_auction_resolves_as_the_plain_rules_read(bids: Any, gold: Any, ejected: Any, announce: str) -> None:
    """Any bids in any order (passes, players removed, someone who never joined), gold a forged log may give
    (True pays like 1 and shows as 1; 2.5): the same outcome, repr for repr (types and key order)."""
    state = new_game(len(PLAYERS), {"announce": announce})
    state = {**state, "bids": bids, "gold": gold, "ejected": ejected}
    assert repr(ENGINE.resolve(state, Rng("s", "phase", 1))) == repr(plain_resolve_bidding(state))
