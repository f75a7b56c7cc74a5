"""One round of the race: from the runners' plans to the recorded outcome, and back.

``resolve_round`` computes every runner's report row (rule 15) from the state and the
plans; ``apply_round`` only reads those rows, so a replay never recomputes the rules.
"""
from __future__ import annotations

from operator import itemgetter
from typing import Any

from engines.canonical import sorted_keys
from engines.golden_strider import kept, rules
from engines.golden_strider.rules import Card

_PLACE = itemgetter("P")  # a row's place
# f"{value}" of each value a replacement card can have, 0-10 (an int: the bonus and the bank doubled, less an int
# penalty, bounded by ints); any other value fails to index it, and the plain path then writes its label.
_VALUES = tuple(f"{value}" for value in range(rules.CARD_MAX + 1))
Plan = dict[str, Any]  # {"card": index|None, "move", "bank", "deduct", "energiza", "boost", "cards", "drug"}
# What a round played for one runner: the runner, the hand it played from, the index played, those forfeited, its row.
Played = tuple[dict[str, Any], list[Card], int, list[int], dict[str, Any]]


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
    return held(state, runner, plan)


def held(state: dict[str, Any], runner: dict[str, Any], plan: Plan | None) -> list[Card]:
    """``hand_for`` without the copy, for the rules that only read the hand (checking and
    resolving orders): states are never changed, so the runner's own list will do."""
    cards = runner["cards"]
    if cards is not None:
        return cards
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

    moves: dict[str, tuple[Any, ...]] = {}
    for runner in runners:
        plan = plans.get(runner["id"])
        moves[runner["id"]] = _run_card(state, runner, plan, round_no, length, course)
    after = rules.positions({rid: m[6] for rid, m in moves.items()})

    rows, secret, private = [], {}, {}
    for runner in runners:
        rid = runner["id"]
        labels, played, forfeited, paid, move, bank, square, trip, auto, drug, energiza, boost = moves[rid]
        place = after[rid]
        bonus = rules.positional_bonus(place, field)
        banked = bank + (opts["enduron_bank"] if drug == "enduron" else 0)
        penalty = trip["penalty"] if trip else 0
        value, balance = rules.replacement_card(banked, bonus, penalty)
        carried = runner["owed"] - paid
        cost = rules.overtaking_cost(before[rid], place, round_no, opts["free_rounds"])
        cards = labels + [f"{value}/{round_no}"]  # the replacement card's label (card_label)
        rows.append(_row(rid, cards, played, paid, move, bank, value, square, place, cost + carried + balance,
                         carried, auto, trip, forfeited))
        if drug is not None:
            _drug_used(secret, private, runner, drug, energiza, boost)
    order = {r["id"]: i for i, r in enumerate(state["runners"])}
    return _outcome(rows, secret, private, order, round_no, length, opts["max_rounds"])


def _row(rid: str, cards: list[str], played: Any, paid: int, move: int, bank: int, value: int, square: int,
         place: int, owes: int, carried: int, auto: Any, trip: Any, forfeited: Any) -> dict[str, Any]:
    """A runner's history row (rules 5-14), with the rare remarks only when they apply, to keep the
    history (and the log) small.  Its keys go in sorted order (``rules.run``'s trip's too), as a round trip gives them:
    the state after the round holds the row as it is (``GoldenStrider.resolve_applied``)."""
    row = {"B": bank, "D": paid, "M": move, "O": owes, "P": place, "R": value, "S": square}
    if auto:
        row["auto"] = auto
    row["cards"] = cards
    if carried > 0:
        row["cf"] = True
    if forfeited:
        row["forfeited"] = forfeited
    row["played"] = played
    row["runner"] = rid
    if trip:
        row["trip"] = trip
    return row


def _drug_used(secret: dict[str, Any], private: dict[str, Any], runner: dict[str, Any], drug: str,
               energiza: int, boost: int) -> None:
    """Tarnished: what a runner's drug did this round, secret until the end and private to its owner."""
    used = {"drug": drug, "energiza": energiza, "boost": boost}
    secret[runner["id"]] = used
    private.setdefault(runner["owner"], {})[runner["id"]] = used


def _outcome(rows: list[dict[str, Any]], secret: dict[str, Any], private: dict[str, Any],
             order: dict[str, int] | None, round_no: int, length: int, max_rounds: int) -> dict[str, Any]:
    """The round's outcome: rows by place (ties in field order), and whether the race is over.  ``order``: each
    runner's index in the field; None when the rows are in field order, one per runner, as a stable sort by
    place then keeps ties."""
    if order is None:
        rows.sort(key=_PLACE)
    else:
        rows.sort(key=lambda row: (row["P"], order[row["runner"]]))
    over = any(row["S"] >= length for row in rows) or round_no >= max_rounds or not rows
    outcome: dict[str, Any] = {"public": {"round": round_no, "rows": rows, "over": over}, "private": {}, "secret": {}}
    if secret:
        outcome["secret"] = {"drugs": secret}
        outcome["private"] = {owner: {"drugs": used} for owner, used in private.items()}
    return outcome


def _run_card(
    state: dict[str, Any], runner: dict[str, Any], plan: Plan | None, round_no: int,
    length: int, course: dict[int, int],
) -> tuple[Any, ...]:
    """Play one runner's card: rule 13/14 defaults, restitution, movement, obstacles.

    Returns the hand's labels, the index played, the indices forfeited, D, M, B, the
    square, the trip (or None), auto, the drug, the Energiza points and the boost.
    """
    opts = state["options"]
    hand = runner["cards"]
    if hand is None:
        hand = held(state, runner, plan)
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
    forfeit = [i for i in rules.expiring(hand, round_no) if i != index] if mode == "at_expiry" else []
    labels = [f"{c['value']}/{c['turn']}" for c in hand]  # card_label of each card held
    return labels, index, forfeit, paid, move, bank, square, trip, auto, drug, extra, boost


def apply_round(state: dict[str, Any], outcome: dict[str, Any]) -> dict[str, Any]:
    """Fold a recorded round: new hands, squares, positions and restitution owed."""
    runners = [dict(runner) for runner in state["runners"]]  # copies, updated in place below
    public = outcome["public"]
    drugs = outcome.get("secret", {}).get("drugs", {})
    by_id = {r["id"]: r for r in runners}
    for row in public["rows"]:
        runner = by_id[row["runner"]]
        played = row["played"]
        if type(played) is int and "forfeited" not in row:  # the usual row: one card played, none forfeited
            runner["cards"] = rules.parse_labels_but(row["cards"], played)
        else:
            runner["cards"] = rules.parse_labels(row["cards"], {played, *row.get("forfeited", [])})
        _take_row(runner, row, drugs)
    return _next_round(state, runners, public)


def _take_row(runner: dict[str, Any], row: dict[str, Any], drugs: dict[str, Any]) -> None:
    """What a runner's row (and the drug it took) sets in its new copy, besides its hand: square, place,
    restitution owed and cf, and the drug and Energiza boost used."""
    runner["square"], runner["position"], runner["owed"], runner["cf"] = (
        row["S"], row["P"], row["O"], row.get("cf", False))
    used = drugs.get(runner["id"])
    if used:
        runner["drug"] = used["drug"]
        runner["boost_used"] = runner.get("boost_used", False) or used["boost"] > 0


def standings(state: dict[str, Any]) -> dict[str, Any]:
    """Rule 3: the first to reach or pass the finish wins, furthest past the post ahead;
    non-finishers are placed by square (ties share a place)."""
    runners = active(state)
    places = rules.positions({r["id"]: r["square"] for r in runners})
    table = sorted(  # every dict's keys sorted, as a round trip gives them (resolve_applied's state holds them)
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


def resolve_orders(state: dict[str, Any]) -> dict[str, Any] | None:
    """``resolve_round`` of the open round, every active runner playing its order (the plan
    ``orders.plan_from_order`` makes of it), or None where only that plain path can tell.

    Every resolution (and the audit's recomputation of every round) runs this: the options are
    read once, the rule helpers for one runner are written out, and the plan dicts are not built.
    It reads everything the plain path reads and does the same arithmetic on it, so wherever it
    returns, the plain path returns the same outcome; anything unexpected (an order that breaks a
    rule, a missing option, a value of another type) raises here and the plain path decides what
    to give or raise (tests/engines/golden_strider/test_fast_paths.py compares them).
    """
    try:
        return _resolve_orders(state)[0]
    except Exception:
        return None


def resolve_orders_applied(state: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None] | None:
    """``resolve_orders``, and ``apply_round`` of its outcome (round-tripped) where it can be built from the
    round just played (None: let ``apply_round`` read it).  The audit resolves every round and folds the
    state after it: the runners' new hands are the hands they played from, less the cards gone, plus the
    replacement, instead of every card read back from its label (tests/engines/golden_strider/
    test_resolve_applied.py compares the two)."""
    try:
        outcome, played, places = _resolve_orders(state, kept.plays_for(state))
    except Exception:
        return None
    try:
        return outcome, _played_round(state, outcome, played, places)
    except Exception:  # whatever apply_round would make of it, it decides
        return outcome, None


def _played_round(
    state: dict[str, Any], outcome: dict[str, Any], played: list[Played], places: list[int]
) -> dict[str, Any] | None:
    """``apply_round(state, roundtrip(outcome))`` for the round ``_resolve_orders`` played (the runners in the race
    ending in ``places``), or None where reading
    the labels back could give other cards.  A card is exactly what its label reads back as when its value and
    turn are whole numbers (not bools): so they are in every hand of a state, which only ``apply_round`` (from
    labels) and this (from such hands) fill, except a first round's, made from an order's values or the default
    cards, checked here."""
    public = outcome["public"]
    round_no = public["round"]
    if type(round_no) is not int:
        return None
    drugs = outcome["secret"].get("drugs", {})
    runners = []
    labels = {}  # each new hand's labels (by the hand's id): the row's, less the cards gone
    for runner, hand, index, forfeited, row in played:
        value = row["R"]
        if type(value) is not int or (runner["cards"] is None and not _whole(hand)):
            return None
        if forfeited:  # rule 8 at expiry: the cards that could not be played go too
            cards = [card for i, card in enumerate(hand) if i != index and i not in forfeited]
            known = [label for i, label in enumerate(row["cards"]) if i != index and i not in forfeited]
        else:
            cards = hand.copy()
            del cards[index]
            known = row["cards"].copy()
            del known[index]
        cards.append({"turn": round_no, "value": value})  # a card's keys sorted, as in every hand of a state
        labels[id(cards)] = (cards, known)  # the replacement's label is the row's last
        new = dict(runner)  # a copy in C, then the fields the row changes (cheaper than a dict display)
        new["cards"] = cards
        _take_row(new, row, drugs)
        runners.append(new if len(new) == len(runner) else sorted_keys(new))  # a field the runner lacked
    if len(runners) != len(state["runners"]):  # withdrawn runners, copied as apply_round copies them
        after = {runner["id"]: runner for runner in runners}
        runners = [after.get(runner["id"]) or dict(runner) for runner in state["runners"]]
    kept.LAST.labels = labels
    kept.LAST.places = (runners, places)  # the squares the runners in the race now stand on rank them so
    return _next_round(state, runners, public)


def _whole(hand: list[Card]) -> bool:
    """Every card's value a whole number (a first round's hand: every turn is 0)."""
    return all(type(card["value"]) is int for card in hand)


def _next_round(state: dict[str, Any], runners: list[dict[str, Any]], public: dict[str, Any]) -> dict[str, Any]:
    """The state after a round whose runners are ``runners``: its row in the history, the order book cleared.
    A new state sharing what it does not change (states are never mutated), its keys in the state's order,
    so the fold's canonical step finds the replaced values key by key (a key moved to the end made it sort
    and walk the whole state every round)."""
    new = dict(state)
    new["runners"] = runners
    new["history"] = [*state["history"], {"round": public["round"], "rows": public["rows"]}]
    new["orders"] = {}
    new["round"] = public["round"] + 1
    if public["over"]:
        new["race_over"] = True
    return new if len(new) == len(state) else sorted_keys(new)  # a key the state lacked goes where it sorts


def _resolve_orders(
    state: dict[str, Any], plays: dict[str, kept.Play] | None = None
) -> tuple[dict[str, Any], list[Played], list[int]]:
    """``resolve_orders``'s outcome, what was played, and the places the runners in the race end in.  ``plays``: what
    validate found of the orders that made this very state (``kept.plays_for``), each used only for the very order
    it checked.  The hands the last round played made (``_played_round``) come with their labels
    (``kept.LAST.labels``), and the field it made with its runners' places (``kept.LAST.places``): ``rules.places``
    of their squares, which are the rows' squares, ranked then."""
    opts = state["options"]
    round_no = state["round"]
    orders = state["orders"]
    everyone = state["runners"]
    placed = kept.LAST.places  # the field the last round resolved for the audit made, and its places
    if placed is None or placed[0] is not everyone:
        placed = None  # (that field's ids are those of the field it was made from, which this found distinct)
        if len({r["id"] for r in everyone}) != len(everyone):
            raise ValueError("runner ids repeat")  # the plain path's dicts by id decide what that gives
    runners = [r for r in everyone if not r["withdrawn"]]
    length = race_length(opts)
    course = rules.obstacle_map(opts, length)
    mode = opts["seven_turn_rule"]
    at_expiry = mode == "at_expiry"
    tarnished = opts["variant"] == "tarnished"
    default_cards = opts["default_cards"]
    energiza_max, energiza_boost = opts["energiza_max"], opts["energiza_boost"]
    past_post = opts["energiza_boost_mode"] == "past_post"
    enduron_bank, free_rounds, max_rounds = opts["enduron_bank"], opts["free_rounds"], opts["max_rounds"]
    bonuses = rules.BONUS_TEN_OR_MORE if len(everyone) >= 10 else rules.BONUS_UNDER_TEN
    life, card_max = rules.CARD_LIFE, rules.CARD_MAX
    known = kept.LAST.labels

    moves = []
    for runner in runners:
        rid = runner["id"]
        hand = runner["cards"]
        if rid in orders:  # plan_from_order
            plan = orders[rid]
            if hand is None:
                hand = rules.starting_hand(list((plan or {}).get("cards") or default_cards))
            wanted_move, wanted_bank, deduct = plan["move"], plan["bank"], plan["deduct"]
            if (plays is not None and (play := plays.get(rid)) is not None and play[0] is plan["card"]
                    and play[1] is wanted_move and play[2] is wanted_bank and play[3] is deduct):
                chosen, split = play[4], play[5]  # validate's, from the very values it read (in the same hand)
            else:
                chosen = rules.find_card(hand, plan["card"])
                split = None
            if tarnished:  # read only for the drugs (a plan is a dict here: get raises nothing)
                energiza, wanted_boost, drug = plan.get("energiza", 0), plan.get("boost", 0), plan.get("drug")
        else:
            plan = chosen = drug = split = None
            if hand is None:
                hand = rules.starting_hand(list(default_cards))
        drug = (runner.get("drug") or drug or "clean") if tarnished else None  # drug_for
        if at_expiry and split is not None and hand[chosen]["turn"] + life > round_no:
            due, auto = (), False  # validate found this card playable, and it does not expire now: so none does
        elif at_expiry:  # rules.expiring; not rules.keeps_seven_turn_rule: another card expires now, and not this one
            due = [i for i, card in enumerate(hand) if card["turn"] + life <= round_no]
            auto = chosen is None or (chosen not in due and bool(due))
        else:  # not rules.keeps_seven_turn_rule: the others cannot all be played by their deadlines
            due = ()
            auto = chosen is None
            if not auto and split is None:  # (validate found the card playable)
                bound = round_no + 1
                for d in sorted(card["turn"] + life for i, card in enumerate(hand) if i != chosen):  # rules.deadline
                    if d < bound:
                        auto = True
                        break
                    bound += 1
        index = rules.forced_card(hand, round_no, mode) if auto else chosen
        if auto:  # rules.split_card with neither number
            value, owed = hand[index]["value"], runner["owed"]
            paid = min(owed, value)
            move, bank = value - paid, 0
        elif split is not None:
            paid, move, bank = split
        else:
            paid, move, bank = rules.split_card(hand[index]["value"], runner["owed"], wanted_move, wanted_bank, deduct)
        energized = drug == "energiza" and plan is not None
        extra = min(energiza, energiza_max) if energized and not auto else 0
        square, trip = rules.run(runner["square"], move + extra, course)
        boost = 0
        wanted = min(wanted_boost, energiza_boost) if energized else 0
        if wanted and not runner.get("boost_used") and not auto:
            if square >= length if past_post else square + wanted >= length:
                boost, square = wanted, square + wanted
        forfeited = [i for i in due if i != index] if due else []
        held = known.get(id(hand)) if known else None  # the labels of a hand the last round played made
        labels = held[1] if held is not None else [f"{c['value']}/{c['turn']}" for c in hand]
        moves.append((runner, hand, labels, index, forfeited, paid, move, bank, square, trip, auto, drug, extra, boost))
    before = placed[1] if placed is not None else rules.places([r["square"] for r in runners])
    after = rules.places([m[8] for m in moves])

    rows, secret, private = [], {}, {}
    turn = f"/{round_no}"  # the replacement card's label (card_label) is its value's text and this
    for moved, place, earlier in zip(moves, after, before):
        runner, _, labels, played, forfeited, paid, move, bank, square, trip, auto, drug, energiza, boost = moved
        rid = runner["id"]
        # rules.positional_bonus, replacement_card and overtaking_cost, their min and max written as the comparisons
        # they make (a builtin's call costs more than the rest of the line): min(a, b) is b if b < a else a.
        bonus = bonuses[place - 1] if place <= len(bonuses) else 0
        raw = 2 * (bank + (enduron_bank if drug == "enduron" else 0)) + bonus
        if not raw < card_max:
            raw = card_max
        penalty = trip["penalty"] if trip else 0
        value, balance = raw - penalty, penalty - raw
        if not value > 0:
            value = 0
        if not balance > 0:
            balance = 0
        carried = runner["owed"] - paid
        cost = 0 if round_no <= free_rounds else earlier - place
        if not cost > 0:
            cost = 0
        rows.append(_row(rid, labels + [_VALUES[value] + turn], played, paid, move, bank, value, square, place,
                         cost + carried + balance, carried, auto, trip, forfeited))
        if drug is not None:
            _drug_used(secret, private, runner, drug, energiza, boost)
    played = [(move[0], move[1], move[3], move[4], row) for move, row in zip(moves, rows)]  # rows not yet by place
    return _outcome(rows, secret, private, None, round_no, length, max_rounds), played, after
