"""Debian's chromium, headless, driven by Selenium: started per test, skipped with the reason when it is missing."""
from __future__ import annotations

import shutil
from contextlib import contextmanager
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

CHROMIUM = next((p for p in ("/usr/bin/chromium", shutil.which("chromium") or "") if p and Path(p).exists()), None)
DRIVER = next((p for p in ("/usr/bin/chromedriver", shutil.which("chromedriver") or "") if p and Path(p).exists()),
              None)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage"]


@contextmanager
def browsing(redis_url: str, folder: Path, queue_name: str) -> Iterator[tuple[Any, Any, Any]]:
    """A module's world: a Context on a wiped Redis (set as the current one), the API served over HTTP from it,
    and one browser: ``(ctx, stack, driver)``; the API is started by the caller (after any setup it needs)."""
    from redis import Redis

    from runtime.config import Settings
    from runtime.context import Context, use
    from tests.e2e.stack import Stack

    Redis.from_url(redis_url).flushall()
    settings = Settings(redis_url=redis_url, queue_url=redis_url.rsplit("/", 1)[0] + "/1", queue_name=queue_name,
                        admin_token=None, max_body_bytes=64 * 1024)
    ctx = Context(settings)
    use(ctx)
    stack = Stack(settings, folder)
    browsers = chromium()
    try:
        yield ctx, stack, next(browsers)
    finally:
        browsers.close()
        stack.stop()
        use(None)


def chromium(width: int = 1100, height: int = 1400) -> Iterator[Any]:
    """A fresh browser with an empty profile; its console log is readable (``get_log("browser")``)."""
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install '.[test]')")
    if CHROMIUM is None or DRIVER is None:
        pytest.skip("no chromium/chromedriver: apt-get install -y chromium chromium-driver")
    from selenium.webdriver.chrome.service import Service

    with tempfile.TemporaryDirectory(prefix="arbiter-chromium-") as profile:
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in [*FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}"]:
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(service=Service(executable_path=DRIVER), options=options)
        try:
            yield driver
        finally:
            driver.quit()


def wait_for(driver: Any, check: Callable[[], Any], what: str, timeout: float = 30) -> Any:
    """Poll ``check`` until it is truthy; fail with ``what`` and the page's error line otherwise.  The default
    leaves room for a machine the whole suite loads (a wait ends as soon as the check holds)."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait

    def attempt(_: Any) -> Any:
        try:
            return check()
        except (WebDriverException, LookupError, ValueError):
            return False

    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.2).until(attempt)
    except Exception as exc:  # a TimeoutException, reported with what was awaited and what the page said
        error = " | ".join(e.get_attribute("textContent") for e in driver.find_elements("css selector", ".error")
                           if e.get_attribute("textContent"))
        page = driver.execute_script("return [...document.querySelectorAll('[role=status], #replay-event, #replay-as')]"
                                     ".map(e => e.id + ': ' + (e.value || e.textContent).slice(0, 300)).join('\\n')")
        raise AssertionError(f"waited {timeout} s for {what}; the page's error lines: {error!r}\n{page}") from exc


def choose(driver: Any, element_id: str, value: str) -> None:
    """Pick ``value`` in a select once the page offers it (selects are filled from the API as the game moves)."""
    from selenium.webdriver.support.ui import Select

    wait_for(driver, lambda: driver.find_elements("css selector", f"#{element_id} option[value='{value}']"),
             f"{value} offered in #{element_id}")
    Select(driver.find_element("id", element_id)).select_by_value(value)
