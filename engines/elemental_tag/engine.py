"""The elemental Tag engine: phases, orders and resolutions wired to the pure rules.

Phases: ``bidding`` (who's it), ``placement`` (a new place for those who ask), then ``moving``
rounds until one team is left.  ``state["turn"]`` numbers the resolutions (1 bidding, 2 placement,
3 the first moving round ...); it is the phase's ``round`` and the report's round.
"""
from __future__ import annotations

from engines.canonical import roundtrip
from engines.contract import GM, JSON, ActionType, Meta, Phase, State, Viewer, not_now
from engines.elemental_tag import bots, orders, rules, schemas, views
from engines.elemental_tag import report as reports
from engines.elemental_tag.rules import BOARD_KEYS, by_id
from engines.elemental_tag.schemas import (
    ApplySchema,
    BidSchema,
    DisbandSchema,
    FormSchema,
    JoinSchema,
    LeaveSchema,
    MoveSchema,
    OptionsSchema,
    PlaceSchema,
    VoteSchema,
)
from engines.elemental_tag.versions import VERSIONS
from engines.rng import Rng
from engines.versioning import Versioned, every_version

DAY = 86400
OPTION_DEFAULTS: JSON = roundtrip(OptionsSchema().load({}))
TEAM_ACTION = ("moving",)


def team_viewer(element: str, team: str) -> str:
    """The viewer name of one team: its element and its id, so a later team of the same element is another viewer."""
    return f"team:{element}:{team}"


def history_entry(public: JSON) -> JSON:
    """What the report of a round needs, kept small (every round of a long game is kept): the map as each
    player's square, the teams, and the round's announced facts; moves only where someone did not stay."""
    board = public["board"]
    kept = {k: v for k, v in public.items() if k not in ("board", "placement_draws", "team_draws", "moves")}
    return {**kept, "moves": {p: d for p, d in public.get("moves", {}).items() if d != "stay"},
            "size": board["size"], "teams": board["teams"],
            "squares": {p: q["pos"] for p, q in board["players"].items()}}


# The prompts of the phases without a number in them (``phase``).
PROMPTS = {
    "bidding": "Round 1, who's it: bid in secret; the lowest bid is it, every other bid is paid.",
    "placement": "Round 2: ask for a new random place (3 points) or keep yours.",
}


class ElementalTag(Versioned):
    """One version of the game: ``rulings`` (versions.py) are where its version differs from the others."""

    meta = Meta(
        name="elemental-tag",
        version=VERSIONS[-1].version,
        title="Elemental Tag",
        min_players=3,
        max_players=200,  # the rulebook has no upper limit; 200 is the platform's bound (ruling 2: an 20 x 20 map)
        turn_based=False,
        hidden_information=True,
        summary=("Tag on a grid, in teams of the elements or alone from the underworld: points are your life, "
                 "bid not to be it, then run, collide and tag. At least three teams; seven players or more "
                 "recommended."),
        late_joins=True,
    )
    options_schema = OptionsSchema
    join_schema = JoinSchema
    view_schema, result_schema, hint_schema, outcome_schema = (schemas.VIEW, schemas.RESULT, schemas.HINT,
                                                               schemas.OUTCOME)
    actions = {
        "bid": ActionType("bid", BidSchema, sealed=True, phases=("bidding",),
                          description="Round 1: your secret bid. The lowest bidder is it; everyone else's bid comes "
                                      "off their team's points.", example={"amount": 3}),
        "place": ActionType("place", PlaceSchema, sealed=True, phases=("placement",),
                            description="Round 2: ask for a new random place (costs your team 3 points), or keep "
                                        "yours.", example={"replace": False}),
        "move": ActionType("move", MoveSchema, sealed=True, phases=("moving",),
                           description="A moving round: one of nine directions (stay to stand still). The it player "
                                       "adds an ordered tag list (1 point per name).",
                           example={"direction": "stay"}),
        "apply": ActionType("apply", ApplySchema, sealed=True, phases=TEAM_ACTION,
                            description="Underworld players: ask to join the team of an element. The application is "
                                        "announced at the round's end and that team votes on it the next round.",
                            example={"element": "fire"}),
        "vote": ActionType("vote", VoteSchema, sealed=True, team_sees=True, phases=TEAM_ACTION,
                           description="Team members: vote to admit an applicant or to eject a team-mate (more than "
                                       "half must agree; shown to your team-mates).",
                           example={"motion": "admit", "player_id": "p7"}),
        "leave": ActionType("leave", LeaveSchema, sealed=True, team_sees=True, phases=TEAM_ACTION,
                            description="Leave your team (of three or more) to play alone with 10 points.",
                            example={}),
        "disband": ActionType("disband", DisbandSchema, sealed=True, team_sees=True, phases=TEAM_ACTION,
                              description="A team of two: both send it and the team splits its points.", example={}),
        "form": ActionType("form", FormSchema, sealed=True, phases=TEAM_ACTION,
                           description="Two underworld players: name each other and the same open element to become "
                                       "its team, pooling your points.",
                           example={"partner": "p2", "element": "ice"}),
    }
    default_deadlines = {"bidding": 4 * DAY, "placement": 3 * DAY, "moving": 3 * DAY}
    simulation_cases = (
        {"options": {}, "players": 7,
         "fields": [{"element": "fire", "guild": "fire"}, {"element": "fire"}, {"element": "fire"},
                    {"element": "water", "guild": "water"}, {"element": "water"}, {}, {"guild": "ice"}]},
        {"options": {"tie_average": "tied_bids", "average_rounding": "up"}, "players": 9,
         "fields": [{"element": "earth"}, {"element": "earth"}, {"element": "air"}, {"element": "air"},
                    {"element": "air"}, {}, {}, {}, {}]},
    )

    # -- setup -----------------------------------------------------------------
    def setup(self, options: JSON, players: list[JSON], rng: Rng) -> JSON:
        """Nothing is drawn at the start (the map waits for the bids); the start needs three teams."""
        teams = {(p.get("fields") or {}).get("element") or f"underworld {p['id']}" for p in players}
        if len(teams) < options["min_teams"]:
            raise not_now("rule 0: sign-up", f"The game needs at least {options['min_teams']} teams (elements or "
                                             f"underworld players); {len(teams)} signed up.",
                          {"teams": len(teams)})
        return {"public": {}, "private": {}, "secret": {}}

    def initial_state(self, options: JSON, players: list[JSON], setup: JSON) -> State:
        options = {**OPTION_DEFAULTS, **self.rulings.defaults, **options}
        state: State = {
            "options": options, "names": {p["id"]: p["name"] for p in players},
            "guilds": {p["id"]: (p.get("fields") or {}).get("guild") for p in players},
            "roster": [p["id"] for p in players], "departed": [],
            "stage": "bidding", "turn": 1,
            "players": {}, "teams": {}, "it": None, "it_history": [], "next_team": 1, "size": None,
            "orders": {}, "acts": {}, "applications": {}, "eliminated": [], "history": [], "last_secret": {},
        }
        board = rules.board_of(state)
        for player in players:
            board["players"][player["id"]] = {"team": None, "pos": None}
            element = (player.get("fields") or {}).get("element")
            tid = rules.element_team(board, element) if element else None
            if tid is None:
                rules.new_team(board, element, [player["id"]],
                               options["element_points"] if element else options["underworld_points"])
            else:
                team = board["teams"][tid]
                team["members"] = sorted([*team["members"], player["id"]], key=by_id)
                board["players"][player["id"]]["team"] = tid
        return {**state, **board}

    # -- phases ----------------------------------------------------------------
    def phase(self, state: State) -> Phase | None:
        stage = state["stage"]
        if stage == "over":
            return None
        players, orders = state["players"], state["orders"]
        actors = tuple([p for p in state["roster"] if p in players])  # ids in join order: p1, p2 ...
        awaiting = tuple([p for p in actors if p not in orders])
        if stage == "moving":  # only this phase's prompt is written (the gate asks for the phase of every order)
            prompt = (f"Moving round {state['turn'] - 2}: choose one of nine directions; the it player also "
                      "sends a tag list. Team actions may be sent too.")
        else:
            prompt = PROMPTS[stage]
        return Phase(stage, actors, awaiting, True, state["turn"], prompt)

    validate = staticmethod(orders.validate)
    apply_action = staticmethod(orders.apply_action)

    def resolve(self, state: State, rng: Rng) -> JSON:
        rule = {"bidding": rules.bidding, "placement": rules.placement, "moving": rules.moving}[state["stage"]]
        public, rest = rule(state, rng, self.rulings)
        private: dict[str, JSON] = {}
        for player, order in state["orders"].items():
            if order.get("tags"):
                private[player] = {"tags": order["tags"]}
        for tid, team in state["teams"].items():
            acts = {m: sorted(state["acts"][m]) for m in team["members"] if m in state["acts"]}
            if team["element"] is not None and acts:
                private[team_viewer(team["element"], tid)] = {"team_actions": acts}
        return {"public": {"turn": state["turn"], **public, "board": rest["board"]}, "private": private,
                "secret": rest["secret"]}

    def apply_outcome(self, state: State, outcome: JSON) -> State:
        public = outcome["public"]
        board = public["board"]
        stage = {"bidding": "placement", "placement": "moving", "moving": "moving"}[state["stage"]]
        if len(board["teams"]) <= 1:
            stage = "over"
        entry = history_entry(public)
        return {
            **state, **{key: board[key] for key in BOARD_KEYS},
            "stage": stage, "turn": state["turn"] + 1, "orders": {}, "acts": {},
            "applications": public.get("applications", {}),
            "eliminated": [*state["eliminated"], *public["eliminated"]],
            "history": [*state["history"], entry], "last_secret": outcome.get("secret", {}),
        }

    # -- membership ---------------------------------------------------------------
    def change_members(self, state: State, change: JSON, rng: Rng) -> JSON:
        """A late sign-up (rule 5, ruling 15), a quit, or the GM removing an inactive player."""
        player = change["player"]
        if change["kind"] == "join":
            if state["stage"] == "over":
                raise not_now("rule 5: late sign-ups", "The game is over.")
            if rules.is_late_sign_up(state):
                left = len(state["players"])
                if left < state["options"]["late_join_min_players"]:
                    raise not_now("rule 5: late sign-ups",
                                  f"A new player may join only while at least "
                                  f"{state['options']['late_join_min_players']} players remain; {left} do.")
                if state["size"] is not None and not rules.empty_squares(state):
                    raise not_now("rule 5: late sign-ups", "The map has no empty square for a new player.")
            done = rules.join(state, player, rng, self.rulings)
        else:
            done = rules.leave(state, player["id"], change["kind"], rng)
        return {"public": {**done["public"], "board": done["board"]}, "closes_phase": False}

    def apply_members(self, state: State, change: JSON, outcome: JSON) -> State:
        public = outcome["public"]
        board = public["board"]
        player = change["player"]["id"]
        new = {**state, **{key: board[key] for key in BOARD_KEYS}}
        if change["kind"] == "join":
            new["names"] = {**state["names"], player: change["player"]["name"]}
            new["guilds"] = {**state["guilds"], player: (change["player"].get("fields") or {}).get("guild")}
            new["roster"] = [*state["roster"], player]
        else:
            if player not in state["departed"]:
                new["departed"] = [*state["departed"], player]
            new["orders"] = {p: o for p, o in state["orders"].items() if p != player}
            new["acts"] = {p: a for p, a in state["acts"].items() if p != player}
            new["applications"] = {p: e for p, e in state["applications"].items() if p != player}
            new["eliminated"] = [*state["eliminated"], *public.get("eliminated", [])]
            if len(board["teams"]) <= 1:
                new["stage"] = "over"  # one team (or none) is left: the game ends as at an elimination
        return new

    def teams(self, state: State, player_id: str) -> tuple[str, ...]:
        """An element team's players see what is addressed to their team (``team:<element>:<team id>``: an element
        held again later, by another team, names another viewer); underworld players play alone."""
        player = state["players"].get(player_id)
        if player is None:
            return ()
        element = state["teams"][player["team"]]["element"]
        return (team_viewer(element, player["team"]),) if element else ()

    # -- what people see ---------------------------------------------------------
    def view(self, state: State, viewer: Viewer) -> JSON:
        return views.view(state, viewer, self.legal_actions_hint)

    def closed_view(self, state: State, viewer: Viewer) -> JSON:
        """After the end, under ``reveal_at_end: "rulebook"``: bids, tag lists and team actions stay unrevealed
        (the rulebook shows who is it, never the tag list)."""
        shown = views.view(state, viewer, self.legal_actions_hint)
        shown.pop("hidden", None)
        return shown

    def result(self, state: State) -> JSON | None:
        if state["stage"] != "over":
            return None
        return rules.standings(state)

    def legal_actions_hint(self, state: State, player_id: str) -> JSON | None:
        return views.legal_actions(state, player_id)

    def report(self, state: State, round: int | None = None, fmt: str = "json", viewer: Viewer = None) -> JSON:
        """The GM's forum post of one round (None: the latest), with the map, as ``viewer`` may see it."""
        return reports.render(state, round, fmt, viewer)

    def bot_action(self, state: State, actor: str, rng: Rng) -> JSON | None:
        if actor == GM or state["stage"] == "over" or actor not in state["players"]:
            return None
        return bots.bot_action(state, actor, rng)


ENGINES = every_version(ElementalTag, VERSIONS)  # every version, so every recorded game replays
ENGINE = ENGINES[-1]  # the latest: new games
