"""Coin toss: the tiny game the platform's own tests play, so they need no real rulebook.

Each round every player calls heads or tails in secret; the coin is tossed from the seed and
every right call scores a point; the first to ``target`` points wins (ties keep tossing).  It
exercises what the contract offers: sealed simultaneous orders, recorded draws, late joins,
quits and ejections that may close a round or end the game, and team viewers (a team's
members see each other's calls and their team's tally).
"""
from __future__ import annotations

from marshmallow import Schema, fields, validate

from engines.contract import JSON, ActionType, Engine, Meta, Phase, RuleError, State, Viewer
from engines.rng import Rng


class CoinOptions(Schema):
    target = fields.Integer(load_default=3, validate=validate.Range(1, 20))
    late_joins = fields.Boolean(load_default=True)
    leave_ends_round = fields.Boolean(load_default=False)


class CoinJoin(Schema):
    team = fields.String(load_default=None, allow_none=True, validate=validate.OneOf(["red", "blue"]))


class CoinCall(Schema):
    side = fields.String(required=True, validate=validate.OneOf(["heads", "tails"]))


class Coin(Engine):
    meta = Meta(name="test-coin", version="1", title="Coin toss", min_players=2, max_players=8,
                turn_based=False, hidden_information=True, summary="Call the toss; first to the target wins.",
                late_joins=True)
    options_schema = CoinOptions
    join_schema = CoinJoin
    actions = {"call": ActionType("call", CoinCall, sealed=True, team_sees=True, phases=("toss",),
                                  example={"side": "heads"})}
    default_deadlines = {"toss": 3600}
    # What it sends out (published per game type in /v1/openapi.json; tests/schema checks them).
    result_schema = {"type": "object", "required": ["winner"], "properties": {"winner": {"type": "string",
                                                                                         "nullable": True}}}
    view_schema = {"type": "object", "required": ["round", "scores", "called", "winner"], "properties": {
        "round": {"type": "integer"}, "called": {"type": "array", "items": {"type": "string"}},
        "scores": {"type": "object", "additionalProperties": {"type": "integer"}, "description": "By player id."},
        "winner": {"type": "string", "nullable": True}}}
    hint_schema = {"type": "object", "properties": {}, "description": "The coin toss offers no hint (never sent)."}
    outcome_schema = {"type": "object", "properties": {
        "public": {"type": "object", "properties": {"side": {"type": "string", "enum": ["heads", "tails"]},
                                                    "right": {"type": "array", "items": {"type": "string"}}}},
        "private": {"type": "object", "additionalProperties": {"type": "object", "properties": {
            "right": {"type": "integer"}}}, "description": "By team viewer: how many of the team called right."},
        "secret": {"type": "object", "properties": {}}, "closes_phase": {"type": "boolean"}}}
    simulation_cases = ({"options": {}, "players": 3},)

    def initial_state(self, options: JSON, players: list[JSON], setup: JSON) -> State:
        return {"options": options, "round": 1, "calls": {}, "winner": None,
                "players": {p["id"]: {"score": 0, "team": p["fields"].get("team")} for p in players}}

    def phase(self, state: State) -> Phase | None:
        if state["winner"] is not None or len(state["players"]) < 2:
            return None
        actors = tuple(sorted(state["players"]))
        return Phase("toss", actors, tuple(p for p in actors if p not in state["calls"]), True, state["round"])

    def validate(self, state: State, actor: str, action: JSON) -> None:
        if action["side"] == state["calls"].get(actor):
            raise RuleError("one call", "You have already called that side this round.")

    def apply_action(self, state: State, actor: str, action: JSON) -> State:
        return {**state, "calls": {**state["calls"], actor: action["side"]}}

    def resolve(self, state: State, rng: Rng) -> JSON:
        side = rng.choice(["heads", "tails"])
        right = sorted(p for p, call in state["calls"].items() if call == side)
        tally = {f"team:{t}": {"right": sum(1 for p in right if state["players"][p]["team"] == t)}
                 for t in sorted({q["team"] for q in state["players"].values() if q["team"]})}
        return {"public": {"side": side, "right": right}, "private": tally, "secret": {}}

    def apply_outcome(self, state: State, outcome: JSON) -> State:
        players = {p: {**q, "score": q["score"] + (p in outcome["public"]["right"])}
                   for p, q in state["players"].items()}
        best = max(players.values(), key=lambda q: q["score"])["score"]
        leaders = [p for p, q in players.items() if q["score"] == best]
        winner = leaders[0] if best >= state["options"]["target"] and len(leaders) == 1 else None
        return {**state, "players": players, "calls": {}, "round": state["round"] + 1, "winner": winner}

    def change_members(self, state: State, change: JSON, rng: Rng) -> JSON:
        if change["kind"] == "join" and not state["options"]["late_joins"]:
            raise RuleError("sign-up", "This game takes no new players once it has started.", status=409)
        return {"public": {}, "closes_phase": change["kind"] != "join" and state["options"]["leave_ends_round"]}

    def apply_members(self, state: State, change: JSON, outcome: JSON) -> State:
        player = change["player"]
        if change["kind"] == "join":
            joined = {"score": 0, "team": player["fields"].get("team")}
            return {**state, "players": {**state["players"], player["id"]: joined}}
        rest = {p: q for p, q in state["players"].items() if p != player["id"]}
        calls = {p: c for p, c in state["calls"].items() if p != player["id"]}
        round_ = state["round"] + 1 if outcome["closes_phase"] else state["round"]
        winner = min(rest) if len(rest) == 1 else None
        return {**state, "players": rest, "calls": {} if outcome["closes_phase"] else calls, "round": round_,
                "winner": winner}

    def teams(self, state: State, player_id: str) -> tuple[str, ...]:
        team = state["players"].get(player_id, {}).get("team")
        return (f"team:{team}",) if team else ()

    def view(self, state: State, viewer: Viewer) -> JSON:
        return {"round": state["round"], "scores": {p: q["score"] for p, q in state["players"].items()},
                "called": sorted(state["calls"]), "winner": state["winner"]}

    def result(self, state: State) -> JSON | None:
        return {"winner": state["winner"]} if self.phase(state) is None else None

    def bot_action(self, state: State, actor: str, rng: Rng) -> JSON | None:
        return {"type": "call", "side": rng.choice(["heads", "tails"])}


ENGINE = Coin()
