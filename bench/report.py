"""The printed table and the PNG plots, both from the JSON results."""
from __future__ import annotations

from pathlib import Path
from typing import Any


def row(measure: str, value: float | None, unit: str, baseline: float | None = None, ratio: float | None = None,
        target: str = "", ok: bool | None = None, note: str = "") -> dict[str, Any]:
    """One line of the table: an absolute figure, its baseline, the ratio we track."""
    return {"measure": measure, "value": value, "unit": unit, "baseline": baseline, "ratio": ratio,
            "target": target, "ok": ok, "note": note}


def skipped(measure: str, target: str, why: str) -> dict[str, Any]:
    """A row that could not be measured on this tree (a feature it needs is missing): shown as ``skip``,
    with ``why`` printed under the table.  Not a failure."""
    return {**row(measure, None, "", target=target, note=why), "skipped": True}


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        if value != value:
            return "nan"
        return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.2f}" if abs(value) >= 1 else f"{value:.3f}"
    return str(value)


def table(report: dict[str, Any]) -> str:
    header = ("benchmark", "measure", "value", "unit", "baseline", "ratio", "target", "met")
    lines = [header]
    for name, result in report["results"].items():
        for r in result.get("summary", []):
            met = ("skip" if r.get("skipped") else "-" if r["target"] in ("", "report") else "?") if r["ok"] is None \
                else ("yes" if r["ok"] else "NO")
            lines.append((name, r["measure"], _fmt(r["value"]), r["unit"], _fmt(r["baseline"]), _fmt(r["ratio"]),
                          r["target"], met))
    for name in report.get("errors", {}):
        lines.append((name, "FAILED (below)", "", "", "", "", "", "NO"))
    widths = [max(len(str(line[i])) for line in lines) for i in range(len(header))]
    text = []
    for index, line in enumerate(lines):
        text.append("  ".join(str(cell).ljust(widths[i]) for i, cell in enumerate(line)).rstrip())
        if index == 0:
            text.append("  ".join("-" * w for w in widths))
    for name, result in report["results"].items():
        for r in result.get("summary", []):
            if r.get("skipped"):
                text.append(f"SKIPPED {name}, {r['measure']}: {r['note']}")
    for name, error in report.get("errors", {}).items():
        text.append(f"FAILED {name}: {error}")
    return "\n".join(text)


def plot(report: dict[str, Any], folder: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder.mkdir(parents=True, exist_ok=True)
    written = []
    storm = report["results"].get("storm", {})
    if storm.get("lateness_samples"):
        fig, ax = plt.subplots(figsize=(7, 4))
        for label, samples in storm["lateness_samples"].items():
            ordered = sorted(samples)
            if not ordered:
                continue
            total = storm.get("counts", {}).get(label.split(":")[0], storm.get("games")) or 1
            # Over every job of the storm, not only those done: a stalled class plateaus below 1.
            ys = [(i + 1) / total for i in range(len(ordered))]
            if len(ordered) < total:
                label += f" ({len(ordered)} of {total} done, then none)"
            ax.step(ordered, ys, where="post", label=label)
        ax.axvline(3.0, color="grey", linestyle="--", linewidth=1, label="target p99 < 3 s")
        if max((max(s) for s in storm["lateness_samples"].values() if s), default=0) > 30:
            ax.set_xscale("log")  # a stalled class would squash the others against the axis
        ax.set_xlabel("lateness after the deadline (s)")
        ax.set_ylabel("fraction of the storm's jobs done")
        ax.set_title(f"Deadline storm: {storm.get('games')} deadlines in one second, two workers "
                     f"({storm.get('counts', {}).get('fork', storm.get('games'))} on fork workers)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        path = folder / "lateness.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    reads = report["results"].get("reads", {})
    if reads.get("curve"):
        curve = reads["curve"]
        fig, ax = plt.subplots(figsize=(7, 4))
        lengths = [c["events"] for c in curve]
        series = [("http_ms", "GET /v1/games/{id} over HTTP (warm process)"),
                  ("cold_load_ms", "new process: snapshot + tail"),
                  ("refold_ms", "without snapshots: fold the whole log")]
        for key, label in series:
            points = [(c["events"], c[key]) for c in curve if c.get(key) is not None]
            if points:
                ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=label)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("events in the game's log")
        ax.set_ylabel("ms per read")
        ax.set_title("Read cost against log length (Extreme Ways)")
        ax.set_xticks(lengths)
        ax.set_xticklabels([f"{n:,}" for n in lengths])
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=8)
        fig.tight_layout()
        path = folder / "read_cost.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written
