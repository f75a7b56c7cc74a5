"""Every order type of every game, played once through the console's order form (issue 31): bots play a game
until the order is open to a player, then that player's page offers it, the form is filled from what it offers
(the first legal choice of each select, the lowest legal number) and the API accepts it.  One browser and one stack
for the module."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
import requests

from cli import embedded_redis
from engines import registry
from engines.rng import Rng
from replays.fold import engine_for
from runtime.context import Context
from service import commands
from service.errors import ApiError
from tests.console.browser import browsing, choose, wait_for
from workers.runner import run_burst


@pytest.fixture(scope="module")
def world(redis_server: embedded_redis.EmbeddedRedis, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with browsing(redis_server.url, Path(tmp_path_factory.mktemp("orders")), "arbiter-orders") as (ctx, stack, driver):
        stack.start_api()
        yield ctx, f"http://127.0.0.1:{stack.port}", driver


class Game:
    """A game played by bots in this process (the same commands as the API), stopped where an order opens."""

    def __init__(self, ctx: Context, game_type: str, players: int, options: dict[str, Any], seed: str,
                 fields: dict[str, Any] | None = None) -> None:
        self.ctx, self.engine, self.seed = ctx, registry.latest(game_type), seed
        created = commands.create_game(ctx, {"type": game_type, "options": options, "seed": seed,
                                             "resolve_early": True})
        self.id, self.gm_token = created["game_id"], created["gm_token"]
        self.tokens: dict[str, str] = {}
        for index in range(players):
            joined = commands.join(self.send(self.gm_token if fields else None,
                                             {"name": f"Bot {index + 1}", **(fields or {})}))[1]
            self.tokens[joined["player_id"]] = joined["token"]
        commands.start(self.send(self.gm_token, {}))

    def send(self, token: str | None, body: dict[str, Any]) -> commands.Sender:
        """A request to this game with ``token``, made in this process as the API makes it."""
        return commands.sender(self.ctx, self.id, token, body)

    def until(self, opens: Callable[[Any, dict[str, Any], str], bool], phases: int = 400) -> str:
        """Bots play phase after phase until ``opens(phase, view, player)`` holds for an awaited player: that
        player's id."""
        for _ in range(phases):
            record = self.ctx.loader.load(self.id)
            if record["status"] != "running":
                raise GameOver(f"the game ended before the order opened ({record['status']})")
            engine = engine_for(record)
            phase = engine.phase(record["engine"])
            for player in phase.awaiting:
                if opens(phase, engine.view(record["engine"], player), player):
                    return player
            bots = Rng(self.seed, "bots", record["phase"]["number"])
            for actor in phase.awaiting:
                action = engine.bot_action(self.ctx.loader.load(self.id)["engine"], actor, bots.fork(actor))
                if action is not None:
                    try:
                        commands.act(self.send(self.tokens[actor], action))
                    except ApiError:
                        pass  # a bot's order the rules refuse: the phase resolves with the default
            after = self.ctx.loader.load(self.id)
            if after["status"] == "running" and after["phase"]["number"] == record["phase"]["number"]:
                still = engine_for(after).phase(after["engine"])
                if still is not None and still.awaiting:
                    commands.act(self.send(self.gm_token, {"type": "gm.resolve_now", "reason": "bots are done"}))
            run_burst(self.ctx)
        raise AssertionError("the order never opened")


class GameOver(AssertionError):
    """The bots' game ended without the order opening."""


def hinted(order: str, *lists: str) -> Callable[[Any, dict[str, Any], str], bool]:
    """The order is in the player's hint (Extreme Ways, Elemental Tag: ``you.legal_actions``), with a choice in each
    of its ``lists``."""
    def opens(phase: Any, view: dict[str, Any], player: str) -> bool:
        hint = ((view.get("you") or {}).get("legal_actions") or {}).get(order)
        return hint is not None and all(hint[name] for name in lists)
    return opens


def in_phase(*names: str) -> Callable[[Any, dict[str, Any], str], bool]:
    return lambda phase, view, player: phase.name in names


# What a test types where the form offers no choice: Golden Strider's starting cards and first card (rule 2).
TYPED = {("golden-strider", "play"): {"order-cards-1": 7, "order-cards-2": 7, "order-cards-3": 6, "order-cards-4": 5,
                                      "order-cards-5": 5, "order-move": 4, "order-bank": 3},
         ("golden-strider", "submit_robot"): {"+order-algorithm-cards": 5, "+order-algorithm-rules": 1,
                                              **{f"order-algorithm-cards-{n}": 6 for n in range(1, 6)}}}

# A tie in Strategic Aspect's ceremony with the tie-breaking vote bought comes in some of the bots' games: this one's.
SEEDS = {"tiebreak": "orders-strategic-aspect-tiebreak-3-1"}

CASES = [
    ("extreme-ways", 3, {}, "bid", hinted("bid")),
    ("extreme-ways", 3, {}, "pass", hinted("pass")),
    ("extreme-ways", 3, {}, "move", hinted("move")),
    ("extreme-ways", 3, {"allow_buy_gold": True}, "buy_gold", hinted("buy_gold")),
    ("extreme-ways", 5, {}, "ec_vote", hinted("ec_vote", "candidates")),
    ("elemental-tag", 4, {}, "bid", hinted("bid")),
    ("elemental-tag", 4, {}, "place", hinted("place")),
    ("elemental-tag", 4, {}, "move", hinted("move")),
    ("elemental-tag", 4, {}, "apply", hinted("apply", "elements")),
    ("elemental-tag", 4, {}, "form", hinted("form")),
    ("elemental-tag", 8, {}, "vote", hinted("vote")),
    ("elemental-tag", 8, {}, "leave", hinted("leave")),
    ("elemental-tag", 8, {}, "disband", hinted("disband")),
    ("golden-strider", 6, {}, "play", in_phase("round")),
    ("golden-strider", 6, {"variant": "robot"}, "submit_robot", in_phase("robots")),
    ("golden-strider", 4, {"variant": "tarnished"}, "accuse", in_phase("accusation")),
    ("sxyzm-cyclone", 2, {}, "turn", in_phase("turn")),
    ("strategic-aspect", 3, {}, "move", in_phase("move")),
    ("strategic-aspect", 3, {}, "bid", in_phase("auction")),
    ("strategic-aspect", 3, {}, "safety", in_phase("safety")),
    ("strategic-aspect", 3, {}, "vote", in_phase("vote")),
    ("strategic-aspect", 4, {}, "steal", in_phase("steal")),
    ("strategic-aspect", 4, {}, "buy_vote", in_phase("buy_vote")),
    ("strategic-aspect", 4, {}, "accept", in_phase("accept")),
    ("strategic-aspect", 4, {}, "suffice", in_phase("suffice")),
    ("strategic-aspect", 3, {}, "tiebreak", in_phase("tiebreak")),
]


def _fill(driver: Any, typed: dict[str, Any]) -> None:
    """What the form requires: the first legal choice of a select, the lowest legal number, one row in a list; and
    what ``typed`` names, typed (``+id``: that many rows in the list ``id``)."""
    driver.execute_script(
        "const typed = arguments[0];"
        "for (const [key, rows] of Object.entries(typed)) if (key.startsWith('+')) {"
        "  const add = document.getElementById(key.slice(1)).querySelector(':scope > button.add');"
        "  for (let i = 0; i < rows; i++) add.click(); }"
        "for (const add of document.querySelectorAll('#order-fields fieldset[aria-required] > button.add'))"
        "  if (!add.closest('fieldset').querySelector('li')) add.click();"
        "for (const f of document.querySelectorAll('#order-fields [data-field]')) {"
        "  if (f.id in typed) {"
        "    f.value = String(typed[f.id]); f.dispatchEvent(new Event('input', {bubbles: true})); continue; }"
        "  const needed = f.getAttribute('aria-required') || f.closest('li');"
        "  if (!needed) continue;"
        "  if (f.tagName === 'SELECT' && f.value === '' && f.options.length > 1) {"
        "    f.selectedIndex = 1; f.dispatchEvent(new Event('change')); }"
        "  else if (f.type === 'number' && f.min !== '' && f.value === '') f.value = f.min;"
        "}", typed)
    # A choice may follow another (Elemental Tag's vote: whom, by the motion): a second pass fills what it drew.
    driver.execute_script(
        "for (const f of document.querySelectorAll('#order-fields [data-field]')) {"
        "  const needed = f.getAttribute('aria-required') || f.closest('li');"
        "  if (needed && f.tagName === 'SELECT' && f.value === '' && f.options.length > 1) f.selectedIndex = 1;"
        "}")


@pytest.mark.parametrize("game_type, players, options, order, opens", CASES,
                         ids=[f"{c[0]}-{c[3]}" for c in CASES])
def test_an_order_of_each_type_through_the_form(world: Any, game_type: str, players: int, options: dict[str, Any],
                                                order: str, opens: Any) -> None:
    ctx, base, driver = world
    fields = {"garnets": 3} if order == "buy_gold" else None  # a sign-up field only the GM sets
    for attempt in range(3):  # an order the bots' game never opened: another seed
        seed = SEEDS.get(order, f"orders-{game_type}-{order}") + (f"-{attempt}" if attempt else "")
        game = Game(ctx, game_type, players, options, seed, fields)
        if order == "suffice":  # a cyclist ejected before anyone reached 30 starts a suffice cycle
            commands.act(game.send(game.gm_token, {"type": "gm.eject", "player_id": "p4", "reason": "test"}))
        try:
            player = game.until(opens)
            break
        except GameOver:
            continue
    else:
        raise AssertionError(f"no game of the bots opened {order}")
    seq = ctx.loader.load(game.id)["seq"]
    driver.get(f"{base}/console/games/{game.id}/play")
    driver.execute_script("sessionStorage.setItem(arguments[0], arguments[1]); location.reload();",
                          f"arbiter:{game.id}:token", game.tokens[player])
    wait_for(driver, lambda: driver.find_element("id", "token-role").text == f"You are player {player}.",
             "the player's page")
    choose(driver, "order-type", order)
    _fill(driver, TYPED.get((game_type, order), {}))
    if order == "safety":  # "keep" (the first choice) names nobody: the receiver's field shows for a gift only
        assert not driver.find_element("id", "order-to").is_displayed()
        choose(driver, "order-choice", "give")
        assert driver.find_element("id", "order-to").is_displayed()
        choose(driver, "order-choice", "keep")
    driver.find_element("id", "order-send").click()
    wait_for(driver, lambda: driver.find_element("id", "order-result").text.startswith("Accepted: seq"),
             f"{order} accepted")
    events = requests.get(f"{base}/v1/games/{game.id}/events?after={seq}",
                          headers={"Authorization": f"Bearer {game.gm_token}"}, timeout=10).json()["events"]
    sent = [e for e in events if e["type"] == "action.submitted" and e["actor"] == player]
    assert sent and sent[0]["data"]["action"]["type"] == order
    if (game_type, order) == ("golden-strider", "play"):  # the first card, offered from the starting cards typed
        assert sent[0]["data"]["action"]["card"] == "7/0" and sent[0]["data"]["action"]["cards"] == [7, 7, 6, 5, 5]


def _as(driver: Any, base: str, page: str, token: str | None, game_id: str) -> None:
    """Open a page of the game with ``token`` in the tab (as pasting it does)."""
    driver.get(f"{base}/console/games/{game_id}{page}")
    driver.execute_script("sessionStorage.clear();"
                          "if (arguments[1]) sessionStorage.setItem(arguments[0], arguments[1]);"
                          "location.reload();", f"arbiter:{game_id}:token", token)


def _text(driver: Any, element_id: str) -> str:
    return driver.find_element("id", element_id).text


def _on_screen(driver: Any, element_id: str) -> bool:
    top, bottom, height = driver.execute_script(
        "const r = document.getElementById(arguments[0]).getBoundingClientRect();"
        "return [r.top, r.bottom, window.innerHeight];", element_id)
    return 0 <= top and bottom <= height


# Copy, recorded: the page's clipboard write is kept in window.copied (a script the test adds before the page's).
RECORD_COPY = ("window.copied = null; const write = navigator.clipboard && navigator.clipboard.writeText;"
               "if (write) navigator.clipboard.writeText = (t) => { window.copied = t; return Promise.resolve(); };")


def test_copy_takes_the_public_report_and_the_gm_enters_an_order_for_a_player(world: Any) -> None:
    ctx, base, driver = world
    game = Game(ctx, "strategic-aspect", 3, {}, "console-gm")
    player = game.until(lambda phase, view, p: phase.name == "move" and len(view["turns"]) >= 2)
    script = driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_COPY})
    try:
        _as(driver, base, "", game.gm_token, game.id)
        wait_for(driver, lambda: "Strategic Aspect" in _text(driver, "report-text"), "the report")
        public = requests.get(f"{base}/v1/games/{game.id}/report?format=text", timeout=10).json()["report"]
        assert _text(driver, "report-text") == public.strip() and "GM only" not in public
        driver.find_element("id", "report-copy").click()
        wait_for(driver, lambda: driver.execute_script("return window.copied"), "the copy")
        assert driver.execute_script("return window.copied") == public  # Copy: the public report, to the byte
        driver.find_element("id", "report-gm").click()  # the GM's own lines only when asked, apart and marked
        wait_for(driver, lambda: "GM only" in _text(driver, "report-gm-text"), "the GM's version")
        driver.find_element("id", "report-copy").click()
        assert driver.execute_script("return window.copied") == public
        # The seed is hidden until a click, and said to be secret.
        assert "Secret" in _text(driver, "g-seed") and "console-gm" not in _text(driver, "g-seed")
        driver.find_element("id", "seed-show").click()
        assert "console-gm" in _text(driver, "g-seed") and "matches the commitment" in _text(driver, "g-seed")
        # A cyclist whose turn it is not is offered nothing (and told no "Your turn:").
        other = next(p for p in game.tokens if p != player)
        choose(driver, "order-player", other)
        wait_for(driver, lambda: "No order is open to this player now" in _text(driver, "order-help"), "no order")
        assert "Your turn" not in _text(driver, "order-help") and not _text(driver, "order-fields")
        # An order on the awaited cyclist's behalf, from the form their own view offers.
        choose(driver, "order-player", player)
        wait_for(driver, lambda: "Your turn" in _text(driver, "order-help"), "the turn's order")
        choose(driver, "order-type", "move")
        _fill(driver, {})
        driver.find_element("id", "order-send").click()
        wait_for(driver, lambda: "entered for" in _text(driver, "order-result"), "the order entered")
        seq = int(_text(driver, "order-result").split("seq ", 1)[1].split(",")[0])
        event = requests.get(f"{base}/v1/games/{game.id}/events?after={seq - 1}&limit=1", timeout=10,
                             headers={"Authorization": f"Bearer {game.gm_token}"}).json()["events"][0]
        assert event["actor"] == player and event["data"]["entered_by"] == "gm"
        assert isinstance(event["data"]["action"]["spaces"], int)
    finally:
        driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]})


def test_gm_actions_of_the_game_a_deadline_by_the_clock_and_errors_beside_their_control(world: Any) -> None:
    ctx, base, driver = world
    game = Game(ctx, "extreme-ways", 3, {}, "console-gm-actions")
    _as(driver, base, "", game.gm_token, game.id)
    choose(driver, "gm-action", "gm.set_garnets")
    choose(driver, "gm-player_id", "p2")
    driver.find_element("id", "gm-garnets").send_keys("4")
    assert not driver.find_element("id", "gm-reason").is_displayed()  # a sealed correction: no public reason
    driver.find_element("css selector", "#gm-form button[type=submit]").click()
    wait_for(driver, lambda: _text(driver, "gm-result").startswith("Done: gm.set_garnets"), "the garnets set")
    assert ctx.loader.load(game.id)["engine"]["garnets"]["p2"] == 4
    # The deadline as a date and time (the browser's local time; sent as UTC).
    choose(driver, "gm-action", "gm.extend_deadline")
    when = driver.execute_script(  # ten days on, typed as the browser's local date and time
        "const d = new Date(Date.now() + 864e6); d.setSeconds(0, 0); const p = (n) => String(n).padStart(2, '0');"
        "document.getElementById('gm-deadline').value = `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`"
        " + `T${p(d.getHours())}:${p(d.getMinutes())}:00`; return d.toISOString();")
    driver.find_element("id", "gm-reason").send_keys("Holiday")
    driver.find_element("css selector", "#gm-form button[type=submit]").click()
    wait_for(driver, lambda: _text(driver, "gm-result").startswith("Done: gm.extend_deadline"), "the deadline")
    assert ctx.loader.load(game.id)["phase"]["deadline"].startswith(when[:19])
    # An illegal bid on a player's page: refused beside the form, on screen as it is.
    _as(driver, base, "/play", game.tokens["p1"], game.id)
    choose(driver, "order-type", "bid")
    assert driver.find_element("id", "order-amount").get_attribute("value") == ""  # the example is a placeholder
    driver.find_element("id", "order-send").click()
    wait_for(driver, lambda: "amount: is required" in _text(driver, "order-error"), "the missing amount")
    driver.find_element("id", "order-amount").send_keys("999")
    driver.find_element("id", "order-send").click()
    wait_for(driver, lambda: "422" in _text(driver, "order-error"), "the illegal bid refused")
    assert _on_screen(driver, "order-error") and _text(driver, "order-result") == ""
    # A game that does not exist: said at the top of the page.
    driver.get(f"{base}/console/games/g-nothing-here")
    wait_for(driver, lambda: "404" in _text(driver, "error"), "the missing game")
    assert _on_screen(driver, "error")


# A page served over plain HTTP on another name than localhost: no crypto.subtle, no clipboard API.
PLAIN_HTTP = ("Object.defineProperty(window, 'isSecureContext', {value: false});"
              "Object.defineProperty(Navigator.prototype, 'clipboard', {get: () => undefined});"
              "Object.defineProperty(Crypto.prototype, 'subtle', {get: () => undefined});")


def test_a_gm_creates_a_game_signs_players_up_and_runs_it_over_plain_http(world: Any) -> None:
    ctx, base, driver = world
    script = driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": PLAIN_HTTP})
    try:
        driver.get(f"{base}/console")
        driver.execute_script("sessionStorage.clear()")
        choose(driver, "create-type", "extreme-ways")
        driver.find_element("id", "create-name").send_keys("Forum game 1")
        driver.find_element("id", "create-seed").send_keys("plain-http-seed")
        driver.find_element("css selector", "#create-form button[type=submit]").click()
        wait_for(driver, lambda: "Your GM token" in _text(driver, "create-result"), "the game created")
        driver.find_element("css selector", "#create-result a").click()
        wait_for(driver, lambda: _text(driver, "token-role") == "You are the GM.", "the GM's token kept for it")
        game_id = driver.execute_script("return document.body.dataset.game")
        tokens = []
        for name in ("Ann", "Bea", "Cy"):
            # The sign-up form is drawn once the page has the game's state (later than the token's role on a busy
            # machine) and again after each sign-up.
            wait_for(driver, lambda: driver.find_elements("id", "join-name"), "the sign-up form")
            driver.find_element("id", "join-name").send_keys(name)
            driver.find_element("css selector", "#join-form button[type=submit]").click()
            wait_for(driver, lambda name=name: f"Signed up {name}" in _text(driver, "join-result"), f"{name} in")
            tokens.append(driver.find_element("css selector", "#join-result code").text)
        driver.find_element("css selector", "#join-result button").click()  # no clipboard API: the older copy
        wait_for(driver, lambda: "Cop" in _text(driver, "join-result").split(tokens[-1], 1)[1], "the copy said")
        choose(driver, "gm-action", "start")
        driver.find_element("css selector", "#gm-form button[type=submit]").click()
        wait_for(driver, lambda: _text(driver, "g-status") == "running", "the start")
        driver.find_element("id", "seed-show").click()  # checked without crypto.subtle
        assert "plain-http-seed matches the commitment" in _text(driver, "g-seed")
        driver.find_element("id", "export-run").click()
        assert _text(driver, "export-error") == ""
        # A player's token pasted on the index page is used by the game page opened next.
        driver.get(f"{base}/console")
        driver.execute_script("sessionStorage.clear()")
        driver.find_element("id", "token-input").send_keys(tokens[1])
        driver.find_element("css selector", "#token-form button[type=submit]").click()
        driver.find_element("id", "open-id").send_keys(game_id)
        driver.find_element("id", "open-play").click()
        wait_for(driver, lambda: _text(driver, "token-role") == "You are player p2.", "the index page's token used")
        assert ctx.loader.load(game_id)["status"] == "running"
    finally:
        driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]})


def test_a_player_page_reads_recent_receipts_and_older_ones_on_request(world: Any) -> None:
    ctx, base, driver = world
    game = Game(ctx, "elemental-tag", 16, {}, "console-receipts")
    game.until(lambda phase, view, p: ctx.loader.load(game.id)["seq"] > 530, phases=2000)
    events = requests.get(f"{base}/v1/games/{game.id}/events?after=0&limit=1000",
                          headers={"Authorization": f"Bearer {game.gm_token}"}, timeout=10).json()["events"]
    seq = ctx.loader.load(game.id)["seq"]
    orders = [e["seq"] for e in events if e["type"] == "action.submitted" and e["actor"] == "p1" and e["seq"] <= seq]
    _as(driver, base, "/play", game.tokens["p1"], game.id)
    wait_for(driver, lambda: driver.find_element("id", "receipts-older").is_displayed(), "the older receipts' button")

    def shown() -> list[int]:
        return [int(li.text.split('"seq":')[1].split(",")[0])
                for li in driver.find_elements("css selector", "#receipts li")]

    wait_for(driver, shown, "the recent receipts")
    assert min(shown()) > seq - 500 and shown() == sorted(shown(), reverse=True)
    driver.find_element("id", "receipts-older").click()
    wait_for(driver, lambda: sorted(shown()) == orders, "every receipt, newest first")
    assert shown() == sorted(shown(), reverse=True)
