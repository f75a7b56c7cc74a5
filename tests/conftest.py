"""Shared fixtures: a real redis-server per test session, on a free port in a temp dir."""
from __future__ import annotations

import gc
from pathlib import Path
from typing import Iterator

import pytest
from redis import Redis

from cli import embedded_redis
from engines import registry
from runtime.config import Settings
from runtime.context import Context, use
from tests import coin
from tests.e2e.stack import Stack

# The platform's tests play the coin toss as well as the real games (tests/coin.py).
registry.register(coin.ENGINE)


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[embedded_redis.EmbeddedRedis]:
    server = embedded_redis.start(Path(tmp_path_factory.mktemp("redis")), aof=False)
    yield server
    server.stop()


def session_settings(redis_server: embedded_redis.EmbeddedRedis) -> Settings:
    # The queue lives in another database, as ARBITER_QUEUE_URL allows: wiping it must not touch the log.
    queue_url = redis_server.url.rsplit("/", 1)[0] + "/1"
    return Settings(redis_url=redis_server.url, queue_url=queue_url, queue_name="arbiter-test",
                    admin_token=None, max_body_bytes=64 * 1024)


@pytest.fixture()
def settings(redis_server: embedded_redis.EmbeddedRedis) -> Settings:
    Redis.from_url(redis_server.url).flushall()
    return session_settings(redis_server)


@pytest.fixture()
def ctx(settings: Settings) -> Iterator[Context]:
    context = Context(settings)
    use(context)
    yield context
    use(None)


# -- the --soak option and reliability figures (tests/faults, tests/security, tests/schema) ----

@pytest.fixture(scope="session")
def shared_api(redis_server: embedded_redis.EmbeddedRedis, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """One gunicorn per test process, for the tests that use the API without disturbing it: starting one took
    seconds a test.  Its games are the tests' own (each test's ``settings`` wipes Redis first, and game ids never
    repeat), and its processes read no setting that a test changes."""
    live = Stack(session_settings(redis_server), tmp_path_factory.mktemp("shared-api"))
    try:
        live.start_api()
        yield live
    finally:
        live.stop()


@pytest.fixture()
def stack(settings: Settings, shared_api: Stack, tmp_path: Path) -> Iterator[Stack]:
    """A live stack: the shared API, and the workers this test starts (stopped after it)."""
    live = Stack(settings, tmp_path, port=shared_api.port)
    try:
        yield live
    finally:
        live.stop()


@pytest.fixture()
def own_stack(settings: Settings, tmp_path: Path) -> Iterator[Stack]:
    """A live stack with a gunicorn of its own, for a test that stops, kills or restarts the API."""
    live = Stack(settings, tmp_path)
    try:
        live.start_api()
        yield live
    finally:
        live.stop()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--soak", action="store_true", default=False,
                     help="run the fault and security suites at their large (soak) counts")


@pytest.fixture(scope="session")
def soak(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--soak"))


def pytest_terminal_summary(terminalreporter: object, exitstatus: int, config: pytest.Config) -> None:
    from tests.faults import figures

    figures.summary(terminalreporter)


# The longest units start first, as measured in the suite (issue 33: per-file wall time under three workers, the
# single files longest first, then the spread ones, whose short units fill the workers' ends): under pytest-xdist
# (--dist loadfile --no-loadscope-reorder, scripts/test.sh) a long unit that starts last is a worker running alone
# while the others wait for it.  An entry is a node id's beginning; whatever matches none runs after these.
SLOWEST_FIRST = (
    "tests/console/test_orders.py",
    "tests/schema/test_generated_client.py",
    "tests/faults/test_deadlines.py",
    "tests/faults/test_restarts.py",
    "tests/faults/test_hanging_receivers.py",
    "tests/console/test_long_game.py",
    "tests/console/test_browser.py",
    "tests/e2e/test_arbiter_up.py",
    "tests/faults/test_cluster_outage.py",
    "tests/e2e/test_strategic_aspect_http.py",
    "tests/e2e/test_elemental_tag_http.py",
    "tests/e2e/test_games_http.py",
    "tests/e2e/test_extreme_ways_http.py",
    "tests/faults/test_worker_kill.py",
    "tests/faults/test_scheduler_after_redis_restart.py",
    "tests/console/test_live.py",
    "tests/faults/test_replay_seek.py",
    "tests/schema/test_stateful.py",
    "tests/faults/test_frozen_store.py",
    "tests/faults/test_concurrency.py",
    "tests/platform/test_wheel.py",
    "tests/bench/test_smoke.py",
    "tests/schema/test_openapi_fuzz.py",
    "tests/security/test_bad_input.py",
    "tests/engines/test_conformance.py",
    "tests/security/test_authorization.py",
)

# Long files whose tests need no order and share nothing a worker cannot set up again: their tests are spread
# over the workers instead of keeping one busy alone.  "item": each parametrized test is a unit (the fuzz test's
# operations each check their own examples); "game": the conformance suite's checks of one played game are a
# unit (they share one play of it, in one process).
SPREAD = {
    "tests/schema/test_openapi_fuzz.py": "item",
    "tests/security/test_bad_input.py": "item",
    "tests/security/test_authorization.py": "item",
    "tests/bench/test_smoke.py": "item",
    "tests/engines/test_conformance.py": "game",
}


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection built (modules, the OpenAPI document, schemathesis's cases) lives to the end: frozen, no full
    collection walks it again (the verify route's own gc.collect() took 0.3 s a call in a fuzzed worker's heap)."""
    gc.collect()
    gc.freeze()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        return next((place for place, start in enumerate(SLOWEST_FIRST) if item.nodeid.startswith(start)),
                    len(SLOWEST_FIRST))

    items.sort(key=rank)


def work_unit(nodeid: str) -> str | None:
    """The unit of work a test of a ``SPREAD`` file belongs to (None: its whole file is one)."""
    path, _, name = nodeid.partition("::")
    how = SPREAD.get(path)
    if how == "item" and "[" in name:
        return nodeid
    if how == "game" and "[" in name:
        return f"{path}[{name.partition('[')[2]}"
    return None


def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """--dist loadfile, but with ``SPREAD``'s files split into the units ``work_unit`` names."""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class FilesAndUnits(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid) or super()._split_scope(nodeid)

    return FilesAndUnits(config, log)
