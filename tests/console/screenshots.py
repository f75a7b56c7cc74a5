"""Screenshots of the console for docs/console/: ``python -m tests.console.screenshots docs/console``.

Bots play a finished game of each type through the real store and worker (``arbiter simulate``'s code), gunicorn
serves the console, and Debian's chromium photographs each game's page, the audit and replay, and a player's page
of a running game.  Needs chromium and chromium-driver (apt) and selenium (the test extras)."""
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

PLAYERS = {"extreme-ways": 4, "golden-strider": 6, "sxyzm-cyclone": 3, "elemental-tag": 4, "strategic-aspect": 3}


def _shoot(driver: Any, path: Path, element_id: str | None = None) -> None:
    if element_id:
        driver.execute_script("document.getElementById(arguments[0]).scrollIntoView()", element_id)
        time.sleep(0.3)
    driver.save_screenshot(str(path))
    print(f"wrote {path}")


def main(out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="arbiter-shots-") as temp:
        server = embedded_redis.start(Path(temp), aof=False)
        settings = Settings(redis_url=server.url, queue_url=server.url.rsplit("/", 1)[0] + "/1",
                            queue_name="arbiter-shots", admin_token=None, max_body_bytes=64 * 1024)
        Redis.from_url(server.url).flushall()
        stack = Stack(settings, Path(temp))
        browsers = chromium(width=1100, height=1500)
        try:
            ctx = Context(settings)
            use(ctx)
            games = {game: simulate.run(ctx, game, players, "screenshots", {}, echo=None)["game_id"]
                     for game, players in PLAYERS.items()}
            stack.start_api()
            stack.start_worker("shots")
            base = f"http://127.0.0.1:{stack.port}"
            driver = next(browsers)
            for game, gid in games.items():
                driver.get(f"{base}/console/games/{gid}")
                wait_for(driver, lambda: driver.find_element("id", "g-status").text == "finished", "the game", 30)
                wait_for(driver, lambda: driver.find_element("id", "board").get_attribute("naturalWidth") != "0",
                         "the board")
                _shoot(driver, out / f"{game}-game.png")
            driver.find_element("id", "audit-run").click()  # the last game: its timeline, replay and audit
            wait_for(driver, lambda: driver.find_element("id", "audit-result").text, "the audit", 60)
            driver.find_element("css selector", "#timeline li details summary").click()
            _shoot(driver, out / "timeline-and-replay.png", "timeline-s")
            driver.find_element("css selector", "#report-form button[type=submit]").click()
            wait_for(driver, lambda: driver.find_element("id", "report-text").text, "the report")
            _shoot(driver, out / "audit-and-report.png", "audit")
            created = requests.post(f"{base}/v1/games", json={"type": "extreme-ways", "seed": "shots"},
                                    timeout=10).json()
            tokens = [requests.post(f"{base}/v1/games/{created['game_id']}/players", json={"name": name},
                                    timeout=10).json()["token"] for name in ("Ann", "Bea", "Cy")]
            requests.post(f"{base}/v1/games/{created['game_id']}/start", timeout=10,
                          headers={"Authorization": f"Bearer {created['gm_token']}"})
            requests.post(f"{base}/v1/games/{created['game_id']}/actions", json={"type": "bid", "amount": 5},
                          headers={"Authorization": f"Bearer {tokens[0]}"}, timeout=10)
            driver.get(f"{base}/console/games/{created['game_id']}/play")
            driver.find_element("id", "token-input").send_keys(tokens[0])
            driver.find_element("css selector", "#token-form button[type=submit]").click()
            wait_for(driver, lambda: driver.find_element("id", "order-amount"), "the order form")
            _shoot(driver, out / "player-page.png")
        finally:
            browsers.close()
            stack.stop()
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/console")))
