"""Strategic Aspect's versions, and the rulings that differ between them: the one place they are written.

A game replays under the rules it was played under (``game.created`` records the version), so a behaviour
change is a new version: one row here, read where the rule is applied (flow.py).  A new game gets the latest.
"""
from __future__ import annotations

from dataclasses import dataclass

from engines import versioning


@dataclass(frozen=True, kw_only=True)
class Rulings(versioning.Rulings):
    """One version's answers where versions differ; each field names the ruling it applies."""

    # Ruling 11: an eliminated cyclist who quits changes nothing (she stays eliminated); 1.0.0 listed her as
    # departed with "▲ steps".
    eliminated_quitter_stays_eliminated: bool
    # Ruling 7 with ``missed_vote: "self"``: a voter who sent nothing had their vote cast against themselves, so
    # the ceremony lists them with the others whose vote was cast for them (``automatic``), not as abstaining;
    # 1.0.0 listed them under ``abstained`` while counting their votes.
    missed_self_votes_are_cast: bool


VERSIONS = (
    Rulings(version="1.0.0", eliminated_quitter_stays_eliminated=False, missed_self_votes_are_cast=False),
    # issue 30: doc and behaviour agree on ruling 11 and on missed votes under missed_vote "self".
    Rulings(version="1.1.0", eliminated_quitter_stays_eliminated=True, missed_self_votes_are_cast=True),
)
LATEST = VERSIONS[-1]
