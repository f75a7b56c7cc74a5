"""Rule 15: the game report, per round, as JSON, fixed-width text, Markdown or BBCode.

Only what the rules make public is in a row (cards held, D M B R S P O, cf, trips,
the referee's automatic plays); drug use and robot algorithms never are.  The Tarnished
race's report is the rulebook's shorter one, P, S and Runner (``full_report``).
"""
from __future__ import annotations

from typing import Any, Callable

from engines.contract import RuleError
from engines.report_text import for_format

COLUMNS = ("Player", "Cards", "D", "M", "B", "R", "S", "P", "O", "cf")
RULEBOOK_TARNISHED_COLUMNS = ("P", "S", "Runner")
FORMATS = ("json", "text", "markdown", "bbcode")
TARNISHED_REPORTS = ("rulebook", "full")


def full_report(state: dict[str, Any]) -> bool:
    """Whether players and the public read the full rule 15 report.  The Tarnished race is the standard race
    except for its report, which shows P, S and Runner only: cards held, banking and restitution would give the
    drugs away (an Enduron runner's starting cards add up to 32, an Energiza runner's square moves more than M).
    ``tarnished_report: "full"`` is the GM's house rule that shows everything; a game recorded before the option
    existed reads as the rulebook."""
    options = state["options"]
    return options["variant"] != "tarnished" or options.get("tarnished_report", "rulebook") == "full"


def rulebook_row(row: dict[str, Any]) -> dict[str, Any]:
    """A stored row cut to the Tarnished report's columns: position, square and the runner."""
    return {"P": row["P"], "S": row["S"], "runner": row["runner"]}


def rounds_played(state: dict[str, Any]) -> list[int]:
    return [entry["round"] for entry in state["history"]]


def report_rows(state: dict[str, Any], round_no: int | None) -> tuple[int, list[dict[str, Any]]]:
    """The public rows of one round (None = the latest); RuleError if not played."""
    if not state["history"]:
        raise RuleError("report", "no round has been played yet", {"rounds": []})
    if round_no is None:
        entry = state["history"][-1]
    else:
        found = [e for e in state["history"] if e["round"] == round_no]
        if not found:
            raise RuleError(
                "report", f"round {round_no} has not been played", {"rounds": rounds_played(state)}
            )
        entry = found[0]
    return entry["round"], entry["rows"]


def full_row(row: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """A stored (compact) row with the runner's name and every remark spelled out."""
    return {
        "runner": row["runner"], "name": names[row["runner"]],
        **{k: v for k, v in row.items() if k != "runner"},
        "cf": row.get("cf", False), "auto": row.get("auto", False), "trip": row.get("trip"),
        "forfeited": row.get("forfeited", []),
    }


def notes(row: dict[str, Any]) -> str:
    """Remarks beyond the rulebook's columns: trips, referee's plays, forfeited cards."""
    out = []
    if row.get("auto"):
        out.append("NMR")
    if row.get("trip"):
        out.append(f"tripped at {row['trip']['square']} (-{row['trip']['penalty']})")
    lost = [row["cards"][i] for i in row.get("forfeited", [])]
    if lost:
        out.append("expired " + " ".join(lost))
    return "; ".join(out)


def cells(row: dict[str, Any], strike: Callable[[str], str]) -> list[str]:
    """One row as the rulebook writes it: '-' for no D or O, 'cf' when carried."""
    cards = " ".join(strike(c) if i == row["played"] else c for i, c in enumerate(row["cards"]))
    return [
        row["name"], cards, str(row["D"] or "-"), str(row["M"]), str(row["B"]), str(row["R"]),
        str(row["S"]), str(row["P"]), str(row["O"] or "-"), "cf" if row.get("cf") else "",
    ]


def render(state: dict[str, Any], round_no: int | None, fmt: str, full: bool = True) -> Any:
    """The report of ``round_no`` (None = latest) in ``fmt``: json, text, markdown, bbcode.  ``full``: the rule 15
    report; else the Tarnished rulebook's P, S, Runner (and a full one that others read the short way is marked
    as the GM's, so that it is not posted by mistake)."""
    if fmt not in FORMATS:
        raise RuleError("report", f"format must be one of {', '.join(FORMATS)}", {"format": fmt})
    number, stored = report_rows(state, round_no)
    names = {r["id"]: r["name"] for r in state["runners"]}
    title = f"Golden Strider - round {number} ({state['race_length']} squares)"
    if not full:
        return _rulebook_tarnished(state, number, title, [rulebook_row(row) for row in stored], names, fmt)
    rows = [full_row(row, names) for row in stored]
    if fmt != "json":  # a runner's name is shown, never obeyed (engines/report_text.py)
        rows = [{**row, "name": for_format(fmt)(row["name"])} for row in rows]
    if not full_report(state):
        title += " - full report, GM only"
    if fmt == "json":
        return {
            "round": number, "race_length": state["race_length"], "variant": state["options"]["variant"],
            "columns": list(COLUMNS), "rows": rows,
            "notes": {r["runner"]: notes(r) for r in rows if notes(r)},
        }
    if fmt == "text":
        return _text(title, rows)
    if fmt == "markdown":
        return _markdown(title, rows)
    return _bbcode(title, rows)


def _with_notes(
    rows: list[dict[str, Any]], strike: Callable[[str], str]
) -> tuple[list[str], list[list[str]]]:
    """Header and cells, with a Notes column only when some row needs one."""
    header = list(COLUMNS)
    table = [cells(r, strike) for r in rows]
    if any(notes(r) for r in rows):
        header.append("Notes")
        for line, row in zip(table, rows):
            line.append(notes(row))
    return header, table


def _text(title: str, rows: list[dict[str, Any]]) -> str:
    """Fixed-width columns; the played card is written ~like this~."""
    header, table = _with_notes(rows, lambda s: f"~{s}~")
    widths = [max(len(line[i]) for line in [header, *table]) for i in range(len(header))]
    lines = [title, ""]
    for line in [header, *table]:
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip())
    lines.append("")
    lines.append("~n/t~ = card played; D restitution paid, M movement, B banked, R replacement card,")
    lines.append("S square, P position, O restitution due next turn, cf = restitution carried forward")
    return "\n".join(lines) + "\n"


def _markdown(title: str, rows: list[dict[str, Any]]) -> str:
    header, table = _with_notes(rows, lambda s: f"~~{s}~~")
    lines = [f"**{title}**", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join([line[0], *(cell.replace("|", "\\|") for cell in line[1:])]) + " |" for line in table]
    return "\n".join(lines) + "\n"


def _bbcode(title: str, rows: list[dict[str, Any]]) -> str:
    header, table = _with_notes(rows, lambda s: f"[s]{s}[/s]")
    lines = [f"[b]{title}[/b]", "[table]"]
    lines.append("[tr]" + "".join(f"[td][b]{h}[/b][/td]" for h in header) + "[/tr]")
    lines += ["[tr]" + "".join(f"[td]{cell}[/td]" for cell in line) + "[/tr]" for line in table]
    lines.append("[/table]")
    return "\n".join(lines) + "\n"


def _rulebook_tarnished(
    state: dict[str, Any], number: int, title: str, rows: list[dict[str, Any]], names: dict[str, str], fmt: str
) -> Any:
    """The Tarnished race's report as the rulebook lays it out: P, S and the runner's name, in position order."""
    if fmt == "json":
        return {"round": number, "race_length": state["race_length"], "variant": state["options"]["variant"],
                "columns": list(RULEBOOK_TARNISHED_COLUMNS),
                "rows": [{**row, "name": names[row["runner"]]} for row in rows]}
    escape = for_format(fmt)  # a runner's name is shown, never obeyed (engines/report_text.py)
    table = [[str(row["P"]), str(row["S"]), escape(names[row["runner"]])] for row in rows]
    header = list(RULEBOOK_TARNISHED_COLUMNS)
    if fmt == "text":
        widths = [max(len(line[i]) for line in [header, *table]) for i in range(len(header))]
        lines = [title, ""] + ["  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip()
                               for line in [header, *table]]
        return "\n".join(lines) + "\n"
    if fmt == "markdown":
        lines = [f"**{title}**", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        return "\n".join(lines + ["| " + " | ".join(line) + " |" for line in table]) + "\n"
    lines = [f"[b]{title}[/b]", "[table]", "[tr]" + "".join(f"[td][b]{h}[/b][/td]" for h in header) + "[/tr]"]
    lines += ["[tr]" + "".join(f"[td]{cell}[/td]" for cell in line) + "[/tr]" for line in table]
    return "\n".join(lines + ["[/table]"]) + "\n"
