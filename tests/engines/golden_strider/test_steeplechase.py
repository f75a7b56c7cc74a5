"""Steeplechase variant: barriers, water jumps, trips and their penalties."""
from __future__ import annotations

import pytest
from marshmallow import ValidationError

from engines.driver import load_options
from engines.golden_strider import ENGINE, rules

from .helpers import mid_race, order, resolve, row, runner, with_runner

STEEPLE = {"variant": "steeplechase"}
COURSE = {10: 1, 30: 1, 40: 1, 60: 1, 20: 2, 50: 2}


def test_steeplechase_course_barriers_and_water_jumps() -> None:
    options = {"variant": "steeplechase", "barriers": [10, 30, 40, 60], "water_jumps": [20, 50]}
    assert rules.obstacle_map(options, 70) == COURSE
    assert mid_race(6, 3, STEEPLE)["race_length"] == 70
    assert load_options(ENGINE, STEEPLE)["barriers"] == [10, 30, 40, 60]
    assert load_options(ENGINE, STEEPLE)["water_jumps"] == [20, 50]


def test_ruling_9_obstacles_on_or_beyond_a_shorter_races_finish_are_ignored() -> None:
    """Ruling 9: in a 35-square steeplechase a runner on 33 playing 7 finishes on 40, no trip."""
    options = {**STEEPLE, "race_length": 35}
    assert rules.obstacle_map({**STEEPLE, "barriers": [10, 30, 40, 60], "water_jumps": [20, 50]}, 35) == {
        10: 1, 20: 2, 30: 1,
    }
    state = with_runner(mid_race(6, 3, options), "r1", square=33, cards=["6/0", "6/0", "6/0", "6/1", "7/2"])
    outcome, after = resolve(order(state, "p1", card="7/2", move=7, bank=0))
    got = row(outcome, "r1")
    assert got["S"] == 40 and "trip" not in got
    assert ENGINE.result(after)["winners"] == ["p1"]


def test_ruling_9_an_obstacle_on_the_finish_square_is_not_jumped() -> None:
    """A runner who reaches the finish has finished: the default barrier at 40 is off a 40-square course."""
    options = {**STEEPLE, "race_length": 40}
    assert load_options(ENGINE, options)["barriers"] == [10, 30]
    state = with_runner(mid_race(6, 3, options), "r1", square=39)
    outcome, _ = resolve(order(state, "p1", card="6/0", move=1, bank=5))
    got = row(outcome, "r1")
    assert got["S"] == 40 and "trip" not in got and outcome["public"]["over"]
    assert rules.run(39, 1, rules.obstacle_map({**STEEPLE, "barriers": [40], "water_jumps": []}, 40)) == (40, None)


def test_ruling_9_gm_course_squares_must_lie_before_the_finish() -> None:
    with pytest.raises(ValidationError) as err:
        load_options(ENGINE, {**STEEPLE, "race_length": 35, "barriers": [10, 35], "water_jumps": [20, 50]})
    assert set(err.value.messages) == {"barriers", "water_jumps"}
    assert "square 35" in err.value.messages["barriers"][0] and "[35]" in err.value.messages["barriers"][0]
    with pytest.raises(ValidationError) as err:
        load_options(ENGINE, {**STEEPLE, "water_jumps": [70]})  # the default 70 squares
    assert list(err.value.messages) == ["water_jumps"]
    given = load_options(ENGINE, {**STEEPLE, "race_length": 35, "barriers": [5, 34], "water_jumps": [17]})
    assert (given["barriers"], given["water_jumps"]) == ([5, 34], [17])


def test_steeplechase_example_three_points_clear_the_water_jump_from_19() -> None:
    """"A runner on square 19 would need to use three movement points to reach square 20."""
    assert rules.run(19, 3, COURSE) == (20, None)


def test_steeplechase_example_two_points_from_19_trip_with_penalty_two() -> None:
    """"If only two movement points were paid from square 19, the total penalty would be two.\""""
    square, trip = rules.run(19, 2, COURSE)
    assert square == 20 and trip == {"square": 20, "unpaid": 1, "penalty": 2}


def test_steeplechase_extra_points_are_not_forward_movement() -> None:
    assert rules.run(8, 6, COURSE) == (13, None)   # barrier at 10 costs one point
    assert rules.run(18, 6, COURSE) == (22, None)  # water jump at 20 costs two


def test_steeplechase_trip_penalty_comes_off_the_replacement_card() -> None:
    state = with_runner(mid_race(7, 3, STEEPLE), "r1", square=19)
    for i in range(2, 8):
        state = with_runner(state, f"r{i}", square=30)
    state = order(state, "p1", card="6/0", move=2, bank=4)  # 19 -> 20, one point short
    outcome, after = resolve(state)
    got = row(outcome, "r1")
    # 2 x 4 banked + 0 bonus (7th of seven) = 8, less the penalty of two
    assert got["trip"] == {"square": 20, "unpaid": 1, "penalty": 2}
    assert (got["S"], got["R"], got["O"]) == (20, 6, 0)


def test_steeplechase_penalty_larger_than_the_card_is_paid_next_turn_as_restitution() -> None:
    state = with_runner(mid_race(7, 3, STEEPLE), "r1", square=19, cards=["1/0", "6/0", "6/0", "6/1", "6/2"])
    for i in range(2, 8):
        state = with_runner(state, f"r{i}", square=30)
    state = order(state, "p1", card="1/0", move=1, bank=0)  # 19 -> 20 paying nothing: penalty 1 + 2
    outcome, after = resolve(state)
    got = row(outcome, "r1")
    assert got["trip"]["penalty"] == 3 and got["R"] == 0 and got["O"] == 3
    assert runner(after, "r1")["owed"] == 3


def test_steeplechase_tripped_runner_does_not_jump_the_obstacle_again() -> None:
    assert rules.run(20, 3, COURSE) == (23, None)
    state = with_runner(mid_race(6, 3, STEEPLE), "r1", square=20)
    outcome, _ = resolve(order(state, "p1", card="6/0", move=6, bank=0))
    assert row(outcome, "r1")["S"] == 26 and "trip" not in row(outcome, "r1")


def test_steeplechase_ending_on_a_cleared_obstacle_is_no_trip() -> None:
    assert rules.run(9, 2, COURSE) == (10, None)
    assert rules.run(9, 1, COURSE) == (10, {"square": 10, "unpaid": 1, "penalty": 2})


def test_steeplechase_trip_shows_in_the_report_notes() -> None:
    state = with_runner(mid_race(7, 3, STEEPLE), "r1", square=19)
    _, after = resolve(order(state, "p1", card="6/0", move=2, bank=4))
    assert "tripped at 20 (-2)" in ENGINE.report(after, None, "text")


def test_rule_10_net_overtakes_and_an_uncovered_trip_penalty_are_both_owed_next_turn() -> None:
    """7th -> 5th while tripping at the water jump: two places of restitution plus the penalty the card
    (0 banked + 2 bonus) could not cover."""
    state = with_runner(mid_race(7, 3, STEEPLE), "r1", square=18, cards=["2/0", "6/0", "6/0", "6/1", "6/2"])
    for rid, square in {"r2": 19, "r3": 19, "r4": 30, "r5": 30, "r6": 30, "r7": 30}.items():
        state = with_runner(state, rid, square=square)
    for player in ("p2", "p3", "p4", "p5", "p6", "p7"):
        state = order(state, player, card="6/0", move=0, bank=6)
    outcome, after = resolve(order(state, "p1", card="2/0", move=2, bank=0))  # 18 -> 20 with nothing to jump
    got = row(outcome, "r1")
    assert got["trip"] == {"square": 20, "unpaid": 2, "penalty": 3}
    assert (got["P"], got["R"], got["O"]) == (5, 0, 2 + 1)
    assert runner(after, "r1")["owed"] == 3
