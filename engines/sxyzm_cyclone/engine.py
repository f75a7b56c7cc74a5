"""The SXYZM Cyclone engine: one phase per turn, the die roll drawn when a turn opens.

The first turn's roll is drawn in ``setup``; each later roll is drawn in the
``resolve`` outcome of the turn before, so every roll is public the moment its turn
opens.  A turn order is the whole turn: the list of moves, played in order.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, NoReturn

from engines.contract import GM, JSON, ActionType, Engine, Meta, Phase, RuleError, State, Viewer
from engines.rng import Rng
from engines.sxyzm_cyclone import report as reports, rules, schemas, turns, views
from engines.sxyzm_cyclone.board import CUBES_PER_PLAYER, cube_name, next_toward, space
from engines.sxyzm_cyclone.bots import random_moves
from engines.sxyzm_cyclone.schemas import JoinSchema, OptionsSchema, TurnSchema

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
    view_schema, result_schema, hint_schema, outcome_schema = (schemas.VIEW, schemas.RESULT, schemas.HINT,
                                                               schemas.OUTCOME)
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
        can_move = rules.can_move(state, state["current"])
        awaiting = (player,) if state["order"] is None and not ejected and can_move else ()
        return Phase(
            name="turn",
            actors=() if ejected else (player,),
            awaiting=awaiting,
            sealed=False,
            round=state["turn"],
            prompt=views.prompt(state, can_move, player),
        )

    def validate(self, state: State, actor: str, action: JSON) -> None:
        """Check the whole turn move by move against the position each move meets (the platform's gate has
        checked that it is ``actor``'s turn)."""
        colour = state["current"]
        moves = action["moves"]
        roll = state["roll"]
        if len(moves) > roll:
            raise RuleError(rules.RULE_ROLL, f"you rolled {roll}: at most {roll} moves, not {len(moves)}",
                            {"roll": roll, "moves": len(moves)})
        played = _play_turn(state, colour, moves, checked=True)
        if not state["options"]["allow_unused_actions"] and not played.won and len(moves) < roll:
            if rules.can_move(played.board, colour):
                raise RuleError(rules.RULE_ALL_ACTIONS,
                                f"you rolled {roll}: all {roll} actions must be used while a cube can move",
                                {"roll": roll, "moves": len(moves)})

    def apply_action(self, state: State, actor: str, action: JSON) -> State:
        """Record the turn order; it is played when the turn resolves (a new order replaces it)."""
        new = dict(state)  # only the order changes; the rest is shared (states are never mutated)
        new["order"] = [{"cube": m["cube"], "toward": m["toward"]} for m in action["moves"]]
        return new

    def resolve(self, state: State, rng: Rng) -> JSON:
        """Play the turn (or its missed-turn default), check for winners, open the next turn."""
        colour = state["current"]
        player = turns.player_of(state, colour)
        source, moves = self._turn_moves(state, colour, player, rng)
        played = _play_turn(state, colour, moves, checked=False)
        public: dict[str, Any] = {
            "turn": state["turn"], "player": player, "colour": colour, "roll": state["roll"],
            "source": source, "moves": played.effects,
            "winners": [turns.player_of(state, c) for c in played.won], "ended": None, "next": None,
        }
        if played.won:
            public["ended"] = "win"
        elif state["turn"] >= state["options"]["max_turns"]:
            public["ended"] = "turn limit"  # ruling 15
        else:
            following, turn = turns.next_colour(state), state["turn"] + 1
            public["next"] = {"turn": turn, "player": turns.player_of(state, following), "colour": following,
                              "roll": turns.draw_roll(state["options"], turn, rng)}
        return {"public": public, "private": {}, "secret": {}}

    def _turn_moves(self, state: State, colour: str, player: str, rng: Rng) -> tuple[str, list[rules.Move]]:
        """Which moves the turn plays: the order, or the default for a turn without one.  ``rng``: the
        phase's; a random default draws from its "missed" fork, made only then (a fork costs a hash)."""
        if player in state["ejected"]:  # the player of ``colour``
            return "ejected", []
        if state["order"] is not None:
            return "order", state["order"]
        if not rules.can_move(state, colour):
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

    def apply_members(self, state: State, change: JSON, outcome: JSON) -> State:
        """Ruling: a player who quits or is ejected leaves their cubes as obstacles, their turns are
        skipped and they cannot win; with one player left, that player wins."""
        player_id = change["player"]["id"]
        new = {**state, "ejected": [*state["ejected"], player_id]} if player_id not in state["ejected"] else state
        active = turns.active_colours(new)
        if not new["over"] and len(active) <= 1:
            new["over"], new["ended"], new["winners"] = True, "ejections", active
        return new

    # -- what people see -------------------------------------------------------
    def report(self, state: State, round: int | None = None, fmt: str = "json", viewer: Viewer = None) -> JSON:
        """The forum post of the open turn (the same for every viewer: nothing is hidden)."""
        return reports.render(state, round, fmt)

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
    ``public`` part: its winners, and its end or the next turn."""
    new = dict(state)
    new["spaces"], new["bases"] = board["spaces"], board["bases"]
    new["order"] = None
    new["winners"] = [turns.colour_of(state, p) for p in public["winners"]]
    if public["ended"]:
        new["over"], new["ended"] = True, public["ended"]
    else:
        nxt = public["next"]
        new["turn"], new["current"], new["roll"] = nxt["turn"], nxt["colour"], nxt["roll"]
    return new


def _after_win(moves: list[rules.Move], won_at: int) -> tuple[str, str]:
    """Ruling 11: the win is checked after every action, so nothing may follow the winning one."""
    winning = moves[won_at - 1]
    return RULE_WON, (f"the game is over after move {won_at} ({winning['cube']} toward {winning['toward']}), "
                      "which wins it; send the turn without the moves after it")


@dataclass(slots=True)
class _Played:
    """A turn's moves played on a working copy of a state's board."""
    board: State  # the working copy, after the moves
    effects: list[dict[str, Any]]  # play_move's record of each move
    won: list[str]  # the colours that won with the last move (no move follows a win)


def _play_turn(state: State, colour: str, moves: list[rules.Move], checked: bool) -> _Played:
    """Play ``moves`` for ``colour`` on a working copy of the state's board, checking for winners after
    each action (ruling 11); the play stops at a win.  ``checked`` (``validate``): each move is first
    checked against the position it meets, and a move after the win is refused rather than left out.

    A turn starts with nobody having won (a win ends the game), and the win conditions count cubes in
    bases, so only an action that brings cubes into a base can make a winner: only then is it checked."""
    board = rules.working_copy(state)
    effects: list[dict[str, Any]] = []
    won: list[str] = []
    for index, move in enumerate(moves, start=1):
        if won:
            if checked:
                _refuse(move, index, _after_win(moves, index - 1))
            break
        if checked:
            error = rules.move_error(board, colour, move)
            if error is not None:
                _refuse(move, index, error)
        effect = rules.play_move(board, colour, move)
        effects.append(effect)
        if rules.brought_cubes_into_a_base(effect):
            won = rules.winners(board, turns.active_colours(state))  # ruling 14: the ejected cannot win
    return _Played(board, effects, won)


def _refuse(move: rules.Move, index: int, error: tuple[str, str]) -> NoReturn:
    """Raise a checked turn's ``error`` (rule, reason) for its move ``index`` (from 1)."""
    rule, reason = error
    raise RuleError(rule, f"move {index} ({move['cube']} toward {move['toward']}): {reason}",
                    {"move": index, "cube": move["cube"], "toward": move["toward"]})
