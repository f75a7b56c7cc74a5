"""The console in a real browser: a short game played through the pages, from start to a tampered export."""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Iterator

import pytest
import requests

from cli import simulate
from runtime.context import Context
from tests.console.browser import chromium, choose, wait_for
from tests.e2e import follow
from tests.forgery import lowered_top_bid

EVIL = "<script>alert(1)</script>"


@pytest.fixture()
def browser() -> Iterator[Any]:
    yield from chromium()


def _text(driver: Any, element_id: str) -> str:
    return driver.find_element("id", element_id).text


def _paste_token(driver: Any, token: str | None) -> None:
    driver.find_element("id", "token-forget").click()
    if token:
        driver.find_element("id", "token-input").send_keys(token)
        driver.find_element("css selector", "#token-form button[type=submit]").click()


def _select(driver: Any, element_id: str, value: str) -> None:
    choose(driver, element_id, value)


def _content(driver: Any, element_id: str) -> str:
    """An element's text, shown or folded away in a closed <details>."""
    return driver.find_element("id", element_id).get_attribute("textContent")


def _picture(driver: Any, element_id: str) -> bool:
    """Whether the page shows a picture in that <img> (drawn and loaded)."""
    return driver.execute_script("const img = document.getElementById(arguments[0]);"
                                 "return !img.hidden && img.complete && img.naturalWidth > 0;", element_id)


def _same_picture(driver: Any, element_id: str, svg: str) -> Any:
    """Whether the page's <img> shows ``svg``, pixel for pixel (both drawn on a canvas in the page; the page's CSP
    lets no script read the blob: it shows)."""
    return driver.execute_async_script(
        "const [id, svg, done] = arguments, shown = document.getElementById(id), other = new Image();"
        "const draw = (img) => { const c = document.createElement('canvas'); c.width = img.naturalWidth;"
        "  c.height = img.naturalHeight; c.getContext('2d').drawImage(img, 0, 0); return c.toDataURL(); };"
        "other.onload = () => { try { done(draw(shown) === draw(other)); } catch (e) { done(String(e)); } };"
        "other.onerror = () => done('the expected picture did not load');"
        "other.src = URL.createObjectURL(new Blob([svg], {type: 'image/svg+xml'}));", element_id, svg)


def _svg(base: str, gid: str, token: str | None, at: int) -> tuple[int, str]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    answer = requests.get(f"{base}/v1/games/{gid}/board.svg?at={at}", headers=headers, timeout=10)
    return answer.status_code, answer.text


def _visible_without_scrolling(driver: Any, element_id: str) -> None:
    """The element is on screen as it is: no scrolling needed to read it."""
    top, bottom, height = driver.execute_script(
        "const r = document.getElementById(arguments[0]).getBoundingClientRect();"
        "return [r.top, r.bottom, window.innerHeight];", element_id)
    assert 0 <= top and bottom <= height, f"#{element_id} is at {top}-{bottom} px in a {height} px window"


def _top_event(driver: Any) -> str:
    return driver.find_element("css selector", "#timeline li summary").text


def test_a_short_game_through_the_console(stack: Any, browser: Any, tmp_path: Path) -> None:
    stack.start_worker("console-worker")
    base = f"http://127.0.0.1:{stack.port}"
    created = requests.post(f"{base}/v1/games", json={"type": "extreme-ways", "seed": "console"}, timeout=10).json()
    gid, gm = created["game_id"], created["gm_token"]
    tokens = {}
    for name in (EVIL, "Bea", "Cy"):
        joined = requests.post(f"{base}/v1/games/{gid}/players", json={"name": name}, timeout=10).json()
        tokens[joined["player_id"]] = joined["token"]

    # The GM pastes their token and starts the game from the page.
    browser.get(f"{base}/console/games/{gid}")
    _paste_token(browser, gm)
    wait_for(browser, lambda: _text(browser, "token-role") == "You are the GM.", "the GM role")
    assert EVIL in _text(browser, "g-players")  # shown as text: the page did not run it
    assert len(browser.find_elements("css selector", "script")) == 1
    _select(browser, "gm-action", "start")
    browser.find_element("css selector", "#gm-form button[type=submit]").click()
    wait_for(browser, lambda: _text(browser, "g-status") == "running", "the game to run")
    wait_for(browser, lambda: "game.started" in _top_event(browser), "game.started on the timeline")
    assert "left" in _text(browser, "g-countdown") and "p1" in _text(browser, "g-awaiting")
    assert "token" not in browser.current_url and not browser.get_cookies()
    _select(browser, "gm-action", "gm.pause")
    browser.find_element("id", "gm-reason").send_keys("Holiday")
    browser.find_element("css selector", "#gm-form button[type=submit]").click()
    wait_for(browser, lambda: _text(browser, "g-status") == "paused", "the pause")
    wait_for(browser, lambda: "gm.pause by gm" in _top_event(browser), "the pause on the timeline")
    assert "paused" in _text(browser, "g-deadline")
    _select(browser, "gm-action", "gm.resume")
    browser.find_element("css selector", "#gm-form button[type=submit]").click()  # no reason: refused beside it
    wait_for(browser, lambda: "Give a reason" in _text(browser, "gm-error"), "the missing reason, beside the form")
    _visible_without_scrolling(browser, "gm-error")
    browser.find_element("id", "gm-reason").send_keys("Back")
    browser.find_element("css selector", "#gm-form button[type=submit]").click()
    wait_for(browser, lambda: _text(browser, "g-status") == "running", "the resumption")

    # Player p2 sends a sealed bid through the order form built from the action schemas.
    browser.get(f"{base}/console/games/{gid}/play")
    _paste_token(browser, tokens["p2"])
    wait_for(browser, lambda: "bid" in [o.get_attribute("value") for o in
                                        browser.find_elements("css selector", "#order-type option")], "the bid order")
    _select(browser, "order-type", "bid")
    amount = wait_for(browser, lambda: browser.find_element("id", "order-amount"), "the amount field")
    amount.clear()
    amount.send_keys("12")
    time.sleep(4.5)  # one polling round: the page refreshes the game without wiping an order being typed
    assert browser.find_element("id", "order-amount").get_attribute("value") == "12"
    amount.clear()
    amount.send_keys("7")
    browser.find_element("css selector", "#order-form button[type=submit]").click()
    wait_for(browser, lambda: _text(browser, "order-result").startswith("Accepted: seq"), "the order's receipt")
    bid_seq = int(_text(browser, "order-result").split("seq ", 1)[1].split(",")[0])
    wait_for(browser, lambda: f'"seq":{bid_seq},' in _text(browser, "receipts"), "the bid among the receipts")
    assert '"amount":7' in _text(browser, "receipts")
    inner, width = browser.execute_script("return [window.innerWidth, document.documentElement.scrollWidth]")
    assert width <= inner, f"the player's page scrolls sideways ({width} px in {inner})"  # long receipts wrap

    # Back on the GM page the timeline has moved (polled: this server names no stream process).
    browser.get(f"{base}/console/games/{gid}")
    _paste_token(browser, gm)
    wait_for(browser, lambda: f"#{bid_seq} action.submitted by p2" in _top_event(browser), "the bid on the timeline")
    assert _text(browser, "live-mode").startswith("polling") and "names no stream" in _text(browser, "live-mode")
    assert not browser.find_elements("id", "extra-token")  # "view as" needs the GM's token only

    # Replay at the bid, with the board as each viewer saw it: the GM and p2 see the amount, p1 and the public see
    # it sealed; one step back is the GM's resumption.
    wait_for(browser, lambda: '"amount": 7' in _content(browser, "replay-event"), "the GM's view of the bid")
    wait_for(browser, lambda: _picture(browser, "replay-board"), "the board in the replay")
    assert f"#{bid_seq} action.submitted by p2" in _text(browser, "replay-line")
    for viewer, sealed in (("p1", True), ("p2", False), ("public", True), ("p3", True), ("gm", False), ("p2", False)):
        _select(browser, "replay-as", viewer)
        label = {"public": "Public", "gm": "GM"}.get(viewer, f"({viewer})")
        wait_for(browser, lambda label=label: _text(browser, "replay-line").endswith(f"{label} saw it"),
                 f"the view as {viewer}")
        assert ('"amount": 7' in _content(browser, "replay-event")) != sealed
        assert ('"sealed": true' in _content(browser, "replay-event")) == sealed
        wait_for(browser, lambda: _picture(browser, "replay-board"), f"the board as {viewer} saw it")
    status, own = _svg(base, gid, tokens["p2"], bid_seq)
    assert status == 200 and _same_picture(browser, "replay-board", own) is True  # p2's own token's board then
    status, p1s = _svg(base, gid, tokens["p1"], bid_seq)
    assert status == 200 and _same_picture(browser, "replay-board", p1s) is False  # another player's is not it
    browser.find_element("id", "replay-back").click()
    wait_for(browser, lambda: _text(browser, "replay-at") == str(bid_seq - 1), "one step back")
    wait_for(browser, lambda: '"type": "gm.resume"' in _content(browser, "replay-event"), "the resumption, replayed")
    browser.find_element("css selector", "#replay-event-box summary").click()  # the JSON opens below the picture
    assert '"type": "gm.resume"' in _text(browser, "replay-event")

    # The audit checks out; a tampered export is refused at the seq that was changed.
    browser.find_element("id", "audit-run").click()
    wait_for(browser, lambda: _text(browser, "audit-result").startswith("Checks out"), "the audit")
    export = requests.get(f"{base}/v1/games/{gid}/export", headers={"Authorization": f"Bearer {gm}"},
                          timeout=10).json()
    bid = next(e for e in export["events"] if e["seq"] == bid_seq)
    bid["data"]["action"]["amount"] = 8
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(export))
    browser.find_element("id", "verify-file").send_keys(str(tampered))
    browser.find_element("css selector", "#verify-form button[type=submit]").click()
    wait_for(browser, lambda: "check" in _text(browser, "verify-verdict"), "the verdict")
    assert "Does not check out" in _text(browser, "verify-verdict"), _text(browser, "verify-verdict")
    assert f"at seq {bid_seq} (hash_chain)" in _text(browser, "verify-verdict")

    # The other two bid (through the API); the worker resolves the auction and the page follows; its report.
    for player in ("p1", "p3"):
        answer = requests.post(f"{base}/v1/games/{gid}/actions", json={"type": "bid", "amount": 3},
                               headers={"Authorization": f"Bearer {tokens[player]}"}, timeout=10)
        assert answer.status_code == 202, answer.text
    # First the worker's resolution in the store (a loaded machine may take a while to run it), then the page's
    # next poll showing it: a failure says which of the two did not come.
    follow.Logs(stack.settings.redis_url).wait([gid], lambda events: bool(follow.outcomes(events)), 60)
    wait_for(browser, lambda: "phase.resolved" in _top_event(browser), "the resolution on the timeline", 30)

    # The report, and nothing went wrong in the browser's console along the way.
    browser.find_element("css selector", "#report-form button[type=submit]").click()
    wait_for(browser, lambda: "Bea" in _text(browser, "report-text"), "the report")
    assert EVIL in _text(browser, "report-text")
    errors = [entry for entry in browser.get_log("browser") if entry["level"] in ("SEVERE", "ERROR")]
    assert errors == []


def test_a_finished_game_shows_its_seed_and_a_resealed_forgery_is_caught_where_it_diverges(
        stack: Any, ctx: Context, browser: Any, tmp_path: Path) -> None:
    gid = simulate.run(ctx, "extreme-ways", 3, "console-finished", {}, echo=None)["game_id"]
    base = f"http://127.0.0.1:{stack.port}"
    browser.get(f"{base}/console/games/{gid}")
    wait_for(browser, lambda: "matches the commitment" in _text(browser, "g-seed"), "the revealed seed")
    assert _text(browser, "g-status") == "finished" and "console-finished" in _text(browser, "g-seed")
    wait_for(browser, lambda: _text(browser, "live-mode") == "the game is over (nothing more to follow)",
             "the timeline to say it is complete")

    # A forger lowers the largest first-round bid and re-seals the chain: every hash holds, the auction does not.
    forged = requests.get(f"{base}/v1/games/{gid}/export", timeout=10).json()
    resolved = lowered_top_bid(forged)
    (tmp_path / "forged.json").write_text(json.dumps(forged))
    browser.find_element("id", "verify-file").send_keys(str(tmp_path / "forged.json"))
    browser.find_element("css selector", "#verify-form button[type=submit]").click()
    wait_for(browser, lambda: "check" in _text(browser, "verify-verdict"), "the verdict")
    verdict = _text(browser, "verify-verdict")
    assert f"first divergence at seq {resolved} (recompute)" in verdict, verdict
    # Recorded and recomputed side by side: the rows are the API's differences, each value in its column.
    expected = requests.post(f"{base}/v1/replays/verify", json=forged, timeout=30).json()["divergences"][0]
    assert expected["seq"] == resolved and expected["differences"]
    assert _difference_rows(browser, "verify-verdict") == _rows_of(expected)
    assert '"phase.resolved"' in _content(browser, "verify-verdict")  # the recorded event, folded below
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []

    # The same forgery written into the store as another game: the page's audit names the seq, the recorded event
    # beside what differs.
    for event in forged["events"]:
        ctx.store.append("g-forged", event)
    browser.get(f"{base}/console/games/g-forged")
    wait_for(browser, lambda: _text(browser, "g-status") == "finished", "the forged game")
    browser.find_element("id", "audit-run").click()
    wait_for(browser, lambda: "check" in _text(browser, "audit-result"), "the audit")
    audit = _text(browser, "audit-result")
    assert f"first divergence at seq {resolved} (recompute)" in audit, audit
    assert _difference_rows(browser, "audit-result") == _rows_of(expected)
    assert '"phase.resolved"' in _content(browser, "audit-result")


def _difference_rows(driver: Any, element_id: str) -> list[list[str]]:
    return [[cell.text for cell in row.find_elements("css selector", "th, td")]
            for row in driver.find_elements("css selector", f"#{element_id} table.diff tbody tr")]


def _rows_of(divergence: dict[str, Any]) -> list[list[str]]:
    """The rows the page should show for the API's ``differences``, values as compact JSON."""
    def shown(value: Any, absent: bool) -> str:
        return "(absent)" if absent else json.dumps(value, separators=(",", ":"), ensure_ascii=False)

    return [[d["path"], shown(d["recorded"], d["missing"] == "recorded"),
             shown(d["recomputed"], d["missing"] == "recomputed")] for d in divergence["differences"]]


def test_the_game_page_fits_a_phone_and_works_from_the_keyboard(stack: Any) -> None:
    from selenium.webdriver.common.keys import Keys

    base = f"http://127.0.0.1:{stack.port}"
    created = requests.post(f"{base}/v1/games", json={"type": "extreme-ways", "seed": "phone"}, timeout=10).json()
    browsers = chromium()
    driver = next(browsers)
    try:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {  # a phone: 375 px wide, as an iPhone SE
            "width": 375, "height": 800, "deviceScaleFactor": 2, "mobile": True})
        driver.get(f"{base}/console/games/{created['game_id']}")
        wait_for(driver, lambda: _text(driver, "g-status") == "signup", "the game")
        inner, width = driver.execute_script("return [window.innerWidth, document.documentElement.scrollWidth]")
        assert inner <= 400 and width <= inner, f"the page scrolls sideways at phone width ({width} px)"
        driver.find_element("css selector", "body").send_keys(Keys.TAB)
        assert driver.switch_to.active_element.tag_name in ("a", "input", "button", "select")
        field = driver.find_element("id", "token-input")
        field.send_keys("not-a-token" + Keys.ENTER)  # the form submits from the keyboard
        wait_for(driver, lambda: "401" in _text(driver, "token-error"), "the refusal of a bad token, beside its field")
        assert "not kept" in _text(driver, "token-error")
        _visible_without_scrolling(driver, "token-error")
        assert driver.execute_script("return sessionStorage.length") == 0  # a refused token is not kept (or polled)
        assert [e for e in driver.get_log("browser") if "401" not in e["message"] and e["level"] == "SEVERE"] == []
    finally:
        browsers.close()
