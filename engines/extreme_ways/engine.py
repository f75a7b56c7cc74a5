"""The Extreme Ways engine: phases, orders and resolutions wired to the pure rules.

Phases: ``bidding`` (rounds 1..N, one Loki's Auction each), ``moving`` (one sealed
submission of an option per round), then ``ec_vote`` only when the Elimination
Candidate is tied and someone may vote.  State is plain JSON; see ``initial_state``.
"""
from __future__ import annotations

from engines.canonical import roundtrip
from engines.contract import GM, JSON, ActionType, Engine, Meta, Phase, State, Viewer
from engines.extreme_ways import bots, orders, resolution, rules, views
from engines.extreme_ways.players import active_players, ec_voters
from engines.extreme_ways import report as reports
from engines.extreme_ways.schemas import (
    BidSchema,
    BuyGoldSchema,
    EcVoteSchema,
    JoinSchema,
    MoveSchema,
    OptionsSchema,
    PassSchema,
    SetGarnetsSchema,
)
from engines.extreme_ways import schemas
from engines.rng import Rng

DAY = 86400
# Every option's default, loaded once at import (loading the schema costs more than the rest of a game's
# start); initial_state spreads it into a new dict and nothing ever changes it.
OPTION_DEFAULTS: JSON = roundtrip(OptionsSchema().load({}))


class ExtremeWays(Engine):
    meta = Meta(
        name="extreme-ways",
        version="1.0.0",
        title="Extreme Ways",
        min_players=2,
        max_players=24,
        turn_based=False,
        hidden_information=True,
        summary=(
            "Bid gold in Loki's information auctions for Info Packets about each round's "
            "moves, then fly as far from Odin as you can. 12 players recommended."
        ),
    )
    options_schema = OptionsSchema
    join_schema = JoinSchema
    gm_join_fields = frozenset({"garnets"})
    private_join_fields = frozenset({"garnets"})
    secret_options = frozenset({"rounds"})  # GM-fixed rounds name the true moves
    actions = {
        "bid": ActionType(
            "bid", BidSchema, sealed=True, phases=("bidding",),
            description="Bid gold pieces in this round's auction (a positive integer, at most your gold); "
            "a new bid or pass replaces the old one until the deadline.",
            example={"amount": 7},
        ),
        "pass": ActionType(
            "pass", PassSchema, sealed=True, phases=("bidding",),
            description="Make no bid this round (replaces a bid sent earlier this round).",
            example={},
        ),
        "buy_gold": ActionType(
            "buy_gold", BuyGoldSchema, sealed=True, phases=("bidding",),
            description="Convert garnets into gold pieces at the game's rate (bidding phases only; final).",
            example={"garnets": 1},
        ),
        "move": ActionType(
            "move", MoveSchema, sealed=True, phases=("moving",),
            description="Your single Moving Phase submission: one option A-D per round (null = randomise); "
            "with the Rebound twist, optionally the round and player to rebound about.",
            example={"options": ["A", "C", "B", "D", "A", "A", "C"], "rebound": None},
        ),
        "ec_vote": ActionType(
            "ec_vote", EcVoteSchema, sealed=True, phases=("ec_vote",),
            description="Token of Life holders: vote which tied player becomes the Elimination Candidate.",
            example={"player_id": "p4"},
        ),
        "gm.set_garnets": ActionType(
            "gm.set_garnets", SetGarnetsSchema, actor="gm", sealed=True,
            description="GM: correct the number of garnets a player holds (sealed: garnets are private "
            "to the player and the GM until the end; the player sees the new count in their view).",
            example={"player_id": "p2", "garnets": 3},
        ),
    }
    default_deadlines = {"bidding": DAY, "moving": 2 * DAY, "ec_vote": DAY}
    view_schema, result_schema, hint_schema, outcome_schema = schemas.VIEW, schemas.RESULT, schemas.HINT, \
        schemas.OUTCOME
    simulation_cases = (
        {"options": {}, "players": 12, "fields": [{"garnets": i % 3} for i in range(12)]},
        {"options": {"rebound_twist": True, "announce": "winners_and_amounts"}, "players": 5},
        {"options": {"ec_rule": "earlier", "announce": "none", "move_range": 1}, "players": 4},
    )

    # -- setup -----------------------------------------------------------------
    def setup(self, options: JSON, players: list[JSON], rng: Rng) -> JSON:
        """Every round's candidates (public) and true moves and packet split (secret)."""
        public_rounds: list[JSON] = []
        secret_rounds: list[JSON] = []
        fixed = options.get("rounds")
        for number in range(1, options["bidding_rounds"] + 1):
            if fixed:
                given = fixed[number - 1]
                candidates = {x: [list(m) for m in given[x]["moves"]] for x in rules.OPTIONS}
                true = {x: given[x]["true"] for x in rules.OPTIONS}
                split = dict(given["split"]) if given.get("split") else None
            else:
                drawn = rules.generate_round(rng.fork("round", number), options["move_range"])
                candidates, true, split = drawn["candidates"], drawn["true"], None
            if split is None:
                split = rules.draw_split(rng.fork("split", number), true)
            public_rounds.append({"round": number, "options": candidates})
            secret_rounds.append(
                {
                    "round": number,
                    "true": true,
                    "split": split,
                    "packets": rules.packet_contents(candidates, true, split),
                }
            )
        return {"public": {"rounds": public_rounds}, "private": {}, "secret": {"rounds": secret_rounds}}

    def initial_state(self, options: JSON, players: list[JSON], setup: JSON) -> State:
        ids = [p["id"] for p in players]
        # A log recorded before an option existed plays under that option's default.
        options = {**OPTION_DEFAULTS, **options}
        garnets = {p["id"]: int((p.get("fields") or {}).get("garnets", 0)) for p in players}
        return {  # shares the options' and setup's parts: nothing in a state is ever mutated
            "options": options,
            "players": ids,
            "names": {p["id"]: p["name"] for p in players},
            "ejected": [],
            "rounds": setup["public"]["rounds"],
            # true moves and packet splits; packets are derived (rules.round_packets)
            "secret_rounds": [
                {"round": s["round"], "true": dict(s["true"]), "split": dict(s["split"])}
                for s in setup["secret"]["rounds"]
            ],
            "stage": "bidding",
            "round": 1,
            "gold": {p: options["starting_gold"] for p in ids},
            "garnets": dict(garnets),
            "garnets_signed_up": dict(garnets),
            "purchases": {p: [] for p in ids},
            "bids": {},
            "auctions": [],
            "packets_won": {p: [] for p in ids},
            "moves": {},
            "played": None,
            "results": None,
            "votes": {},
            "elimination": None,
        }

    # -- phases ----------------------------------------------------------------
    def phase(self, state: State) -> Phase | None:
        stage = state["stage"]
        if stage == "bidding":
            actors = tuple(active_players(state))
            return Phase(
                "bidding", actors, tuple(p for p in actors if p not in state["bids"]), True,
                state["round"],
                f"Round {state['round']} of {len(state['rounds'])}: "
                "bid gold pieces for Info Packets, or pass.",
            )
        if stage == "moving":
            actors = tuple(active_players(state))
            return Phase(
                "moving", actors, tuple(p for p in actors if p not in state["moves"]), True, None,
                f"Submit one option (A-D) for each of the {len(state['rounds'])} rounds.",
            )
        if stage == "ec_vote":
            voters = tuple(ec_voters(state))
            return Phase(
                "ec_vote", voters, tuple(v for v in voters if v not in state["votes"]), True, None,
                "Token of Life holders: vote for the Elimination Candidate among the tied players.",
            )
        return None

    # -- orders and resolutions -------------------------------------------------
    # The rule modules' functions themselves, not methods that call them: the fold calls one for
    # every event, and the audit two, so a Python call apiece less is worth having.
    validate = staticmethod(orders.validate)
    apply_action = staticmethod(orders.apply_action)
    resolve = staticmethod(resolution.resolve)
    apply_outcome = staticmethod(resolution.apply_outcome)

    def apply_members(self, state: State, change: JSON, outcome: JSON) -> State:
        """GM ruling or a quit: the player leaves; their open order and vote are dropped, they stop moving."""
        player_id = change["player"]["id"]
        new = dict(state)  # only what changes is copied: states are never mutated
        if player_id not in state["ejected"]:
            new["ejected"] = [*state["ejected"], player_id]
        for key in ("bids", "moves", "votes"):
            new[key] = dict(state[key])
            new[key].pop(player_id, None)
        return new

    # -- what people see ---------------------------------------------------------
    def view(self, state: State, viewer: Viewer) -> JSON:
        return views.view(state, viewer, self.legal_actions_hint)

    def closed_view(self, state: State, viewer: Viewer) -> JSON:
        """A finished game whose log stays closed: the rulebook reveals only final locations and gold counts (in
        ``results`` and the result), so the hidden parts the view opens at the end are left out."""
        view = self.view(state, viewer)
        view.pop("hidden", None)
        if view["elimination"] is not None:  # the Token holders' ballots stay secret
            view["elimination"].pop("votes", None)
        return view

    def result(self, state: State) -> JSON | None:
        if state["stage"] != "over":
            return None
        return views.result(state)

    def legal_actions_hint(self, state: State, player_id: str) -> JSON | None:
        return views.legal_actions(state, player_id, self.phase(state))

    def report(
        self, state: State, round: int | None = None, fmt: str = "json", viewer: Viewer = None
    ) -> JSON:
        """The GM's forum post of an auction (rounds 1..N) or the results (round N+1).

        Public facts only, so every viewer gets the same report.
        """
        return reports.render(state, round, fmt)

    def bot_action(self, state: State, actor: str, rng: Rng) -> JSON | None:
        if actor == GM:
            return None
        return bots.bot_action(state, actor, self.phase(state), rng)


ENGINE = ExtremeWays()
