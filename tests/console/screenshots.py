"""Screenshots of the console for docs/console/: ``python -m tests.console.screenshots docs/console``.

Bots play a finished game of each type through the real store and worker (``arbiter simulate``'s code), gunicorn
serves the console with a stream process beside it (as ``arbiter up`` runs them), and Debian's chromium photographs
each game's page, the replay's board at a seq, a running game's live timeline and replay as a player saw it, the
audit of a forged log (recorded and recomputed side by side) and a player's page.  Needs chromium and
chromium-driver (apt) and selenium (the test extras)."""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import requests
from redis import Redis

from cli import embedded_redis, simulate
from runtime.config import Settings
from runtime.context import Context, use
from tests.console.browser import chromium, wait_for
from tests.e2e.stack import Stack
from tests.forgery import lowered_top_bid
from tests.streams.conftest import StreamServer

PLAYERS = {"extreme-ways": 4, "golden-strider": 6, "sxyzm-cyclone": 3, "elemental-tag": 4, "strategic-aspect": 3}


def _shoot(driver: Any, path: Path, element_id: str | None = None) -> None:
    if element_id:
        driver.execute_script("document.getElementById(arguments[0]).scrollIntoView()", element_id)
        time.sleep(0.3)
    driver.save_screenshot(str(path))
    print(f"wrote {path}")


def _text(driver: Any, element_id: str) -> str:
    return driver.find_element("id", element_id).text


def _drawn(driver: Any, element_id: str) -> bool:
    return driver.execute_script("const i = document.getElementById(arguments[0]);"
                                 "return !i.hidden && i.complete && i.naturalWidth > 0;", element_id)


def _games(driver: Any, base: str, games: dict[str, str], out: Path) -> None:
    """Each finished game's page, then the Golden Strider race's replay half way, with its board then."""
    for game, gid in games.items():
        driver.get(f"{base}/console/games/{gid}")
        wait_for(driver, lambda: _text(driver, "g-status") == "finished", "the game", 30)
        wait_for(driver, lambda: _drawn(driver, "board"), "the board")
        _shoot(driver, out / f"{game}-game.png")
    driver.get(f"{base}/console/games/{games['golden-strider']}")
    wait_for(driver, lambda: _drawn(driver, "replay-board"), "the replay's board", 30)
    driver.execute_script("const s = document.getElementById('replay-seq'); s.value = Math.floor(s.max / 2);"
                          "s.dispatchEvent(new Event('change'));")
    wait_for(driver, lambda: _text(driver, "replay-at") == _text(driver, "replay-line")[1:].split(" ", 1)[0],
             "the replay half way")
    wait_for(driver, lambda: _drawn(driver, "replay-board"), "the board half way")
    _shoot(driver, out / "replay-board.png", "replay")


def _forged_audit(driver: Any, base: str, ctx: Context, gid: str, out: Path) -> None:
    """A finished Extreme Ways game whose largest first bid a forger lowered, re-sealing the chain, stored as a game
    of its own: its audit shows the resolution's recorded and recomputed values side by side."""
    forged = requests.get(f"{base}/v1/games/{gid}/export", timeout=10).json()
    lowered_top_bid(forged)
    for event in forged["events"]:
        ctx.store.append("g-forged", event)
    driver.get(f"{base}/console/games/g-forged")
    wait_for(driver, lambda: _text(driver, "g-status") == "finished", "the forged game", 30)
    driver.find_element("id", "audit-run").click()
    wait_for(driver, lambda: driver.find_elements("css selector", "#audit-result table.diff"), "the audit", 60)
    driver.find_element("css selector", "#report-form button[type=submit]").click()
    wait_for(driver, lambda: _text(driver, "report-text"), "the report")
    _shoot(driver, out / "audit-and-report.png", "audit")


def _running(driver: Any, base: str, out: Path) -> None:
    """A running game: its GM's page live from the stream, the replay as another player saw the first bid (sealed),
    and the bidder's own page."""
    created = requests.post(f"{base}/v1/games", json={"type": "extreme-ways", "seed": "shots"}, timeout=10).json()
    gid, gm = created["game_id"], created["gm_token"]
    tokens = [requests.post(f"{base}/v1/games/{gid}/players", json={"name": name}, timeout=10).json()["token"]
              for name in ("Ann", "Bea", "Cy")]
    requests.post(f"{base}/v1/games/{gid}/start", timeout=10, headers={"Authorization": f"Bearer {gm}"})
    requests.post(f"{base}/v1/games/{gid}/actions", json={"type": "bid", "amount": 5},
                  headers={"Authorization": f"Bearer {tokens[0]}"}, timeout=10)
    driver.get(f"{base}/console/games/{gid}")
    driver.find_element("id", "token-input").send_keys(gm)
    driver.find_element("css selector", "#token-form button[type=submit]").click()
    wait_for(driver, lambda: _text(driver, "live-mode").startswith("live"), "the live timeline")
    from selenium.webdriver.support.ui import Select

    wait_for(driver, lambda: "p2" in [o.get_attribute("value") for o in
                                      driver.find_elements("css selector", "#replay-as option")], "view as p2")
    Select(driver.find_element("id", "replay-as")).select_by_value("p2")
    wait_for(driver, lambda: "Bea (p2)" in _text(driver, "replay-line") and _drawn(driver, "replay-board"),
             "the bid as p2 saw it")
    driver.find_element("css selector", "#timeline li details summary").click()
    _shoot(driver, out / "timeline-and-replay.png", "timeline-s")
    driver.get(f"{base}/console/games/{gid}/play")
    driver.find_element("id", "token-input").send_keys(tokens[0])
    driver.find_element("css selector", "#token-form button[type=submit]").click()
    wait_for(driver, lambda: driver.find_element("id", "order-amount"), "the order form")
    _shoot(driver, out / "player-page.png")


def main(out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="arbiter-shots-") as temp:
        server = embedded_redis.start(Path(temp), aof=False)
        settings = Settings(redis_url=server.url, queue_url=server.url.rsplit("/", 1)[0] + "/1",
                            queue_name="arbiter-shots", admin_token=None, max_body_bytes=64 * 1024)
        Redis.from_url(server.url).flushall()
        stack = Stack(settings, Path(temp))
        browsers = chromium(width=1100, height=1500)
        ctx = Context(settings)
        use(ctx)
        streams = StreamServer(ctx)
        try:
            games = {game: simulate.run(ctx, game, players, "screenshots", {}, echo=None)["game_id"]
                     for game, players in PLAYERS.items()}
            streams.start()
            stack.start_api(ARBITER_STREAM_URL=streams.url)
            stack.start_worker("shots")
            base = f"http://127.0.0.1:{stack.port}"
            driver = next(browsers)
            _games(driver, base, games, out)
            _forged_audit(driver, base, ctx, games["extreme-ways"], out)
            _running(driver, base, out)
        finally:
            browsers.close()
            stack.stop()
            if streams.hub is not None:
                streams.stop()
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/console")))
