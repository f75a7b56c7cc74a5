"""One conformance suite over every registered engine (open_spiel style).

Bots play whole games; every state must be plain canonical JSON, the fold of the
records must equal live play, resolution must be a pure function of state and seed,
no apply may mutate its input, and no view may depend on another player's sealed order.

Play once, test many (18xx's fixture cache): states are immutable by the engine contract, so each game is
played once per case and seed, strictly (every engine output already plain JSON), and every check reads that
one play.  The checks that an engine mutates nothing guard the sharing: a mutation fails them.
"""
from __future__ import annotations

from functools import cache

import pytest

from engines import registry
from engines.canonical import canonical_json
from engines.contract import GM, PUBLIC, Engine
from engines.driver import NotPlainJson, Played, eject, fold, load_action, plain, play_bots, player_list, start
from engines.rng import Rng
from tests.forgery import reversed_keys
from tests.unchanged import Unchanged

ENGINES = registry.all_latest()
CASES = [
    pytest.param(engine, i, seed, id=f"{engine.meta.name}-{i}-{seed}")
    for engine in ENGINES
    for i, _case in enumerate(engine.simulation_cases)
    for seed in ("alpha", "beta")
]


def _first(given: Unchanged) -> str:
    """The first changed part, shortened, for the failure message."""
    return repr(given.changed()[0])[:300]


def _players(case: dict) -> list[dict]:
    return player_list(case["players"], case.get("fields"))


@cache
def _play(engine: Engine, case: int, seed: str) -> Played:
    """Simulation case number ``case`` played by the bots with ``seed``, once per module (see the docstring)."""
    return _play_afresh(engine, case, seed, strict=True)


def _play_afresh(engine: Engine, case: int, seed: str, strict: bool = False) -> Played:
    scenario = engine.simulation_cases[case]
    return play_bots(engine, scenario.get("options"), _players(scenario), seed, strict=strict)


def test_every_game_package_registers_its_engine() -> None:
    """Each game package under engines/ registers an engine under the name its package gives (and the
    registry lists every one of them), so no game can be left out of the suites that go over all of them."""
    from pathlib import Path

    packages = sorted(p.parent.name for p in Path(registry.__file__).parent.glob("*/__init__.py"))
    assert packages, "no game packages found"
    assert sorted(name.replace("-", "_") for name in registry.names() if not name.startswith("test-")) == packages
    assert set(registry.GAME_PACKAGES) >= set(packages)


@pytest.mark.parametrize("engine,case,seed", CASES)
def test_bots_play_to_the_end_with_a_result(engine: Engine, case: int, seed: str) -> None:
    played = _play(engine, case, seed)
    assert engine.phase(played.final) is None
    result = engine.result(played.final)
    assert result is not None
    canonical_json(result)


@pytest.mark.parametrize("engine,case,seed", CASES)
def test_replay_of_the_records_equals_live_play(engine: Engine, case: int, seed: str) -> None:
    played = _play(engine, case, seed)
    assert canonical_json(fold(engine, played)) == canonical_json(played.final)


@pytest.mark.parametrize("engine,case,seed", CASES)
def test_same_seed_same_game_other_seed_other_game(engine: Engine, case: int, seed: str) -> None:
    first = _play(engine, case, seed)
    again = _play_afresh(engine, case, seed)
    assert canonical_json(first.records) == canonical_json(again.records)
    assert canonical_json(first.setup) == canonical_json(again.setup)


@pytest.mark.parametrize("engine,case,seed", CASES)
def test_resolution_is_a_pure_function_of_state_and_seed(engine: Engine, case: int, seed: str) -> None:
    played = _play(engine, case, seed)
    given = Unchanged()
    for index, record in enumerate(played.records):
        if record["type"] != "phase.resolved":
            continue
        before = given.keep(played.states[index])  # states[0] is the initial state
        again = engine.resolve(before, Rng(seed, "phase", record["number"]))
        assert canonical_json(again) == canonical_json(record["outcome"])
    assert not given.changed(), f"resolve() mutated its input: {_first(given)}"


@pytest.mark.parametrize("engine,case,seed", CASES)
def test_apply_never_mutates_its_input(engine: Engine, case: int, seed: str) -> None:
    played = _play(engine, case, seed)
    given = Unchanged()
    for index, record in enumerate(played.records):
        before = given.keep(played.states[index])
        if record["type"] == "action.submitted":
            engine.apply_action(before, record["actor"], record["action"])
        else:
            engine.apply_outcome(before, record["outcome"])
    assert not given.changed(), f"an apply mutated its input: {_first(given)}"


@pytest.mark.parametrize("engine,case,seed", CASES)
def test_no_step_changes_anything_it_was_given_or_any_earlier_state(engine: Engine, case: int, seed: str) -> None:
    """Steps share what they do not change with the state before them (the fold copies nothing), so no
    apply, resolve, eject or view may change a state, order or outcome it was given, however long ago.
    Unlike the driver, this chains the engine's own outputs, never a round-tripped copy."""
    played = _play(engine, case, seed)
    records, given = Unchanged(), Unchanged()
    records.keep(played.records)
    state = given.keep(engine.initial_state(played.options, played.players, played.setup))
    states = [state]
    for record in played.records:
        if record["type"] == "action.submitted":
            state = engine.apply_action(state, record["actor"], record["action"])
        else:
            engine.resolve(state, Rng(seed, "phase", record["number"]))
            state = engine.apply_outcome(state, record["outcome"])
        given.keep(state)
        for viewer in [PUBLIC, GM] + [p["id"] for p in played.players]:
            engine.view(state, viewer)
        states.append(state)
    for state in (states[len(states) // 2], states[-1]):
        for player in played.players:
            state = eject(engine, state, player["id"])
    assert not records.changed(), f"a step changed an order or outcome it was given: {_first(records)}"
    assert not given.changed(), f"a later step changed an earlier state: {_first(given)}"


@pytest.mark.parametrize("engine,case,seed", CASES)
def test_engine_output_is_already_what_storage_gives_back(engine: Engine, case: int, seed: str) -> None:
    """The driver round-trips every state before the other checks, which would hide a tuple (or an int key, a set,
    a float) that live play keeps but a replay from stored JSON does not: here setup, initial_state, every
    apply_action, every resolve and every apply_outcome must equal their JSON round trip, types included."""
    played = _play(engine, case, seed)  # played strictly: a tuple, an int key, a set or a float raised there
    assert engine.phase(played.final) is None


class _Sneaky:
    """A real engine whose apply_outcome leaves a tuple in the state, as a careless rule might."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def __getattr__(self, name: str) -> object:
        return getattr(self._engine, name)

    def apply_outcome(self, state: dict, outcome: dict) -> dict:
        return {**self._engine.apply_outcome(state, outcome), "sneaky": (1, 2)}


def test_the_strict_check_catches_a_tuple_that_the_round_trip_hides() -> None:
    engine = registry.latest("extreme-ways")
    case = engine.simulation_cases[0]
    play_bots(_Sneaky(engine), case.get("options"), _players(case), "alpha")  # the round trip hides it
    with pytest.raises(NotPlainJson, match=r"apply_outcome of phase 1: \$\.sneaky is a tuple, stored as a list"):
        play_bots(_Sneaky(engine), case.get("options"), _players(case), "alpha", strict=True)


@pytest.mark.parametrize("value, says", [
    ({"a": [1, (2, 3)]}, r"\$\.a\[1\] is a tuple"),
    ({"a": {1: "x"}}, "not JSON data"),
    ({"a": {1, 2}}, "not JSON data"),
    ({"a": 0.5}, r"\$\.a is a float"),
])
def test_plain_names_what_is_not_json(value: object, says: str) -> None:
    with pytest.raises(NotPlainJson, match=says):
        plain(value, "test")
    assert plain({"a": [True, 1, None, "x", {"b": []}]}, "test") == {"a": [True, 1, None, "x", {"b": []}]}


@pytest.mark.parametrize("engine,case,seed", CASES)
def test_every_state_and_view_is_plain_json(engine: Engine, case: int, seed: str) -> None:
    played = _play(engine, case, seed)
    viewers = [PUBLIC, GM] + [p["id"] for p in played.players]
    for state in played.states[:: max(1, len(played.states) // 25)] + [played.final]:
        canonical_json(state)  # no floats, string keys only
        for viewer in viewers:
            canonical_json(engine.view(state, viewer))


@pytest.mark.parametrize("engine,case,seed", CASES)
def test_no_view_depends_on_another_players_sealed_order(engine: Engine, case: int, seed: str) -> None:
    """Swap each sealed order for another legal one: nobody else's view may change."""
    played = _play(engine, case, seed)
    viewers = [PUBLIC] + [p["id"] for p in played.players]
    checked = 0
    for index, record in enumerate(played.records):
        if record["type"] != "action.submitted":
            continue
        action = record["action"]
        if not engine.actions[action["type"]].sealed:
            continue
        before, actor = played.states[index], record["actor"]
        for attempt in range(6):
            other = engine.bot_action(before, actor, Rng("other", index, attempt))
            if other is None:
                continue
            other = load_action(engine, other)
            if other == action:
                continue
            try:
                engine.validate(before, actor, other)
            except Exception:
                continue
            mine = engine.apply_action(before, actor, action)
            theirs = engine.apply_action(before, actor, other)
            for viewer in viewers:
                if viewer == actor:
                    continue
                assert canonical_json(engine.view(mine, viewer)) == canonical_json(
                    engine.view(theirs, viewer)
                ), f"{viewer} can see {actor}'s sealed {action['type']}"
            checked += 1
            break
    if any(a.sealed for a in engine.actions.values()):
        assert checked > 0, "no sealed order was exercised"


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.meta.name)
def test_setup_is_recorded_in_outcome_shape(engine: Engine) -> None:
    case = engine.simulation_cases[0]
    played = start(engine, case.get("options"), _players(case), "setup-seed")
    assert set(played.setup) <= {"public", "private", "secret"}
    canonical_json(played.setup)


@pytest.mark.parametrize("engine,case,seed", CASES)
def test_rules_do_not_depend_on_key_order(engine: Engine, case: int, seed: str) -> None:
    """Stored JSON may come back with its keys in another order: the rules must not care."""
    played = _play(engine, case, seed)
    viewers = [PUBLIC, GM] + [p["id"] for p in played.players]
    for state in played.states[:: max(1, len(played.states) // 10)] + [played.final]:
        flipped = reversed_keys(state)
        assert canonical_json(engine.result(state)) == canonical_json(engine.result(flipped))
        phase, flipped_phase = engine.phase(state), engine.phase(flipped)
        assert (phase and phase.to_json()) == (flipped_phase and flipped_phase.to_json())
        for viewer in viewers:
            assert canonical_json(engine.view(state, viewer)) == canonical_json(engine.view(flipped, viewer))


def test_the_mutation_checks_find_a_write_anywhere_in_shared_states() -> None:
    """``Unchanged``, which the checks that nothing is mutated use, finds a write deep in a part many states share,
    a value replaced by an equal copy, and keys put back in another order (what a ``repr`` would show too)."""
    deep = {"squares": [[1, 2], [3, 4]], "points": 10}
    states = [{"turn": n, "board": deep, "history": [deep] * n} for n in range(1, 4)]
    for write in (lambda: deep["squares"][1].append(5), lambda: deep.update(squares=list(deep["squares"])),
                  lambda: deep.update(squares=deep.pop("squares"))):
        given = Unchanged()
        for state in states:
            given.keep(state)
        assert not given.changed()
        write()
        assert given.changed()
