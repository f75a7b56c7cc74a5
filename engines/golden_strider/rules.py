"""Pure rule functions of Golden Strider: cards, positions, overtaking, obstacles.

Nothing here knows about phases or players; every function takes plain data and
returns new plain data, named after the rulebook (card, restitution, banking, bonus).
"""
from __future__ import annotations

from typing import Any, Iterable

from engines.contract import RuleError

Card = dict[str, int]  # {"turn": round received (0 = initial card), "value": 0..10}

HAND_SIZE = 5
CARD_MAX = 10
CARD_LIFE = 7  # rule 8: no card may be held more than seven turns

# Rule 6: positional bonus by position (index 0 = 1st); later positions get nothing.
BONUS_UNDER_TEN = (0, 1, 1, 2, 2, 2)
BONUS_TEN_OR_MORE = (0, 1, 1, 2, 2, 2, 2, 2)


def card_label(card: Card) -> str:
    """A card as the rulebook writes it: value/turn received ("6/0")."""
    return f"{card['value']}/{card['turn']}"


def parse_label(label: str) -> Card:
    """The card written as "value/turn" (rule 15's Cards column), read back from a report row."""
    value, turn = label.split("/", 1)
    return {"turn": int(turn), "value": int(value)}


def sort_hand(cards: Iterable[Card]) -> list[Card]:
    """Rule 15 order: oldest first; initial cards (all turn 0) lowest value first."""
    return sorted((dict(c) for c in cards), key=lambda c: (c["turn"], c["value"]))


def starting_hand(values: list[int]) -> list[Card]:
    """Rule 2: the five chosen starting cards, all received in turn 0."""
    # sort_hand's order: all turn 0, so by value.
    return [{"turn": 0, "value": v} for v in sorted(values)]


def check_starting_cards(values: list[int], total: int) -> None:
    """Rule 2 (and Enduron's 32): five cards, each 0-10, with the required total."""
    if len(values) != HAND_SIZE:
        raise RuleError("rule 2", f"choose exactly {HAND_SIZE} starting cards", {"cards": values})
    if any(not 0 <= v <= CARD_MAX for v in values):
        raise RuleError("rule 2", "each starting card must be in the range 0-10", {"cards": values})
    if sum(values) != total:
        raise RuleError(
            "rule 2", f"starting cards must total {total}, these total {sum(values)}", {"cards": values}
        )


def find_card(hand: list[Card], label: str) -> int:
    """Index of the card named "value/turn" (or just "value": the oldest of that value)."""
    value, turn = _card_name(label)
    for i, card in enumerate(hand):
        if card["value"] == value and (turn is None or card["turn"] == turn):
            return i
    text = str(label).strip()
    held = " ".join(card_label(c) for c in hand)
    raise RuleError("rule 5", f"you hold no card {text} (you hold {held})", {"card": text})


def _card_name(label: str) -> tuple[int, int | None]:
    """(value, turn) as an order names a card; turn None for a bare value (any turn)."""
    text = str(label).strip()
    try:
        if "/" in text:
            value, turn = (int(part) for part in text.split("/", 1))
            return value, turn
        return int(text), None
    except ValueError:
        raise RuleError("rule 5", f"name a card as value/turn, like 6/0, not {label!r}") from None


def default_card(hand: list[Card]) -> int:
    """Rule 13: the oldest card; of several initial cards, the lowest value."""
    return min(range(len(hand)), key=lambda i: (hand[i]["turn"], hand[i]["value"]))


def deadline(card: Card) -> int:
    """Rule 8: the last round in which a card may be played."""
    return card["turn"] + CARD_LIFE


def keeps_seven_turn_rule(hand: list[Card], index: int, round_no: int, mode: str) -> bool:
    """Rule 8: may the card at ``index`` be played in ``round_no``?

    ``ahead``: only if every other card can still be played by its deadline, one a
    round (earliest deadline first).  ``at_expiry``: only if no other card expires now.
    """
    others = [deadline(c) for i, c in enumerate(hand) if i != index]
    if mode == "at_expiry":
        return deadline(hand[index]) <= round_no or all(d > round_no for d in others)
    return all(d >= round_no + 1 + j for j, d in enumerate(sorted(others)))


def expiring(hand: list[Card], round_no: int) -> list[int]:
    """Indices of cards whose last round is this one (rule 8)."""
    return [i for i, c in enumerate(hand) if deadline(c) <= round_no]


def forced_card(hand: list[Card], round_no: int, mode: str) -> int:
    """Rule 14: the card the referee plays for a runner who ignores rule 8.

    ``ahead``: the oldest card (rule 13), always feasible.  ``at_expiry``: the lowest
    of the cards expiring now.
    """
    if mode == "at_expiry":
        due = expiring(hand, round_no)
        if due:
            return min(due, key=lambda i: (hand[i]["value"], hand[i]["turn"]))
    return default_card(hand)


def split_card(
    value: int, owed: int, move: int | None, bank: int | None, deduct: str = "move"
) -> tuple[int, int, int]:
    """Rules 5 and 12: (D, M, B) for a card of ``value`` with ``owed`` restitution.

    Restitution is paid first (D = the smaller of owed and the card).  Two numbers split
    either the whole card (then D comes off ``deduct`` first) or what is left after D.
    A lone number is what the player gets, net of restitution; the rest of what is left
    goes to the other side (ruling 17).  Neither means everything to movement.
    """
    paid = min(owed, value)
    net = value - paid
    if move is None and bank is None:
        return paid, net, 0
    if move is not None and bank is not None:
        total = move + bank
        if total == net:
            return paid, move, bank
        if total != value:
            raise RuleError(
                "rule 5",
                f"movement {move} + banking {bank} must equal the card's value {value}"
                + (f" or {net} after {paid} restitution" if paid else ""),
                {"move": move, "bank": bank, "card": value, "restitution": paid},
            )
        return (paid, *deduct_from(move, bank, paid, deduct))
    key, side, amount = ("move", "movement", move) if move is not None else ("bank", "banking", bank)
    assert amount is not None
    if amount > net:
        left = f"the {net} left of the card's {value} after {paid} restitution" if paid else f"the card's value {value}"
        raise RuleError(
            "rule 5", f"{side} {amount} is more than {left}", {key: amount, "card": value, "restitution": paid}
        )
    return (paid, amount, net - amount) if key == "move" else (paid, net - amount, amount)


def deduct_from(move: int, bank: int, cost: int, first: str) -> tuple[int, int]:
    """Take restitution off the named number first, then the other (rule 12; robots)."""
    if first == "bank":
        take = min(bank, cost)
        return move - (cost - take), bank - take
    take = min(move, cost)
    return move - take, bank - (cost - take)


def positions(squares: dict[str, int]) -> dict[str, int]:
    """Rule 11/6: competition ranking by square (furthest first); ties share a place.

    Past the finish the square is the distance run, so rule 3's "furthest past the
    post is ahead" is the same ordering.
    """
    return dict(zip(squares, places(list(squares.values()))))


def places(squares: list[int]) -> list[int]:
    """``positions`` of squares listed in field order: each runner's place, in the same order."""
    ordered = sorted(squares, reverse=True)
    return [ordered.index(sq) + 1 for sq in squares]


def positional_bonus(position: int, field_size: int) -> int:
    """Rule 6: the bonus for a position; the 10+ runner table gives 2 to 4th-8th."""
    table = BONUS_TEN_OR_MORE if field_size >= 10 else BONUS_UNDER_TEN
    return table[position - 1] if position <= len(table) else 0


def overtaking_cost(before: int, after: int, round_no: int, free_rounds: int) -> int:
    """Rules 9-11: one point per net place gained, from round three on."""
    if round_no <= free_rounds:
        return 0
    return max(0, before - after)


def replacement_card(bank: int, bonus: int, penalty: int = 0) -> tuple[int, int]:
    """Rules 6-7 and the trip penalty: (card value, penalty balance still owed).

    The card is twice the banking plus the bonus, never above 10; a trip penalty
    comes off it and whatever the card cannot cover is owed next turn.
    """
    raw = min(CARD_MAX, 2 * bank + bonus)
    return max(0, raw - penalty), max(0, penalty - raw)


def run(start: int, points: int, obstacles: dict[int, int]) -> tuple[int, dict[str, int] | None]:
    """Move ``points`` from square ``start`` over a course with ``obstacles``.

    Steeplechase: each obstacle ahead costs extra points (1 barrier, 2 water jump)
    that do not move the runner; ending on one without paying them all is a trip,
    penalised one point plus the points unpaid.  Returns (square, trip or None).
    """
    square, left = start, points
    while left > 0:
        square += 1
        left -= 1
        extra = obstacles.get(square, 0)
        if extra:
            paid = min(extra, left)
            left -= paid
            if paid < extra:
                short = extra - paid
                return square, {"penalty": 1 + short, "square": square, "unpaid": short}
    return square, None


def obstacle_map(options: dict[str, Any], length: int) -> dict[int, int]:
    """Steeplechase course: square -> extra points (barriers 1, water jumps 2).

    Only obstacles before the finish count (ruling 9): a runner who reaches square
    ``length`` has finished, so an obstacle on the finish square or beyond it is never
    jumped, even in a shorter race run on the default course.
    """
    if options["variant"] != "steeplechase":
        return {}
    course = {sq: 1 for sq in options["barriers"] if sq < length}
    course.update({sq: 2 for sq in options["water_jumps"] if sq < length})
    return course
