"""Each game's declared schemas (Engine.view_schema, result_schema, hint_schema, outcome_schema: what
/v1/openapi.json publishes as <Game>View, <Game>Result, <Game>Hint, <Game>Outcome) hold for everything the
engine really sends out: its bots play every simulation case, and every viewer's view (the GM, the public,
each player), every player's hint, every setup and outcome record and the result are checked, closed (a field
the code adds or drops without the declaration fails).  A game type that declares none yet is skipped,
naming what is missing."""
from __future__ import annotations

import pytest

from engines import registry
from engines.contract import GM
from engines.driver import play_bots, player_list
from service.openapi import pascal
from tests.schema.declared import missing, problems, published_validator, validator

STATES_PER_GAME = 40  # views checked per game: spread over it, the first and last always


def _engines() -> list[str]:
    return registry.names()


@pytest.mark.parametrize("name", _engines())
def test_what_the_engine_sends_out_matches_what_it_declares(name: str) -> None:
    engine = registry.latest(name)
    assert engine is not None
    if missing(engine):
        pytest.skip(f"{name} does not declare {', '.join(missing(engine))} yet")
    view, result, hint, outcome = (validator(s) for s in (engine.view_schema, engine.result_schema,
                                                           engine.hint_schema, engine.outcome_schema))
    published = published_validator(f"{pascal(name)}View")  # as /v1/openapi.json spells it, $refs and all
    checked = 0
    for number, case in enumerate(engine.simulation_cases):
        players = player_list(case["players"], case.get("fields"))
        played = play_bots(engine, case["options"], players, f"schemas-{number}")
        where = f"{name} case {number}"
        assert not problems(outcome, played.setup), (where, "setup", problems(outcome, played.setup))
        for record in played.records:
            if "outcome" in record:
                assert not problems(outcome, record["outcome"]), (where, record["type"], problems(
                    outcome, record["outcome"]))
        step = max(1, len(played.states) // STATES_PER_GAME)
        for index in sorted({0, *range(0, len(played.states), step), len(played.states) - 1}):
            state = played.states[index]
            for viewer in (GM, None, *(p["id"] for p in players)):
                shown = engine.view(state, viewer)
                assert not problems(view, shown), (where, index, viewer, problems(view, shown))
                assert not problems(published, shown), (where, index, viewer, "published", problems(published, shown))
                checked += 1
            for player in players:
                given = engine.legal_actions_hint(state, player["id"])
                if given is not None:
                    assert not problems(hint, given), (where, index, player["id"], problems(hint, given))
        final = engine.result(played.final)
        assert final is not None and not problems(result, final), (where, problems(result, final))
    assert checked > 0


def test_the_checks_catch_a_field_the_declaration_does_not_have() -> None:
    """Closed means closed: an undeclared field, a missing one and a wrong type all fail."""
    check = validator({"type": "object", "required": ["a"], "properties": {
        "a": {"type": "integer"}, "b": {"type": "object", "properties": {"c": {"type": "string", "nullable": True}}}}})
    assert not problems(check, {"a": 1, "b": {"c": None}})
    assert problems(check, {"a": 1, "extra": 2}) and problems(check, {"b": {}}) and problems(check, {"a": "1"})
    assert problems(check, {"a": 1, "b": {"c": "x", "d": 1}})
    coin = {"round": 1, "scores": {"p1": 0}, "called": [], "winner": None}
    published = published_validator("TestCoinView")
    assert not problems(published, coin) and problems(published, {**coin, "extra": 1})
    assert problems(published, {**coin, "winner": 3})
