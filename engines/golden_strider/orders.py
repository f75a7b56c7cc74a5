"""Who orders what: finding a player's runner and checking a play against the rules."""
from __future__ import annotations

from typing import Any

from engines.contract import RuleError, not_now
from engines.golden_strider import rules
from engines.golden_strider.kept import LAST, Play
from engines.golden_strider.race import Plan, active, held
from engines.golden_strider.tarnished import starting_total


def own_runners(state: dict[str, Any], player_id: str) -> list[dict[str, Any]]:
    """The player's runners still in the race (one, or two for a Tarnished manager)."""
    return [r for r in state["runners"] if r["owner"] == player_id and not r["withdrawn"]]  # of race.active


def find_runner(state: dict[str, Any], player_id: str, name: str | None) -> dict[str, Any]:
    """The runner an order names (by id or name); the only one when there is one.

    Every order recorded asks this, and orders name their runner: that runner is found in one pass, with
    ``named_runner``'s test, as the first of the player's runners it names.  No name, or no runner named
    (the error): ``named_runner`` decides (tests/engines/golden_strider/test_found_runner.py compares them).
    """
    if type(name) is str:
        stripped = name.strip()
        wanted = stripped.casefold()
        exact = len(stripped) == len(name)  # then an id written as it is (as orders write them) names its runner
        for runner in state["runners"]:
            if runner["owner"] == player_id and not runner["withdrawn"] and (
                    exact and runner["id"] == name or _is_named(runner, wanted)):
                return runner
    return named_runner(own_runners(state, player_id), name)


def named_runner(mine: list[dict[str, Any]], name: str | None) -> dict[str, Any]:
    """``find_runner`` among the player's runners ``mine`` (``own_runners``)."""
    if name is None:
        if len(mine) == 1:
            return mine[0]
        names = ", ".join(r["name"] for r in mine)
        raise RuleError("runner", f"name which runner this order is for ({names})", {"runners": names})
    wanted = name.strip().casefold()
    for runner in mine:
        if _is_named(runner, wanted):
            return runner
    raise RuleError("runner", f"you have no runner in the race called {name!r}", {"runner": name})


def _is_named(runner: dict[str, Any], wanted: str) -> bool:
    """An order names its runner by id or by name, in any case (``wanted``: the name stripped and casefolded)."""
    return wanted == runner["id"].casefold() or wanted == runner["name"].casefold()


def _player_ids(players: list[dict[str, Any]]) -> frozenset[Any]:
    """The ids of the game's players (``check_order`` asks whether the actor is one of them, with ``==``: the same
    answer for the strings ids are, and a player without an id or an id that cannot be hashed raises, so that
    check_order decides).  Read once a game, not once an order: every state of a game holds the same list
    (``kept.LAST.players``)."""
    known = LAST.players
    if known is None or known[0] is not players:
        known = LAST.players = (players, frozenset([player["id"] for player in players]))
    return known[1]


def check_setup(state: dict[str, Any], runner: dict[str, Any], action: dict[str, Any]) -> None:
    """Rule 2 and the Tarnished drugs: starting cards (and drug) come with round 1 only."""
    variant = state["options"]["variant"]
    if action.get("drug") and variant != "tarnished":
        raise RuleError("tarnished", "drugs exist only in the Tarnished variant", {"drug": action["drug"]})
    if runner["cards"] is not None:
        if action.get("cards") is not None or action.get("drug"):
            raise not_now("rule 2", "starting cards (and drugs) are chosen with the first order only")
        return
    if action.get("cards") is None:
        raise RuleError("rule 2", "send your five starting cards (cards: [...]) with your first order")
    rules.check_starting_cards(action["cards"], starting_total(action.get("drug"), state["options"]))


def check_drug_use(state: dict[str, Any], runner: dict[str, Any], action: dict[str, Any]) -> None:
    """Energiza: 0-2 extra movement and one finishing boost, for Energiza runners only."""
    opts = state["options"]
    drug = runner.get("drug") or action.get("drug") or "clean"
    if not (action.get("energiza") or action.get("boost")):
        return
    if state["options"]["variant"] != "tarnished" or drug != "energiza":
        raise RuleError("tarnished: energiza", "only a runner on Energiza can add movement or a boost")
    if action["energiza"] > opts["energiza_max"]:
        raise RuleError("tarnished: energiza", f"Energiza adds 0 to {opts['energiza_max']} to movement")
    if action["boost"] > opts["energiza_boost"]:
        raise RuleError("tarnished: energiza", f"the finishing boost is at most {opts['energiza_boost']}")
    if action["boost"] and runner.get("boost_used"):
        raise RuleError("tarnished: energiza", "the finishing boost has already been used")


def plans(state: dict[str, Any]) -> dict[str, Plan]:
    """The plan of every runner in the race with an order in (the others play by rule 13)."""
    return {
        r["id"]: plan_from_order(state, r, state["orders"][r["id"]])
        for r in active(state) if r["id"] in state["orders"]
    }


def plan_from_order(state: dict[str, Any], runner: dict[str, Any], order: dict[str, Any]) -> Plan:
    """A checked order as the plan ``race.resolve_round`` plays."""
    hand = held(state, runner, order)
    return {
        "card": rules.find_card(hand, order["card"]), "move": order["move"], "bank": order["bank"],
        "deduct": order["deduct"], "energiza": order.get("energiza", 0), "boost": order.get("boost", 0),
        "cards": order.get("cards"), "drug": order.get("drug"),
    }


def check_play(state: dict[str, Any], runner: dict[str, Any], action: dict[str, Any]) -> None:
    """Rules 2, 5, 8 and 12 (and the drugs) for one runner's order this round."""
    check_setup(state, runner, action)
    check_drug_use(state, runner, action)
    # What plan_from_order reads, in its order (so that a malformed order fails the same way),
    # without building the plan: the card it names, then its split.
    hand = held(state, runner, action)
    card = rules.find_card(hand, action["card"])
    move, bank, deduct = action["move"], action["bank"], action["deduct"]
    mode = state["options"]["seven_turn_rule"]
    if not rules.keeps_seven_turn_rule(hand, card, state["round"], mode):
        due = rules.card_label(hand[rules.forced_card(hand, state["round"], mode)])
        playable = [
            rules.card_label(c) for i, c in enumerate(hand)
            if rules.keeps_seven_turn_rule(hand, i, state["round"], mode)
        ]
        raise RuleError(
            "rule 8",
            f"no card may be held more than seven turns: playing {action['card']} now would leave a card "
            f"you cannot play in time; play {' or '.join(sorted(set(playable)))}",
            {"card": action["card"], "must_play": due, "playable": playable},
        )
    value = hand[card]["value"]
    rules.split_card(value, runner["owed"], move, bank, deduct)


def plainly_valid_play(
    state: dict[str, Any], actor: str, action: dict[str, Any]
) -> tuple[dict[str, Any], Play | None] | None:
    """Only where ``GoldenStrider.validate`` lets the order through: the usual play (in a round,
    for one of the actor's runners, no drug and no Energiza), read and checked by the same rules in
    one pass, as every order sent and every order audited is.  None for any other order, or where
    anything raises: the full checks then name the problem (test_fast_paths.py compares the two).
    Gives the runner the order is for, and what it found of the play (``kept.Play``) from a hand the
    runner holds (None in round 1, whose hand is made from the order)."""
    try:
        return _plainly_valid_play(state, actor, action)
    except Exception:
        return None


def _plainly_valid_play(
    state: dict[str, Any], actor: str, action: dict[str, Any]
) -> tuple[dict[str, Any], Play | None] | None:
    if action["type"] != "play" or state["stage"] != "round":
        return None
    runner = find_runner(state, actor, action.get("runner"))  # one of the actor's runners: they have some
    if actor not in _player_ids(state["players"]):  # and a player of the game
        return None
    if action.get("drug") or action.get("energiza") or action.get("boost"):
        return None
    opts = state["options"]
    opts["variant"]  # read by check_setup
    if runner["cards"] is None:  # check_setup: the starting cards come with the first order
        hand = action.get("cards")
        if hand is None:
            return None
        rules.check_starting_cards(hand, 30)  # tarnished.starting_total without a drug
        hand = rules.starting_hand(list(hand))
    elif action.get("cards") is not None:
        return None
    else:
        hand = runner["cards"]
    named = action["card"]
    card = rules.find_card(hand, named)
    move, bank, deduct = action["move"], action["bank"], action["deduct"]
    if not rules.keeps_seven_turn_rule(hand, card, state["round"], opts["seven_turn_rule"]):
        return None
    split = rules.split_card(hand[card]["value"], runner["owed"], move, bank, deduct)
    return runner, (named, move, bank, deduct, card, split) if hand is runner["cards"] else None
