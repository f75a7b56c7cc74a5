"""Schemathesis against /v1/openapi.json: every operation, every default check, at
least 100 generated examples per operation (500 with --soak), on the real Flask app
over a real Redis.  Path parameters point at a live game about two times in three, and
requests carry no token, a player's or the GM's in turn, so the checks reach past 404/401."""
from __future__ import annotations

import itertools
import sys
from typing import Iterator

import pytest
import schemathesis
from schemathesis.config import SchemathesisConfig
from hypothesis import HealthCheck, settings
from redis import Redis

from service import embedded_redis
from service.app import create_app
from service.config import Settings
from service.context import Context, use
from service.openapi import document
from tests.faults import figures
from tests.platform.conftest import new_game
from tests.platform.helpers import Api

EXAMPLES = 500 if "--soak" in sys.argv else 100  # settings() is fixed when the module is imported
_turn = itertools.count()
_seen: dict[str, int] = {}


@pytest.fixture(scope="module")
def live(redis_server: embedded_redis.EmbeddedRedis) -> Iterator[dict]:
    url = redis_server.url.rsplit("/", 1)[0]
    Redis.from_url(f"{url}/0").flushall()
    context = Context(Settings(redis_url=f"{url}/0", queue_url=f"{url}/1", queue_name="arbiter-schema",
                               admin_token=None, max_body_bytes=64 * 1024))
    app = create_app(context)
    game = new_game(Api(app.test_client()), players=4)
    yield {"app": app, "game": game}
    use(None)


# Every default check runs.  One is told about a documented status it cannot read from
# the document: API.md answers 422 when a schema-valid body breaks a rule of the game
# (a bid above your gold, options or sign-up fields of another game type, an export
# whose chain is broken), or a replay `at` a seq beyond the end of the log, which no JSON
# Schema can express.
CONFIG = r"""
[[operations]]
include-path-regex = '^/v1/(games|games/\{game_id\}/(players|actions)|replays/verify)$'
include-method = "POST"
checks.positive_data_acceptance.expected-statuses = ["2xx", "401", "403", "404", "409", "422", "429"]

[[operations]]
include-path = "/v1/games/{game_id}/replay"
checks.positive_data_acceptance.expected-statuses = ["2xx", "401", "403", "404", "422"]
"""

# The document is built from the schemas alone (no Redis needed), exactly as served.
schema = schemathesis.openapi.from_dict(document(), config=SchemathesisConfig.from_str(CONFIG))


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_every_operation_matches_the_document(case, live: dict) -> None:
    turn = next(_turn)
    game = live["game"]
    if "game_id" in (case.path_parameters or {}) and turn % 3 != 2:
        case.path_parameters["game_id"] = game.id
    token = (None, game.tokens["p1"], game.gm)[turn % 3]
    headers = dict(case.headers or {})
    if token and "Authorization" not in headers:
        headers["Authorization"] = f"Bearer {token}"
    case.headers = headers
    key = case.operation.label
    _seen[key] = _seen.get(key, 0) + 1
    case.call_and_validate(app=live["app"])


def test_zz_report_schema_figures() -> None:
    if _seen:
        figures.record("schemathesis", operations=len(_seen), requests=sum(_seen.values()),
                       examples_setting=EXAMPLES, per_operation=dict(sorted(_seen.items())))
