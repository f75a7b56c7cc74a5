"""Issue 28 item 10: an export is verified as it streams, so the peak memory stays within a few times the file.

Parsed whole, a 31 MiB export was 160 MiB of Python objects and its verification peaked at 553 MiB in the API
process.  ``arbiter verify`` and ``POST /v1/replays/verify`` now read it with ``replays.export_stream``: the
header in one pass that builds nothing, the events one at a time for the audit.  The full-size figure comes
from ``python -m tests.faults.measure_verify``; this test checks the bound on a smaller export."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from runtime.config import Settings
from tests.faults import figures
from tests.faults.measure_verify import big_export

EVENTS = 20_000  # about 7.5 MiB: large enough that a whole parse would show, small enough for CI
ALLOWED = 3  # the peak may grow by this many times the file's size

# Resident memory after a small export's verification (every module it needs imported, and compiled where a fresh
# install has no bytecode yet), and the peak at the end (VmRSS, VmHWM, in KiB): what the large file's added.
_MEASURE = """
import contextlib, io, sys
from cli.main import main
def status(field):
    return next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith(field))
with contextlib.redirect_stdout(io.StringIO()):
    main(["verify", sys.argv[2]])
before = status("VmRSS:")
code = main(["verify", sys.argv[1]])
print("PEAK", before, status("VmHWM:"), code, file=sys.stderr)
"""


def test_arbiter_verify_peaks_within_a_few_times_the_file(settings: Settings, tmp_path: Path) -> None:
    export = tmp_path / "export.json"
    export.write_bytes(big_export(settings, EVENTS))
    warm = tmp_path / "warm-up.json"
    warm.write_bytes(big_export(settings, 20))
    size_mib = export.stat().st_size / 2**20
    done = subprocess.run([sys.executable, "-c", _MEASURE, str(export), str(warm)], capture_output=True, text=True,
                          timeout=300)
    line = next(line for line in done.stderr.splitlines() if line.startswith("PEAK"))
    before, peak, code = (int(part) for part in line.split()[1:])
    assert code == 0, done.stderr[-2000:]
    grown_mib = (peak - before) / 1024
    figures.record("arbiter verify, peak memory", export_mib=round(size_mib, 1), events=EVENTS + 6,
                   grown_mib=round(grown_mib, 1), times_the_file=round(grown_mib / size_mib, 2))
    assert grown_mib <= ALLOWED * size_mib, f"verifying {size_mib:.1f} MiB grew the process by {grown_mib:.0f} MiB"
