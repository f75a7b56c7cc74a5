"""Random legal turns: for simulation bots and the 'random' missed-turn default."""
from __future__ import annotations

from typing import Any

from engines.rng import Rng
from engines.sxyzm_cyclone.rules import Move, legal_moves, play_move, winners, working_copy
from engines.sxyzm_cyclone.turns import active_colours

State = dict[str, Any]


def random_moves(state: State, colour: str, count: int, rng: Rng) -> list[Move]:
    """Up to ``count`` actions, each drawn uniformly from the legal moves of the position
    left by the previous ones; stops early when no cube can move or someone has won."""
    board, candidates = working_copy(state), active_colours(state)
    moves: list[Move] = []
    for _ in range(count):
        options = legal_moves(board, colour)
        if not options:
            break
        move = dict(rng.choice(options))
        play_move(board, colour, move)
        moves.append(move)
        if winners(board, candidates):
            break
    return moves
