"""A client generated from the live /v1/openapi.json plays every game type to the end (issue 19).

openapi-python-client generates a Python package from the document an app started here serves; mypy --strict
checks it (an ``Any`` schema, a name clash or an untyped 200 fails there); then, for every registered game type
that declares its schemas, a whole game is played with the generated package only: typed operations
(create<Type>Game with the type's options, join<Type>Game, startGame, get<Type>Game, submit<Type>Action), typed
orders built from the typed state and hint only, a typed result at the end, and the game's log read back with
list<Type>Events as typed events.  Nothing is written as JSON by hand.  Every registered game type has a strategy
here (a new one fails until it gets one); a phase nobody's order closed is closed by the GM with a typed
gm.resolve_now (the engine's rules default the missing orders).  A game type that declares no schemas yet is
skipped, naming what it lacks.

The package is generated once per module, by the command and configuration docs/clients.md gives (about 2 s;
mypy about 15 s), and its bot is checked and run as written; the games' requests go to the Flask app in process
through httpx's WSGI transport, and a real RQ worker resolves each phase.
"""
from __future__ import annotations

import importlib
import json
import os
import shlex
import subprocess
import sys
import threading
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Iterator

import httpx
import pytest
from openapi_python_client.strings import snake_case
from redis import Redis
from werkzeug.serving import make_server

from cli import embedded_redis
from engines import registry
from runtime.config import Settings
from runtime.context import Context, use
from service.app import create_app
from service.openapi import pascal
from service.openapi.events import event_name
from service.openapi.games import shown_options
from tests.docs.markdown import blocks
from tests.platform.helpers import run_queued_jobs
from tests.schema.declared import missing

PACKAGE = "arbiter_client"
# Short games: options, players and their sign-up fields per game type.
SHORT: dict[str, tuple[dict[str, Any], int, list[dict[str, Any]]]] = {
    "elemental-tag": ({"element_points": 4, "underworld_points": 4}, 4,
                      [{"element": "fire", "guild": "fire"}, {"element": "fire"}, {"element": "water"}, {}]),
    "extreme-ways": ({"bidding_rounds": 2}, 3, []),
    "golden-strider": ({"race_length": 12}, 6, []),
    "strategic-aspect": ({}, 3, []),
    "sxyzm-cyclone": ({"max_turns": 12}, 2, []),
    "test-coin": ({"target": 1}, 2, []),
}
DOCS = Path(__file__).resolve().parents[2] / "docs" / "clients.md"
DOCS_BASE = "http://127.0.0.1:8000"  # where docs/clients.md says the API is; the tests serve it elsewhere


def docs_block(language: str, after: str) -> str:
    """The first ```language block of docs/clients.md after the line holding ``after``, as written."""
    lines = DOCS.read_text().splitlines()
    line = next(number for number, text in enumerate(lines, start=1) if after in text)
    return next(b.body for b in blocks(DOCS) if b.lang == language and int(b.where.rsplit(":", 1)[1]) > line) + "\n"


RECIPE = "A typed client, generated"


class Generated:
    """The generated package, and clients for the app."""

    def __init__(self, root: Path, app: Any, ctx: Context, base: str) -> None:
        self.root, self.app, self.ctx, self.base = root, app, ctx, base
        self.package = importlib.import_module(PACKAGE)
        self.models = importlib.import_module(f"{PACKAGE}.models")
        self.types = importlib.import_module(f"{PACKAGE}.types")

    def client(self, token: str | None = None) -> Any:
        transport = {"transport": httpx.WSGITransport(app=self.app)}
        if token is None:
            return self.package.Client(base_url="http://arbiter", httpx_args=transport, raise_on_unexpected_status=True)
        return self.package.AuthenticatedClient(base_url="http://arbiter", token=token, httpx_args=transport,
                                                raise_on_unexpected_status=True)

    def operation(self, tag: str, operation_id: str) -> ModuleType:
        return importlib.import_module(f"{PACKAGE}.api.{snake_case(tag)}.{snake_case(operation_id)}")

    def model(self, name: str) -> Any:
        return getattr(self.models, name)

    def unset(self, value: Any) -> bool:
        return isinstance(value, self.types.Unset) or value is None


@pytest.fixture(scope="module")
def generated(redis_server: embedded_redis.EmbeddedRedis, tmp_path_factory: pytest.TempPathFactory) -> Iterator[
        Generated]:
    """The client made as docs/clients.md says: its command (only the server's address changed: the app is served
    here over HTTP on a free port) with its config.yaml, both read from the Markdown."""
    url = redis_server.url.rsplit("/", 1)[0]
    Redis.from_url(f"{url}/0").flushall()
    ctx = Context(Settings(redis_url=f"{url}/0", queue_url=f"{url}/1", queue_name="arbiter-client",
                           admin_token=None, max_body_bytes=64 * 1024))
    app = create_app(ctx)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.port}"
    root = tmp_path_factory.mktemp("client")
    (root / "config.yaml").write_text(docs_block("yaml", RECIPE))
    command = shlex.split(docs_block("sh", RECIPE).replace("\\\n", " ").replace(DOCS_BASE, base))
    assert command[0] == "openapi-python-client", command
    made = subprocess.run([str(Path(sys.executable).parent / command[0]), *command[1:]], cwd=root,
                          capture_output=True, text=True, timeout=300)
    assert made.returncode == 0 and (root / PACKAGE / "client.py").exists(), made.stdout + made.stderr
    assert "Warning" not in made.stdout + made.stderr, made.stderr[:3000]  # a piece left out is a document bug
    (root / "openapi.json").write_bytes(app.test_client().get("/v1/openapi.json").data)
    sys.path.insert(0, str(root))
    try:
        yield Generated(root, app, ctx, base)
    finally:
        server.shutdown()
        sys.path.remove(str(root))
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(f"{PACKAGE}.")]:
            del sys.modules[name]
        use(None)


def test_the_generated_client_and_the_docs_bot_type_check_strictly(generated: Generated) -> None:
    """The package, and docs/clients.md's bot as written, pass mypy --strict (no casts, no Any to hide behind)."""
    (generated.root / "bot.py").write_text(docs_block("python", "A Strategic Aspect bot's move"))
    checked = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(generated.root / ".mypy"),
                              PACKAGE, "bot.py"], cwd=generated.root, capture_output=True, text=True, timeout=600)
    assert checked.returncode == 0, checked.stdout[-4000:]
    assert "Success" in checked.stdout


def test_the_docs_bot_moves_a_cyclist(generated: Generated) -> None:
    """docs/clients.md's bot, run as written against the served API with a cyclist whose move it is, moves."""
    api = generated.app.test_client()
    created = api.post("/v1/games", json={"type": "strategic-aspect", "seed": "docs-bot-" + "x" * 32}).get_json()
    tokens = {}
    for name in ("Ann", "Bob", "Cid"):
        joined = api.post(f"/v1/games/{created['game_id']}/players", json={"name": name}).get_json()
        tokens[joined["player_id"]] = joined["token"]
    assert api.post(f"/v1/games/{created['game_id']}/start",
                    headers={"Authorization": f"Bearer {created['gm_token']}"}).status_code == 200
    game = api.get(f"/v1/games/{created['game_id']}").get_json()
    assert game["state"]["stage"] == "move", game["state"]["stage"]
    mover = game["phase"]["awaiting"][0]
    (generated.root / "bot.py").write_text(docs_block("python", "A Strategic Aspect bot's move"))
    ran = subprocess.run([sys.executable, "bot.py"], cwd=generated.root, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "ARBITER_API": generated.base, "GAME_ID": created["game_id"],
                              "TOKEN": tokens[mover]})
    assert ran.returncode == 0 and ran.stdout.startswith("moved "), ran.stdout + ran.stderr


def _game_types() -> list[str]:
    return registry.names()


@pytest.mark.parametrize("name", _game_types())
def test_the_generated_client_plays_a_whole_game(generated: Generated, name: str) -> None:
    engine = registry.latest(name)
    assert engine is not None
    if missing(engine):
        pytest.skip(f"{name} declares no {', '.join(missing(engine))} yet: its typed state would be a loose object")
    Table(generated, name).play()


class Table:
    """One game played through the generated client: a GM, players, and a strategy per game type."""

    def __init__(self, gen: Generated, name: str) -> None:
        self.gen, self.name = gen, name
        self.engine = registry.latest(name)
        self.p, self.tag = pascal(name), self.engine.meta.title
        case = self.engine.simulation_cases[0]
        self.options, self.players, self.fields = SHORT.get(name, (dict(case["options"]), case["players"], list(
            case.get("fields") or [])))
        self.strategy: Callable[[str, Any], list[Any]] | None = {
            "elemental-tag": self._elemental_tag, "extreme-ways": self._extreme_ways,
            "golden-strider": self._golden_strider, "strategic-aspect": self._strategic_aspect,
            "sxyzm-cyclone": self._sxyzm_cyclone, "test-coin": self._coin}.get(name)

    def call(self, tag: str, operation_id: str, *args: Any, **kwargs: Any) -> Any:
        """The operation's parsed answer; an error model (or nothing) is a failure, with the body."""
        response = self.gen.operation(tag, operation_id).sync_detailed(*args, **kwargs)
        assert 200 <= response.status_code < 300, (operation_id, response.status_code, response.content[:500])
        assert response.parsed is not None and not isinstance(response.parsed, self.gen.model("ErrorResponse"))
        return response.parsed

    def play(self) -> None:
        m = self.gen.model
        created = self.call(self.tag, f"create{self.p}Game", client=self.gen.client(), body=m(f"{self.p}CreateGame")(
            options=m(f"{self.p}Options").from_dict(self.options), seed=f"generated-client-{self.name}-" + "x" * 32))
        self.game_id, self.gm = created.game_id, self.gen.client(created.gm_token)
        self.tokens: dict[str, Any] = {}
        for number in range(self.players):
            fields = self.fields[number] if number < len(self.fields) else {}
            joined = self.call(self.tag, f"join{self.p}Game", self.game_id, client=self.gen.client(),
                               body=m(f"{self.p}Join").from_dict({"name": f"Bot {number + 1}", **fields}))
            self.tokens[joined.player_id] = self.gen.client(joined.token)
        started = self.call("Games", "startGame", self.game_id, client=self.gm)
        assert started.status.value == "running"
        assert self.strategy is not None, f"{self.name}: no strategy in this file yet"
        orders = 0
        for _ in range(400):
            game = self.read(self.gm)
            if game.status.value == "finished":
                break
            number = game.phase.number
            for player, client in self.tokens.items():
                if player in game.phase.awaiting:
                    for order in self.strategy(player, self.read(client).state):
                        self.call(self.tag, f"submit{self.p}Action", self.game_id, client=client, body=order)
                        orders += 1
            run_queued_jobs(self.gen.ctx)
            game = self.read(self.gm)
            if game.status.value != "finished" and game.phase.number == number:  # someone sent nothing
                self.call(self.tag, f"submit{self.p}Action", self.game_id, client=self.gm, body=m("GmResolveNow")(
                    type_=m("GmResolveNowType")("gm.resolve_now"), reason="Bots are done"))
                run_queued_jobs(self.gen.ctx)
        final = self.read(self.gen.client())
        assert final.status.value == "finished", f"{self.name}: not over after 400 phases"
        assert isinstance(final.result, m(f"{self.p}Result")), final.result
        assert isinstance(final.state, m(f"{self.p}View"))
        assert orders > 0
        self.read_the_log()
        listed = self.call("Games", "listGames", client=self.gen.client(), type_=m("ListGamesType")(self.name),
                           status=m("ListGamesStatus")("finished"))
        assert self.game_id in [g.game_id for g in listed.games]

    def read_the_log(self) -> None:
        """The log, typed: every event parsed as its type's own model (the union's type enum decides), the game's
        parts as the game type's models, as the GM and as the public see it."""
        m = self.gen.model
        for client in (self.gm, self.gen.client()):
            page = self.call(self.tag, f"list{self.p}Events", self.game_id, client=client, limit=1000)
            assert isinstance(page, m(f"{self.p}EventsPage")) and self.gen.unset(page.next_after)
            assert [e.seq for e in page.events] == list(range(1, len(page.events) + 1))
            for event in page.events:
                assert type(event).__name__ == event_name(event.type_.value, self.p), event.type_
            resolved = [e for e in page.events if e.type_.value == "phase.resolved"]
            assert resolved and all(isinstance(e.data.outcome, m(f"{self.p}Outcome")) for e in resolved)
            assert isinstance(resolved[-1].data.result, m(f"{self.p}Result"))
            assert isinstance(page.events[0].data.options, m(shown_options(self.engine)))
            last = page.events[-1].seq  # the replay at the end: the game's typed event and typed game there
            frame = self.call(self.tag, f"get{self.p}Replay", self.game_id, client=client, at=last)
            assert isinstance(frame, m(f"{self.p}Replay")) and frame.seq == last
            assert type(frame.event).__name__ == event_name(page.events[-1].type_.value, self.p)
            assert isinstance(frame.view, m(f"{self.p}Game")) and isinstance(frame.view.state, m(f"{self.p}View"))

    def read(self, client: Any) -> Any:
        game = self.call(self.tag, f"get{self.p}Game", self.game_id, client=client)
        assert isinstance(game, self.gen.model(f"{self.p}Game"))
        return game

    # -- strategies: typed orders from the typed state --------------------------------------------
    def _extreme_ways(self, player: str, state: Any) -> list[Any]:
        m, hint = self.gen.model, state.you.legal_actions
        if not self.gen.unset(hint.bid):
            return [m("ExtremeWaysBid")(type_=m("ExtremeWaysBidType")("bid"), amount=hint.bid.min_)]
        if not self.gen.unset(hint.move):
            option = hint.move.options[-1]  # the hint offers the order's own enum
            return [m("ExtremeWaysMove")(type_=m("ExtremeWaysMoveType")("move"), options=[option] * hint.move.rounds)]
        if not self.gen.unset(hint.ec_vote):
            return [m("ExtremeWaysEcVote")(type_=m("ExtremeWaysEcVoteType")("ec_vote"),
                                           player_id=hint.ec_vote.candidates[0])]
        return [m("ExtremeWaysPass")(type_=m("ExtremeWaysPassType")("pass"))] if not self.gen.unset(hint.pass_) else []

    def _golden_strider(self, player: str, state: Any) -> list[Any]:
        m, hint = self.gen.model, state.you.hint
        orders = []
        for runner in hint or []:
            starting = not self.gen.unset(runner.starting_cards) and runner.starting_cards
            card = "6" if starting else runner.playable[-1]  # the default hand is five 6s; else the newest
            orders.append(m("GoldenStriderPlay")(type_=m("GoldenStriderPlayType")("play"), runner=runner.runner,
                                                 card=card, cards=[6] * 5 if starting else self.gen.types.UNSET))
        return orders

    def _strategic_aspect(self, player: str, state: Any) -> list[Any]:
        """The open phase's order (state.stage names it), its values from the cyclist's own hint (you.legal): the
        longest move, a steal from someone, p1 bidding high and the others low, the first choice offered else."""
        m, legal, stage = self.gen.model, state.you.legal, state.stage.value
        if self.gen.unset(legal):
            return []
        kind = {"auction": "bid", "rebid": "bid"}.get(stage, stage)
        order = m(f"StrategicAspect{pascal(kind)}")
        fields: dict[str, Any] = {
            "move": lambda: {"spaces": max(legal.spaces)},  # the hint's values are the order's enum
            "steal": lambda: {"from_": next((c for c in legal.from_ if c is not None), None)},
            "buy_vote": lambda: {"buy": legal.buy[-1]},
            "bid": lambda: {"amount": legal.amount[-1] if player == "p1" else legal.amount[0]},
            "safety": lambda: {"choice": m("StrategicAspectSafetyChoice")(legal.choice[0])},
            "accept": lambda: {"accept": legal.accept[0]},
            "vote": lambda: {"against": legal.against[0]},
            "tiebreak": lambda: {"eliminate": legal.eliminate[0]},
            "suffice": lambda: {"choice": m("StrategicAspectSufficeChoice")(legal.choice[0])},
        }
        return [order(type_=m(f"StrategicAspect{pascal(kind)}Type")(kind), **fields[kind]())]

    def _elemental_tag(self, player: str, state: Any) -> list[Any]:
        """The lowest bid (p1 one more: bids cost the team points), no new place, then a step each round (the it
        player with every tag it may name), from the player's own hint (you.legal_actions)."""
        m, hint = self.gen.model, state.you.legal_actions
        if not self.gen.unset(hint.bid):
            amount = min(hint.bid.min_ + (player == "p1"), hint.bid.max_)
            return [m("ElementalTagBid")(type_=m("ElementalTagBidType")("bid"), amount=amount)]
        if not self.gen.unset(hint.place):
            return [m("ElementalTagPlace")(type_=m("ElementalTagPlaceType")("place"), replace=hint.place.replace[-1])]
        if self.gen.unset(hint.move):
            return []
        direction = hint.move.directions[state.round_ % len(hint.move.directions)]
        assert isinstance(direction, m("ElementalTagMoveDirection"))  # the hint offers the order's own enum
        return [m("ElementalTagMove")(type_=m("ElementalTagMoveType")("move"), direction=direction,
                                      tags=hint.move.tags or self.gen.types.UNSET)]

    def _sxyzm_cyclone(self, player: str, state: Any) -> list[Any]:
        m = self.gen.model
        if self.gen.unset(state.legal_moves) or not state.legal_moves.moves:
            return []
        move = state.legal_moves.moves[0]
        return [m("SxyzmCycloneTurn")(type_=m("SxyzmCycloneTurnType")("turn"), moves=[m("SxyzmCycloneTurnMovesItem")(
            cube=move.cube, toward=move.toward)])]  # the hint offers the order's own enums

    def _coin(self, player: str, state: Any) -> list[Any]:
        m = self.gen.model
        side = "heads" if player == "p1" else "tails"  # two players calling apart: one is right every toss
        return [m("TestCoinCall")(type_=m("TestCoinCallType")("call"), side=m("TestCoinCallSide")(side))]


def test_the_document_the_client_came_from_is_the_one_served(generated: Generated) -> None:
    """Generated from the live document, not a copy: it is what /v1/openapi.json serves now."""
    served = generated.app.test_client().get("/v1/openapi.json").get_json()
    assert json.loads((generated.root / "openapi.json").read_text()) == served


def test_the_live_operations_and_conditional_reads_through_the_generated_client(
        generated: Generated, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a bot uses beyond the API's own operations, typed: /v1/health names the stream process; a client whose
    base URL is it (the Live paths' servers) gets a stream ticket, registers, lists, reads and deletes a webhook and
    follows a finished game to its StreamEnd; and a read with If-None-Match gets its 304 (no UnexpectedStatus)."""
    from tests.streams.conftest import StreamServer

    m, table = generated.model, Table(generated, "sxyzm-cyclone")
    table.play()
    streams = StreamServer(generated.ctx)
    streams.start()
    monkeypatch.setenv("ARBITER_WEBHOOKS_ALLOW_PRIVATE", "1")  # the hook's URL is on this host
    try:
        health = table.call("Service", "getHealth", client=generated.client())
        assert isinstance(health, m("Health")) and health.stream_url is None  # this app names none
        live = generated.package.AuthenticatedClient(base_url=streams.url.removesuffix("/v1"), token=table.gm.token,
                                                     raise_on_unexpected_status=True)
        ticket = table.call("Live", "createStreamTicket", table.game_id, client=live)
        assert isinstance(ticket, m("StreamTicket")) and ticket.expires_in == 60
        hook = table.call("Live", "addWebhook", table.game_id, client=live, body=m("NewWebhook")(
            url="http://127.0.0.1:9/hook", after=0))
        assert isinstance(hook, m("Webhook")) and str(hook.secret).startswith("whsec_")
        listed = table.call("Live", "listWebhooks", table.game_id, client=live)
        assert [h.id for h in listed.webhooks] == [hook.id]
        assert isinstance(table.call("Live", "readWebhook", table.game_id, hook.id, client=live), m("WebhookLog"))
        assert table.call("Live", "deleteWebhook", table.game_id, hook.id, client=live).deleted == hook.id
        lines = table.call("Live", "followGame", table.game_id, client=live).splitlines()
        items = [json.loads(line) for line in lines if line.strip()]
        events = [item for item in items if "checkpoint" not in item]
        assert m("StreamEnd").from_dict(events[-1]).end.seq == events[-2]["seq"] == len(events) - 1
        signed = [m("StreamCheckpoint").from_dict(item) for item in items if "checkpoint" in item]
        assert signed and signed[-1].checkpoint.seq == events[-2]["seq"], "the end's checkpoint (issue 29)"
    finally:
        streams.stop()
    read = generated.operation(table.tag, f"get{table.p}Game")
    answer = read.sync_detailed(table.game_id, client=table.gm)
    again = read.sync_detailed(table.game_id, client=table.gm, if_none_match=answer.headers["ETag"])
    assert again.status_code == 304 and again.parsed is None and again.content == b""
