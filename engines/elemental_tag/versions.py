"""Elemental Tag's versions, and the rulings that differ between them: the one place they are written.

A game replays under the rules it was played under (``game.created`` records the version), so a
behaviour change is a new version: one row here, read where the rule is applied (rules.py, board.py,
engine.py).  A new game gets the latest version; recorded games keep theirs.
"""
from __future__ import annotations

from dataclasses import dataclass

from engines import versioning


@dataclass(frozen=True, kw_only=True)
class Rulings(versioning.Rulings):
    """One version's answers where versions differ; each field names the rule it applies."""

    # Rule 3, third kind: a crossing of players one above the other (one going se, the other ne) is found too;
    # 1.0.0 found only players side by side.
    crossings_both_ways: bool
    # Rule 3, "collisions of the same precedence are simultaneous": a player stopped in one pass is not the
    # still occupant of their square for the rest of that same pass; 1.0.0 counted them still at once.
    same_pass_is_simultaneous: bool
    # Ruling 9, "individual bids are never announced": one change per team (its bids' total); 1.0.0 announced
    # one change per bid.
    bids_paid_per_team: bool
    # Ruling 15: a sign-up while the bids are open joins as at the start only with ``round_one_signups`` (else it
    # is a late sign-up, as the rulebook says); 1.0.0 joined as at the start whenever the bids were open (without
    # the option it only asked, as for a late sign-up, that six players remain).
    round_one_signups_is_an_option: bool


VERSIONS = (
    Rulings(version="1.0.0", crossings_both_ways=False, same_pass_is_simultaneous=False, bids_paid_per_team=False,
            round_one_signups_is_an_option=False, defaults={"round_one_signups": True}),
    # issue 30: the two collision bugs, the announced bids, and ruling 15 following the rulebook.
    Rulings(version="1.1.0", crossings_both_ways=True, same_pass_is_simultaneous=True, bids_paid_per_team=True,
            round_one_signups_is_an_option=True),
)
LATEST = VERSIONS[-1]
