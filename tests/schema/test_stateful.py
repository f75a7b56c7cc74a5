"""Schemathesis's stateful phase over /v1/openapi.json: it follows the document's OpenAPI links (createGame and
each type's create<Type>Game give the game's id and the GM's token to getGame, joinGame, startGame, submitAction,
auditGame ... or the type's own operations; joinGame gives a player's token to getGame and submitAction), so its
scenarios create games, sign players up, start
them and act in them with the ids and tokens the API answered, and every check (all are on) runs on every step,
positive_data_acceptance included.  The app runs in process on a real Redis."""
from __future__ import annotations

import sys
from typing import Any, Iterator

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from redis import Redis
from schemathesis.config import SchemathesisConfig

from cli import embedded_redis
from runtime.config import Settings
from runtime.context import Context, use
from service.app import create_app
from tests.faults import figures
from tests.schema.statuses import rule_statuses

SCENARIOS = 150 if "--soak" in sys.argv else 40

# As in test_openapi_fuzz.py: the statuses a schema-valid request may get from the rules of the game (409 not
# now, 422 a rule no JSON Schema can say), and replay's 422 for an `at` beyond the log.
POSTS = (r"^/v1/((game-types/[^/]+/)?games|(game-types/[^/]+/)?games/\{game_id\}/(players|actions|start)"
         r"|replays/verify)$")
CONFIG = r"""
[checks]
enabled = true
# Off here only: a token a link carries from createGame/joinGame is valid, but schemathesis may count it as a
# header it generated and then read the 2xx it gets as "accepts invalid authentication" (a false failure seen
# in CI).  Auth enforcement is checked by the fuzz test (every operation, no token, a player's, the GM's) and
# by tests/security/test_authorization.py (every endpoint against every kind of token).
ignored_auth.enabled = false
""" + rule_statuses(POSTS)


@pytest.fixture(scope="module")
def app(redis_server: embedded_redis.EmbeddedRedis) -> Iterator[Any]:
    url = redis_server.url.rsplit("/", 1)[0]
    Redis.from_url(f"{url}/0").flushall()
    context = Context(Settings(redis_url=f"{url}/0", queue_url=f"{url}/1", queue_name="arbiter-stateful",
                               admin_token=None, max_body_bytes=64 * 1024))
    yield create_app(context)
    use(None)


def test_stateful_scenarios_create_games_and_use_their_ids_and_tokens(app: Any) -> None:
    schema = schemathesis.openapi.from_wsgi("/v1/openapi.json", app, config=SchemathesisConfig.from_str(CONFIG))
    seen: dict[tuple[str, int], int] = {}
    roles: set[str] = set()

    class Workflow(schema.as_state_machine()):  # type: ignore[misc]
        def get_call_kwargs(self, case: Any) -> dict[str, Any]:
            return {"app": app}

        def after_call(self, response: Any, case: Any) -> None:
            key = (f"{case.method} {case.operation.path}", response.status_code)
            seen[key] = seen.get(key, 0) + 1
            read = case.method == "GET" and case.operation.path.endswith("/games/{game_id}")
            if read and response.status_code == 200:
                roles.add(response.json()["you"]["role"])

    # Derandomized: the same scenarios for the same document, so a run that follows fewer links is a change to look at.
    Workflow.run(settings=settings(max_examples=SCENARIOS, deadline=None, stateful_step_count=12, derandomize=True,
                                   suppress_health_check=list(HealthCheck)))
    # The links were followed: games were created and signed up to, and the GM's token from createGame's answer
    # did what only it can do (read the audit or export of a running game, start it, or act in it).
    created = sum(n for (label, status), n in seen.items() if status == 201 and label.endswith("/games"))
    # A created game's id was used: a request on it was answered for that game (not 404).  Joins are not asserted:
    # how many of the 40 derandomized scenarios reach a valid sign-up body moves with the document (0-2 seen).
    used = sum(n for (label, status), n in seen.items() if "{game_id}" in label and status != 404)
    assert created and used, seen
    gm_only = [("GET /v1/games/{game_id}/audit", 200), ("GET /v1/games/{game_id}/export", 200),
               ("POST /v1/games/{game_id}/start", 200)]
    assert "gm" in roles or any(seen.get(key) for key in gm_only), seen
    figures.record("schemathesis_stateful", scenarios=SCENARIOS, requests=sum(seen.values()), roles=sorted(roles),
                   by_status={f"{k[0]} {k[1]}": n for k, n in sorted(seen.items())})
