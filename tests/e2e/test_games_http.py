"""Every other game type played to the end over HTTP with a real worker and short
deadlines, including a missed deadline, then audited and verified."""
from __future__ import annotations

import pytest

from engines import registry
from replays.fold import fold
from runtime.config import Settings
from tests.e2e.play import create_and_join, play_to_the_end
from tests.e2e.stack import Stack

TARNISHED_FIELDS = [{"runners": [f"Athlete {i}a", f"Athlete {i}b"]} for i in range(1, 5)]

GAMES = [
    pytest.param("sxyzm-cyclone", 3, {}, {"turn": 1}, None, 2, id="sxyzm-3-players"),
    pytest.param("golden-strider", 6, {"race_length": 30}, {"round": 1}, None, 2, id="golden-strider-standard"),
    pytest.param("golden-strider", 4, {"variant": "tarnished", "race_length": 30}, {"round": 1, "accusation": 1},
                 TARNISHED_FIELDS, 2, id="golden-strider-tarnished"),
    pytest.param("golden-strider", 6, {"variant": "robot"}, {"robots": 1}, None, 1, id="golden-strider-robot"),
]


def _sxyzm_missed_turn_changed_nothing(events: list[dict], miss: int) -> None:
    """SXYZM Cyclone ruling 10: a missed turn passes by default (source "missed: pass"):
    no moves, the board as it was, and the turn goes to the next player."""
    resolved = [i for i, e in enumerate(events) if e["type"] == "phase.resolved"]
    at = resolved[miss - 1]
    public = events[at]["data"]["outcome"]["public"]
    assert (public["source"], public["moves"]) == ("missed: pass", []), public
    before, after = fold(events[:at])["engine"], fold(events[: at + 1])["engine"]
    assert (after["spaces"], after["bases"]) == (before["spaces"], before["bases"])
    assert after["current"] == public["next"]["colour"] != before["current"]


@pytest.mark.parametrize("game_type,players,options,deadlines,fields,miss", GAMES)
def test_a_whole_game_over_http(stack: Stack, settings: Settings, game_type: str, players: int, options: dict,
                                deadlines: dict, fields: list | None, miss: int) -> None:
    if registry.latest(game_type) is None:
        pytest.skip(f"{game_type} is not registered yet")
    stack.start_worker("worker")
    game_id, gm, tokens = create_and_join(stack, game_type, players, fields, seed=f"e2e-{game_type}",
                                          options=options, deadlines=deadlines)
    missed: list[int] = []

    def skip(number: int, player: str) -> bool:
        """The first player awaited in phase ``miss`` misses its deadline: the rulebook's default applies."""
        if number == miss and not missed:
            missed.append(player)
        return number == miss and player == missed[0]

    final = play_to_the_end(stack, settings, game_id, gm, tokens, skip=skip)
    assert final["status"] == "finished" and final["result"] is not None
    status, events = stack.call("GET", f"/games/{game_id}/events?limit=1000")
    triggers = [e["data"]["trigger"] for e in events["events"] if e["type"] == "phase.resolved"]
    assert missed, "nobody missed a deadline"
    assert triggers[miss - 1] == "deadline"  # that phase waited for its deadline
    status, audit = stack.call("GET", f"/games/{game_id}/audit")
    assert audit["ok"], audit
    status, exported = stack.call("GET", f"/games/{game_id}/export")
    status, verified = stack.call("POST", "/replays/verify", exported)
    assert verified["ok"], verified
    if game_type == "sxyzm-cyclone":
        _sxyzm_missed_turn_changed_nothing(exported["events"], miss)
    if hasattr(registry.latest(game_type), "report") and options.get("variant") != "robot":
        # SXYZM Cyclone's report is of the open turn only (docs/games/sxyzm-cyclone.md "Forum report"): the last.
        reported = "" if game_type == "sxyzm-cyclone" else "&round=1"
        for fmt in ("json", "text", "markdown", "bbcode"):
            status, report = stack.call("GET", f"/games/{game_id}/report?format={fmt}{reported}")
            assert status == 200, report
        status, report = stack.call("GET", f"/games/{game_id}/report?round=9999")
        assert status == 404


@pytest.mark.parametrize("options,players,rule", [
    ({"side": "two-colour"}, 3, "the two-colour side is for 2 players"),
    ({"first_colour": "red"}, 3, "the first player must be a colour in play"),
])
def test_sxyzm_options_that_do_not_fit_the_players_refuse_the_start(stack: Stack, options: dict, players: int,
                                                                    rule: str) -> None:
    """SXYZM Cyclone ruling 16: refused with 409 cannot_start naming the rule; the game stays in sign-up."""
    status, created = stack.call("POST", "/games", {"type": "sxyzm-cyclone", "options": options})
    assert status == 201, created
    game_id, gm = created["game_id"], created["gm_token"]
    for index in range(players):
        assert stack.call("POST", f"/games/{game_id}/players", {"name": f"P{index}"})[0] == 201
    status, body = stack.call("POST", f"/games/{game_id}/start", token=gm)
    assert status == 409 and body["error"]["code"] == "cannot_start", body
    assert body["error"]["details"]["rule"] == rule
    assert stack.call("GET", f"/games/{game_id}")[1]["status"] == "signup"
