"""The forum report of a cycle: turns, standings, the auction's revealed bids, the ceremony's counts; only what
the caller may see, the caller's own sealed order marked as theirs, names escaped in every format."""
from __future__ import annotations

import pytest

from engines.contract import GM, PUBLIC, RuleError
from engines.driver import player_list, start
from engines.strategic_aspect import ENGINE

from .helpers import auction, ceremony, resolve, send, turn, with_

EVIL = ["Eve\n**Winner**", "[b]GM[/b]", "Bob | x", "Cid"]


def _game(names: list[str] = EVIL) -> dict:
    players = [{**p, "name": name} for p, name in zip(player_list(len(names)), names)]
    return start(ENGINE, {}, players, "report").final


def _with_turns() -> dict:
    state = turn(_game(), "p1", at=9)
    _, state = resolve(send(state, "p1", "move", spaces=3))  # lands on 12
    _, state = resolve(send(state, "p1", "steal", **{"from": "p2"}))
    return state


def test_report_lists_each_revealed_turn_with_its_move_and_steal() -> None:
    data = ENGINE.report(_with_turns(), None, "json", PUBLIC)
    assert data["round"] == 1 and data["kind"] == "normal" and data["tiebreak_space"] in range(11, 26)
    last = data["turns"][-1]
    assert (last["cyclist"], last["move"], last["from"], last["to"], last["steps"]) == ("p1", 3, 9, 12, 3)
    assert last["steal"] == {"from": "p2", "missed": False}
    text = ENGINE.report(_with_turns(), None, "text", PUBLIC)
    assert "3 spaces, 9 -> 12, +3 steps; stole 5 steps from [b]GM[/b]" in text
    row = next(r for r in data["standings"] if r["id"] == "p1")
    assert (row["position"], row["steps"]) == (12, 38)


def test_report_never_shows_the_rest_of_the_turn_order_except_to_the_gm() -> None:
    state = _with_turns()
    rest = state["order"]
    for viewer in (PUBLIC, "p1", "p2", "p3", "p4"):
        assert "gm" not in ENGINE.report(state, None, "json", viewer)
        assert "turn order" not in ENGINE.report(state, None, "text", viewer)
    assert ENGINE.report(state, None, "json", GM)["gm"]["order"] == rest
    assert "the rest of this round's turn order" in ENGINE.report(state, None, "text", GM)


def test_report_shows_a_sealed_bid_only_to_its_author_as_theirs() -> None:
    state = send(auction(_with_turns()), "p1", "bid", amount=13)
    assert ENGINE.report(state, None, "json", "p1")["yours"] == {"cyclist": "p1", "type": "bid", "amount": 13}
    assert "Your sealed order (yours alone, not yet revealed): bid 13" in ENGINE.report(state, None, "text", "p1")
    for viewer in (PUBLIC, "p2", "p3"):
        assert "13" not in str(ENGINE.report(state, None, "json", viewer)["auction"])
        assert "yours" not in ENGINE.report(state, None, "json", viewer)


def test_report_gives_the_auctions_revealed_bids_and_the_ceremony_counts() -> None:
    state = send(send(auction(_with_turns()), "p1", "bid", amount=15), "p2", "bid", amount=15)
    _, state = resolve(state)
    state = send(send(state, "p1", "bid", amount=0), "p2", "bid", amount=5)
    _, state = resolve(state)
    text = ENGINE.report(state, None, "text", PUBLIC)
    assert "Bids: Eve\\u{000a}**Winner** 15, [b]GM[/b] 15 -> rebid" in text
    assert "Re-bids: Eve\\u{000a}**Winner** 0, [b]GM[/b] 5 -> won" in text
    state = ceremony(state)
    for voter in ("p1", "p2", "p3", "p4"):
        state = send(state, voter, "vote", against="p4")
    _, after = resolve(state)
    data = ENGINE.report(after, 1, "json", PUBLIC)
    assert "gm" not in data and "ballots" not in ENGINE.report(after, 1, "text", "p4")
    assert ENGINE.report(after, 1, "json", GM)["gm"]["ballots"] == {c: "p4" for c in ("p1", "p2", "p3", "p4")}
    assert "GM only - the ballots: Eve\\u{000a}**Winner** -> Cid" in ENGINE.report(after, 1, "text", GM)
    assert data["ceremony"]["counts"] == {"p1": 0, "p2": 0, "p3": 0, "p4": 4}
    assert data["ceremony"]["eliminated"] == "p4"
    assert "Elimination ceremony** - votes: Eve" in ENGINE.report(after, 1, "markdown", PUBLIC)
    assert ENGINE.report(after, None, "json", PUBLIC)["round"] == 2


def test_report_shows_departed_cyclists_with_their_steps_under_a_triangle() -> None:
    from engines.driver import eject

    state = eject(ENGINE, with_(turn(_game(), "p1"), steps={"p3": 17}), "p3", how="quit")
    rows = {r["id"]: r for r in ENGINE.report(state, 1, "json", PUBLIC)["standings"]}
    assert rows["p3"]["shown"] == "▲ 17" and rows["p3"]["status"] == "departed"
    assert "▲ 17" in ENGINE.report(state, 1, "text", PUBLIC)


@pytest.mark.parametrize("fmt", ["text", "markdown", "bbcode"])
def test_report_escapes_names_so_they_cannot_forge_lines_or_markup(fmt: str) -> None:
    report = ENGINE.report(_with_turns(), None, fmt, PUBLIC)
    assert not any(line.startswith("**Winner**") for line in report.splitlines())
    assert "Eve\n" not in report
    if fmt == "markdown":
        assert "\\*\\*Winner\\*\\*" in report and "Bob \\| x" in report
    if fmt == "bbcode":
        assert "[b]GM[/b]" not in report and "[[b][/b]b]GM[[b][/b]/b]" in report


def test_report_of_a_cycle_not_played_or_an_unknown_format_is_a_rule_error() -> None:
    with pytest.raises(RuleError, match="nothing has been revealed yet"):
        ENGINE.report(_game(), None, "json", PUBLIC)
    with pytest.raises(RuleError, match="cycle 2 has not been played"):
        ENGINE.report(_with_turns(), 2, "json", PUBLIC)
    with pytest.raises(RuleError):
        ENGINE.report(_with_turns(), 1, "pdf", PUBLIC)
