"""Instructions per order, counted (a report row beside benchmark 1): the order path's WSGI app against the
baseline's, each driven in process with the same bodies on the same Redis, under valgrind's callgrind.

The throughput ratio of benchmark 1 moves with the host (0.55 to 0.79 for the same code on shared machines):
an instruction count does not, so it tells a change in the code from a change in the machine.  Counted from the
app's WSGI call to its last byte, so neither gunicorn's HTTP parsing nor a test client is in it, and only the
probe's own process: Redis's work is not.  Also counted: signing one receipt, the part of an order that is one
library call (``runtime.signing.Keys.receipt``).  Needs ``valgrind`` and ``callgrind_control`` (Debian's
valgrind); skipped, saying so, without them.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from typing import Any

from bench.common import ROOT, Stack, child_env, say
from bench.orders import _requests
from bench.report import row, skipped

MEASURE = "instructions per order, in process (callgrind)"
SIDES = ("baseline", "full", "signing")


def run(stack: Stack, quick: bool, result: dict[str, Any]) -> None:
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        result["summary"] = [skipped(MEASURE, "report", "valgrind (callgrind) is not installed")]
        return
    count = 5 if quick else 300
    items = _requests(stack.context(), 2 if quick else 50)
    spec = {"count": count, "warm": 3 if quick else 100, "requests": items}
    counted: dict[str, float] = {}
    if quick:  # one at a time: in the test suite three valgrinds at once starve the browser tests beside them
        for side in SIDES:
            counted[side] = _counted(stack, side, _probe(stack, side, spec), count)
    else:  # at once: an instruction count does not depend on what else the machine is doing
        probes = {side: _probe(stack, side, spec) for side in SIDES}
        counted = {side: _counted(stack, side, process, count) for side, process in probes.items()}
    full, base = counted["full"], counted["baseline"]
    result.update(count=count, per_order=counted)
    result["summary"] = [
        row(MEASURE, full, "instr", base, base / full, "report", None,
            f"{count} orders each side; ratio = baseline / order path, as benchmark 1's"),
        row("instructions of the receipt's signature, in an order", counted["signing"], "instr", full,
            counted["signing"] / full, "report", None, "its share of the order path's count"),
        row("instructions per order against the baseline plus one signature", full, "instr",
            base + counted["signing"], (base + counted["signing"]) / full, "report", None,
            "the ratio if the baseline signed a receipt too: what the order path's other checks cost"),
    ]


def _probe(stack: Stack, side: str, spec: dict[str, Any]) -> subprocess.Popen:
    """``bench.instructions_probe`` under callgrind for ``side``, started (its spec already sent)."""
    process = subprocess.Popen(
        ["valgrind", "--tool=callgrind", "--instr-atstart=no",
         f"--callgrind-out-file={stack.workdir / f'callgrind.{side}.out'}", sys.executable, "-m",
         "bench.instructions_probe"],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=open(stack.workdir / f"{side}.log", "w"),
        text=True, cwd=ROOT, env=child_env(stack.settings))
    stack.processes.append(process)
    assert process.stdin is not None
    process.stdin.write(json.dumps({**spec, "side": side}))
    process.stdin.close()
    return process


def _counted(stack: Stack, side: str, process: subprocess.Popen, count: int) -> float:
    """The instructions per call ``process`` counted, once it has ended."""
    process.wait(timeout=stack.budget.box(600))
    stack.processes.remove(process)
    if process.returncode != 0:
        log = (stack.workdir / f"{side}.log").read_text()
        raise RuntimeError(f"instructions ({side}): the probe failed: {log[-2000:]}")
    per_call = _total((stack.workdir / f"callgrind.{side}.out").read_text()) / count
    say(f"instructions: {side} {per_call / 1e6:.3f} M per {'receipt' if side == 'signing' else 'order'}")
    return per_call


def _total(callgrind_out: str) -> int:
    """The events counted while instrumentation was on (the file's ``totals:`` line)."""
    for line in callgrind_out.splitlines():
        if line.startswith("totals:"):
            return int(line.split()[1])
    raise RuntimeError("callgrind wrote no totals")
