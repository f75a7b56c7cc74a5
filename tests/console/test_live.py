"""The game page's timeline, live from the stream process the server names (ARBITER_STREAM_URL), and polling where
the stream stops answering."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest
import requests

from runtime.config import Settings
from runtime.context import Context
from tests.console.browser import chromium, wait_for
from tests.e2e.play import create_and_join
from tests.e2e.stack import Stack
from tests.streams.conftest import StreamServer


@pytest.fixture()
def streams(ctx: Context) -> Iterator[StreamServer]:
    server = StreamServer(ctx)
    server.start()
    yield server
    if server._thread.is_alive():  # the test may have stopped it already
        server.stop()


@pytest.fixture()
def browser() -> Iterator[Any]:
    yield from chromium()


def _text(driver: Any, element_id: str) -> str:
    return driver.find_element("id", element_id).text


def _top(driver: Any) -> tuple[str, str | None]:
    """The newest timeline item's line, and how the page heard of it ("stream" or "poll")."""
    item = driver.find_element("css selector", "#timeline li")
    return item.find_element("css selector", "summary").text, item.get_attribute("data-via")


def _following(hub: Any) -> list[str | None]:
    """Whom the stream process's followers follow as (None: the public)."""
    return [follower.viewer for feed in list(hub.feeds.values()) for follower in list(feed.followers)]


def _paste_token(driver: Any, token: str | None) -> None:
    driver.find_element("id", "token-forget").click()
    if token:
        driver.find_element("id", "token-input").send_keys(token)
        driver.find_element("css selector", "#token-form button[type=submit]").click()


def _bid(base: str, gid: str, token: str, amount: int) -> int:
    answer = requests.post(f"{base}/v1/games/{gid}/actions", json={"type": "bid", "amount": amount},
                           headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert answer.status_code == 202, answer.text
    return answer.json()["seq"]


def test_the_timeline_moves_live_from_the_stream_and_polls_when_it_stops(
        settings: Settings, streams: StreamServer, browser: Any, tmp_path: Path) -> None:
    stack = Stack(settings, tmp_path)
    stack.start_api(ARBITER_STREAM_URL=streams.url)
    try:
        base = f"http://127.0.0.1:{stack.port}"
        gid, gm, tokens = create_and_join(stack, "extreme-ways", 3, seed="live")

        # The GM's page follows the stream with a ticket for the GM's token (never the token in the URL).
        browser.get(f"{base}/console/games/{gid}")
        hub = streams.hub
        assert hub is not None
        wait_for(browser, lambda: _following(hub) == [None], "the page to follow the stream as the public")
        _paste_token(browser, gm)
        # The stream the page opened for no token is live until the GM's replaces it: wait for the GM's own, or an
        # order sent meanwhile comes in with the GM's first read of the log (polled), not from the stream.
        wait_for(browser, lambda: _following(hub) == ["gm"] and _text(browser, "live-mode").startswith("live"),
                 "the page to follow the stream as the GM")
        seq = _bid(base, gid, tokens["p2"], 7)
        wait_for(browser, lambda: _top(browser)[0].startswith(f"#{seq} action.submitted by p2 ")
                 and _top(browser)[1] == "stream", "the bid, heard from the stream")
        wait_for(browser, lambda: "Runner 2" not in _text(browser, "g-awaiting"), "the summary to follow")
        wait_for(browser, lambda: _text(browser, "replay-line").startswith(f"#{seq} "), "the replay to follow")

        # Without a token the page follows as the public does (no ticket): another's bid comes in sealed.
        _paste_token(browser, None)
        wait_for(browser, lambda: _text(browser, "token-role").startswith("No token"), "the public view")
        wait_for(browser, lambda: _following(hub) == [None] and _text(browser, "live-mode").startswith("live"),
                 "the public's stream")
        seq = _bid(base, gid, tokens["p3"], 3)
        wait_for(browser, lambda: _top(browser)[0].startswith(f"#{seq} action.submitted by sealed")
                 and _top(browser)[1] == "stream", "a sealed bid, heard from the stream")
        errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
        assert errors == []

        # The stream process stops: the page says so and polls; the timeline still moves.
        streams.stop()
        wait_for(browser, lambda: _text(browser, "live-mode").startswith("polling"), "the fall back to polling", 30)
        seq = _bid(base, gid, tokens["p1"], 4)
        wait_for(browser, lambda: _top(browser)[0].startswith(f"#{seq} action.submitted by sealed")
                 and _top(browser)[1] == "poll", "the last bid, polled", 30)
        wait_for(browser, lambda: "not answering" in _text(browser, "live-mode"), "the page to give up the stream", 30)
        stream_port = f"127.0.0.1:{streams.port}"
        others = [e for e in browser.get_log("browser") if e["level"] == "SEVERE" and stream_port not in e["message"]]
        assert others == []  # only the stopped stream's refused connections
        assert "token" not in browser.current_url and not browser.get_cookies()
    finally:
        stack.stop()
