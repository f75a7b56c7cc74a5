"""The Golden Strider engine: wiring options, phases, orders and outcomes together."""
from __future__ import annotations

import copy
from typing import Any

from engines.contract import GM, JSON, ActionType, Engine, Meta, Phase, RuleError, State, Viewer
from engines.golden_strider import bots, orders, race, report, robot, rules, schemas, tarnished, views
from engines.golden_strider.schemas import (
    AccuseSchema, JoinSchema, OptionsSchema, PlaySchema, SubmitRobotSchema,
)
from engines.rng import Rng

DAY = 86400


class GoldenStrider(Engine):
    """Golden Strider (Allan Parr), with the Steeplechase, Tarnished and Robot variants."""

    meta = Meta(
        name="golden-strider", version="1.0.0", title="Golden Strider",
        min_players=3, max_players=10, turn_based=False, hidden_information=True,
        summary="Middle-distance race: play a card a round, split between movement and banking.",
    )
    options_schema = OptionsSchema
    join_schema = JoinSchema
    actions = {
        "play": ActionType(
            "play", PlaySchema, sealed=True, phases=("round",),
            description="Play one card for a runner this round, split into movement and banking "
            "(rule 5); the first order also carries the five starting cards (rule 2) and, in "
            "Tarnished, the drug.",
            example={"card": "6/0", "move": 3, "bank": 3, "cards": [7, 7, 6, 5, 5]},
        ),
        "accuse": ActionType(
            "accuse", AccuseSchema, sealed=True, phases=("accusation",),
            description="Tarnished: accuse one athlete of cheating after the race (null: nobody).",
            example={"runner": "Steve Roids"},
        ),
        "submit_robot": ActionType(
            "submit_robot", SubmitRobotSchema, sealed=True, phases=("robots",),
            description="Robot variant: the algorithm that runs your robot for the whole race.",
            example={"algorithm": robot.EXAMPLE},
        ),
    }
    default_deadlines = {"round": 2 * DAY, "accusation": 2 * DAY, "robots": 7 * DAY}
    view_schema, result_schema, hint_schema, outcome_schema = (schemas.VIEW, schemas.RESULT, schemas.HINT,
                                                               schemas.OUTCOME)
    player_counts = schemas.PLAYER_COUNTS
    # Shorter races than the defaults keep the conformance run fast; the engine's own
    # tests race the full distances with invariants checked after every round.
    simulation_cases = (
        {"options": {"race_length": 40}, "players": 6},
        {"options": {"race_length": 35}, "players": 8},
        {"options": {"race_length": 30, "seven_turn_rule": "at_expiry"}, "players": 10},
        {"options": {"variant": "steeplechase", "race_length": 35}, "players": 8},
        {"options": {"variant": "tarnished", "race_length": 40}, "players": 4,
         "fields": [{"runners": [f"Athlete {i}a", f"Athlete {i}b"]} for i in range(1, 5)]},
        {"options": {"variant": "robot"}, "players": 8},
    )

    # -- setup -------------------------------------------------------------------
    def setup(self, options: JSON, players: list[JSON], rng: Rng) -> JSON:
        """Nothing is random in Golden Strider; the start is refused for a wrong field size."""
        if options["variant"] == "tarnished" and not 3 <= len(players) <= 5:
            raise RuleError("tarnished", "the Tarnished variant is for 3-5 managers (6-10 runners)")
        if options["variant"] != "tarnished" and not 6 <= len(players) <= 10:
            raise RuleError("rule 1", "Golden Strider is for 6 to 10 runners")
        return {"public": {}, "private": {}, "secret": {}}

    def initial_state(self, options: JSON, players: list[JSON], setup: JSON) -> State:
        """Everyone on square 0, level in 1st place, cards still to be chosen (rule 2)."""
        opts = copy.deepcopy(options)
        runners: list[dict[str, Any]] = []
        taken: set[str] = set()
        for player in players:
            for name in _runner_names(player, opts["variant"]):
                unique = _unique(name, taken)
                runners.append({
                    "id": f"r{len(runners) + 1}", "name": unique, "owner": player["id"],
                    "cards": None, "square": 0, "position": 1, "owed": 0, "cf": False,
                    "withdrawn": False, "drug": None, "boost_used": False,
                })
        return {
            "options": opts, "race_length": race.race_length(opts),
            "players": [{"id": p["id"], "name": p["name"]} for p in players],
            "runners": runners, "round": 1,
            "stage": "robots" if opts["variant"] == "robot" else "round",
            "orders": {}, "accusations": {}, "algorithms": {}, "history": [],
            "race_over": False, "result": None, "departed": [],
        }

    # -- phases ------------------------------------------------------------------
    def phase(self, state: State) -> Phase | None:
        stage = state["stage"]
        if stage == "over":
            return None
        if stage == "round":  # the runners still in the race, read once (the gate asks at every order)
            runners = race.active(state)
            actors = _owners(state, runners)
            orders = state["orders"]
            waiting = {r["owner"] for r in runners if r["id"] not in orders}
            prompt = f"Round {state['round']}: play one card per runner (move + bank)."
        else:
            actors = _actors(state, stage)
            done = state["accusations"] if stage == "accusation" else state["algorithms"]
            waiting = {p for p in actors if p not in done}
            prompt = (
                "Accuse one athlete of cheating, or nobody." if stage == "accusation"
                else "Submit your robot's algorithm."
            )
        return Phase(
            stage, tuple(actors), tuple([p for p in actors if p in waiting]), True,
            state["round"] if stage == "round" else None, prompt,
        )

    # -- orders ------------------------------------------------------------------
    def validate(self, state: State, actor: str, action: JSON) -> None:
        """The rules of the order (``check_order``)."""
        check_order(state, actor, action)

    def apply_action(self, state: State, actor: str, action: JSON) -> State:
        """Record (or replace) a sealed order."""
        new = dict(state)  # shallow: only the order book changes, history is shared
        if action["type"] == "play":
            runner = orders.find_runner(state, actor, action.get("runner"))
            new["orders"] = {**state["orders"], runner["id"]: action}
        elif action["type"] == "accuse":
            new["accusations"] = {**state["accusations"], actor: _accused_id(state, action.get("runner"))}
        else:
            new["algorithms"] = {**state["algorithms"], actor: action["algorithm"]}
        return new

    # -- resolution ----------------------------------------------------------------
    def resolve(self, state: State, rng: Rng) -> JSON:
        """Play the open round, test the accused, or run the whole robot race."""
        if state["stage"] == "round":
            return race.resolve_round(state, orders.plans(state))
        if state["stage"] == "accusation":
            done = {**state, "accusations": dict(state["accusations"])}
            for player in state["players"]:
                if player["id"] not in state["departed"]:
                    done["accusations"].setdefault(player["id"], None)
            return {"public": {"accusations": done["accusations"], "result": tarnished.score(done)},
                    "private": {}, "secret": {}}
        return robot.run_race(state)

    def apply_outcome(self, state: State, outcome: JSON) -> State:
        public = outcome["public"]
        if state["stage"] == "round":
            return _after_race(race.apply_round(state, outcome))
        new = dict(state)  # shares what it does not change: states are never mutated
        if state["stage"] == "accusation":
            new["accusations"] = public["accusations"]
            new["result"] = public["result"]
            new["stage"] = "over"
            return new
        new["algorithms"] = public["algorithms"]
        for entry in public["rounds"]:
            new = race.apply_round(new, {"public": entry})
        return _after_race(new)

    def apply_members(self, state: State, change: JSON, outcome: JSON) -> State:
        """GM ruling or a quit: the player's runners are withdrawn; the race goes on without them."""
        player_id = change["player"]["id"]
        new = super().apply_members(state, change, outcome)  # a new state: copy what changes below, share the rest
        new["runners"] = [dict(runner) for runner in state["runners"]]
        for key in ("orders", "accusations", "algorithms"):
            new[key] = dict(state[key])
        for runner in new["runners"]:
            if runner["owner"] == player_id:
                runner["withdrawn"] = True
                new["orders"].pop(runner["id"], None)
        new["accusations"].pop(player_id, None)
        new["algorithms"].pop(player_id, None)
        return new

    # -- what people see ------------------------------------------------------------
    def view(self, state: State, viewer: Viewer) -> JSON:
        return views.view(state, viewer)

    def result(self, state: State) -> JSON | None:
        return copy.deepcopy(state["result"]) if state["stage"] == "over" else None

    def legal_actions_hint(self, state: State, player_id: str) -> JSON | None:
        return views.hint(state, player_id)

    def report(
        self, state: State, round: int | None = None, fmt: str = "json", viewer: Viewer = None
    ) -> JSON:
        """Rule 15: the game report of a round (None = latest) as json, text, markdown or bbcode.

        Players and the public get the same report: the rule 15 one, or in Tarnished the rulebook's P, S, Runner
        (``report.full_report``).  The GM always gets the full one, marked as theirs when others read less.
        """
        return report.render(state, round, fmt, full=viewer == GM or report.full_report(state))

    def shown_outcome(self, state: State, shown: JSON, viewer: Viewer) -> JSON:
        """Tarnished: a round's rows in the log are cut as its report is, to P, S and Runner; a manager's own
        runners' rows are theirs to read in full (``private``).  The recorded outcome keeps every row."""
        rows = shown["public"].get("rows")
        if rows is None or report.full_report(state):
            return shown
        cut = {**shown, "public": {**shown["public"], "rows": [report.rulebook_row(row) for row in rows]}}
        own = {r["id"] for r in state["runners"] if r["owner"] == viewer}
        if own:
            private = shown.get("private", {})
            mine = {**private.get(viewer, {}), "rows": [row for row in rows if row["runner"] in own]}
            cut["private"] = {**private, viewer: mine}
        return cut

    # -- simulation ---------------------------------------------------------------
    def bot_action(self, state: State, actor: str, rng: Rng) -> JSON | None:
        if actor == GM or state["stage"] == "over":
            return None
        if state["stage"] == "round":
            return bots.play(state, actor, rng)
        if state["stage"] == "accusation":
            return bots.accuse(state, actor, rng)
        return bots.robot(rng)


def check_order(state: State, actor: str, action: JSON) -> None:
    """The rules of an order the platform's gate let through (its phase, and ``actor`` one of its actors)."""
    kind = action["type"]
    if kind == "play":
        orders.check_play(state, orders.named_runner(orders.own_runners(state, actor), action.get("runner")), action)
    elif kind == "accuse":
        _check_accusation(state, actor, action.get("runner"))
    else:
        rules.check_starting_cards(action["algorithm"]["cards"], 30)


def _runner_names(player: JSON, variant: str) -> list[str]:
    """Sign-up names: two per Tarnished manager, else one (the player's name by default)."""
    fields = player.get("fields") or {}
    if variant == "tarnished":
        return list(fields.get("runners") or [f"{player['name']} A", f"{player['name']} B"])
    return [fields.get("runner") or player["name"]]


def _unique(name: str, taken: set[str]) -> str:
    """Runner names must be unique (orders may name them): add (2), (3)... if not."""
    candidate, n = name, 1
    while candidate.casefold() in taken:
        n += 1
        candidate = f"{name} ({n})"
    taken.add(candidate.casefold())
    return candidate


def _actors(state: State, stage: str) -> list[str]:
    """Who acts in a phase: the owners of runners still in the race, or every player not ejected."""
    if stage == "round":
        return _owners(state)
    return [p["id"] for p in state["players"] if p["id"] not in state["departed"]]


def _owners(state: State, runners: list[JSON] | None = None) -> list[str]:
    """The players who own a runner still in the race (``runners``: ``race.active(state)`` if read already)."""
    owners = {r["owner"] for r in (race.active(state) if runners is None else runners)}
    return [p["id"] for p in state["players"] if p["id"] in owners]


def _accused_id(state: State, name: str | None) -> str | None:
    if name is None:
        return None
    wanted = name.strip().casefold()
    for runner in state["runners"]:
        if wanted in (runner["id"].casefold(), runner["name"].casefold()):
            return runner["id"]
    return None


def _check_accusation(state: State, actor: str, name: str | None) -> None:
    """Tarnished: one athlete of another manager, or nobody (the default)."""
    if name is None:
        return
    rid = _accused_id(state, name)
    if rid is None:
        raise RuleError("tarnished: disqualifications", f"there is no athlete called {name!r}")
    accused = next(r for r in state["runners"] if r["id"] == rid)
    if accused["owner"] == actor:
        raise RuleError("tarnished: disqualifications", "accuse another manager's athlete, not your own")
    if accused["withdrawn"]:  # ruling 14: not in the results, so there is nothing to test
        raise RuleError(
            "tarnished: disqualifications",
            f"{accused['name']} was withdrawn from the race: accuse an athlete who ran, or nobody",
        )


def _after_race(state: State) -> State:
    """Once the race is over: Tarnished managers accuse; everyone else gets a result."""
    if not state["race_over"]:
        state["stage"] = "round"
        return state
    if state["options"]["variant"] == "tarnished":
        state["stage"] = "accusation"
        return state
    state["stage"] = "over"
    state["result"] = race.standings(state)
    return state
