"""The Strategic Aspect engine: every sub-step of a turn, auction and ceremony is a phase of its own.

Phases: ``move`` (a cyclist's turn), ``steal`` and ``buy_vote`` (decisions that open in the middle of a
turn), ``auction`` and ``rebid`` (sealed, the first two to reach 30), ``safety`` and ``accept`` (the holder's
options and a receiver's consent), ``vote`` (sealed, the elimination ceremony), ``tiebreak`` (the vote
holder picks among the tied) and ``suffice`` (a turn of a suffice cycle after a quit or ejection).
The state is plain JSON; flow.py says how each resolution changes it.
"""
from __future__ import annotations

from typing import Any

from engines.contract import GM, JSON, ActionType, Meta, Phase, RuleError, State, Viewer
from engines.rng import Rng
from engines.versioning import Versioned, every_version
from engines.strategic_aspect import bots, flow, report as reports, rules, schemas, views
from engines.strategic_aspect.schemas import (
    AcceptSchema,
    BidSchema,
    BuyVoteSchema,
    MoveSchema,
    OptionsSchema,
    SafetySchema,
    StealSchema,
    SufficeSchema,
    TiebreakSchema,
    VoteSchema,
)
from engines.strategic_aspect.versions import VERSIONS

DAY = 86400
SINGLE = ("move", "steal", "buy_vote", "safety", "accept", "tiebreak", "suffice")
PROMPTS = {
    "move": "Your turn: move 1-6 spaces (1-3 earn 1-3 steps; 4, 5, 6 spend 1, 3, 6).",
    "steal": "You landed on a steal space: take five steps from a cyclist who has five, or steal nothing.",
    "buy_vote": "You landed on the tie-breaking vote's space: buy it for ten steps, or not.",
    "auction": "Safety auction: bid 0-20 steps in secret; both bids are revealed and paid.",
    "rebid": "Safety re-bid after a tie: bid again from what is left of the 20.",
    "safety": "You hold safety: keep it (safe, no vote), destroy it (you may vote) or give it.",
    "accept": "Safety is offered to you: accept it or decline it.",
    "vote": "Elimination ceremony: vote in secret for the cyclist to eliminate (not the safety holder).",
    "tiebreak": "The ceremony is tied and you hold the tie-breaking vote: choose who of the tied is eliminated.",
    "suffice": "Suffice cycle: add, subtract or ignore your distance to the end of the cycle.",
}


class StrategicAspect(Versioned):
    """One version of the game: ``rulings`` (versions.py) are where its version differs from the others."""

    meta = Meta(
        name="strategic-aspect",
        version=VERSIONS[-1].version,
        title="Strategic Aspect",
        min_players=3,
        max_players=12,
        turn_based=True,
        hidden_information=True,
        summary=("Race thirty spaces a cycle in secret turn orders, trading spaces for steps; bid for safety, "
                 "vote a cyclist out each cycle; the finalist with the most steps wins."),
    )
    options_schema = OptionsSchema
    view_schema, result_schema, hint_schema, outcome_schema = (schemas.VIEW, schemas.RESULT, schemas.HINT,
                                                               schemas.OUTCOME)
    actions = {
        "move": ActionType("move", MoveSchema, phases=("move",), example={"spaces": 3},
                           description="Your turn: move 1-6 spaces (1-3 earn that many steps; 4, 5, 6 spend 1, 3, 6)."),
        "steal": ActionType("steal", StealSchema, phases=("steal",), example={"from": "p2"},
                            description="On 12, 18 or 24: take five steps from a cyclist with at least five "
                                        "(null: steal nothing)."),
        "buy_vote": ActionType("buy_vote", BuyVoteSchema, phases=("buy_vote",), example={"buy": True},
                               description="On the tie-breaking vote's space: buy it for ten steps, or not."),
        "bid": ActionType("bid", BidSchema, sealed=True, phases=("auction", "rebid"), example={"amount": 7},
                          description="Safety auction: your secret bid (0-20, or up to what is left in a re-bid); "
                                      "a new bid replaces the old one until the deadline."),
        "safety": ActionType("safety", SafetySchema, phases=("safety",), example={"choice": "keep"},
                             description="Keep, destroy, or give safety to another cyclist (\"to\": their id)."),
        "accept": ActionType("accept", AcceptSchema, phases=("accept",), example={"accept": True},
                             description="Accept or decline the safety offered to you."),
        "vote": ActionType("vote", VoteSchema, sealed=True, phases=("vote",), example={"against": "p3"},
                           description="Elimination ceremony: your secret vote (yourself included, never the "
                                       "keeper of safety); a new vote replaces the old one until the deadline."),
        "tiebreak": ActionType("tiebreak", TiebreakSchema, phases=("tiebreak",), example={"eliminate": "p3"},
                               description="Tie-breaking vote: which of the tied cyclists is eliminated."),
        "suffice": ActionType("suffice", SufficeSchema, phases=("suffice",), example={"choice": "add"},
                              description="Suffice cycle: add, subtract or ignore your distance to the end."),
    }
    default_deadlines = {"move": DAY, "steal": DAY // 2, "buy_vote": DAY // 2, "auction": DAY, "rebid": DAY,
                         "safety": DAY, "accept": DAY // 2, "vote": DAY, "tiebreak": DAY // 2, "suffice": DAY}
    simulation_cases = (
        {"options": {}, "players": 3},
        {"options": {"missed_move": "random", "missed_vote": "self"}, "players": 5},
        {"options": {"exact_finish": True, "missed_safety": "destroy"}, "players": 8},
        {"options": {}, "players": 12},
    )

    # -- setup -----------------------------------------------------------------
    def setup(self, options: JSON, players: list[JSON], rng: Rng) -> JSON:
        """The first cycle: its tie-breaking vote space (public) and first turn order (secret)."""
        work = flow.Flow(blank(options, players), rng, self.rulings)
        work.start_cycle()
        return work.outcome()

    def initial_state(self, options: JSON, players: list[JSON], setup: JSON) -> State:
        return flow.apply_effects(blank(options, players), setup)

    # -- phases and orders -----------------------------------------------------
    def phase(self, state: State) -> Phase | None:
        stage = state["stage"]
        if stage == "over":
            return None
        number = state["cycle"]["number"]
        if stage in SINGLE:
            actor = state["current"]
            return Phase(stage, (actor,), () if actor in state["pending"] else (actor,), False, number,
                         _prompt(state, stage, actor))
        actors = tuple(state["auction"]["bidders"]) if stage in ("auction", "rebid") else tuple(
            rules.ceremony_voters(state))
        return Phase(stage, actors, tuple(a for a in actors if a not in state["pending"]), True, number,
                     PROMPTS[stage])

    def validate(self, state: State, actor: str, action: JSON) -> None:
        """The game's own rules for an order the platform's gate has admitted (right phase and actor)."""
        _CHECKS[action["type"]](state, actor, action)

    def apply_action(self, state: State, actor: str, action: JSON) -> State:
        """Record the order; the phase's resolution plays it (a later order replaces it)."""
        return {**state, "pending": {**state["pending"], actor: dict(action)}}

    def resolve(self, state: State, rng: Rng) -> JSON:
        return flow.resolve(state, rng, self.rulings)

    def apply_outcome(self, state: State, outcome: JSON) -> State:
        return flow.apply_effects(state, outcome)

    # -- membership ---------------------------------------------------------------
    def change_members(self, state: State, change: JSON, rng: Rng) -> JSON:
        if change["kind"] == "join":
            return super().change_members(state, change, rng)
        return flow.leave(state, change["player"]["id"], change["kind"], rng, self.rulings)

    def apply_members(self, state: State, change: JSON, outcome: JSON) -> State:
        return flow.apply_effects(state, outcome)

    # -- what people see -------------------------------------------------------
    def view(self, state: State, viewer: Viewer) -> JSON:
        return views.view(state, viewer, self.legal_actions_hint, self.result(state))

    def result(self, state: State) -> JSON | None:
        return views.result(state) if state["stage"] == "over" else None

    def legal_actions_hint(self, state: State, player_id: str) -> JSON | None:
        phase = self.phase(state)
        if phase is None or player_id not in phase.actors:
            return None
        return views.legal(state, player_id)

    def report(self, state: State, round: int | None = None, fmt: str = "json", viewer: Viewer = None) -> JSON:
        """The GM's forum post of a cycle (None: the current one), as ``viewer`` may see it."""
        return reports.render(state, round, fmt, viewer)

    def bot_action(self, state: State, actor: str, rng: Rng) -> JSON | None:
        phase = self.phase(state)
        if actor == GM or phase is None or actor not in phase.actors:
            return None
        return bots.bot_action(state, actor, phase.name, rng)


def _prompt(state: State, stage: str, actor: str) -> str:
    """What a single cyclist's phase asks of them, with where they stand."""
    name = state["names"][actor]
    if stage == "move":
        return (f"{name}, space {state['position'][actor]} of {state['cycle']['length']}, "
                f"{state['steps'][actor]} steps. {PROMPTS[stage]}")
    if stage == "suffice":
        return f"{name}: {PROMPTS[stage]} You are {rules.suffice_distance(state, actor)} spaces from it."
    return f"{name}: {PROMPTS[stage]}"


def blank(options: JSON, players: list[JSON]) -> State:
    """Basics: everyone on space 0 with thirty steps, before the first cycle is drawn."""
    ids = [p["id"] for p in players]
    return {
        "options": dict(options), "names": {p["id"]: p["name"] for p in players}, "roster": ids, "cyclists": ids,
        "steps": {c: rules.START_STEPS for c in ids}, "position": {c: 0 for c in ids},
        "departed": {}, "eliminated": {}, "cycle": None, "history": [], "order": [], "stage": "starting",
        "current": None, "pending": {}, "auction": None, "safety": None, "ceremony": None, "suffice_after": 0,
        "ballots": {},
        "winner": None, "ended": None,
    }


# -- the rules each order is checked against ---------------------------------------------------------------------
def _named(state: State, cyclist: Any, field: str, rule: str) -> str:
    if cyclist not in state["cyclists"]:
        raise RuleError(rule, f"{cyclist!r} is not a cyclist still in the game",
                        {field: ["Name a cyclist still in the game by id."]})
    return str(cyclist)


def _check_move(state: State, actor: str, action: JSON) -> None:
    spaces = action["spaces"]
    steps, here, length = state["steps"][actor], state["position"][actor], state["cycle"]["length"]
    if rules.MOVES[spaces] < 0 and steps + rules.MOVES[spaces] < 0:
        raise RuleError(rules.RULE_BELOW_ZERO, f"moving {spaces} spaces costs {-rules.MOVES[spaces]} steps and you "
                        f"have {steps}: no move may take you below zero", {"spaces": [f"You have {steps} steps."]})
    if spaces not in rules.legal_moves(steps, here, length, state["options"]["exact_finish"]):
        raise RuleError(rules.RULE_EXACT, f"you are on space {here}: {spaces} spaces would pass space {length}",
                        {"spaces": [f"At most {length - here}."]})


def _check_steal(state: State, actor: str, action: JSON) -> None:
    victim = action["from"]
    if victim is None:
        return
    _named(state, victim, "from", rules.RULE_STEAL)
    if victim == actor:
        raise RuleError(rules.RULE_STEAL, "you cannot steal from yourself", {"from": ["Name another cyclist."]})
    if state["steps"][victim] < rules.STEAL_AMOUNT:
        raise RuleError(rules.RULE_STEAL, f"{state['names'][victim]} has fewer than five steps and cannot be "
                        "stolen from", {"from": ["A cyclist with at least five steps."]})


def _check_buy_vote(state: State, actor: str, action: JSON) -> None:
    reason = rules.may_buy_vote(state, actor) if action["buy"] else None
    if reason is not None:
        raise RuleError(rules.RULE_VOTE, reason, {"buy": [reason]})


def _check_bid(state: State, actor: str, action: JSON) -> None:
    cap = state["auction"]["cap"]
    if action["amount"] > cap:
        raise RuleError(rules.RULE_BID, f"this bid is from 0 to {cap}", {"amount": [f"At most {cap}."]})


def _check_safety(state: State, actor: str, action: JSON) -> None:
    safety = state["safety"]
    if action["choice"] != "give":
        if action.get("to") is not None:
            raise RuleError(rules.RULE_SAFETY, "only a gift names a receiver", {"to": ["Leave it out."]})
        return
    if safety["transfers"] >= rules.MAX_TRANSFERS:
        raise RuleError(rules.RULE_SAFETY, "safety has been transferred five times: keep it or destroy it",
                        {"choice": ["keep or destroy"]})
    receiver = action.get("to")
    if receiver is None:
        raise RuleError(rules.RULE_SAFETY, "say who to give safety to", {"to": ["Required for a gift."]})
    _named(state, receiver, "to", rules.RULE_SAFETY)
    if receiver == actor:
        raise RuleError(rules.RULE_SAFETY, "give safety to someone else", {"to": ["Another cyclist."]})
    if receiver in safety["declined"]:
        raise RuleError(rules.RULE_SAFETY, f"{state['names'][receiver]} has declined safety already",
                        {"to": ["A cyclist who has not declined it."]})


def _check_accept(state: State, actor: str, action: JSON) -> None:
    """Any answer is allowed: it is the receiver's consent."""


def _check_vote(state: State, actor: str, action: JSON) -> None:
    target = _named(state, action["against"], "against", rules.RULE_CEREMONY)
    if target not in rules.ceremony_candidates(state):
        raise RuleError(rules.RULE_CEREMONY, "nobody may vote against the cyclist who keeps safety",
                        {"against": ["Anyone but the safety holder."]})


def _check_tiebreak(state: State, actor: str, action: JSON) -> None:
    if action["eliminate"] not in state["ceremony"]["tied"]:
        raise RuleError(rules.RULE_TIEBREAK, "choose one of the cyclists tied with the most votes",
                        {"eliminate": [f"One of: {', '.join(state['ceremony']['tied'])}."]})


def _check_suffice(state: State, actor: str, action: JSON) -> None:
    """Add, subtract or ignore: each is allowed, and only here may it take a cyclist below zero."""


_CHECKS = {"move": _check_move, "steal": _check_steal, "buy_vote": _check_buy_vote, "bid": _check_bid,
           "safety": _check_safety, "accept": _check_accept, "vote": _check_vote, "tiebreak": _check_tiebreak,
           "suffice": _check_suffice}


ENGINES = every_version(StrategicAspect, VERSIONS)  # every version, so every recorded game replays
ENGINE = ENGINES[-1]  # the latest: new games
