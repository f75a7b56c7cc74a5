"""Who orders what: finding a player's runner and checking a play against the rules."""
from __future__ import annotations

from typing import Any

from engines.contract import RuleError, not_now
from engines.golden_strider import rules
from engines.golden_strider.race import Plan, active, hand_for
from engines.golden_strider.tarnished import starting_total


def own_runners(state: dict[str, Any], player_id: str) -> list[dict[str, Any]]:
    """The player's runners still in the race (one, or two for a Tarnished manager)."""
    return [r for r in state["runners"] if r["owner"] == player_id and not r["withdrawn"]]  # of race.active


def find_runner(state: dict[str, Any], player_id: str, name: str | None) -> dict[str, Any]:
    """The runner an order names (by id or name); the only one when there is one."""
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
    hand = hand_for(state, runner, order)
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
    hand = hand_for(state, runner, action)
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
