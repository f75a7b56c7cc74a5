"""``arbiter bench`` / ``python -m bench``: run every benchmark, print a table, write JSON."""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from bench.common import ROOT, Budget, Stack, say

# In the order they run: every row with a floor first (the orders ratio, the deadline storm and storage
# before the rest), the exploratory gunicorn settings last.  Every one runs in a full run; ``--only`` runs one.
BENCHMARKS = ("orders", "storm", "storage", "reads", "replay", "fanout", "fold", "receipts", "instructions", "console",
              "gunicorn")
# Seconds each took at full size on two cores shared with eight other agents' test suites (load average
# 11-14, run 2 of 2026-11-28).  What is left of the budget is shared out in these proportions as each
# benchmark starts; where a share is short of its plan, the benchmark measures fewer repeats and smaller
# sizes (``Budget.sized``: games created, events played, seconds of load), never nothing.
PLANNED_S = {"orders": 80, "storm": 100, "storage": 115, "reads": 68, "replay": 26, "fanout": 85, "fold": 76,
             "receipts": 30, "instructions": 40, "console": 45, "gunicorn": 50}
BUDGET_S = 550.0  # the ten minutes, less start-up, teardown, plotting and a margin for a loaded machine
QUICK_BUDGET_S = 150.0


def _module(name: str) -> Callable[[Stack, bool, dict[str, Any]], None]:
    """A benchmark's ``run(stack, quick, result)``: it fills ``result`` as it goes, so
    what it measured before a failure is still reported."""
    return __import__(f"bench.{name}", fromlist=["run"]).run


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="arbiter bench", description="Run Arbiter's benchmarks on the real stack.")
    p.add_argument("--quick", action="store_true", help="a smoke run with tiny counts (numbers mean nothing)")
    p.add_argument("--only", action="append", choices=BENCHMARKS,
                   help="run only this benchmark (repeatable)")
    p.add_argument("--out", default=None, help="JSON results file (default bench/results.json; with --quick, "
                                                "arbiter-bench-quick.json in the temp folder)")
    p.add_argument("--plots", default=None, help="folder for the PNG plots (default bench/ on a full run; "
                                                 "none with --quick unless given)")
    p.add_argument("--keep", action="store_true", help="keep the temp folder with Redis data and process logs")
    p.add_argument("--budget", type=float, default=None,
                   help=f"seconds the whole run may take (default {BUDGET_S:.0f}; {QUICK_BUDGET_S:.0f} with --quick); "
                        "a part still running when it is used up fails as incomplete")
    return p


def _source() -> dict[str, Any]:
    """The commit measured, and any uncommitted changes in the tree (the run measures the
    working tree, which other people may be editing)."""
    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10).stdout
        except (OSError, subprocess.SubprocessError):
            return ""

    changed = [line[3:] for line in git("status", "--porcelain", "--untracked-files=no").splitlines()]
    return {"commit": git("rev-parse", "HEAD").strip(), "uncommitted": changed}


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    quick_out = Path(tempfile.gettempdir()) / "arbiter-bench-quick.json"
    default_out = quick_out if args.quick else ROOT / "bench" / "results.json"
    out = Path(args.out) if args.out else default_out
    plots = Path(args.plots) if args.plots else (None if args.quick else ROOT / "bench")
    names = [n for n in BENCHMARKS if n in (args.only or BENCHMARKS)]
    workdir = Path(tempfile.mkdtemp(prefix="arbiter-bench-"))
    started = time.monotonic()
    budget = Budget.of(args.budget if args.budget is not None else QUICK_BUDGET_S if args.quick else BUDGET_S)
    report: dict[str, Any] = {
        "command": "arbiter bench" + (" --quick" if args.quick else "") + "".join(f" --only {n}" for n in names
                                                                               if args.only),
        "when": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
        "source": _source(),
        "quick": args.quick,
        "budget_s": round(budget.left()),
        "results": {},
        "errors": {},
    }
    failed = False

    def stop(signum: int, _frame: Any) -> None:
        raise SystemExit(f"stopped by signal {signum}")  # unwinds through every finally: nothing left running

    signal.signal(signal.SIGTERM, stop)
    try:
        for index, name in enumerate(names):
            share = budget.share({n: PLANNED_S[n] for n in names[index:]}, name)
            say(f"== {name} ({budget.left():.0f} s of the budget left, {share:.0f} s its share) ==")
            began = time.monotonic()
            result: dict[str, Any] = report["results"].setdefault(name, {})
            try:
                budget.check(name)
                with Stack.start(workdir / name, budget=budget, quick=args.quick) as stack:
                    _module(name)(stack, args.quick, result)
            except Exception as exc:  # one failed benchmark must not hide the others' numbers
                failed = True
                traceback.print_exc()
                report["errors"][name] = f"{type(exc).__name__}: {exc}"
            result["seconds"] = round(time.monotonic() - began, 1)
    finally:
        report["seconds"] = round(time.monotonic() - started, 1)
        report["results"] = {n: report["results"][n] for n in BENCHMARKS if n in report["results"]}
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
        else:
            say(f"kept {workdir}")
    from bench.report import plot, table

    print(table(report))
    if plots is not None:
        try:
            for path in plot(report, plots):
                say(f"wrote {path}")
        except ImportError:
            say("matplotlib is not installed (pip install -e '.[bench]'): no plots")
    say(f"results in {out} ({report['seconds']:.0f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
