"""The bench's own bookkeeping: time budget, partial results, stall and failure detection.

No timing is asserted here (benchmarks are not tests); these check that a failing or
overrunning part is reported as such and never hides the figures measured before it.
"""
from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

import pytest

from bench import fold, storm
from bench.__main__ import main
from bench.common import Budget, OutOfTime


def test_budget_box_never_ends_after_the_run_budget() -> None:
    budget = Budget.of(5.0)
    assert budget.box(60.0) <= budget.ends
    assert budget.box(1.0) < budget.ends
    budget.check("still inside")  # does not raise


def test_a_used_up_budget_stops_a_part_as_out_of_time() -> None:
    with pytest.raises(OutOfTime, match="storm"):
        Budget(ends=time.monotonic() - 1).check("storm")


def test_a_run_whose_budget_is_used_up_fails_without_starting_anything(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    assert main(["--quick", "--only", "fold", "--budget", "0", "--out", str(out)]) == 1
    report = json.loads(out.read_text())
    assert report["errors"]["fold"].startswith("OutOfTime")


def test_stats_count_unfinished_jobs_and_find_the_longest_pause() -> None:
    due = 1000.0
    done = [due + 1.0, due + 1.5, due + 6.5, due + 7.0]  # a 5 s pause after 1.5 s
    stats = storm._stats(due, done, expected=6)
    assert stats["unfinished"] == 2
    assert stats["longest_pause_s"] == pytest.approx(5.0)
    assert stats["longest_pause_after_s"] == pytest.approx(1.5)
    assert stats["per_second"] == pytest.approx(4 / 6.0)  # first to last completion
    assert stats["early"] == 0


def test_stats_count_a_resolution_before_its_deadline_as_early() -> None:
    assert storm._stats(100.0, [99.5, 101.0], expected=2)["early"] == 1


class FakeClock:
    """Stands in for ``time`` inside bench.storm: the test moves time, so no sleep and no flakiness."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


def test_waiting_stops_when_nothing_is_done_for_the_stall_time(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock()
    monkeypatch.setattr(storm, "time", clock)
    progress = storm.Progress(limit=clock.now + 600)
    assert not progress.stop(10)
    clock.now += storm.STALL - 1
    assert not progress.stop(9)  # one more done: the stall clock starts again
    clock.now += storm.STALL - 1
    assert not progress.stop(9)
    clock.now += 1
    assert progress.stop(9) and progress.stalled


def test_waiting_stops_when_everything_is_done_or_the_box_is_over() -> None:
    assert storm.Progress(limit=time.monotonic() + 60).stop(0)
    late = storm.Progress(limit=time.monotonic() - 1)
    assert late.stop(5) and not late.stalled


def test_worker_log_scan_counts_each_failed_job_once(tmp_path: Path) -> None:
    (tmp_path / "storm-fork-0.log").write_text(
        "2026-11-22 14:52:55,007 rq.worker WARNING Worker storm-fork-0: job resolve-ga-1-at17 failed "
        "(Work-horse terminated unexpectedly; waitpid returned 6 (signal 6); )\n"
        "2026-11-22 14:52:55,007 rq.worker WARNING Work horse killed for job resolve-ga-1-at17: retpid=1, ret_val=6\n"
        "2026-11-22 14:53:00,000 rq.worker ERROR Worker storm-fork-0: job resolve-gb-1: exception raised while "
        "executing (workers.jobs.resolve_phase)\n"
        "2026-11-22 14:53:01,000 arbiter.sweeper WARNING game gc phase 1 overdue by 5.2s: re-queued\n"
        "2026-11-22 14:53:01,500 arbiter.resolution ERROR game ge phase 1: resolution failed; the sweeper will "
        "retry it\n"
        "2026-11-22 14:53:02,000 rq.worker INFO Worker storm-fork-0: arbiter-bench: Job OK (resolve-gd-1)\n")

    class Workdir:
        workdir = tmp_path

    scan = storm._worker_logs(Workdir(), "fork")  # type: ignore[arg-type]
    assert scan["failed_jobs"] == 3
    assert scan["sweeper_requeues"] == 1


def test_a_failing_worker_class_keeps_the_other_class_figures(monkeypatch: pytest.MonkeyPatch) -> None:
    figures = {"count": 3, "per_second": 100.0, "early": 0, "longest_pause_s": 0.1, "unfinished": 0,
               "stalled": False, "lateness_s": {"p50": 1.0, "p99": 2.0, "max": 2.5}}

    def one_class(_stack: Any, worker_class: str, _count: int, _quick: bool, entry: dict[str, Any],
                  _samples: dict[str, list[float]]) -> None:
        entry.update(noop=dict(figures), games=dict(figures), ratio=1.0, horses={"longest_horse_s": 0.0})
        if worker_class == "fork":
            raise storm.OutOfTime("fork: 900 of 1000 phases not resolved")

    monkeypatch.setattr(storm, "_one_class", one_class)
    monkeypatch.setattr(storm, "serializer_cost", lambda **_kw: {"json_us_per_job": 2.0, "pickle_us_per_job": 1.0})
    result: dict[str, Any] = {}
    with pytest.raises(RuntimeError, match="900 of 1000"):
        storm.run(None, False, result)  # type: ignore[arg-type]
    assert result["classes"]["simple"]["games"]["per_second"] == 100.0
    assert "error" not in result["classes"]["simple"]
    assert "900 of 1000" in result["classes"]["fork"]["error"]
    measures = [line["measure"] for line in result["summary"]]
    assert "storm: resolutions/s (simple)" in measures and "storm: resolutions/s (fork)" in measures


def test_fold_timing_rounds_that_have_not_settled_go_on_and_then_get_no_verdict(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A fake clock (one second a round) and scripted timings: settled ones stop once TIMING_S is spent,
    ones that keep falling go on to 4 x TIMING_S, and are reported as not converged."""
    ticks = iter(range(10_000))
    falling = iter(1.0 - 0.01 * i for i in range(10_000))
    monkeypatch.setattr(fold, "best_of", lambda _n, run: run())
    steady = {"a": lambda: (1.0, "a"), "b": lambda: (2.0, "b")}
    seconds = fold.MIN_ROUNDS + 2.5  # the clock reads k after round k: spent after round MIN_ROUNDS + 3
    timings, _ = fold.timed_rounds(steady, seconds=seconds, clock=lambda: float(next(ticks)))
    assert len(timings["a"]) == fold.MIN_ROUNDS + 3 and fold.unsettled(timings) == {}
    ticks = iter(range(10_000))
    settling = {"a": lambda: (1.0, "a"), "b": lambda: (next(falling), "b")}
    timings, _ = fold.timed_rounds(settling, seconds=seconds, clock=lambda: float(next(ticks)))
    assert len(timings["a"]) == math.ceil(4 * seconds)  # the round after which 4 x seconds had passed
    assert set(fold.unsettled(timings)) == {"b"}


def test_fold_timing_rounds_go_on_until_their_time_is_used_then_stop_at_the_cap() -> None:
    calls: list[str] = []

    def run(name: str) -> int:
        if len(calls) > 4 * fold.MAX_ROUNDS:
            raise RuntimeError("the rounds went past their cap")
        calls.append(name)
        return len(calls)

    runs = {"a": lambda: run("a"), "b": lambda: run("b")}
    timings, results = fold.timed_rounds(runs, seconds=0.0)  # time used at once: the floor of rounds
    assert [len(timings["a"]), len(timings["b"])] == [fold.MIN_ROUNDS] * 2
    assert calls[:4] == ["a", "b", "a", "b"] and results == {"a": len(calls) - 1, "b": len(calls)}
    calls.clear()
    timings, _ = fold.timed_rounds(runs, seconds=3600.0)  # time never used up: the cap
    assert len(timings["a"]) == fold.MAX_ROUNDS == len(calls) // 2
    timings, _ = fold.timed_rounds(runs, quick=True, seconds=3600.0)
    assert len(timings["b"]) == 1


def test_each_benchmark_gets_its_planned_part_of_what_is_left() -> None:
    budget = Budget.of(100.0)
    share = budget.share({"a": 30.0, "b": 70.0}, "a")
    assert 29.0 < share <= 30.0 and 28.0 < budget.spare() <= 30.0
    assert budget.share({"b": 70.0}, "b") == pytest.approx(budget.left(), abs=0.5)  # the last one: all that is left


def test_repeats_go_on_while_the_share_has_room_between_the_least_and_the_most() -> None:
    budget = Budget.of(100.0)
    budget.share({"a": 1.0}, "a")
    assert budget.more(0, 2, 5, each=1000.0)  # the least are measured whatever they cost
    assert budget.more(1, 2, 5, each=1000.0)
    assert not budget.more(2, 2, 5, each=1000.0)  # no room for another
    assert budget.more(2, 2, 5, each=1.0)
    assert not budget.more(5, 2, 5, each=0.0)  # never past the most


def test_every_benchmark_runs_in_a_full_run_with_a_plan_and_the_exploratory_rows_last() -> None:
    from bench.__main__ import BENCHMARKS, PLANNED_S, parser

    assert set(PLANNED_S) == set(BENCHMARKS)
    order = list(BENCHMARKS)
    assert order.index("storm") < order.index("gunicorn") and order.index("storage") < order.index("gunicorn")
    assert order[-1] == "gunicorn"
    for name in BENCHMARKS:
        assert parser().parse_args(["--only", name]).only == [name]


def test_a_skipped_row_says_so_and_why_under_the_table() -> None:
    from bench.report import skipped, table

    report = {"results": {"receipts": {"summary": [skipped("signed", ">= 0.7", "no signing here")]}}, "errors": {}}
    text = table(report)
    assert "skip" in text.splitlines()[2]
    assert "SKIPPED receipts, signed: no signing here" in text


def test_the_receipts_row_names_the_missing_feature() -> None:
    from bench.receipts import missing

    class NoKeys:
        def call(self, method: str, path: str, *args: Any, **kwargs: Any) -> tuple[int, Any]:
            assert (method, path) == ("GET", "/v1/keys")
            return 404, {"error": {"code": "not_found"}}

    why = missing(None, NoKeys())  # type: ignore[arg-type]
    assert why is not None and "signed receipts (issue 29)" in why and "/v1/keys" in why


def test_sizes_shrink_with_a_share_short_of_its_plan_but_never_below_their_least() -> None:
    budget = Budget.of(100.0)
    budget.share({"a": 200.0, "b": 200.0}, "a")  # 50 s for a 200 s plan: a quarter
    assert budget.sized(1000, 100) == pytest.approx(250, rel=0.02)
    assert budget.sized(1000, 400) == 400
    budget = Budget.of(1000.0)
    budget.share({"a": 10.0}, "a")  # more than planned: full size, not more
    assert budget.sized(1000, 100) == 1000
