"""The SXYZM Cyclone engine: one phase per turn, the die roll drawn when a turn opens.

The first turn's roll is drawn in ``setup``; each later roll is drawn in the
``resolve`` outcome of the turn before, so every roll is public the moment its turn
opens.  A turn order is the whole turn: the list of moves, played in order.
"""
from __future__ import annotations

import copy
import threading
from dataclasses import dataclass
from typing import Any, NoReturn

from engines.canonical import roundtrip, sorted_keys
from engines.contract import GM, JSON, ActionType, Engine, Meta, Phase, RuleError, State, Viewer, not_now
from engines.rng import Rng
from engines.sxyzm_cyclone import rules, turns, views
from engines.sxyzm_cyclone.board import CUBES_PER_PLAYER, cube_name, next_toward, routes, space
from engines.sxyzm_cyclone.bots import random_moves
from engines.sxyzm_cyclone.schemas import JoinSchema, OptionsSchema, TurnSchema

RULE_TURN = "one player acts at a time"
RULE_OVER = "the game is over"
RULE_EJECTED = "ejected players take no turns"
RULE_WON = "the game ends with the winning action"


class SxyzmCyclone(Engine):
    meta = Meta(
        name="sxyzm-cyclone",
        version="1.0.0",
        title="SXYZM Cyclone",
        min_players=2,
        max_players=4,
        turn_based=True,
        hidden_information=False,
        summary="Roll a die, move and stack cubes toward the other bases; stacks get pushed home.",
    )
    options_schema = OptionsSchema
    # GM-fixed die rolls would tell everyone the coming rolls; each is public when its turn opens.
    secret_options = frozenset({"rolls"})
    join_schema = JoinSchema
    actions = {
        "turn": ActionType(
            "turn",
            TurnSchema,
            actor="player",
            sealed=False,
            description="Your whole turn: up to the die roll of moves, each one cube one space toward a base",
            example={"moves": [{"cube": "blue-5", "toward": "yellow"},
                               {"cube": "blue-4", "toward": "yellow"}]},
        )
    }
    default_deadlines = {"turn": 86400}
    simulation_cases = (
        {"options": {}, "players": 2},
        {"options": {"side": "four-colour", "path_length": 5}, "players": 2},
        {"options": {"missed_turn": "random"}, "players": 3, "fields": [{"colour": "red"}, {}, {}]},
        {"options": {"path_length": 6, "allow_unused_actions": False}, "players": 4},
    )

    # -- setup -----------------------------------------------------------------
    def setup(self, options: JSON, players: list[JSON], rng: Rng) -> JSON:
        """Seats and colours, the first player (drawn unless fixed) and the first roll."""
        side = turns.board_side(options, len(players))
        seats = turns.assign_colours(players, side)
        colours = turns.turn_order(list(seats.values()))
        first = turns.first_colour(options, colours, rng.fork("first"))
        roll = turns.draw_roll(options, 1, rng.fork("roll"))
        public = {"side": side, "colours": seats, "first": first, "roll": roll}
        return {"public": public, "private": {}, "secret": {}}

    def initial_state(self, options: JSON, players: list[JSON], setup: JSON) -> State:
        """Setup rule: each colour's five cubes on the five spaces nearest its base."""
        public = setup["public"]
        seats: dict[str, str] = public["colours"]
        colours = turns.turn_order(list(seats.values()))
        return {
            "options": copy.deepcopy(options),
            "side": public["side"],
            "path_length": options["path_length"],
            "colours": colours,
            "players": [{"id": p["id"], "name": p["name"], "colour": seats[p["id"]]} for p in players],
            "spaces": {
                space(c, n): [cube_name(c, n)] for c in colours for n in range(1, CUBES_PER_PLAYER + 1)
            },
            "bases": {c: [] for c in colours},
            "turn": 1,
            "current": public["first"],
            "roll": public["roll"],
            "order": None,
            "over": False,
            "ended": None,
            "winners": [],
            "ejected": [],
        }

    # -- phases and orders -----------------------------------------------------
    def phase(self, state: State) -> Phase | None:
        """The current player's turn; nobody is awaited when they cannot move or were ejected."""
        if state["over"]:
            return None
        player = turns.player_of(state, state["current"])
        ejected = player in state["ejected"]
        can_move = bool(rules.movable_cubes(state, state["current"]))
        awaiting = (player,) if state["order"] is None and not ejected and can_move else ()
        return Phase(
            name="turn",
            actors=() if ejected else (player,),
            awaiting=awaiting,
            sealed=False,
            round=state["turn"],
            prompt=views.prompt(state, can_move, player),
        )

    def phase_name(self, state: State) -> str | None:
        """``phase(state).name`` without finding who can move or writing the prompt (the audit asks
        after every resolution; ~8% of an audit)."""
        return None if state["over"] else "turn"

    def validate(self, state: State, actor: str, action: JSON) -> None:
        """Check the whole turn move by move against the position each move meets."""
        if state["over"]:
            raise not_now(RULE_OVER, "the game is over")
        if actor in state["ejected"]:
            raise not_now(RULE_EJECTED, "you have been ejected from this game: your turns are skipped")
        colour = turns.colour_of(state, actor)
        if colour != state["current"]:
            current = turns.player_of(state, state["current"])
            raise not_now(RULE_TURN, f"it is {state['current']}'s turn ({current}), not yours")
        moves = action["moves"]
        roll = state["roll"]
        if len(moves) > roll:
            raise RuleError(rules.RULE_ROLL, f"you rolled {roll}: at most {roll} moves, not {len(moves)}",
                            {"roll": roll, "moves": len(moves)})
        played = _play_turn(state, colour, moves, checked=True)
        if not played.won:
            unused = len(moves) < roll and rules.legal_moves(played.board, colour)
            if unused and not state["options"]["allow_unused_actions"]:
                raise RuleError(rules.RULE_ALL_ACTIONS,
                                f"you rolled {roll}: all {roll} actions must be used while a cube can move",
                                {"roll": roll, "moves": len(moves)})
        _last.checked = _Checked(state, action, played)

    def apply_action(self, state: State, actor: str, action: JSON) -> State:
        """Record the turn order; it is played when the turn resolves (a new order replaces it)."""
        new = dict(state)  # only the order changes; the rest is shared (states are never mutated)
        new["order"] = [{"cube": m["cube"], "toward": m["toward"]} for m in action["moves"]]
        checked = _last.checked
        if checked is not None and checked.state is state and checked.action is action:
            checked.applied = new  # the state validate's play may serve (see _checked_play)
        return new

    def resolve(self, state: State, rng: Rng) -> JSON:
        """Play the turn (or its missed-turn default), check for winners, open the next turn."""
        return self._resolved(state, rng)[0]

    def resolve_applied(self, state: State, rng: Rng) -> tuple[JSON, State | None]:
        """``resolve``, and the state after its outcome: the board the turn was played on, with the turn
        closed as ``apply_outcome`` closes it (the audit then replays no turn a second time).

        In round-trip form (the audit folds it without one) when the state is, but for its order: that is
        dropped, the board's stacks and base lists are new lists of the cube names or the state's own, the
        bases keep the state's keys, and the spaces, whose keys a play adds and removes, are sorted here (a
        C sort of at most twenty names; ``apply_outcome``'s board is round-tripped by the fold, so not there).
        A state lacking a key the turn sets (no game's) would get it last: round-tripped instead."""
        outcome, board = self._resolved(state, rng)
        board["spaces"] = sorted_keys(board["spaces"])
        after = _closed(state, board, outcome["public"])
        return outcome, after if len(after) == len(state) else roundtrip(after)

    def _resolved(self, state: State, rng: Rng) -> tuple[JSON, State]:
        """The outcome, and the working copy of the board its moves were played on."""
        colour = state["current"]
        player = turns.player_of(state, colour)
        source, moves = self._turn_moves(state, colour, player, rng)
        played = _checked_play(state) if source == "order" else None
        if played is None:
            played = _play_turn(state, colour, moves, checked=False)
        won, active = played.won, played.active
        winners = [turns.player_of(state, c) for c in won] if won else []  # rarely any: no comprehension then
        public: dict[str, Any] = {
            "turn": state["turn"], "player": player, "colour": colour, "roll": state["roll"],
            "source": source, "moves": played.effects, "winners": winners, "ended": None, "next": None,
        }
        if won:
            public["ended"] = "win"
        elif state["turn"] >= state["options"]["max_turns"]:
            public["ended"] = "turn limit"
        else:
            following, turn = turns.next_colour(state, active), state["turn"] + 1
            public["next"] = {"turn": turn, "player": turns.player_of(state, following), "colour": following,
                              "roll": turns.draw_roll(state["options"], turn, rng)}
        return {"public": public, "private": {}, "secret": {}}, played.board

    def _turn_moves(self, state: State, colour: str, player: str, rng: Rng) -> tuple[str, list[rules.Move]]:
        """Which moves the turn plays: the order, or the default for a turn without one.  ``rng``: the
        phase's; a random default draws from its "missed" fork, made only then (a fork costs a hash)."""
        if player in state["ejected"]:  # the player of ``colour``
            return "ejected", []
        if state["order"] is not None:
            return "order", state["order"]
        if not rules.movable_cubes(state, colour):
            return "no movable cube", []
        if state["options"]["missed_turn"] == "random":
            return "missed: random", random_moves(state, colour, state["roll"], rng.fork("missed"))
        return "missed: pass", []

    def apply_outcome(self, state: State, outcome: JSON) -> State:
        """Replay the recorded moves and open the recorded next turn (no draws here)."""
        public = outcome["public"]
        board = rules.working_copy(state)
        rules.replay_moves(board, public)
        return _closed(state, board, public)

    def eject(self, state: State, player_id: str) -> State:
        """Ruling: an ejected player's cubes stay as obstacles, their turns are skipped
        and they cannot win; with one player left, that player wins."""
        new = super().eject(state, player_id)
        active = turns.active_colours(new)
        if not new["over"] and len(active) <= 1:
            new["over"], new["ended"], new["winners"] = True, "ejections", active
        return new

    # -- what people see -------------------------------------------------------
    def view(self, state: State, viewer: Viewer) -> JSON:
        """Everything is open information; the current player (and the GM) also get the legal moves."""
        shown_for = turns.player_of(state, state["current"]) if viewer == GM else viewer
        hint = self.legal_actions_hint(state, shown_for) if shown_for is not None else None
        return views.view(state, hint, self.result(state))

    def result(self, state: State) -> JSON | None:
        """Winners and each player's finished cubes per base, once the game is over."""
        return views.result(state) if state["over"] else None

    def legal_actions_hint(self, state: State, player_id: str) -> JSON | None:
        """Each distinct single move the current player may make now, played on a copy:
        where it steps (``to``), where the cube ends (``ends_at``), what it pushes and
        which cubes finish.  Targets whose route takes the cube to the same space are one
        move: ``toward`` is the first of them (send it in the order), ``also_toward`` the rest."""
        its_turn = turns.colour_of(state, player_id) == state["current"] and player_id not in state["ejected"]
        if state["over"] or not its_turn:
            return None
        colour, length = state["current"], state["path_length"]
        moves: list[dict[str, Any]] = []
        seen: dict[tuple[str, str], dict[str, Any]] = {}
        for move in rules.legal_moves(state, colour):
            origin, _ = rules.locate(state, move["cube"])
            step = next_toward(origin, move["toward"], length)
            same = seen.get((move["cube"], step))
            if same is not None:
                same["also_toward"].append(move["toward"])
                continue
            work = rules.working_copy(state)
            effect = rules.play_move(work, colour, move)
            ends_at, _ = rules.locate(work, move["cube"])
            finishes = [c for c in rules.all_cubes(state) if rules.is_finished(work, c)
                        and not rules.is_finished(state, c)]
            entry = {**move, "also_toward": [], "from": origin, "to": step, "ends_at": ends_at,
                     "pushes": effect["pushes"], "finishes": finishes}
            seen[(move["cube"], step)] = entry
            moves.append(entry)
        return {"roll": state["roll"], "moves": moves}

    # -- simulation --------------------------------------------------------------
    def bot_action(self, state: State, actor: str, rng: Rng) -> JSON | None:
        """A random legal turn: every action a uniformly random legal move."""
        phase = self.phase(state)
        if phase is None or actor not in phase.awaiting:
            return None
        return {"type": "turn", "moves": random_moves(state, state["current"], state["roll"], rng)}


def _closed(state: State, board: State, public: JSON) -> State:
    """The state after a turn played on ``board`` (a working copy of the state's), closed by the outcome's
    ``public`` part: its winners, and its end or the next turn.  Only the board and those change; the rest
    is shared (states are never mutated)."""
    new = dict(state)
    new["spaces"], new["bases"] = board["spaces"], board["bases"]
    new["order"] = None
    winners = public["winners"]  # rarely any: list() makes the empty list (and fails alike on a non-list)
    new["winners"] = [turns.colour_of(state, p) for p in winners] if winners else list(winners)
    if public["ended"]:
        new["over"], new["ended"] = True, public["ended"]
    else:
        nxt = public["next"]
        new["turn"], new["current"], new["roll"] = nxt["turn"], nxt["colour"], nxt["roll"]
    return new


def _after_win(moves: list[rules.Move], won_at: int) -> tuple[str, str]:
    """Ruling: the win is checked after every action, so nothing may follow the winning one."""
    winning = moves[won_at - 1]
    return RULE_WON, (f"the game is over after move {won_at} ({winning['cube']} toward {winning['toward']}), "
                      "which wins it; send the turn without the moves after it")


@dataclass(slots=True)
class _Played:
    """A turn's moves played on a working copy of a state's board: what resolving the turn needs."""
    board: State  # the working copy, after the moves
    effects: list[dict[str, Any]]  # play_move's record of each move
    won: list[str]  # the colours that won with the last move (no move follows a win)
    active: list[str] | None  # active_colours of the state, found at the first move (None without moves)


def _play_turn(state: State, colour: str, moves: list[rules.Move], checked: bool) -> _Played:
    """Play ``moves`` for ``colour`` on a working copy of the state's board, checking for a winner after
    each one that can make one; the play stops at a win.  ``checked``: each move is first checked against
    the position it meets (``validate``), and a move after the win is refused rather than left out."""
    work = rules.working_copy(state)
    tables = routes(work["path_length"])
    effects: list[dict[str, Any]] = []
    won: list[str] = []
    active: list[str] | None = None  # the state's, so found once, at the first move
    for index, move in enumerate(moves, start=1):
        if won:
            if not checked:
                break
            _refuse(move, index, _after_win(moves, index - 1))
        if checked:
            error, effect, entered = rules.checked_play(work, colour, move, tables)
            if error is not None:
                _refuse(move, index, error)
        else:
            effect = rules.play_move(work, colour, move, None, tables)
            entered = rules.entered_base(effect)
        effects.append(effect)
        # No winner before a move and no cube put into a base: none after it (see entered_base).  Before the
        # first move, the state's board: none if it equals a board a play here left without one.
        if active is None:
            active = _active_colours(state)
            if not entered and _left_without_winner(state, active):
                continue
        elif not entered:
            continue
        won = rules.winners(work, active)
    if active is not None and not won:
        left = _last.left
        if left is not None and left.active is active:  # its candidates, so its very lists: only the bases change
            left.bases = dict(work["bases"])
        else:
            _last.left = _Left(state["colours"], active, dict(work["bases"]), state["players"], state["ejected"])
    return _Played(work, effects, won, active)


def _refuse(move: rules.Move, index: int, error: tuple[str, str]) -> NoReturn:
    """Raise a checked turn's ``error`` (rule, reason) for its move ``index`` (from 1)."""
    rule, reason = error
    raise RuleError(rule, f"move {index} ({move['cube']} toward {move['toward']}): {reason}",
                    {"move": index, "cube": move["cube"], "toward": move["toward"]})


@dataclass(slots=True)
class _Left:
    """What ``winners`` reads of a board a play left without a winner: the colours, the candidates it was
    checked for, and the bases (a copy of the map; the rules replace base lists, never edit them); and the
    players and ejected lists the candidates were found from (``_active_colours``).  Kept in one place
    (``_last.left``): a play whose candidates were found from it changes its bases only (a new one costs a call)."""
    colours: list[str]
    active: list[str]
    bases: dict[str, list[str]]
    players: list[dict[str, Any]]
    ejected: list[str]


def _active_colours(state: State) -> list[str]:
    """``turns.active_colours(state)``: the last play's, when the state holds the very colours, players and
    ejected lists it was found from (all it reads; states are never changed in place), as the audit's states
    do turn after turn (each shares them with the last); found afresh otherwise.  (A play is made only of a
    state that has all three: validate and resolve read the players and the ejected before it.)"""
    left = _last.left
    if left is not None and state["players"] is left.players and state["ejected"] is left.ejected and (
            state["colours"] is left.colours):
        return left.active
    return turns.active_colours(state)


def _left_without_winner(state: State, active: list[str]) -> bool:
    """Whether the last play in this thread left a board equal to the state's with no winner among ``active``:
    ``winners`` reads only the colours and the bases, and what it found on equal ones it finds on these.
    Compared by value, not identity: the fold turns each state it is given into new objects (the round trip
    to storage form), so the next turn meets a board equal to the one the last play left, never the same.
    (``winners`` reads every cube in the colours' bases as a name, or raises: the bases a play left hold
    strings, so bases equal to them hold the same strings in the same lists.)"""
    left = _last.left
    return (left is not None and active == left.active and state["colours"] == left.colours
            and state["bases"] == left.bases)


@dataclass(slots=True)
class _Checked:
    """``validate``'s last play of an order in this thread, for the ``resolve_applied`` that follows it (an
    audit, and the service, check an order, record it with ``apply_action`` and resolve it): the play is
    then not made twice.  Holds the state and the action it was played from (states and orders are never
    changed in place), the play, and what ``apply_action`` made of that very action on that very state."""
    state: State
    action: JSON
    played: _Played
    applied: State | None = None  # the state apply_action made last of ``state`` with ``action``


class _Kept(threading.local):
    """What the last calls in this thread kept for the next.  The class values are every thread's until it
    sets its own (so reading one never fails: a missing attribute would cost a caught AttributeError)."""
    checked: _Checked | None = None  # this thread's last valid order, until resolved
    left: _Left | None = None  # the last play that ended without a winner


_last = _Kept()


def _checked_play(state: State) -> _Played | None:
    """The play of the state's order that ``validate`` made last in this thread, if it made it on
    this state as far as playing reads it: the state is the one ``apply_action`` made last of the state checked,
    with the very action checked (every value but the order the same, and the order a copy of each move's cube
    and target as validate read them: states and orders are never changed in place).  None otherwise.  Handed
    out once: the board and records become the resolution's."""
    checked = _last.checked
    if checked is None:
        return None
    _last.checked = None
    return checked.played if state is checked.applied else None
