"""``arbiter bench --quick`` runs every benchmark end to end and writes its JSON.

A smoke test only: tiny counts, and no assertion on any timing or target (benchmarks
are not tests).  bench starts its own redis-server, gunicorn and workers on
127.0.0.1 and stops them all, also when stopped by SIGTERM.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bench.__main__ import BENCHMARKS

ROOT = Path(__file__).resolve().parents[2]


def test_bench_quick_completes_and_writes_json(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    process = subprocess.Popen([sys.executable, "-m", "bench", "--quick", "--out", str(out)], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
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
    assert set(report["results"]) == set(BENCHMARKS)
    for name in BENCHMARKS:
        assert report["results"][name]["summary"], name
