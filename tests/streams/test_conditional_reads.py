"""Conditional reads: the game, its events, replay and report answer If-None-Match with 304 while the log's head
and the viewer are unchanged, and with the new body once either changes."""
from __future__ import annotations

from typing import Any

import pytest

from runtime.context import Context

from tests.platform.conftest import Game, new_game
from tests.platform.helpers import Api, run_queued_jobs

READS = ["", "/events", "/events?after=2&limit=3", "/replay", "/replay?at=3"]


def _get(api: Api, path: str, token: str | None = None, etag: str | None = None) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    if etag:
        headers["If-None-Match"] = etag
    return api.client.get(f"/v1{path}", headers=headers)


@pytest.mark.parametrize("suffix", READS)
def test_an_unchanged_read_is_a_304_without_a_body(api: Api, game: Game, suffix: str) -> None:
    first = _get(api, game.path(suffix), game.tokens["p1"])
    assert first.status_code == 200 and first.headers["ETag"].startswith('"')
    again = _get(api, game.path(suffix), game.tokens["p1"], first.headers["ETag"])
    assert again.status_code == 304 and again.data == b""
    assert again.headers["ETag"] == first.headers["ETag"]
    assert "Authorization" in first.headers["Vary"]


def test_a_new_event_changes_the_tag(api: Api, game: Game) -> None:
    first = _get(api, game.path("/events"), game.tokens["p1"])
    status, _ = api.post(game.path("/actions"), {"type": "gm.pause", "reason": "tea"}, token=game.gm)
    assert status == 202
    after = _get(api, game.path("/events"), game.tokens["p1"], first.headers["ETag"])
    assert after.status_code == 200
    assert after.headers["ETag"] != first.headers["ETag"]
    assert after.get_json()["events"][-1]["type"] == "gm.pause"


def test_each_viewer_has_its_own_tag(api: Api, game: Game) -> None:
    """A player's copy is never confirmed to another viewer: the public, another player and the GM each see
    their own view, under their own tag."""
    tags = {who: _get(api, game.path("/events"), token).headers["ETag"]
            for who, token in [("public", None), ("p1", game.tokens["p1"]), ("p2", game.tokens["p2"]),
                               ("gm", game.gm)]}
    assert len(set(tags.values())) == 4
    assert _get(api, game.path("/events"), game.tokens["p2"], tags["p1"]).status_code == 200
    assert _get(api, game.path("/events"), None, tags["gm"]).status_code == 200


def test_star_and_lists_of_tags(api: Api, game: Game) -> None:
    tag = _get(api, game.path(), None).headers["ETag"]
    assert _get(api, game.path(), None, "*").status_code == 304
    assert _get(api, game.path(), None, f'"0-old", W/{tag}').status_code == 304
    assert _get(api, game.path(), None, '"0-old"').status_code == 200


def test_the_report_is_conditional_too(api: Api, ctx: Context) -> None:
    game = new_game(api, players=6, game_type="golden-strider")
    status, body = api.post(game.path("/actions"), {"type": "gm.resolve_now", "reason": "go"}, token=game.gm)
    assert status == 202, body
    run_queued_jobs(ctx)
    first = _get(api, game.path("/report?format=text"), game.tokens["p1"])
    assert first.status_code == 200, first.get_json()
    assert _get(api, game.path("/report?format=text"), game.tokens["p1"], first.headers["ETag"]).status_code == 304
    other = _get(api, game.path("/report?format=json"), game.tokens["p1"], first.headers["ETag"])
    assert other.status_code == 200, "another format is another representation"


def test_errors_are_never_304(api: Api, game: Game) -> None:
    tag = _get(api, game.path("/events"), None).headers["ETag"]
    response = _get(api, game.path("/events?limit=0"), None, tag)
    assert response.status_code == 422
