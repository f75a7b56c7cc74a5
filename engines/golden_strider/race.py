"""One round of the race: from the runners' plans to the recorded outcome, and back.

``resolve_round`` computes every runner's report row (rule 15) from the state and the
plans; ``apply_round`` only reads those rows, so a replay never recomputes the rules.
"""
from __future__ import annotations

from typing import Any

from engines.golden_strider import rules
from engines.golden_strider.rules import Card

Plan = dict[str, Any]  # {"card": index|None, "move", "bank", "deduct", "energiza", "boost", "cards", "drug"}


def active(state: dict[str, Any]) -> list[dict[str, Any]]:
    """Runners still in the race (not withdrawn by a GM ejection)."""
    return [r for r in state["runners"] if not r["withdrawn"]]


def race_length(options: dict[str, Any]) -> int:
    """Rule 4: set by the referee; 60 by default, 70 for the Steeplechase."""
    if options.get("race_length"):
        return int(options["race_length"])
    return 70 if options["variant"] == "steeplechase" else 60


def hand_for(state: dict[str, Any], runner: dict[str, Any], plan: Plan | None) -> list[Card]:
    """The runner's hand now; in round 1 the starting cards sent with the order."""
    if runner["cards"] is not None:
        return [dict(c) for c in runner["cards"]]
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

    moves: dict[str, dict[str, Any]] = {}
    for runner in runners:
        plan = plans.get(runner["id"])
        moves[runner["id"]] = _run_card(state, runner, plan, round_no, length, course)
    after = rules.positions({rid: m["S"] for rid, m in moves.items()})

    rows, secret, private = [], {}, {}
    for runner in runners:
        m = moves[runner["id"]]
        place = after[runner["id"]]
        bonus = rules.positional_bonus(place, field)
        banked = m["B"] + (opts["enduron_bank"] if m["drug"] == "enduron" else 0)
        penalty = m["trip"]["penalty"] if m["trip"] else 0
        value, balance = rules.replacement_card(banked, bonus, penalty)
        carried = runner["owed"] - m["D"]
        cost = rules.overtaking_cost(before[runner["id"]], place, round_no, opts["free_rounds"])
        cards = m["cards"] + [rules.card_label({"value": value, "turn": round_no})]
        row = {
            "runner": runner["id"], "cards": cards, "played": m["played"],
            "D": m["D"], "M": m["M"], "B": m["B"], "R": value, "S": m["S"], "P": place,
            "O": cost + carried + balance,
        }
        # Rare remarks only when they apply, to keep the history (and the log) small.
        extras = {"cf": carried > 0, "auto": m["auto"], "trip": m["trip"], "forfeited": m["forfeited"]}
        row.update({key: value for key, value in extras.items() if value})
        rows.append(row)
        if m["drug"] is not None:
            used = {"drug": m["drug"], "energiza": m["energiza"], "boost": m["boost"]}
            secret[runner["id"]] = used
            private.setdefault(runner["owner"], {})[runner["id"]] = used
    order = {r["id"]: i for i, r in enumerate(state["runners"])}
    rows.sort(key=lambda row: (row["P"], order[row["runner"]]))
    over = any(row["S"] >= length for row in rows) or round_no >= opts["max_rounds"] or not rows
    public = {"round": round_no, "rows": rows, "over": over}
    outcome: dict[str, Any] = {"public": public, "private": {}, "secret": {}}
    if secret:
        outcome["secret"] = {"drugs": secret}
        outcome["private"] = {owner: {"drugs": used} for owner, used in private.items()}
    return outcome


def _run_card(
    state: dict[str, Any], runner: dict[str, Any], plan: Plan | None, round_no: int,
    length: int, course: dict[int, int],
) -> dict[str, Any]:
    """Play one runner's card: rule 13/14 defaults, restitution, movement, obstacles."""
    opts = state["options"]
    hand = hand_for(state, runner, plan)
    drug = drug_for(state, runner, plan)
    mode = opts["seven_turn_rule"]
    chosen = plan.get("card") if plan else None
    auto = chosen is None or not rules.keeps_seven_turn_rule(hand, chosen, round_no, mode)
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
    forfeit = set(rules.expiring(hand, round_no)) - {index} if mode == "at_expiry" else set()
    return {
        "cards": [rules.card_label(c) for c in hand], "played": index, "forfeited": sorted(forfeit),
        "D": paid, "M": move, "B": bank, "S": square, "trip": trip,
        "auto": auto, "drug": drug, "energiza": extra, "boost": boost,
    }


def apply_round(state: dict[str, Any], outcome: dict[str, Any]) -> dict[str, Any]:
    """Fold a recorded round: new hands, squares, positions and restitution owed."""
    # A new state sharing what it does not change (states are never mutated): only the
    # runners are copied, as they are updated in place below.  "history" is taken out and
    # put back last, which is where it has always been after a round.
    new = {key: value for key, value in state.items() if key != "history"}
    new["runners"] = [dict(runner) for runner in new["runners"]]
    public = outcome["public"]
    drugs = outcome.get("secret", {}).get("drugs", {})
    by_id = {r["id"]: r for r in new["runners"]}
    for row in public["rows"]:
        runner = by_id[row["runner"]]
        gone = {row["played"], *row.get("forfeited", [])}
        runner["cards"] = [rules.parse_label(c) for i, c in enumerate(row["cards"]) if i not in gone]
        runner.update(square=row["S"], position=row["P"], owed=row["O"], cf=row.get("cf", False))
        used = drugs.get(row["runner"])
        if used:
            runner["drug"] = used["drug"]
            runner["boost_used"] = runner.get("boost_used", False) or used["boost"] > 0
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
        ({"runner": r["id"], "name": r["name"], "player": r["owner"], "square": r["square"],
          "place": places[r["id"]], "finished": r["square"] >= state["race_length"]} for r in runners),
        key=lambda row: row["place"],
    )
    winners = [row["player"] for row in table if row["place"] == 1]
    withdrawn = [
        {"runner": r["id"], "name": r["name"], "player": r["owner"]}
        for r in state["runners"] if r["withdrawn"]
    ]
    return {"winners": winners, "standings": table, "withdrawn": withdrawn, "rounds": state["round"] - 1}
