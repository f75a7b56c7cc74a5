"""docs/games/*.md executed against the engines (no Redis): every order written in a game's doc loads through its
schema, every creation and sign-up body is valid, and every error the doc promises (each row of its error table,
each refusal it shows as an answer) is produced by a scenario here, through the platform's gate, with the status,
code, rule (and, for a shown answer, the message and details) the doc says.  A row without a scenario, a scenario
without a row, or an answer that stops matching fails."""
from __future__ import annotations

import re
from typing import Any, Callable

import pytest

from engines import registry
from engines.contract import RuleError
from engines.driver import load_action, load_options, player_list, start
from engines.gate import Table, admit
from service.errors import RULE_CODES
from service.schemas import GM_ACTIONS, QUIT
from tests.docs.markdown import GAME_DOCS, Row, answers, blocks, code_spans, json_objects, tables
from tests.engines.elemental_tag import helpers as tag
from tests.engines.strategic_aspect import helpers as aspect
from tests.engines.sxyzm_cyclone import scenario as cyclone

ERRORS = ("status", "rule", "when")
RULE_ERRORS = ("rule", "when")  # a table of rules an order can break: 422 each


def _game(path: Any) -> str:
    return re.search(r"\(`([a-z-]+)`\)", path.read_text().splitlines()[0]).group(1)  # "# Title (`name`)"


def refused(engine: Any, state: Any, actor: str, action: dict[str, Any], departed: tuple[str, ...] = ()) -> RuleError:
    """The refusal of ``action`` by ``actor``, as the service meets it: the form, then the gate and the rules."""
    with pytest.raises(RuleError) as caught:
        admit(engine, state, actor, load_action(engine, action), Table(departed=frozenset(departed)))
    return caught.value


# -- scenarios: each error a doc promises, produced ------------------------------------------------------------
def _tag_moving() -> Any:
    return tag.on_map(tag.signed_up(tag.FIRE3_WATER2_ALONE2), {"p1": (1, 1), "p2": (2, 1), "p4": (3, 3),
                                                               "p5": (4, 4), "p6": (5, 5)}, it="p1")


def _tag_late_sign_up() -> list[RuleError]:
    few = _tag_moving()
    with pytest.raises(RuleError) as caught:
        tag.ENGINE.change_members(few, {"kind": "join", "player": {"id": "p8", "name": "Late", "fields": {}}}, None)
    return [caught.value]


TAG = tag.ENGINE
TAG_SCENARIOS: dict[str, Callable[[], list[RuleError]]] = {
    "rule 1: bids": lambda: [refused(TAG, tag.signed_up(tag.FIRE3_WATER2_ALONE2), "p1",
                                     {"type": "bid", "amount": 101})],
    "rule 3: moving": lambda: [refused(TAG, _tag_moving(), "p1", {"type": "move", "direction": "n"})],
    "rule 4: tagging": lambda: [
        refused(TAG, _tag_moving(), "p2", {"type": "move", "direction": "stay", "tags": ["p4"]}),
        refused(TAG, _tag_moving(), "p1", {"type": "move", "direction": "stay", "tags": ["p4", "p4"]}),
        refused(TAG, _tag_moving(), "p1", {"type": "move", "direction": "stay", "tags": ["p1"]}),
        refused(TAG, _tag_moving(), "p1", {"type": "move", "direction": "stay", "tags": ["p3"]})],
    "rule 5: ...": lambda: [
        refused(TAG, _tag_moving(), "p4", {"type": "leave"}),
        refused(TAG, _tag_moving(), "p6", {"type": "apply", "element": "ice"}),
        refused(TAG, _tag_moving(), "p1", {"type": "vote", "motion": "admit", "player_id": "p6"}),
        refused(TAG, _tag_moving(), "p6", {"type": "form", "partner": "p6", "element": "ice"})],
    "phase": lambda: [refused(TAG, _tag_moving(), "p1", {"type": "bid", "amount": 3})],
    "not your turn": lambda: [refused(TAG, _tag_moving(), "p3", {"type": "move", "direction": "stay"})],
    "rule 5: late sign-ups": _tag_late_sign_up,
}

SA = aspect.ENGINE


def _rebid() -> Any:
    state = aspect.auction(aspect.new(4))
    return aspect.with_(state, stage="rebid", auction={**state["auction"], "cap": 5})


SA_SCENARIOS: dict[str, Callable[[], list[RuleError]]] = {
    "not your turn": lambda: [
        refused(SA, aspect.turn(aspect.new(4), "p2"), "p1", {"type": "move", "spaces": 1}),
        refused(SA, aspect.with_(aspect.ceremony(aspect.new(4)), steps={"p3": -2}), "p3",
                {"type": "vote", "against": "p1"})],
    "phase": lambda: [
        refused(SA, aspect.turn(aspect.new(4), "p2"), "p2", {"type": "bid", "amount": 3}),
        refused(SA, aspect.turn(aspect.new(4), "p2", at=14), "p2", {"type": "buy_vote", "buy": True})],
    "left the game": lambda: [refused(SA, aspect.turn(aspect.new(4), "p2"), "p2", {"type": "move", "spaces": 1},
                                      departed=("p2",))],
    "basics: never below zero steps": lambda: [
        refused(SA, aspect.turn(aspect.new(4), "p2", steps=2), "p2", {"type": "move", "spaces": 5})],
    "ruling: space 30 must be hit exactly": lambda: [
        refused(SA, aspect.turn(aspect.new(4, options={"exact_finish": True}), "p2", at=28), "p2",
                {"type": "move", "spaces": 3})],
    "stealing steps": lambda: [
        refused(SA, aspect.with_(aspect.turn(aspect.new(4), "p2", at=12), stage="steal"), "p2",
                {"type": "steal", "from": "p2"}),
        refused(SA, aspect.with_(aspect.turn(aspect.new(4), "p2", at=12), stage="steal", steps={"p3": 4}), "p2",
                {"type": "steal", "from": "p3"}),
        refused(SA, aspect.with_(aspect.turn(aspect.new(4), "p2", at=12), stage="steal"), "p2",
                {"type": "steal", "from": "p9"})],
    "safety auction": lambda: [refused(SA, _rebid(), "p1", {"type": "bid", "amount": 6})],
    "safety options": lambda: [
        refused(SA, aspect.holding_safety(aspect.new(4), "p1"), "p1", {"type": "safety", "choice": "give", "to": "p1"}),
        refused(SA, aspect.holding_safety(aspect.new(4), "p1"), "p1", {"type": "safety", "choice": "give"}),
        refused(SA, aspect.holding_safety(aspect.new(4), "p1", transfers=5), "p1",
                {"type": "safety", "choice": "give", "to": "p2"}),
        refused(SA, aspect.holding_safety(aspect.new(4), "p1"), "p1",
                {"type": "safety", "choice": "keep", "to": "p2"})],
    "elimination ceremony": lambda: [
        refused(SA, aspect.ceremony(aspect.new(4), keeper="p2"), "p1", {"type": "vote", "against": "p2"}),
        refused(SA, aspect.ceremony(aspect.new(4)), "p1", {"type": "vote", "against": "p9"})],
    "tie-breaking vote: the holder chooses among the tied": lambda: [
        refused(SA, aspect.with_(aspect.ceremony(aspect.new(4), vote_holder="p3"), stage="tiebreak", current="p3",
                                 ceremony={"counts": {}, "automatic": [], "abstained": [], "tied": ["p1", "p2"]}),
                "p3", {"type": "tiebreak", "eliminate": "p4"})],
}

EW = registry.latest("extreme-ways")


def _ew(stage: str = "bidding") -> Any:
    state = start(EW, {}, player_list(3), "docs").final
    return {**state, "stage": stage}


EW_SCENARIOS: dict[str, Callable[[], list[RuleError]]] = {
    "gold": lambda: [refused(EW, _ew(), "p1", {"type": "bid", "amount": 60})],
    "positive bid": lambda: [refused(EW, _ew(), "p1", {"type": "bid", "amount": 0})],
    "phase": lambda: [refused(EW, _ew("moving"), "p1", {"type": "bid", "amount": 7})],
}

SX = cyclone.ENGINE


def _sx(state: Any, *moves: tuple[str, str]) -> list[RuleError]:
    return [refused(SX, state, "p1", cyclone.order(*moves))]


SX_SCENARIOS: dict[str, Callable[[], list[RuleError]]] = {
    "the die roll is the number of actions": lambda: _sx(cyclone.game(2, rolls=[1]), ("blue-5", "yellow"),
                                                         ("blue-5", "yellow")),
    "move your own cubes": lambda: _sx(cyclone.game(2), ("yellow-5", "yellow")),
    "move toward another base in play": lambda: [*_sx(cyclone.game(2), ("blue-5", "blue")),
                                                 *_sx(cyclone.game(3), ("blue-5", "red"))],
    "finished cubes are out of play": lambda: _sx(
        cyclone.board(cyclone.game(2), {"blue:7": ["blue-2"]}, bases={"yellow": ["blue-1"]}), ("blue-1", "yellow")),
    "only the top cube of a stack moves": lambda: _sx(
        cyclone.board(cyclone.game(2), {"centre": ["blue-1", "yellow-1"], "yellow:7": ["yellow-2", "blue-2"]}),
        ("blue-2", "yellow"), ("blue-1", "yellow")),
    "every action must be used": lambda: _sx(cyclone.game(2, rolls=[2], allow_unused_actions=False),
                                             ("blue-5", "yellow")),
    "the game ends with the winning action": lambda: _sx(
        cyclone.board(cyclone.game(3, rolls=[3]), {"yellow:1": ["blue-5"], "blue:3": ["blue-1"]},
                      bases={"yellow": ["blue-2", "blue-3"]}),
        ("blue-5", "yellow"), ("yellow-1", "blue"), ("blue-5", "blue")),
}

SCENARIOS = {"elemental-tag": TAG_SCENARIOS, "strategic-aspect": SA_SCENARIOS, "extreme-ways": EW_SCENARIOS,
             "sxyzm-cyclone": SX_SCENARIOS}


# -- what the docs say ---------------------------------------------------------------------------------------------
def _error_rows() -> list[tuple[str, Row]]:
    rows = [(_game(path), row) for path in GAME_DOCS for row in tables(path, ERRORS)]
    return rows + [(_game(path), Row({"status": "422", **row.cells}, row.where)) for path in GAME_DOCS
                   for row in tables(path, RULE_ERRORS)]


def _shown_refusals() -> list[tuple[str, int, dict[str, Any], str]]:
    return [(_game(path), status, body["error"], where) for path in GAME_DOCS
            for status, body, where in answers(path) if status >= 400 and "rule" in body["error"]["details"]]


def _rule(cell: str) -> str:
    return code_spans(cell)[0]


def _orders(path: Any) -> list[tuple[dict[str, Any], str]]:
    """Every order the doc writes: a JSON object with a ``type`` in a fenced block or an inline code span."""
    found = []
    for block in blocks(path):
        if block.lang in ("json", "http"):
            found += [(o, block.where) for o in json_objects(block.body) if isinstance(o.get("type"), str)]
    found += [(o, path.name) for span in code_spans(path.read_text()) for o in json_objects(span)
              if isinstance(o.get("type"), str)]
    return found


def _order_cases() -> list[Any]:
    cases = []
    for path in GAME_DOCS:
        name = _game(path)
        for order, where in _orders(path):
            if order["type"] != name:  # a creation body names the game type, not an order
                cases.append(pytest.param(name, order, id=f"{where}:{order['type']}"))
    return cases


@pytest.mark.parametrize("name, row", [pytest.param(n, r, id=f"{r.where}:{_rule(r['rule'])}") for n, r in
                                       _error_rows()])
def test_every_row_of_a_games_error_table_is_what_the_game_answers(name: str, row: Row) -> None:
    rule = _rule(row["rule"])
    scenario = SCENARIOS.get(name, {}).get(rule)
    assert scenario is not None, f"{row.where}: no scenario produces {rule!r}; add one to tests/docs/test_game_docs.py"
    statuses = {int(s) for s in row["status"].split("/")}
    for error in scenario():
        assert error.status in statuses, f"{row.where}: {error.rule} answered {error.status}, the doc says {statuses}"
        if rule.endswith("..."):
            assert error.rule.startswith(rule[:-3]), f"{row.where}: {error.rule!r}"
        else:
            assert error.rule == rule, f"{row.where}: the game answers rule {error.rule!r}, the doc says {rule!r}"


@pytest.mark.parametrize("name, status, error, where", [pytest.param(*case, id=case[3]) for case in _shown_refusals()])
def test_every_refusal_a_game_doc_shows_is_the_games_answer(name: str, status: int, error: dict, where: str) -> None:
    rule = error["details"]["rule"]
    scenario = SCENARIOS.get(name, {}).get(rule)
    assert scenario is not None, f"{where}: no scenario produces {rule!r}"
    answered = [{"status": e.status, "code": RULE_CODES[e.status], "message": e.message,
                 "details": {"rule": e.rule, **e.details}} for e in scenario()]
    shown = {"status": status, "code": error["code"], "message": error["message"], "details": error["details"]}
    assert shown in answered, f"{where}: the doc shows {shown}, the game answers {answered}"


def test_every_scenario_is_a_promise_of_some_doc() -> None:
    """A scenario whose row or shown answer left the doc is a promise no longer made: the test must go too."""
    promised = {(n, _rule(r["rule"])) for n, r in _error_rows()} | {(n, e["details"]["rule"]) for n, _, e, _ in
                                                                      _shown_refusals()}
    assert {(n, rule) for n, table in SCENARIOS.items() for rule in table} <= promised


@pytest.mark.parametrize("name, order", _order_cases())
def test_every_order_in_a_game_doc_is_one_the_game_takes(name: str, order: dict[str, Any]) -> None:
    engine = registry.latest(name)
    fields = {k: v for k, v in order.items() if k not in ("type", "on_behalf_of")}
    if order["type"] in GM_ACTIONS:
        GM_ACTIONS[order["type"]]().load(fields)
    elif order["type"] != QUIT:
        load_action(engine, {"type": order["type"], **fields})


@pytest.mark.parametrize("path", GAME_DOCS, ids=lambda p: p.name)
def test_a_game_docs_creation_and_sign_up_bodies_are_valid(path: Any) -> None:
    """``POST /v1/games`` bodies: the game's options and phase names; ``POST …/players`` bodies: its sign-up fields."""
    engine = registry.latest(_game(path))
    for block in blocks(path):
        request_line = block.body.split("\n")[0]
        if block.lang != "http" or not request_line.startswith("POST /v1/games"):
            continue
        for sent in json_objects(block.body):
            if request_line == "POST /v1/games":
                assert sent["type"] == engine.meta.name, block.where
                load_options(engine, sent.get("options"))
                assert set(sent.get("deadlines", {})) <= set(engine.default_deadlines), block.where
            elif request_line.endswith("/players") and engine.join_schema is not None:
                engine.join_schema().load({k: v for k, v in sent.items() if k != "name"})
