"""One round of the race: from the runners' plans to the recorded outcome, and back.

``resolve_round`` computes every runner's report row (rule 15) from the state and the
plans; ``apply_round`` only reads those rows, so a replay never recomputes the rules.
"""
from __future__ import annotations

from typing import Any, NamedTuple

from engines.golden_strider import rules
from engines.golden_strider.rules import Card

Plan = dict[str, Any]  # {"card": index|None, "move", "bank", "deduct", "energiza", "boost", "cards", "drug"}


class Run(NamedTuple):
    """What one runner's card did this round (rules 5, 8, 12-14, the Steeplechase and the drugs)."""

    labels: list[str]  # the hand played from, as "value/turn" (rule 15's Cards column)
    played: int  # index of the card played
    forfeited: list[int]  # rule 8 at expiry: the other cards that expired unplayed
    paid: int  # D: restitution paid (rule 12)
    move: int  # M
    bank: int  # B
    square: int  # S
    trip: dict[str, int] | None  # Steeplechase: the trip, if any
    auto: bool  # played by the referee (rules 13-14)
    drug: str | None  # Tarnished: the runner's drug
    energiza: int  # Tarnished: Energiza's extra movement
    boost: int  # Tarnished: Energiza's finishing boost


def active(state: dict[str, Any]) -> list[dict[str, Any]]:
    """Runners still in the race (not withdrawn by a GM ejection)."""
    return [r for r in state["runners"] if not r["withdrawn"]]


def race_length(options: dict[str, Any]) -> int:
    """Rule 4: set by the referee; 60 by default, 70 for the Steeplechase."""
    if options.get("race_length"):
        return int(options["race_length"])
    return 70 if options["variant"] == "steeplechase" else 60


def hand_for(state: dict[str, Any], runner: dict[str, Any], plan: Plan | None) -> list[Card]:
    """The runner's hand now; in round 1 (rule 2) the starting cards sent with the order,
    or the default cards when none came (rule 13).  Read only: states are never changed."""
    if runner["cards"] is not None:
        return runner["cards"]
    values = (plan or {}).get("cards") or state["options"]["default_cards"]
    return rules.starting_hand(list(values))


def drug_for(state: dict[str, Any], runner: dict[str, Any], plan: Plan | None) -> str | None:
    """Tarnished: the runner's drug (chosen with the first order; clean by default)."""
    if state["options"]["variant"] != "tarnished":
        return None
    return runner.get("drug") or (plan or {}).get("drug") or "clean"


def resolve_round(state: dict[str, Any], plans: dict[str, Plan | None]) -> dict[str, Any]:
    """Rules 5-14 (and the variants) for the open round: the outcome to record."""
    opts = state["options"]
    round_no = state["round"]
    length = race_length(opts)
    course = rules.obstacle_map(opts, length)
    field = len(state["runners"])
    runners = active(state)
    before = rules.positions({r["id"]: r["square"] for r in runners})

    runs = {r["id"]: _run_card(state, r, plans.get(r["id"]), round_no, length, course) for r in runners}
    after = rules.positions({rid: run.square for rid, run in runs.items()})

    rows, secret, private = [], {}, {}
    for runner in runners:
        rid = runner["id"]
        run = runs[rid]
        place = after[rid]
        bonus = rules.positional_bonus(place, field)  # rule 6
        banked = run.bank + (opts["enduron_bank"] if run.drug == "enduron" else 0)
        penalty = run.trip["penalty"] if run.trip else 0
        value, balance = rules.replacement_card(banked, bonus, penalty)  # rules 6-7, the trip penalty
        carried = runner["owed"] - run.paid  # rule 12: what the card could not pay
        cost = rules.overtaking_cost(before[rid], place, round_no, opts["free_rounds"])  # rules 9-11
        cards = run.labels + [rules.card_label({"value": value, "turn": round_no})]
        rows.append(_row(rid, run, cards, value, place, cost + carried + balance, carried))
        if run.drug is not None:
            _drug_used(secret, private, runner, run)
    field_order = {r["id"]: i for i, r in enumerate(state["runners"])}
    rows.sort(key=lambda row: (row["P"], field_order[row["runner"]]))  # rule 15: by place, ties in field order
    over = any(row["S"] >= length for row in rows) or round_no >= opts["max_rounds"] or not rows
    outcome: dict[str, Any] = {"public": {"round": round_no, "rows": rows, "over": over}, "private": {}, "secret": {}}
    if secret:
        outcome["secret"] = {"drugs": secret}
        outcome["private"] = {owner: {"drugs": used} for owner, used in private.items()}
    return outcome


def _row(rid: str, run: Run, cards: list[str], value: int, place: int, owes: int, carried: int) -> dict[str, Any]:
    """A runner's history row (rule 15), with the rare remarks only when they apply, to keep the
    history (and the log) small."""
    row: dict[str, Any] = {"B": run.bank, "D": run.paid, "M": run.move, "O": owes, "P": place, "R": value,
                           "S": run.square}
    if run.auto:
        row["auto"] = True
    row["cards"] = cards
    if carried > 0:
        row["cf"] = True  # ruling 19
    if run.forfeited:
        row["forfeited"] = run.forfeited
    row["played"] = run.played
    row["runner"] = rid
    if run.trip:
        row["trip"] = run.trip
    return row


def _drug_used(secret: dict[str, Any], private: dict[str, Any], runner: dict[str, Any], run: Run) -> None:
    """Tarnished: what a runner's drug did this round, secret until the end and private to its owner."""
    used = {"drug": run.drug, "energiza": run.energiza, "boost": run.boost}
    secret[runner["id"]] = used
    private.setdefault(runner["owner"], {})[runner["id"]] = used


def _run_card(
    state: dict[str, Any], runner: dict[str, Any], plan: Plan | None, round_no: int,
    length: int, course: dict[int, int],
) -> Run:
    """Play one runner's card: rule 13/14 defaults, restitution, movement, obstacles, drugs."""
    opts = state["options"]
    hand = hand_for(state, runner, plan)
    drug = drug_for(state, runner, plan)
    mode = opts["seven_turn_rule"]
    chosen = plan.get("card") if plan else None
    auto = chosen is None or not rules.keeps_seven_turn_rule(hand, chosen, round_no, mode)  # rules 13-14
    index = rules.forced_card(hand, round_no, mode) if auto else chosen
    value = hand[index]["value"]
    if auto:  # rule 13: movement only, after restitution
        paid, move, bank = rules.split_card(value, runner["owed"], None, None)
    else:
        assert plan is not None
        paid, move, bank = rules.split_card(value, runner["owed"], plan["move"], plan["bank"], plan["deduct"])
    doped = plan is not None and drug == "energiza" and not auto
    extra = min(plan.get("energiza", 0), opts["energiza_max"]) if plan and doped else 0
    square, trip = rules.run(runner["square"], move + extra, course)
    boost = 0
    wanted = min(plan.get("boost", 0), opts["energiza_boost"]) if plan and drug == "energiza" else 0
    if wanted and not runner.get("boost_used") and not auto:
        past_post = opts["energiza_boost_mode"] == "past_post"
        crosses = square >= length if past_post else square + wanted >= length
        if crosses:
            boost, square = wanted, square + wanted
    forfeited = [i for i in rules.expiring(hand, round_no) if i != index] if mode == "at_expiry" else []
    labels = [rules.card_label(c) for c in hand]
    return Run(labels, index, forfeited, paid, move, bank, square, trip, auto, drug, extra, boost)


def apply_round(state: dict[str, Any], outcome: dict[str, Any]) -> dict[str, Any]:
    """Fold a recorded round: new hands, squares, positions and restitution owed."""
    runners = [dict(runner) for runner in state["runners"]]  # copies, updated in place below
    public = outcome["public"]
    drugs = outcome.get("secret", {}).get("drugs", {})
    by_id = {r["id"]: r for r in runners}
    for row in public["rows"]:
        runner = by_id[row["runner"]]
        gone = {row["played"], *row.get("forfeited", [])}
        runner["cards"] = [rules.parse_label(label) for i, label in enumerate(row["cards"]) if i not in gone]
        runner["square"], runner["position"], runner["owed"], runner["cf"] = (
            row["S"], row["P"], row["O"], row.get("cf", False))
        used = drugs.get(runner["id"])
        if used:
            runner["drug"] = used["drug"]
            runner["boost_used"] = runner.get("boost_used", False) or used["boost"] > 0
    new = dict(state)  # shares what it does not change: states are never mutated
    new["runners"] = runners
    new["history"] = [*state["history"], {"round": public["round"], "rows": public["rows"]}]
    new["orders"] = {}
    new["round"] = public["round"] + 1
    if public["over"]:
        new["race_over"] = True
    return new


def standings(state: dict[str, Any]) -> dict[str, Any]:
    """Rule 3: the first to reach or pass the finish wins, furthest past the post ahead;
    non-finishers are placed by square (ties share a place)."""
    runners = active(state)
    places = rules.positions({r["id"]: r["square"] for r in runners})
    table = sorted(
        ({"finished": r["square"] >= state["race_length"], "name": r["name"], "place": places[r["id"]],
          "player": r["owner"], "runner": r["id"], "square": r["square"]} for r in runners),
        key=lambda row: row["place"],
    )
    winners = [row["player"] for row in table if row["place"] == 1]
    withdrawn = [
        {"name": r["name"], "player": r["owner"], "runner": r["id"]}
        for r in state["runners"] if r["withdrawn"]
    ]
    return {"rounds": state["round"] - 1, "standings": table, "winners": winners, "withdrawn": withdrawn}
