"""Figures measured by the fault, security and schema suites, printed at the end of the
run (and written to $ARBITER_FIGURES as JSON lines when set) for docs/reliability.md."""
from __future__ import annotations

import json
import os
from typing import Any

_figures: list[dict[str, Any]] = []


def record(name: str, **values: Any) -> None:
    entry = {"figure": name, **values}
    _figures.append(entry)
    target = os.environ.get("ARBITER_FIGURES")
    if target:
        with open(target, "a", encoding="utf-8") as out:
            out.write(json.dumps(entry, sort_keys=True) + "\n")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def summary(reporter: Any) -> None:
    if not _figures:
        return
    reporter.section("reliability figures")
    for entry in _figures:
        rest = ", ".join(f"{k}={v}" for k, v in entry.items() if k != "figure")
        reporter.write_line(f"{entry['figure']}: {rest}")
