"""What validating a round's orders found, kept for resolving the round.

The audit validates every order, applies it, and resolves the round on the state those orders made: each
runner's card, rule 8 check and split (rules 5 and 12) were then worked out already, on the same hands.  They are
kept here, and used only for the very objects checked: the state ``apply_action`` made of the
state ``validate`` checked, through an unbroken chain of such states to the one resolved (states are never changed
in place, so each shares the runners, options and round of the one before), for an order whose values are the
very ones validate read.  Anything else finds nothing here and works it all out again.
"""
from __future__ import annotations

from typing import Any

# What validate found of one runner's play: the order's card, move, bank and deduct (the very objects it read: all
# it reads of an order that plays a held card), the index of the card in the runner's hand, and rule 5's (D, M, B).
Play = tuple[Any, Any, Any, Any, int, tuple[int, int, int]]


class _Round:
    """The orders applied so far in a round: the state the last made, and what validate found of each (by runner)."""

    __slots__ = ("state", "plays")

    def __init__(self) -> None:
        self.state: dict[str, Any] | None = None
        self.plays: dict[str, Play] = {}


class _Kept:
    """What the last calls kept for the next.  One slot for the whole process, shared by its threads (a thread-local
    costs more to read than every apply_action could spare): each use is guarded by the identity of what was
    checked, and states and orders are never changed in place, so a thread only ever
    finds here what it would work out itself, or nothing."""

    __slots__ = ("checked", "round", "labels", "places", "players")

    def __init__(self) -> None:
        # The last order validate let through: (state, order, runner, play), or None.
        self.checked: tuple[dict[str, Any], dict[str, Any], dict[str, Any], Play | None] | None = None
        self.round: _Round | None = None  # the round's orders so far, if validate found any
        # The hands the last round resolved for the audit made, by id, each with its cards' labels ("value/turn",
        # the row's less the cards gone): the next round writes them again.  The hand is held here, so its id is
        # its own while it is, and hands are never changed in place.
        self.labels: dict[int, tuple[list[dict[str, int]], list[str]]] = {}
        # The runners list of the state that round made (held here, so its id is its own while it is), and the places
        # of its runners in the race, in field order (the rows' places): the next round ranks the same squares.
        self.places: tuple[list[dict[str, Any]], list[int]] | None = None
        # The players list of the game validate last asked about, and its players' ids: every state of a game holds
        # the same list (never changed in place; held here, so its id is its own while it is).
        self.players: tuple[list[dict[str, Any]], frozenset[Any]] | None = None


LAST = _Kept()


def applied(state: dict[str, Any], new: dict[str, Any], rid: str, play: Play) -> None:
    """``apply_action`` made ``new`` of ``state`` with an order for runner ``rid``, of which ``validate`` found
    ``play``.  The round's plays kept so far go on only if the last of them made ``state``."""
    kept = LAST.round
    if kept is None or kept.state is not state:
        kept = LAST.round = _Round()
    kept.state = new
    kept.plays[rid] = play


def plays_for(state: dict[str, Any]) -> dict[str, Play] | None:
    """What ``validate`` found of the orders that made ``state`` (by runner), or None.  Handed out once."""
    kept = LAST.round
    if kept is None:
        return None
    LAST.round = None
    return kept.plays if kept.state is state else None
