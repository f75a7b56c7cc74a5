"""The Extreme Ways engine: phases, orders and resolutions wired to the pure rules.

Phases: ``bidding`` (rounds 1..N, one Loki's Auction each), ``moving`` (one sealed
submission of an option per round), then ``ec_vote`` only when the Elimination
Candidate is tied and someone may vote.  State is plain JSON; see ``initial_state``.
"""
from __future__ import annotations

import copy
from typing import Any

from engines.contract import GM, JSON, ActionType, Engine, Meta, Phase, RuleError, State, Viewer, not_now
from engines.extreme_ways import bots, rules, views
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
from engines.rng import Rng

DAY = 86400


def active_players(state: State) -> list[str]:
    """Players still in the game (not ejected by the GM), in join order."""
    return [p for p in state["players"] if p not in state["ejected"]]


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
    actions = {
        "bid": ActionType(
            "bid", BidSchema, sealed=True,
            description="Bid gold pieces in this round's auction (a positive integer, at most your gold); "
            "a new bid or pass replaces the old one until the deadline.",
            example={"amount": 7},
        ),
        "pass": ActionType(
            "pass", PassSchema, sealed=True,
            description="Make no bid this round (replaces a bid sent earlier this round).",
            example={},
        ),
        "buy_gold": ActionType(
            "buy_gold", BuyGoldSchema, sealed=True,
            description="Convert garnets into gold pieces at the game's rate (bidding phases only; final).",
            example={"garnets": 1},
        ),
        "move": ActionType(
            "move", MoveSchema, sealed=True,
            description="Your single Moving Phase submission: one option A-D per round (null = randomise); "
            "with the Rebound twist, optionally the round and player to rebound about.",
            example={"options": ["A", "C", "B", "D", "A", "A", "C"], "rebound": None},
        ),
        "ec_vote": ActionType(
            "ec_vote", EcVoteSchema, sealed=True,
            description="Token of Life holders: vote which tied player becomes the Elimination Candidate.",
            example={"player_id": "p4"},
        ),
        "gm.set_garnets": ActionType(
            "gm.set_garnets", SetGarnetsSchema, actor="gm",
            description="GM: correct the number of garnets a player holds.",
            example={"player_id": "p2", "garnets": 3},
        ),
    }
    default_deadlines = {"bidding": DAY, "moving": 2 * DAY, "ec_vote": DAY}
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
        garnets = {p["id"]: int((p.get("fields") or {}).get("garnets", 0)) for p in players}
        return {
            "options": copy.deepcopy(options),
            "players": ids,
            "names": {p["id"]: p["name"] for p in players},
            "ejected": [],
            "rounds": copy.deepcopy(setup["public"]["rounds"]),
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
            voters = tuple(v for v in state["elimination"]["voters"] if v not in state["ejected"])
            return Phase(
                "ec_vote", voters, tuple(v for v in voters if v not in state["votes"]), True, None,
                "Token of Life holders: vote for the Elimination Candidate among the tied players.",
            )
        return None

    # -- orders ------------------------------------------------------------------
    def validate(self, state: State, actor: str, action: JSON) -> None:
        kind = action["type"]
        if kind == "gm.set_garnets":
            self._validate_set_garnets(state, action)
            return
        if actor not in state["players"]:
            raise RuleError("players", "You are not a player in this game.", status=403)
        if actor in state["ejected"]:
            raise not_now("ejected", "You were removed from this game by the GM.")
        wanted = {"bid": "bidding", "pass": "bidding", "buy_gold": "bidding", "move": "moving",
                  "ec_vote": "ec_vote"}[kind]
        if state["stage"] != wanted:
            raise not_now("phase", f"{kind} is only allowed in the {wanted} phase; "
                          f"it is {state['stage']} now.")
        getattr(self, f"_validate_{kind}")(state, actor, action)

    def _validate_bid(self, state: State, actor: str, action: JSON) -> None:
        amount, gold = action["amount"], state["gold"][actor]
        if amount < 1:
            raise RuleError("positive bid", "A bid must be a positive integer; to bid nothing, pass.",
                            {"amount": amount})
        if amount > gold:
            raise RuleError("gold", f"You bid {amount} gold pieces but hold only {gold}.",
                            {"amount": amount, "gold": gold})

    def _validate_pass(self, state: State, actor: str, action: JSON) -> None:
        return None

    def _validate_buy_gold(self, state: State, actor: str, action: JSON) -> None:
        if not state["options"]["allow_buy_gold"]:
            raise RuleError("garnets", "Buying gold pieces with garnets is off in this game.")
        count, held = action["garnets"], state["garnets"][actor]
        if count < 1:
            raise RuleError("garnets", "Buy with a positive number of garnets.", {"garnets": count})
        if count > held:
            raise RuleError("garnets", f"You hold only {held} garnets.", {"garnets": count, "held": held})

    def _validate_move(self, state: State, actor: str, action: JSON) -> None:
        total = len(state["rounds"])
        if len(action["options"]) != total:
            raise RuleError("moving phase",
                            f"Submit exactly one option (or null) for each of the {total} rounds.",
                            {"options": len(action["options"])})
        use = action["rebound"]
        if use is None:
            return
        if not state["options"]["rebound_twist"]:
            raise RuleError("rebound token", "The Rebound Token twist is not in play in this game.")
        if not 1 <= use["round"] <= total:
            raise RuleError("rebound token", f"The rebound round must be 1 to {total}.",
                            {"round": use["round"]})
        if use["player_id"] == actor or use["player_id"] not in active_players(state):
            raise RuleError("rebound token", "Rebound about a different player who is still in the game.",
                            {"player_id": use["player_id"]})

    def _validate_ec_vote(self, state: State, actor: str, action: JSON) -> None:
        phase = self.phase(state)
        if phase is None or actor not in phase.actors:
            raise not_now("elimination candidate",
                          "Only Token of Life holders vote for the Elimination Candidate.")
        if action["player_id"] not in state["elimination"]["candidates"]:
            raise RuleError("elimination candidate", "Vote for one of the tied players.",
                            {"candidates": list(state["elimination"]["candidates"])})

    def _validate_set_garnets(self, state: State, action: JSON) -> None:
        if action["player_id"] not in state["players"]:
            raise RuleError("players", f"No player {action['player_id']!r} in this game.")
        if state["stage"] == "over":
            raise not_now("game over", "The game is over.")

    def apply_action(self, state: State, actor: str, action: JSON) -> State:
        """A new state sharing the untouched parts (orders are frequent; states are never mutated)."""
        new = dict(state)
        kind = action["type"]
        if kind in ("bid", "pass"):
            new["bids"] = {**state["bids"], actor: action["amount"] if kind == "bid" else None}
        elif kind == "buy_gold":
            gold = action["garnets"] * state["options"]["garnet_rate"]
            new["garnets"] = {**state["garnets"], actor: state["garnets"][actor] - action["garnets"]}
            new["gold"] = {**state["gold"], actor: state["gold"][actor] + gold}
            bought = {"round": state["round"], "garnets": action["garnets"], "gold": gold}
            new["purchases"] = {**state["purchases"], actor: [*state["purchases"][actor], bought]}
        elif kind == "move":
            options = list(action["options"])
            use = action["rebound"]
            if use is not None:
                options[use["round"] - 1] = None  # the rebound replaces that round's move
            new["moves"] = {**state["moves"], actor: {"options": options, "rebound": copy.deepcopy(use)}}
        elif kind == "ec_vote":
            new["votes"] = {**state["votes"], actor: action["player_id"]}
        elif kind == "gm.set_garnets":
            new["garnets"] = {**state["garnets"], action["player_id"]: action["garnets"]}
        return new

    # -- resolution --------------------------------------------------------------
    def resolve(self, state: State, rng: Rng) -> JSON:
        stage = state["stage"]
        if stage == "bidding":
            return self._resolve_bidding(state)
        if stage == "moving":
            return self._resolve_moving(state, rng)
        if stage == "ec_vote":
            return self._resolve_ec_vote(state, rng)
        raise not_now("game over", "The game is over.")

    def _resolve_bidding(self, state: State) -> JSON:
        """Loki's Auction: rank by distinct amount, only packet receivers pay."""
        number = state["round"]
        active = active_players(state)
        bids = {p: a for p, a in state["bids"].items() if a is not None and p in active}
        awarded = rules.award_packets(bids)
        packets = rules.round_packets(state["rounds"][number - 1]["options"],
                                      state["secret_rounds"][number - 1])
        packet_of = {p: k for k, winners in awarded.items() for p in winners}
        paid = {p: bids[p] for p in packet_of}
        leftover = rules.leftover_packets(awarded) if state["options"]["reveal_leftover_packets"] else []
        private = {}
        for p in active:
            mine: dict[str, Any] = {"round": number, "bid": bids.get(p), "packet": packet_of.get(p),
                                    "paid": paid.get(p, 0), "gold": state["gold"][p] - paid.get(p, 0)}
            if p in packet_of:
                mine["contents"] = copy.deepcopy(packets[packet_of[p]])
            private[p] = mine
        return {
            "public": {
                "phase": "bidding",
                "round": number,
                "announcement": self._announcement(state["options"]["announce"], awarded, bids),
                "revealed_packets": {k: copy.deepcopy(packets[k]) for k in leftover},
            },
            "private": private,
            "secret": {"round": number, "bids": bids, "packets": awarded, "paid": paid},
        }

    @staticmethod
    def _announcement(mode: str, awarded: dict[str, list[str]], bids: dict[str, int]) -> JSON:
        """What the MM Winner decision announces after each auction."""
        if mode == "none":
            return None
        if mode == "winners":
            return {k: list(v) for k, v in awarded.items()}
        return {k: {"players": list(v), "amount": bids[v[0]]} for k, v in awarded.items()}

    def _resolve_moving(self, state: State, rng: Rng) -> JSON:
        """Moving Phase: randomise missing options, move, award Tokens of Life and garnets, find the EC."""
        active = active_players(state)
        total = len(state["rounds"])
        choices: dict[str, list[str | None]] = {}
        randomised: dict[str, dict[str, str]] = {}
        rebounds: dict[str, JSON] = {}
        for p in active:
            sub = state["moves"].get(p) or {"options": [None] * total, "rebound": None}
            if sub["rebound"] is not None:
                rebounds[p] = sub["rebound"]
            draw = rng.fork("options", p)
            letters = list(sub["options"])
            randomised[p] = {}
            for i, letter in enumerate(letters):
                if letter is None and not (p in rebounds and rebounds[p]["round"] == i + 1):
                    letters[i] = draw.choice(rules.OPTIONS)
                    randomised[p][str(i + 1)] = letters[i]
            choices[p] = letters
        played_rounds = [
            {"candidates": r["options"], "true": s["true"]}
            for r, s in zip(state["rounds"], state["secret_rounds"])
        ]
        paths = rules.play_moves(choices, rebounds, played_rounds, active)
        positions = {p: paths[p][-1] for p in active}
        distances = {p: rules.manhattan(positions[p]) for p in active}
        tokens = rules.tokens_of_life(positions)
        counts = rules.tokens_per_player(tokens, active)
        awarded = {p: rules.garnets_awarded(state["gold"][p], counts[p] > 0) for p in active}
        garnets = {p: state["garnets"][p] + awarded.get(p, 0) for p in state["players"]}
        elimination = self._find_ec(state, distances, counts, garnets, rng.fork("ec"))
        return {
            "public": {
                "phase": "moving",
                "positions": positions,
                "distances": distances,
                "gold": {p: state["gold"][p] for p in active},
                "tokens_of_life": tokens,
                "tokens": counts,
                "garnets_awarded": awarded,
                "elimination": elimination,
            },
            "private": {p: {"options": choices[p], "randomised": randomised[p]} for p in active},
            "secret": {"paths": paths, "garnets": garnets},
        }

    @staticmethod
    def _find_ec(state: State, distances: dict[str, int], counts: dict[str, int],
                 garnets: dict[str, int], rng: Rng) -> JSON:
        """The Elimination Candidate: lowest distance among those eligible; a tie goes to a
        vote of the Token of Life holders, or straight to the garnet/random tie-break."""
        exclude = rules.ec_excludes_token_holders(state["options"])
        eligible = [p for p in distances if not (exclude and counts[p] > 0)]
        tied = rules.lowest_distance(distances, eligible)
        voters = [p for p in distances if counts[p] > 0]
        out: JSON = {"candidates": tied, "voters": [], "ec": None, "decided_by": None}
        if len(tied) == 1:
            out.update(ec=tied[0], decided_by="lowest distance")
        elif len(tied) > 1 and voters:
            out["voters"] = voters
        elif len(tied) > 1:
            ec, how = rules.break_tie(tied, garnets, rng)
            out.update(ec=ec, decided_by=how)
        else:
            out["decided_by"] = "nobody eligible"
        return out

    def _resolve_ec_vote(self, state: State, rng: Rng) -> JSON:
        """Tally the Token holders' votes; a tie goes to fewest garnets, then random."""
        elim = state["elimination"]
        candidates = [c for c in elim["candidates"] if c not in state["ejected"]]
        voters = [v for v in elim["voters"] if v not in state["ejected"]]
        votes = {v: state["votes"][v] for v in voters if state["votes"].get(v) in candidates}
        tally = {c: sum(1 for choice in votes.values() if choice == c) for c in candidates}
        if not candidates:
            ec, how = None, "nobody eligible"
        elif len(candidates) == 1:
            ec, how = candidates[0], "only candidate left"
        else:
            top = rules.most_voted(votes, candidates)
            ec, how = (top[0], "vote") if len(top) == 1 else rules.break_tie(top, state["garnets"], rng)
        return {
            "public": {"phase": "ec_vote", "tally": tally, "ec": ec, "decided_by": how},
            "private": {},
            "secret": {"votes": votes},
        }

    def apply_outcome(self, state: State, outcome: JSON) -> State:
        new = copy.deepcopy(state)
        public = outcome["public"]
        if public["phase"] == "bidding":
            for p, mine in outcome["private"].items():
                new["gold"][p] = mine["gold"]
                if mine["packet"] is not None:
                    new["packets_won"][p].append(
                        {"round": mine["round"], "packet": mine["packet"], "paid": mine["paid"],
                         "contents": copy.deepcopy(mine["contents"])}
                    )
            new["auctions"].append(
                {"public": copy.deepcopy(public), "secret": copy.deepcopy(outcome["secret"])})
            new["bids"] = {}
            new["round"] += 1
            if new["round"] > len(new["rounds"]):
                new["stage"], new["round"] = "moving", None
        elif public["phase"] == "moving":
            new["played"] = {"choices": {p: mine["options"] for p, mine in outcome["private"].items()},
                             "randomised": {p: mine["randomised"] for p, mine in outcome["private"].items()},
                             "paths": copy.deepcopy(outcome["secret"]["paths"])}
            new["garnets"] = dict(outcome["secret"]["garnets"])
            new["results"] = {
                k: copy.deepcopy(v) for k, v in public.items() if k not in ("phase", "elimination")}
            new["elimination"] = copy.deepcopy(public["elimination"])
            new["stage"] = "ec_vote" if new["elimination"]["voters"] else "over"
        elif public["phase"] == "ec_vote":
            new["elimination"].update(ec=public["ec"], decided_by=public["decided_by"],
                                      tally=dict(public["tally"]), votes=dict(outcome["secret"]["votes"]))
            new["stage"] = "over"
        return new

    def eject(self, state: State, player_id: str) -> State:
        """GM ruling: the player leaves; their open order and vote are dropped, they stop moving."""
        new = copy.deepcopy(state)
        if player_id not in new["ejected"]:
            new["ejected"].append(player_id)
        new["bids"].pop(player_id, None)
        new["moves"].pop(player_id, None)
        new["votes"].pop(player_id, None)
        return new

    # -- what people see ---------------------------------------------------------
    def view(self, state: State, viewer: Viewer) -> JSON:
        return views.view(state, viewer, self.legal_actions_hint)

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
