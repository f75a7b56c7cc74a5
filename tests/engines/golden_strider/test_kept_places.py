"""A round resolved for the audit keeps its runners' places with the field it made (``kept.LAST.places``): the next
round, resolved on a state holding that very runners list, ranks the same squares, so it takes them instead of
ranking the field again (rules 9-11: the places before the round).  Only speed: every outcome must be the plain
resolution's, and a field made otherwise (another list, other squares) is ranked afresh."""
from __future__ import annotations

from typing import Any

import pytest

from engines.driver import play_bots, player_list
from engines.golden_strider import ENGINE, kept, orders, race
from engines.rng import Rng
from tests.engines.golden_strider.test_resolve_applied import CASES, _skip_some


def _plain(state: dict[str, Any]) -> dict[str, Any]:
    return race.resolve_round(state, orders.plans(state))


def _reranked(state: dict[str, Any]) -> dict[str, Any]:
    """The state with a new runners list whose squares rank the other way round (no orders: rule 13 for all)."""
    top = max(runner["square"] for runner in state["runners"])
    return {**state, "orders": {}, "runners": [{**r, "square": top - r["square"]} for r in state["runners"]]}


@pytest.mark.parametrize("case", [c for c in CASES if c["options"].get("variant") != "robot"])
def test_places_kept_serve_the_very_field_they_were_made_for_and_no_other(case: dict[str, Any]) -> None:
    """Bot games resolved as the audit does (orders validated and applied, each round on the state the last gave):
    each outcome is the plain one; right after each, a field with other squares is resolved as the plain rules do."""
    for seed in ("places-a", "places-b"):
        played = play_bots(ENGINE, case["options"], player_list(case["players"]), seed,
                           skip=_skip_some if seed.endswith("b") else None)
        state, kept_used = played.states[0], 0
        for index, record in enumerate(played.records):
            if record["kind"] == "action":
                ENGINE.validate(state, record["actor"], record["action"])
                state = ENGINE.apply_action(state, record["actor"], record["action"])
                continue
            if state["stage"] != "round":
                break
            kept_used += kept.LAST.places is not None and kept.LAST.places[0] is state["runners"]
            outcome, after = ENGINE.resolve_applied(state, Rng("places", "phase", 1))
            assert outcome == _plain(state)
            if after is None:
                state = played.states[index + 1]
                continue
            assert kept.LAST.places is not None and kept.LAST.places[0] is after["runners"]
            other = _reranked(after)
            if other["stage"] == "round":  # (resolve reads what was kept, and keeps nothing)
                assert ENGINE.resolve(other, Rng("places", "phase", 1)) == _plain(other)
                twice = {**other, "runners": [*other["runners"][:-1], {**other["runners"][-1], "id": "r1"}]}
                assert ENGINE.resolve(twice, Rng("places", "phase", 1)) == _plain(twice)  # ids repeated: plain
            state = after
        assert kept_used > 3
