"""``arbiter bench`` / ``python -m bench``: run every benchmark, print a table, write JSON."""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
import sys
import tempfile
import time
import traceback
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from bench.common import ROOT, Stack, say

BENCHMARKS = ("orders", "reads", "fold", "storm", "storage")


def _module(name: str) -> Callable[[Stack, bool], dict[str, Any]]:
    return __import__(f"bench.{name}", fromlist=["run"]).run


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="arbiter bench", description="Run Arbiter's benchmarks on the real stack.")
    p.add_argument("--quick", action="store_true", help="a smoke run with tiny counts (numbers mean nothing)")
    p.add_argument("--only", action="append", choices=BENCHMARKS, help="run only this benchmark (repeatable)")
    p.add_argument("--out", default=None, help="JSON results file (default bench/results.json; with --quick, "
                                                "arbiter-bench-quick.json in the temp folder)")
    p.add_argument("--plots", default=None, help="folder for the PNG plots (default bench/ on a full run; "
                                                 "none with --quick unless given)")
    p.add_argument("--keep", action="store_true", help="keep the temp folder with Redis data and process logs")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    quick_out = Path(tempfile.gettempdir()) / "arbiter-bench-quick.json"
    default_out = quick_out if args.quick else ROOT / "bench" / "results.json"
    out = Path(args.out) if args.out else default_out
    plots = Path(args.plots) if args.plots else (None if args.quick else ROOT / "bench")
    names = args.only or list(BENCHMARKS)
    workdir = Path(tempfile.mkdtemp(prefix="arbiter-bench-"))
    started = time.monotonic()
    report: dict[str, Any] = {
        "command": "arbiter bench" + (" --quick" if args.quick else "") + "".join(f" --only {n}" for n in names
                                                                               if args.only),
        "when": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
        "quick": args.quick,
        "results": {},
        "errors": {},
    }
    failed = False

    def stop(signum: int, _frame: Any) -> None:
        raise SystemExit(f"stopped by signal {signum}")  # unwinds through every finally: nothing left running

    signal.signal(signal.SIGTERM, stop)
    try:
        for name in names:
            say(f"== {name} ==")
            began = time.monotonic()
            try:
                with Stack.start(workdir / name) as stack:
                    report["results"][name] = _module(name)(stack, args.quick)
            except Exception as exc:  # one failed benchmark must not hide the others' numbers
                failed = True
                traceback.print_exc()
                report["errors"][name] = f"{type(exc).__name__}: {exc}"
            report["results"].setdefault(name, {})["seconds"] = round(time.monotonic() - began, 1)
    finally:
        report["seconds"] = round(time.monotonic() - started, 1)
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
