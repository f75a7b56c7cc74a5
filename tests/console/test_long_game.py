"""A long game in the console (issue 31): a 60-player Elemental Tag game played by bots (thousands of events) opens
interactive within 2 s with a windowed timeline, an idle page fetches only a few hundred bytes a poll, and a replay
step asks for one seq."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from cli import embedded_redis, simulate
from tests.console.browser import browsing, wait_for

INTERACTIVE_S = 2.0
IDLE_POLL_BYTES = 4096


@pytest.fixture(scope="module")
def long_game(redis_server: embedded_redis.EmbeddedRedis, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with browsing(redis_server.url, Path(tmp_path_factory.mktemp("long")), "arbiter-long") as (ctx, stack, driver):
        played = simulate.run(ctx, "elemental-tag", 60, "console-long-game", {}, echo=None)
        assert played["finished"] and played["events"] > 3000
        stack.start_api()
        yield f"http://127.0.0.1:{stack.port}", played, driver


def _v1_bytes(driver: Any) -> list[tuple[str, int]]:
    return driver.execute_script(
        "return performance.getEntriesByType('resource').filter(e => e.name.includes('/v1/'))"
        ".map(e => [e.name.split('/v1/')[1], e.transferSize]);")


# When the page has drawn the summary and the timeline, by its own clock (ms from navigation): a script the test
# adds before the page's, watching the page.
WATCH = ("new MutationObserver((_, watching) => {"
         "  const status = document.getElementById('g-status'), items = document.querySelectorAll('#timeline li');"
         "  if (status && status.textContent && items.length >= 100) {"
         "    window.interactiveAt = performance.now(); watching.disconnect(); }"
         "}).observe(document, {childList: true, subtree: true, characterData: true});")


def test_a_60_player_game_opens_fast_and_an_idle_page_fetches_little(long_game: Any) -> None:
    base, played, driver = long_game
    script = driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": WATCH})
    try:
        driver.get(f"{base}/console/games/{played['game_id']}")
        wait_for(driver, lambda: driver.execute_script("return window.interactiveAt"), "the summary and timeline", 30)
    finally:
        driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]})
    interactive = driver.execute_script("return window.interactiveAt") / 1000
    # The page answers input at once: a script runs as soon as it is asked (no long task holds the page).
    asked = time.monotonic()
    driver.execute_script("return 1")
    assert time.monotonic() - asked < 0.5
    print(f"\n60-player Elemental Tag game, {played['events']} events: interactive in {interactive:.2f} s")
    assert interactive <= INTERACTIVE_S, f"{interactive:.2f} s to the summary and the timeline"
    assert len(driver.find_elements("css selector", "#timeline li")) == 100  # windowed: the newest 100
    wait_for(driver, lambda: not driver.find_element("id", "board").get_attribute("hidden"), "the board")
    alt = driver.find_element("id", "board").get_attribute("alt")  # the position in words: the picture's labels
    assert "Round" in alt and "(it), team" in alt and "; 1;" not in alt, alt
    assert driver.find_element("id", "timeline-older").is_displayed()
    driver.find_element("id", "timeline-older").click()
    wait_for(driver, lambda: len(driver.find_elements("css selector", "#timeline li")) == 200, "100 older events")

    # An idle page (a player's page polls every 4 s, whatever the game): a poll revalidates what it holds (a 304)
    # and asks for nothing new.
    driver.get(f"{base}/console/games/{played['game_id']}/play")
    wait_for(driver, lambda: driver.find_element("id", "g-status").text == "finished", "the player's page", 30)
    time.sleep(1)  # what the page asks for as it opens is over
    driver.execute_script("performance.clearResourceTimings()")
    time.sleep(4.5)  # one polling round (the page polls every 4 s): what it costs is what this test measures
    polled = _v1_bytes(driver)
    print(f"one idle poll: {polled}")
    assert polled and sum(size for _, size in polled) <= IDLE_POLL_BYTES, polled
    assert not any(path.split("?")[0].endswith("/replay") for path, _ in polled)

    # A replay step asks for that one seq (and its board), never the whole replay.
    driver.get(f"{base}/console/games/{played['game_id']}")
    wait_for(driver, lambda: driver.find_element("id", "replay-line").text, "the replay at the end", 60)
    driver.execute_script("performance.clearResourceTimings()")
    line = driver.find_element("id", "replay-line").text
    stepped = time.monotonic()
    driver.find_element("id", "replay-back").click()
    wait_for(driver, lambda: driver.find_element("id", "replay-line").text != line, "one step back", 60)
    print(f"one replay step back: {time.monotonic() - stepped:.2f} s")
    asked_for = [path for path, _ in _v1_bytes(driver) if "replay" in path or "board.svg" in path]
    assert asked_for and all(f"at={played['events'] - 1}" in path for path in asked_for), asked_for
