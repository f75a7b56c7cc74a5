"""The rule functions' shortcuts must say exactly what the plain rules say (the plain versions are below):

- ``generate_candidates`` draws ``below(2r + 1) - r`` where the rule says ``randint(-r, r)``;
- ``generate_round`` walks one batch of pairs for options A-D instead of calling it per option;
- ``award_packets`` groups the bids by amount in one pass instead of one pass per packet;
- ``packet_contents`` picks a pair's false moves in one comprehension;
- ``play_moves`` reads a round's candidates and true moves once per round, and without rebounds plays
  each player's path on its own (falling back to the round-by-round loop on data no engine makes);
- ``tokens_of_life`` groups the players by coordinate once per axis and sorts without a key;
- ``resolve`` of the Moving Phase forks a player's ``options`` stream only when it draws from it (and then
  draws all their missing options in one ``belows``), and the ``ec`` stream only for a tie-break (a fork
  draws nothing from its parent).
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from engines.extreme_ways import rules
from engines.extreme_ways.resolution import resolve
from engines.rng import Rng

from tests.engines.extreme_ways.helpers import new_game

SETTINGS = settings(max_examples=300, deadline=None)


def plain_generate_candidates(rng: Rng, move_range: int) -> list[list[int]]:
    moves: list[list[int]] = []
    while len(moves) < 4:
        move = [rng.randint(-move_range, move_range), rng.randint(-move_range, move_range)]
        if move != [0, 0] and move not in moves:
            moves.append(move)
    return moves


def plain_award_packets(bids: Mapping[str, Any]) -> dict[str, list[str]]:
    amounts = sorted(set(bids.values()), reverse=True)[: len(rules.PACKETS)]
    return {
        rules.PACKETS[rank]: sorted(p for p, amount in bids.items() if amount == value)
        for rank, value in enumerate(amounts)
    }


def plain_packet_contents(candidates: Any, true: Any, split: Any) -> dict[str, Any]:
    def single(letter: str) -> list[Any]:
        return [list(candidates[letter][split[letter]])]

    def pair(letter: str) -> list[Any]:
        return [list(candidates[letter][i]) for i in rules.false_indices(true[letter]) if i != split[letter]]

    return {
        "1": {"A": {"true": list(candidates["A"][true["A"]])}},
        "2": {"B": {"false": pair("B")}, "C": {"false": pair("C")}},
        "3": {"B": {"false": single("B")}, "D": {"false": pair("D")}},
        "4": {"C": {"false": single("C")}, "D": {"false": single("D")}},
    }


def plain_play_moves(choices: Any, rebounds: Any, rounds: Sequence[Any], movers: Sequence[str]) -> dict[str, Any]:
    paths: dict[str, list[list[int]]] = {p: [[0, 0]] for p in choices}
    for number, rnd in enumerate(rounds, start=1):
        start = {p: path[-1] for p, path in paths.items()}
        for player in paths:
            here = start[player]
            use = rebounds.get(player)
            if player not in movers:
                nxt = list(here)
            elif use is not None and use["round"] == number:
                nxt = rules.rebound(here, start.get(use["player_id"], [0, 0]))
            else:
                letter = choices[player][number - 1]
                nxt = rules.step(here, rnd["candidates"][letter][rnd["true"][letter]])
            paths[player].append(nxt)
    return paths


def plain_tokens_of_life(positions: Mapping[str, Sequence[int]]) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for name, axis, sign in rules.DIRECTIONS:
        holders: dict[int, list[str]] = {}
        for player, pos in positions.items():
            holders.setdefault(pos[axis], []).append(player)
        winner = None
        for value in sorted(holders, key=lambda v: -sign * v):
            if len(holders[value]) == 1:
                winner = holders[value][0]
                break
        out[name] = winner
    return out


def outcome_or_error(function: Any, *args: Any) -> Any:
    """What a call gives, or the type of what it raises (the audit names only that)."""
    try:
        return ("ok", function(*args))
    except Exception as exc:
        return ("raised", type(exc))


PLAYERS = st.sampled_from([f"p{i}" for i in range(1, 9)])
AMOUNTS = st.one_of(st.integers(-3, 60), st.booleans(), st.sampled_from(["7", "x"]))


@SETTINGS
@given(seed=st.text(max_size=6), move_range=st.integers(1, 30))
def test_generate_candidates_draws_what_randint_draws(seed: str, move_range: int) -> None:
    fast, plain = Rng(seed, "round", 1), Rng(seed, "round", 1)
    assert rules.generate_candidates(fast, move_range) == plain_generate_candidates(plain, move_range)
    assert fast.below(1000) == plain.below(1000)  # the streams stand at the same place afterwards


@SETTINGS
@given(seed=st.text(max_size=6), move_range=st.integers(1, 30))
def test_generate_round_draws_what_generate_candidates_draws_option_by_option(seed: str, move_range: int) -> None:
    """Setup: each option's four candidates in turn (A, B, C, D), then a true index below 4 for each."""
    fast, plain = Rng(seed, "round", 1), Rng(seed, "round", 1)
    candidates = {letter: plain_generate_candidates(plain, move_range) for letter in rules.OPTIONS}
    true = {letter: plain.below(4) for letter in rules.OPTIONS}
    assert rules.generate_round(fast, move_range) == {"candidates": candidates, "true": true}
    assert fast.below(1000) == plain.below(1000)  # the streams stand at the same place afterwards


@SETTINGS
@given(bids=st.dictionaries(PLAYERS, AMOUNTS, max_size=8))
def test_award_packets_is_the_plain_ranking(bids: dict[str, Any]) -> None:
    """Any amounts, even forged ones (a string, a boolean equal to 1): same packets, or the same error."""
    assert outcome_or_error(rules.award_packets, bids) == outcome_or_error(plain_award_packets, bids)


MOVES = st.lists(st.integers(-9, 9), min_size=2, max_size=2)
CANDIDATES = st.fixed_dictionaries({x: st.lists(MOVES, min_size=4, max_size=4) for x in rules.OPTIONS})
INDEX = st.one_of(st.integers(0, 3), st.integers(-5, 5))


@SETTINGS
@given(candidates=CANDIDATES,
       true=st.dictionaries(st.sampled_from(rules.OPTIONS), INDEX, min_size=3),
       split=st.dictionaries(st.sampled_from(("B", "C", "D", "A")), INDEX, min_size=2))
def test_packet_contents_are_the_plain_packets(candidates: Any, true: Any, split: Any) -> None:
    """Including true moves and splits no setup makes (out of range, missing letters): the same error then."""
    assert outcome_or_error(rules.packet_contents, candidates, true, split) == outcome_or_error(
        plain_packet_contents, candidates, true, split)


@st.composite
def moving_phases(draw: Any) -> tuple[Any, Any, Any, Any]:
    players = draw(st.lists(PLAYERS, min_size=1, max_size=6, unique=True))
    total = draw(st.integers(1, 5))
    rounds = [{"candidates": draw(CANDIDATES), "true": {x: draw(st.integers(0, 3)) for x in rules.OPTIONS}}
              for _ in range(total)]
    choices = {p: [draw(st.sampled_from(rules.OPTIONS)) for _ in range(total)] for p in players}
    rebounds = {p: {"round": draw(st.integers(0, total + 1)), "player_id": draw(PLAYERS)}
                for p in draw(st.lists(st.sampled_from(players), unique=True))}
    movers = draw(st.lists(st.sampled_from(players), unique=True))
    return choices, rebounds, rounds, movers


@SETTINGS
@given(phase=moving_phases())
def test_play_moves_plays_the_plain_moves(phase: tuple[Any, Any, Any, Any]) -> None:
    assert rules.play_moves(*phase) == plain_play_moves(*phase)


ODD_MOVES = st.one_of(MOVES, st.lists(st.integers(-9, 9), min_size=1, max_size=3), st.just("xy"))
ODD_CANDIDATES = st.fixed_dictionaries({x: st.lists(ODD_MOVES, min_size=4, max_size=4) for x in rules.OPTIONS})


@st.composite
def phases_without_rebounds(draw: Any) -> tuple[Any, Any, Any, Any]:
    """Moving Phases nobody rebounds in, some with data no engine step makes (a move that is not a pair, a
    letter with no option, a true index out of range, too few options): play_moves' fallback then answers."""
    players = draw(st.lists(PLAYERS, min_size=1, max_size=6, unique=True))
    total = draw(st.integers(0, 5))
    odd = draw(st.booleans())
    rounds = [{"candidates": draw(ODD_CANDIDATES if odd else CANDIDATES),
               "true": {x: draw(st.integers(-5, 5) if odd else st.integers(0, 3)) for x in rules.OPTIONS}}
              for _ in range(total)]
    letters = st.sampled_from([*rules.OPTIONS, "Z"]) if odd else st.sampled_from(rules.OPTIONS)
    choices = {p: [draw(letters) for _ in range(total - (odd and draw(st.booleans())))] for p in players}
    movers = draw(st.lists(st.sampled_from(players), unique=True))
    return choices, {}, rounds, movers


@SETTINGS
@given(phase=phases_without_rebounds())
def test_play_moves_without_rebounds_plays_the_plain_moves(phase: tuple[Any, Any, Any, Any]) -> None:
    """Rule (Moving Phase): all moves of a round happen at once; without a rebound none looks at another
    player, so each path is its own.  The same paths, or the same error."""
    assert outcome_or_error(rules.play_moves, *phase) == outcome_or_error(plain_play_moves, *phase)


@SETTINGS
@given(positions=st.dictionaries(PLAYERS, MOVES, max_size=8))
def test_tokens_of_life_are_the_plain_tokens(positions: dict[str, list[int]]) -> None:
    assert rules.tokens_of_life(positions) == plain_tokens_of_life(positions)


@settings(max_examples=60, deadline=None)
@given(seed=st.text(max_size=4), players=st.integers(2, 9), missing=st.lists(st.integers(0, 26), max_size=12),
       rebound=st.booleans())
def test_the_moving_phase_draws_each_missing_option_from_the_players_own_stream(
    seed: str, players: int, missing: list[int], rebound: bool
) -> None:
    """However late the stream is forked (only once something is missing), a player's missing options are
    the draws of ``rng.fork("options", player)`` in round order, skipping the round they rebound in."""
    state = new_game(players, {"bidding_rounds": 3, "move_range": 1, "rebound_twist": rebound})
    ids = state["players"]
    moves: dict[str, Any] = {}
    for index, p in enumerate(ids):
        options: list[str | None] = [rules.OPTIONS[(index + n) % 4] for n in range(3)]
        for slot in missing:
            if slot // 3 == index:
                options[slot % 3] = None
        use = {"round": 2, "player_id": ids[index - 1]} if rebound and index % 2 else None
        moves[p] = {"options": options, "rebound": use}
    state = {**state, "stage": "moving", "round": None, "moves": moves}
    outcome = resolve(state, Rng(seed, "phase", 4))
    for p in ids:
        stream, use = Rng(seed, "phase", 4).fork("options", p), moves[p]["rebound"]
        drawn = {str(n + 1): stream.choice(rules.OPTIONS) for n, letter in enumerate(moves[p]["options"])
                 if letter is None and not (use and use["round"] == n + 1)}
        assert outcome["private"][p]["randomised"] == drawn


def test_an_ec_tie_without_voters_is_broken_from_the_ec_stream() -> None:
    """Two players with the same options end on the same spot: every extreme is shared (no Token, so
    no voters), both are tied for EC with the same garnets, and the random tie-break draws from
    ``rng.fork("ec")``, forked only then."""
    state = new_game(2, {"bidding_rounds": 1})
    same = {"options": ["A"], "rebound": None}
    state = {**state, "stage": "moving", "round": None, "moves": {"p1": same, "p2": same}}
    for seed in ("a", "b", "c", "d", "e"):
        elimination = resolve(state, Rng(seed, "phase", 2))["public"]["elimination"]
        expected = Rng(seed, "phase", 2).fork("ec").choice(["p1", "p2"])
        assert (elimination["ec"], elimination["decided_by"]) == (expected, "random")
