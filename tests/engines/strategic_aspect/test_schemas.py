"""The declared view, hint and outcome schemas hold where bot games never go: after a quit (a suffice cycle,
"▲ steps", a membership outcome that closes the phase) and an ejection after two reached 30."""
from __future__ import annotations

from engines.contract import GM, PUBLIC
from engines.driver import change_members, player_list, run_phase, start
from engines.rng import Rng
from engines.strategic_aspect import ENGINE
from tests.schema.declared import problems, validator

VIEW, HINT, OUTCOME = (validator(s) for s in (ENGINE.view_schema, ENGINE.hint_schema, ENGINE.outcome_schema))


def _check(state: dict) -> None:
    for viewer in (GM, PUBLIC, *state["names"]):
        assert not problems(VIEW, ENGINE.view(state, viewer)), (viewer, problems(VIEW, ENGINE.view(state, viewer)))
        hint = ENGINE.legal_actions_hint(state, viewer) if viewer not in (GM, PUBLIC) else None
        assert hint is None or not problems(HINT, hint)


def test_rule_quitting_views_and_records_match_the_declared_schemas() -> None:
    played = start(ENGINE, {}, player_list(5), "schemas")
    leaves = {6: ("quit", "p2"), 40: ("eject", "p4")}
    for number in range(1, 400):
        if ENGINE.phase(played.final) is None:
            break
        if number in leaves:
            kind, who = leaves[number]
            record = change_members(ENGINE, played, kind, {"id": who, "name": who, "fields": {}}, number)
            assert not problems(OUTCOME, record["outcome"])
            _check(played.final)
        state = played.final
        for actor in ENGINE.phase(state).awaiting:
            order = ENGINE.bot_action(state, actor, Rng("bots", number, actor))
            if order is not None:
                state = ENGINE.apply_action(state, actor, order)
        outcome, state = run_phase(ENGINE, state, "schemas", number)
        assert not problems(OUTCOME, outcome)
        played.states.append(state)
        _check(state)
    assert ENGINE.phase(played.final) is None
    assert {c["kind"] for c in played.final["history"]} >= {"suffice", "final"}
