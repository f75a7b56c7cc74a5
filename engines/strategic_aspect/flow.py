"""The cycle's state machine: what each phase's resolution does, as a list of recorded effects.

A resolution (or a quit) is worked out by a ``Flow``: each decision is written as an effect and at once
applied to a working state with ``apply_effect``, so the next decision sees its consequences.  The
outcome records the effects (public) and any turn order drawn (secret: a cyclist learns their place only
when their turn opens); ``apply_outcome`` folds the very same effects with the very same ``apply_effect``.
So each rule is written once, and a replay never decides anything.
"""
from __future__ import annotations

from typing import Any

from engines.contract import JSON
from engines.rng import Rng
from engines.strategic_aspect import rules
from engines.strategic_aspect.rules import FINAL, NORMAL, SUDDEN_DEATH, SUFFICE
from engines.strategic_aspect.versions import Rulings

State = dict[str, Any]

RACE_STAGES = ("move", "steal", "buy_vote")
AFTER_ARRIVAL_STAGES = ("auction", "rebid", "safety", "accept", "vote", "tiebreak")


# -- applying effects ------------------------------------------------------------------------------------------
def apply_effect(state: State, effect: JSON, secret: JSON) -> State:
    """The state after one recorded effect (``secret``: the outcome's secret part, for a drawn order)."""
    return _APPLY[effect["do"]](state, effect, secret)


def apply_effects(state: State, outcome: JSON) -> State:
    secret = outcome.get("secret") or {}
    for effect in outcome["public"]["effects"]:
        state = apply_effect(state, effect, secret)
    return state


def _steps(state: State, changes: dict[str, int]) -> dict[str, int]:
    return {c: n + changes.get(c, 0) for c, n in state["steps"].items()}


def _log_turn(state: State, entry: JSON) -> State:
    cycle = state["cycle"]
    return {**state, "cycle": {**cycle, "turns": [*cycle["turns"], entry]}}


def _amend_turn(state: State, **changes: Any) -> State:
    cycle = state["cycle"]
    turns = [*cycle["turns"][:-1], {**cycle["turns"][-1], **changes}]
    return {**state, "cycle": {**cycle, "turns": turns}}


def _move(state: State, e: JSON, secret: JSON) -> State:
    """Basics: the cyclist moves and earns or spends; reaching the end of the cycle is an arrival."""
    new = {**state, "steps": _steps(state, {e["cyclist"]: e["steps"]}), "pending": {},
           "position": {**state["position"], e["cyclist"]: e["to"]}}
    if e["to"] >= state["cycle"]["length"]:
        new["cycle"] = {**new["cycle"], "arrivals": [*new["cycle"]["arrivals"], e["cyclist"]]}
    entry = {"turn": state["cycle"]["turn"], "round": state["cycle"]["round"], "cyclist": e["cyclist"],
             "move": e["spaces"], "from": e["from"], "to": e["to"], "steps": e["steps"], "missed": e["missed"]}
    return _log_turn(new, entry)


def _steal(state: State, e: JSON, secret: JSON) -> State:
    """Stealing steps: five steps from the victim to the thief (or the chance declined)."""
    new = {**state, "pending": {}}
    if e["from"] is not None:
        new["steps"] = _steps(state, {e["cyclist"]: rules.STEAL_AMOUNT, e["from"]: -rules.STEAL_AMOUNT})
    return _amend_turn(new, steal={"from": e["from"], "missed": e["missed"]})


def _buy_vote(state: State, e: JSON, secret: JSON) -> State:
    """Tie-breaking vote: ten steps for the vote, good for this cycle."""
    new = {**state, "pending": {}}
    if e["buy"]:
        new["steps"] = _steps(state, {e["cyclist"]: -rules.VOTE_PRICE})
        new["cycle"] = {**state["cycle"], "vote_holder": e["cyclist"]}
    return _amend_turn(new, purchase={"buy": e["buy"], "missed": e["missed"]})


def _new_round(state: State, e: JSON, secret: JSON) -> State:
    """Turn order: a fresh random order for the next round of turns (kept secret in the state)."""
    return {**state, "order": list(secret["orders"][e["draw"]]), "cycle": {**state["cycle"], "round": e["round"]}}


def _open(state: State, e: JSON, secret: JSON) -> State:
    """The next phase opens.  A turn (move or suffice) takes its cyclist off the round's order."""
    stage = e["stage"]
    new = {**state, "stage": stage, "pending": {}, "current": e.get("cyclist")}
    if stage in ("move", "suffice"):
        new["order"] = [c for c in state["order"] if c != e["cyclist"]]
        new["cycle"] = {**state["cycle"], "turn": state["cycle"]["turn"] + 1, "place": e["place"]}
    if stage in ("auction", "rebid"):
        new["auction"] = {**(state["auction"] or {"bidders": e["bidders"], "rounds": []}), "cap": e["cap"]}
    if stage == "safety":
        new["safety"] = {**state["safety"], "holder": e["cyclist"], "status": "deciding", "offered_to": None}
    if stage == "accept":
        new["safety"] = {**state["safety"], "status": "offered", "offered_to": e["cyclist"]}
    if stage == "tiebreak":
        new["ceremony"] = {**state["ceremony"], "tied": e["tied"]}
    return new


def _auction(state: State, e: JSON, secret: JSON) -> State:
    """Safety auction: the bids revealed together and paid; safety won, destroyed or bid again."""
    payments = {c: -n for c, n in e["paid"].items()}
    auction = state["auction"]
    auction = {**auction, "rounds": [*auction["rounds"], {k: e[k] for k in ("bids", "paid", "result", "missed")}],
               "result": e["result"], "winner": e["winner"], "list": e.get("list")}
    safety = None
    if e["winner"] is not None:
        safety = {"holder": e["winner"], "transfers": 0, "status": "deciding", "offered_to": None,
                  "declined": [], "history": []}
    elif e["result"] == "destroyed":
        safety = {"holder": None, "transfers": 0, "status": "destroyed", "offered_to": None,
                  "declined": [], "history": []}
    return {**state, "steps": _steps(state, payments), "auction": auction, "safety": safety or state["safety"],
            "pending": {}}


def _safety(state: State, e: JSON, secret: JSON) -> State:
    """Safety options: keep, destroy or give (the receiver is asked next)."""
    safety = state["safety"]
    status = {"keep": "kept", "destroy": "destroyed", "give": "offered"}[e["choice"]]
    entry = {"cyclist": e["cyclist"], "choice": e["choice"], "to": e.get("to"), "missed": e["missed"]}
    return {**state, "pending": {},
            "safety": {**safety, "status": status, "history": [*safety["history"], entry]}}


def _accept(state: State, e: JSON, secret: JSON) -> State:
    """Safety options: an accepted transfer makes the receiver the holder; a declined one goes back."""
    safety = state["safety"]
    entry = {"cyclist": e["cyclist"], "choice": "accept" if e["accept"] else "decline", "missed": e["missed"]}
    new = {**safety, "history": [*safety["history"], entry], "offered_to": None}
    if e["accept"]:
        new.update(holder=e["cyclist"], transfers=safety["transfers"] + 1, declined=[])
    else:
        new["declined"] = [*safety["declined"], e["cyclist"]]
    return {**state, "pending": {}, "safety": new}


def _ceremony(state: State, e: JSON, secret: JSON) -> State:
    """Elimination ceremony: the counts are published (the ballots stay secret in the outcome)."""
    ceremony = {k: e[k] for k in ("counts", "automatic", "abstained", "tied")}
    ballots = {**state["ballots"], str(state["cycle"]["number"]): dict(secret.get("ballots", {}))}  # the GM's
    return {**state, "pending": {}, "ballots": ballots,
            "ceremony": {**ceremony, "list": e.get("list"), "eliminated": None, "by": None}}


def _eliminate(state: State, e: JSON, secret: JSON) -> State:
    cyclist = e["cyclist"]
    ceremony = {**state["ceremony"], "eliminated": cyclist, "by": e["by"], "list": e.get("list")}
    return {**state, "pending": {}, "ceremony": ceremony,  # their space stays on record until the next cycle
            "cyclists": [c for c in state["cyclists"] if c != cyclist],
            "eliminated": {**state["eliminated"], cyclist: {"cycle": state["cycle"]["number"],
                                                             "steps": state["steps"][cyclist]}}}


def _suffice(state: State, e: JSON, secret: JSON) -> State:
    """Suffice cycle: the cyclist adds, subtracts or ignores their distance to the end."""
    entry = {"turn": state["cycle"]["turn"], "round": 1, "cyclist": e["cyclist"], "distance": e["distance"],
             "choice": e["choice"], "steps": e["steps"], "missed": e["missed"]}
    return _log_turn({**state, "pending": {}, "steps": _steps(state, {e["cyclist"]: e["steps"]})}, entry)


def _new_cycle(state: State, e: JSON, secret: JSON) -> State:
    """Transitioning cycles: the finished cycle goes to the history; a suffice cycle keeps positions,
    any other starts everyone again on space 0 (steps carry over)."""
    history = [*state["history"], _closed(state)] if state["cycle"] is not None else state["history"]
    keep = e["kind"] == SUFFICE
    position = dict(state["position"]) if keep else {c: 0 for c in state["cyclists"]}
    cycle = {"number": e["number"], "kind": e["kind"], "length": e["length"], "tiebreak_space": e["tiebreak_space"],
             "vote_holder": None, "round": 0, "turn": 0, "place": 0, "arrivals": [], "turns": []}
    return {**state, "history": history, "cycle": cycle, "position": position, "order": [], "pending": {},
            "auction": None, "safety": None, "ceremony": None, "current": None, "stage": "starting",
            "suffice_after": e.get("suffice_after", state["suffice_after"])}


def _closed(state: State) -> JSON:
    """A finished cycle as the report keeps it: the cycle, its auction, safety, ceremony and standings."""
    return {**state["cycle"], "auction": state["auction"], "safety": state["safety"], "ceremony": state["ceremony"],
            "standings": {c: {"position": state["position"].get(c), "steps": state["steps"][c]}
                          for c in state["roster"]},
            "left": [c for c in state["roster"] if c not in state["cyclists"]]}


def _leave(state: State, e: JSON, secret: JSON) -> State:
    """Quitting/ejections: the cyclist leaves with "▲ steps"; their open order and place in the order go."""
    cyclist = e["cyclist"]
    departed = {**state["departed"], cyclist: {"kind": e["kind"], "steps": state["steps"][cyclist],
                                               "cycle": state["cycle"]["number"] if state["cycle"] else 0}}
    pending = {c: o for c, o in state["pending"].items() if c != cyclist}
    return {**state, "departed": departed, "pending": pending,
            "cyclists": [c for c in state["cyclists"] if c != cyclist],
            "position": {c: p for c, p in state["position"].items() if c != cyclist},
            "order": [c for c in state["order"] if c != cyclist],
            "suffice_after": state["suffice_after"] + e.get("owed", 0)}


def _finish(state: State, e: JSON, secret: JSON) -> State:
    """The final (or sudden death) decided, or nobody left to race: the game is over."""
    steps = _steps(state, {e["winner"]: e.get("bonus", 0)}) if e["winner"] else state["steps"]
    history = [*state["history"], _closed({**state, "steps": steps})]
    return {**state, "steps": steps, "stage": "over", "current": None, "pending": {}, "order": [],
            "winner": e["winner"], "ended": e["how"], "history": history}


_APPLY = {"move": _move, "steal": _steal, "buy_vote": _buy_vote, "new_round": _new_round, "open": _open,
          "auction": _auction, "safety": _safety, "accept": _accept, "ceremony": _ceremony,
          "eliminate": _eliminate, "suffice": _suffice, "new_cycle": _new_cycle, "leave": _leave,
          "finish": _finish}


# -- deciding ----------------------------------------------------------------------------------------------------
class Flow:
    """Works out one resolution: decisions become effects, applied at once to a working state."""

    def __init__(self, state: State, rng: Rng, rulings: Rulings) -> None:
        self.state = state
        self.rng = rng
        self.rulings = rulings  # the game's version (versions.py)
        self.effects: list[JSON] = []
        self.secret: dict[str, Any] = {}

    def do(self, effect: JSON) -> None:
        self.effects.append(effect)
        self.state = apply_effect(self.state, effect, self.secret)

    def draw_order(self, order: list[str], round_: int) -> None:
        """Turn order: a drawn order is recorded in the outcome's secret part (several may be drawn in one
        resolution, each named by its place there); the public effect says only that a round began."""
        drawn = self.secret.setdefault("orders", [])
        drawn.append(order)
        self.do({"do": "new_round", "round": round_, "riders": len(order), "draw": len(drawn) - 1})

    def outcome(self, **extra: Any) -> JSON:
        return {"public": {"effects": self.effects}, "private": {}, "secret": self.secret, **extra}

    # -- turns -----------------------------------------------------------------------------------------------
    def end_turn(self) -> None:
        """After a turn: the auction once two have arrived, the end of a final at the first arrival,
        else the next turn (ruling: the rest of the round is not played once the race is decided)."""
        cycle = self.state["cycle"]
        arrivals = cycle["arrivals"]
        if cycle["kind"] == NORMAL and len(arrivals) >= 2:
            self.do({"do": "open", "stage": "auction", "bidders": arrivals[:2], "cap": rules.MAX_BID})
        elif cycle["kind"] in (FINAL, SUDDEN_DEATH) and arrivals:
            self.end_final(arrivals[0])
        else:
            self.next_turn()

    def next_turn(self) -> None:
        """Turn order: the next cyclist of this round's order; a fresh order when the round is over.
        Ruling: cyclists who have reached the end of the cycle take no more turns in it."""
        state = self.state
        kind, length = state["cycle"]["kind"], state["cycle"]["length"]
        if kind == SUFFICE:
            left = [c for c in state["order"] if rules.suffice_distance(state, c) > 0]
            if not left:
                self.end_suffice()
                return
            self.do({"do": "open", "stage": "suffice", "cyclist": left[0], "place": state["cycle"]["place"] + 1})
            return
        riders = [c for c in state["cyclists"] if state["position"][c] < length]
        left = [c for c in state["order"] if c in riders]
        place = state["cycle"]["place"] + 1
        if not left:
            left = self.rng.shuffled(riders)
            self.draw_order(left, state["cycle"]["round"] + 1)
            place = 1
        self.do({"do": "open", "stage": "move", "cyclist": left[0], "place": place})

    def after_move(self, cyclist: str) -> None:
        """A steal or the vote's purchase may open in the middle of the turn; else the turn ends."""
        state = self.state
        position = state["position"][cyclist]
        if position in rules.steal_spaces(state["cycle"]["kind"]) and rules.steal_targets(state, cyclist):
            self.do({"do": "open", "stage": "steal", "cyclist": cyclist})
        elif rules.may_buy_vote(state, cyclist) is None:
            self.do({"do": "open", "stage": "buy_vote", "cyclist": cyclist})
        else:
            self.end_turn()

    # -- cycles ----------------------------------------------------------------------------------------------
    def start_cycle(self) -> None:
        """Transitioning cycles: the next cycle with whoever is left; two make the final; one wins."""
        state = self.state
        left = state["cyclists"]
        if len(left) <= 1:
            winner = left[0] if left else None
            self.do({"do": "finish", "winner": winner, "how": "last cyclist left" if winner else "nobody left"})
            return
        number = state["cycle"]["number"] + 1 if state["cycle"] else 1
        kind = NORMAL if len(left) > 2 else FINAL
        space = self.rng.choice(rules.TIEBREAK_SPACES) if kind == NORMAL else None
        self.do({"do": "new_cycle", "number": number, "kind": kind, "length": rules.CYCLE_SPACES,
                 "tiebreak_space": space})
        self.next_turn()

    def start_sudden_death(self) -> None:
        self.do({"do": "new_cycle", "number": self.state["cycle"]["number"] + 1, "kind": SUDDEN_DEATH,
                 "length": rules.SUDDEN_DEATH_SPACES, "tiebreak_space": None})
        self.next_turn()

    def start_suffice(self) -> None:
        """Quitting/ejections: a suffice cycle with a new turn order of everyone still in the game, on the
        spaces where they stand (distance to 30, or 15 in sudden death)."""
        cycle = self.state["cycle"]
        self.do({"do": "new_cycle", "number": cycle["number"] + 1, "kind": SUFFICE, "length": cycle["length"],
                 "tiebreak_space": None})
        self.draw_order(self.rng.shuffled(self.state["cyclists"]), 1)
        self.next_turn()

    def end_suffice(self) -> None:
        """After every cyclist's suffice turn: another suffice cycle if more left at once, else the next."""
        if self.state["suffice_after"] > 0:
            cycle = self.state["cycle"]
            self.do({"do": "new_cycle", "number": cycle["number"] + 1, "kind": SUFFICE, "length": cycle["length"],
                     "tiebreak_space": None, "suffice_after": self.state["suffice_after"] - 1})
            self.draw_order(self.rng.shuffled(self.state["cyclists"]), 1)
            self.next_turn()
        else:
            self.start_cycle()

    def end_final(self, arrived: str) -> None:
        """The final: the most steps wins; a tie goes to sudden death, and a tie after sudden death to
        whoever reached 15 (with an extra step)."""
        state = self.state
        steps = state["steps"]
        finalists = state["cyclists"]
        best = max(steps[c] for c in finalists)
        leaders = [c for c in finalists if steps[c] == best]
        if len(leaders) == 1:
            self.do({"do": "finish", "winner": leaders[0], "how": "most steps"})
        elif state["cycle"]["kind"] == FINAL:
            self.start_sudden_death()
        else:
            self.do({"do": "finish", "winner": arrived, "how": "reached 15 in a tied sudden death", "bonus": 1})

    # -- ceremony ----------------------------------------------------------------------------------------------
    def open_ceremony(self) -> None:
        self.do({"do": "open", "stage": "vote"})

    def eliminate(self, cyclist: str, by: str, order: list[str] | None = None) -> None:
        self.do({"do": "eliminate", "cyclist": cyclist, "by": by, "list": order})
        self.start_cycle()

    def random_list(self, tied: list[str]) -> None:
        """Tie-breaking vote unused: a randomized list of the tied; the bottom one is eliminated."""
        order = self.rng.shuffled(tied)
        self.eliminate(order[-1], "random list", order)


# -- each stage's resolution --------------------------------------------------------------------------------------
def resolve(state: State, rng: Rng, rulings: Rulings) -> JSON:
    """The outcome of the open phase, every missing order given its default (rulings in the doc)."""
    flow = Flow(state, rng, rulings)
    _RESOLVE[state["stage"]](flow, state, state["pending"])
    return flow.outcome()


def _resolve_move(flow: Flow, state: State, pending: JSON) -> None:
    cyclist = state["current"]
    order = pending.get(cyclist)
    options = state["options"]
    length = state["cycle"]["length"]
    here = state["position"][cyclist]
    if order is not None:
        spaces, missed = order["spaces"], False
    else:
        legal = rules.legal_moves(state["steps"][cyclist], here, length, options["exact_finish"])
        spaces = flow.rng.choice(legal) if options["missed_move"] == "random" else 1
        missed = True
    flow.do({"do": "move", "cyclist": cyclist, "spaces": spaces, "from": here, "to": min(length, here + spaces),
             "steps": rules.MOVES[spaces], "missed": missed})
    flow.after_move(cyclist)


def _resolve_steal(flow: Flow, state: State, pending: JSON) -> None:
    cyclist = state["current"]
    order = pending.get(cyclist)
    victim = order["from"] if order is not None else None  # ruling: a missed steal takes nothing
    flow.do({"do": "steal", "cyclist": cyclist, "from": victim, "missed": order is None})
    if rules.may_buy_vote(flow.state, cyclist) is None:
        flow.do({"do": "open", "stage": "buy_vote", "cyclist": cyclist})
    else:
        flow.end_turn()


def _resolve_buy_vote(flow: Flow, state: State, pending: JSON) -> None:
    cyclist = state["current"]
    order = pending.get(cyclist)
    flow.do({"do": "buy_vote", "cyclist": cyclist, "buy": bool(order and order["buy"]), "missed": order is None})
    flow.end_turn()


def _resolve_bids(flow: Flow, state: State, pending: JSON) -> None:
    """Safety auction (and re-bid): missing bids are zero (ruling); the bids are revealed together."""
    bidders = state["auction"]["bidders"]
    bids = {c: pending[c]["amount"] if c in pending else 0 for c in bidders}
    missed = [c for c in bidders if c not in pending]
    result = rules.auction_result(bids, state["stage"] == "rebid")
    winner, drawn = None, None
    if result == "won":
        winner = max(bidders, key=lambda c: bids[c])
    elif result == "draw":
        drawn = flow.rng.shuffled(bidders)
        winner = drawn[0]
    paid = rules.auction_payments(bids, result, winner)
    flow.do({"do": "auction", "stage": state["stage"], "bids": bids, "paid": paid, "missed": missed,
             "result": result, "winner": winner, "list": drawn})
    if result == "rebid":
        flow.do({"do": "open", "stage": "rebid", "bidders": bidders, "cap": state["auction"]["cap"] - bids[bidders[0]]})
    elif winner is not None:
        flow.do({"do": "open", "stage": "safety", "cyclist": winner})
    else:
        flow.open_ceremony()


def _resolve_safety(flow: Flow, state: State, pending: JSON) -> None:
    holder = state["current"]
    order = pending.get(holder)
    choice = order["choice"] if order else state["options"]["missed_safety"]
    to = order.get("to") if order and choice == "give" else None
    flow.do({"do": "safety", "cyclist": holder, "choice": choice, "to": to, "missed": order is None})
    if choice == "give":
        flow.do({"do": "open", "stage": "accept", "cyclist": to})
    else:
        flow.open_ceremony()


def _resolve_accept(flow: Flow, state: State, pending: JSON) -> None:
    receiver = state["current"]
    order = pending.get(receiver)
    accept = bool(order and order["accept"])  # ruling: consent is given, never assumed
    giver = state["safety"]["holder"]
    flow.do({"do": "accept", "cyclist": receiver, "accept": accept, "missed": order is None})
    flow.do({"do": "open", "stage": "safety", "cyclist": receiver if accept else giver})


def _resolve_vote(flow: Flow, state: State, pending: JSON) -> None:
    """Elimination ceremony: secret ballots, public counts; negative voters vote against themselves."""
    candidates = rules.ceremony_candidates(state)
    voters = rules.ceremony_voters(state)
    ballots = {c: pending[c]["against"] for c in voters if c in pending}
    abstained = [c for c in voters if c not in pending]
    automatic = rules.automatic_voters(state)
    if state["options"]["missed_vote"] == "self":
        ballots.update({c: c for c in abstained})
        if flow.rulings.missed_self_votes_are_cast:  # cast against themselves, like a negative cyclist's
            automatic = [c for c in state["cyclists"] if c in automatic or c in abstained]
            abstained = []
    ballots.update({c: c for c in automatic})
    counts = rules.count_votes(candidates, ballots)
    tied = rules.most_voted(counts)
    flow.secret["ballots"] = dict(sorted(ballots.items()))
    flow.do({"do": "ceremony", "counts": counts, "automatic": automatic, "abstained": abstained, "tied": tied})
    holder = rules.usable_vote_holder(state)
    if len(tied) == 1:
        flow.eliminate(tied[0], "votes")
    elif holder is not None:
        flow.do({"do": "open", "stage": "tiebreak", "cyclist": holder, "tied": tied})
    else:
        flow.random_list(tied)


def _resolve_tiebreak(flow: Flow, state: State, pending: JSON) -> None:
    order = pending.get(state["current"])
    if order is None:  # ruling: a holder who does not choose leaves it to the random list
        flow.random_list(state["ceremony"]["tied"])
    else:
        flow.eliminate(order["eliminate"], "tie-breaking vote")


def _resolve_suffice(flow: Flow, state: State, pending: JSON) -> None:
    cyclist = state["current"]
    order = pending.get(cyclist)
    choice = order["choice"] if order else "ignore"  # ruling: a missed suffice turn leaves the steps alone
    distance = rules.suffice_distance(state, cyclist)
    flow.do({"do": "suffice", "cyclist": cyclist, "distance": distance, "choice": choice,
             "steps": rules.SUFFICE_SIGN[choice] * distance, "missed": order is None})
    flow.next_turn()


_RESOLVE = {"move": _resolve_move, "steal": _resolve_steal, "buy_vote": _resolve_buy_vote, "auction": _resolve_bids,
            "rebid": _resolve_bids, "safety": _resolve_safety, "accept": _resolve_accept, "vote": _resolve_vote,
            "tiebreak": _resolve_tiebreak, "suffice": _resolve_suffice}


# -- quitting and ejections ---------------------------------------------------------------------------------------
def leave(state: State, cyclist: str, kind: str, rng: Rng, rulings: Rulings) -> JSON:
    """Quitting/ejections.  Before two reach 30 (or in the final or sudden death): a suffice cycle at once.
    During a suffice cycle: one more suffice cycle after it.  After two reach 30: the next cycle at once
    (revealed bids stay paid; nothing undeclared goes through)."""
    flow = Flow(state, rng, rulings)
    stage = state["stage"]
    if cyclist in state["eliminated"] and rulings.eliminated_quitter_stays_eliminated:
        return flow.outcome(closes_phase=False)  # ruling 11: out of the game already, nothing changes
    if cyclist not in state["cyclists"] or stage == "over":
        flow.do({"do": "leave", "cyclist": cyclist, "kind": kind, "out": True})  # already eliminated
        return flow.outcome(closes_phase=False)
    kind_of_cycle = state["cycle"]["kind"]
    if kind_of_cycle == SUFFICE:
        flow.do({"do": "leave", "cyclist": cyclist, "kind": kind, "owed": 1})
        if state["current"] != cyclist:
            return flow.outcome(closes_phase=False)
        flow.next_turn()
        return flow.outcome(closes_phase=True)
    flow.do({"do": "leave", "cyclist": cyclist, "kind": kind})
    if stage in RACE_STAGES:
        flow.start_suffice()
    else:
        flow.start_cycle()
    return flow.outcome(closes_phase=True)
