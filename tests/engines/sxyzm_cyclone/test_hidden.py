"""GM-fixed die rolls (option ``rolls``) are the one secret of SXYZM Cyclone: they would
tell everyone the coming rolls.  Checked through the platform's own filters
(``replays.views``) on a record folded from a real event log."""
from __future__ import annotations

import json
from typing import Any

from engines.contract import GM, PUBLIC
from engines.driver import load_options, player_list
from engines.rng import Rng
from engines.sxyzm_cyclone import ENGINE
from eventlog.events import GENESIS, Event, seal
from replays.fold import fold
from replays.views import event_for, game_for

ROLLS = [3, 1, 4, 1, 5, 2, 6, 5, 3]


def _log(options: dict[str, Any], players: int = 3, seed: str = "hidden") -> list[Event]:
    """created, joined for each player, started: the events the service records."""
    opts = load_options(ENGINE, options)
    listed = player_list(players)
    bodies: list[tuple[str, str, dict[str, Any]]] = [
        ("game.created", "anyone", {"game_id": "g1", "type": ENGINE.meta.name, "version": ENGINE.meta.version,
                                    "name": None, "options": opts, "deadlines": {"turn": 60},
                                    "resolve_early": True, "seed_commitment": "c"}),
        *[("player.joined", "anyone", {"player_id": p["id"], "name": p["name"], "fields": p["fields"]})
          for p in listed],
        ("game.started", "gm", {"setup": ENGINE.setup(opts, listed, Rng(seed, "setup")),
                                "phase": {"number": 1, "name": "turn", "deadline": "2100-01-01T00:00:00.000000Z"}}),
    ]
    events, prev = [], GENESIS
    for seq, (kind, actor, data) in enumerate(bodies, start=1):
        event = seal(seq, prev, kind, actor, data, at="2024-01-01T00:00:00.000000Z", salt="00")
        events.append(event)
        prev = event["hash"]
    return events


def test_ruling_gm_fixed_rolls_are_hidden_from_players_and_the_public_until_the_end() -> None:
    events = _log({"rolls": ROLLS, "first_colour": "blue"})
    record = fold(events)
    assert record["status"] == "running"
    for viewer in (PUBLIC, "p1", "p2"):
        body = game_for(record, viewer)
        assert body["options"]["rolls"] == "hidden"
        assert body["options"]["path_length"] == 7, "the other options stay visible"
        created = event_for(record, events[0], viewer)
        assert created["data"]["options"]["rolls"] == "hidden"
        seen = json.dumps([body, [event_for(record, e, viewer) for e in events]])
        assert json.dumps(ROLLS)[1:-1] not in seen and "[3, 1, 4" not in seen
        # The roll of the open turn is public the moment the turn opens.
        assert body["state"]["current"]["roll"] == ROLLS[0]
    assert game_for(record, GM)["options"]["rolls"] == ROLLS
    assert event_for(record, events[0], GM)["data"]["options"]["rolls"] == ROLLS
    assert game_for({**record, "status": "finished", "result": {}, "seed": "s"}, PUBLIC)["options"]["rolls"] == ROLLS


def test_ruling_rolls_show_hidden_even_when_none_are_fixed() -> None:
    """Otherwise "hidden" against "[]" would tell the players whether the GM fixed the dice."""
    record = fold(_log({}))
    assert game_for(record, "p1")["options"]["rolls"] == "hidden"
    assert game_for(record, GM)["options"]["rolls"] == []
