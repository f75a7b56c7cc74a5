"""Schemathesis against /v1/openapi.json: every operation, every default check, at
least 100 generated examples per operation (500 with --soak), on the real Flask app
over a real Redis.  Path parameters point at a live game about two times in three, and
requests carry no token, a player's or the GM's in turn, so the checks reach past 404/401."""
from __future__ import annotations

import itertools
import sys
from typing import Any, Iterator

import pytest
import schemathesis
from schemathesis.config import SchemathesisConfig
from hypothesis import HealthCheck, settings
from redis import Redis

from cli import embedded_redis
from engines import registry
from service.app import create_app
from runtime.config import Settings
from runtime.context import Context, use
from service.openapi import document
from tests.faults import figures
from tests.schema.statuses import rule_statuses
from tests.platform.conftest import new_game
from tests.platform.helpers import Api

EXAMPLES = 500 if "--soak" in sys.argv else 100  # fixed when the module is imported
# Each game type's typed operations run the generic operations' handlers with a narrower body: fewer examples each.
TYPED_EXAMPLES = EXAMPLES // 4
_turn = itertools.count()
_seen: dict[str, int] = {}


@pytest.fixture(scope="module")
def live(redis_server: embedded_redis.EmbeddedRedis) -> Iterator[dict]:
    url = redis_server.url.rsplit("/", 1)[0]
    Redis.from_url(f"{url}/0").flushall()
    context = Context(Settings(redis_url=f"{url}/0", queue_url=f"{url}/1", queue_name="arbiter-schema",
                               admin_token=None, max_body_bytes=64 * 1024))
    app = create_app(context)
    api = Api(app.test_client())
    game = new_game(api, players=4)
    # Each game type's own operations get a game of their type (in sign-up, with two players), so they reach past
    # the 404 a game of another type gets.
    typed = {name: new_game(api, players=2, game_type=name, start=False) for name in registry.names()
             if name != "extreme-ways"}
    yield {"app": app, "game": game, "typed": {"extreme-ways": game, **typed}}
    use(None)


def _drops_the_token(case: Any) -> bool:
    """Whether schemathesis's coverage phase made this case to see a missing Authorization header refused."""
    data = getattr(getattr(getattr(case, "meta", None), "phase", None), "data", None)
    return str(getattr(data, "parameter", "")).lower() == "authorization" and "MISSING" in str(
        getattr(data, "scenario", "")).upper()


# Every default check runs.  One is told about documented statuses it cannot read from the
# document.  On the four POSTs that run game rules, positive_data_acceptance (whose default
# also lets 3xx, 429 and 5xx pass) accepts, besides 2xx and the auth statuses:
# - 409: a schema-valid request the game's state does not allow now (API.md): joining the
#   fuzzed game, which has started (sign-up closed), or an order out of phase;
# - 422: a schema-valid body that breaks a rule of the game (a bid above your gold, options
#   or sign-up fields of another game type, an export whose chain is broken), which no JSON
#   Schema can express.
# And on replay, 422 for an `at` beyond the end of the log.  No 429 anywhere: throttling
# needs 20 bad tokens a minute from one address, and the document does not list it.
# The POSTs that run game rules: creating (any type, or one type), joining, ordering, verifying.
POSTS = (r"^/v1/((game-types/[^/]+/)?games|(game-types/[^/]+/)?games/\{game_id\}/(players|actions)"
         r"|replays/verify)$")
CONFIG = f"""
[generation]
max-examples = {EXAMPLES}

[[operations]]
include-path-regex = '^/v1/game-types/.+'
generation.max-examples = {TYPED_EXAMPLES}
""" + rule_statuses(POSTS)

# The document is built from the schemas alone (no Redis needed), exactly as served.
schema = schemathesis.openapi.from_dict(document(), config=SchemathesisConfig.from_str(CONFIG))


@pytest.fixture()
def enough_examples(request: pytest.FixtureRequest) -> Iterator[None]:
    """After an operation's fuzzing (every example of its item): it got its examples, if it takes inputs.  Checked
    per item, so that it holds however pytest-xdist shares the operations among its workers."""
    yield
    label = request.node.name.partition("[")[2].rstrip("]")
    if label in _seen and _operations()[label]:
        assert _seen[label] >= _least(label), f"{label}: {_seen[label]} examples, fewer than {_least(label)}"


@schema.parametrize()
@settings(deadline=None, suppress_health_check=list(HealthCheck))
def test_every_operation_matches_the_document(case, live: dict, enough_examples: None) -> None:
    turn = next(_turn)
    path = case.operation.path
    game = live["typed"][path.split("/")[3]] if path.startswith("/v1/game-types/") else live["game"]
    if "game_id" in (case.path_parameters or {}) and turn % 3 != 2:
        case.path_parameters["game_id"] = game.id
    token = None if _drops_the_token(case) else (None, game.tokens["p1"], game.gm)[turn % 3]
    # The caller is ours to choose (schemathesis would send random bearer tokens, which the throttle answers
    # with 429 after 20 a minute): none, a player's or the GM's.  Setting the case's headers tells schemathesis they
    # are no longer what it generated (a negative header case stops being negative); passing the token again as an
    # explicit header tells ignored_auth it is a real credential, so on a 2xx it probes the operation without it and
    # with a wrong one (401 expected) instead of taking a real token's 202 for generated auth accepted.
    auth = {"Authorization": f"Bearer {token}"} if token else {}
    case.headers = {k: v for k, v in (case.headers or {}).items() if k.lower() != "authorization"} | auth
    case.operation.schema.app = live["app"]  # checks that send probes of their own (ignored_auth) reach the app too
    key = case.operation.label
    _seen[key] = _seen.get(key, 0) + 1
    case.call_and_validate(app=live["app"], headers=auth or None)


def _least(label: str) -> int:
    return TYPED_EXAMPLES if label.split(" ", 1)[1].startswith("/v1/game-types/") else EXAMPLES


def _operations() -> dict[str, bool]:
    """Every operation of the document, by schemathesis's label, and whether it takes inputs."""
    found = {}
    for path, item in document()["paths"].items():
        for method, operation in item.items():
            if method in ("get", "post", "put", "patch", "delete") and "Live" not in operation["tags"]:
                inputs = operation.get("parameters") or item.get("parameters") or operation.get("requestBody")
                found[f"{method.upper()} {path}"] = bool(inputs)
    return found


def test_every_documented_operation_is_fuzzed() -> None:
    """Each operation of the document is an item of the fuzz test (each item checks its own examples)."""
    fuzzed = {result.ok().label for result in schema.get_all_operations()}
    assert fuzzed == set(_operations())


def test_zz_every_operation_with_inputs_got_enough_examples() -> None:
    """Runs after the fuzz test (pytest keeps the file's order): every operation was fuzzed, and each that takes
    inputs with at least EXAMPLES generated examples, and the figures of the run are recorded.  Only where one
    process ran them all: pytest-xdist may share them among its workers (each item checks its own count then)."""
    operations = _operations()
    if set(_seen) != set(operations):
        pytest.skip(f"this process fuzzed {len(_seen)} of the {len(operations)} operations")
    short = {label: _seen[label] for label, inputs in operations.items() if inputs and _seen[label] < _least(label)}
    assert not short, f"fewer than {EXAMPLES} examples ({TYPED_EXAMPLES} for a typed operation): {short}"
    figures.record("schemathesis", operations=len(_seen), requests=sum(_seen.values()),
                   examples_setting=EXAMPLES, fewest_with_inputs=min(n for k, n in _seen.items() if operations[k]),
                   per_operation=dict(sorted(_seen.items())))
