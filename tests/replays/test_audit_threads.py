"""Audits running side by side in one process (the API's threads) give the reports they give alone.

Golden Strider and SXYZM Cyclone once kept what validate found for the resolution that follows (one slot for the
process, and one per thread); anything an engine or the audit keeps between calls must never let a thread find
what another thread worked out.  Here threads switch as often as Python lets them, mid-audit."""
from __future__ import annotations

import json
import sys
import threading
from pathlib import Path
from typing import Any

from replays.audit import audit

FIXTURES = sorted((Path(__file__).parent.parent / "fixtures" / "games").glob("*.json"))


def test_audits_in_parallel_threads_give_the_reports_they_give_alone() -> None:
    documents = [json.loads(path.read_text()) for path in FIXTURES]
    alone = [audit(d["events"], d["seed"]) for d in documents]
    assert all(report["ok"] for report in alone)
    found: list[list[Any]] = [[] for _ in range(8)]

    def run(index: int) -> None:
        # Each thread in its own order, so at every moment eight different games are being audited side by side
        # (thread i's game is thread j's shifted by i - j: every game meets seven others, and more rounds of the
        # same orders would only repeat the same meetings).
        for offset in range(len(documents)):
            which = (index + offset) % len(documents)
            found[index].append((which, audit(documents[which]["events"], documents[which]["seed"])))

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=run, args=(i,)) for i in range(len(found))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert sum(map(len, found)) == len(found) * len(documents)
    for results in found:
        for which, report in results:
            assert report == alone[which]
