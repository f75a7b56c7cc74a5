"""``arbiter bench --quick --only NAME`` runs each benchmark end to end and writes its JSON.

A smoke test only: tiny counts, and no assertion on any timing or target (benchmarks
are not tests).  bench starts its own redis-server, gunicorn and workers on
127.0.0.1 and stops them all, also when stopped by SIGTERM.  One test per benchmark, so
that a failure names it and the suite can spread them.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bench.__main__ import BENCHMARKS

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", BENCHMARKS)
def test_bench_quick_completes_and_writes_json(tmp_path: Path, name: str) -> None:
    out = tmp_path / "results.json"
    process = subprocess.Popen([sys.executable, "-m", "bench", "--quick", "--only", name, "--out", str(out)],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        output, _ = process.communicate(timeout=150)
    finally:
        if process.poll() is None:
            process.terminate()  # bench unwinds and stops everything it started
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    assert process.returncode == 0, output[-4000:]
    report = json.loads(out.read_text())
    assert report["errors"] == {}
    assert set(report["results"]) == {name}
    assert report["results"][name]["summary"], name
