"""The GM's forum post of the position: whose turn it is and their roll, each player's finished cubes and cubes
home, the board as text, and the winners once the game is over.  Nothing in SXYZM Cyclone is hidden, so every
viewer gets the same report.  The state keeps the board, not each turn's, so the report is of the turn now open
(the last one at the end); the log's outcomes hold every turn's moves.  Names are escaped for each format
(engines/report_text.py): shown, never obeyed.
"""
from __future__ import annotations

from typing import Any

from engines.contract import JSON, RuleError, State
from engines.report_text import for_format
from engines.sxyzm_cyclone import views

FORMATS = ("json", "text", "markdown", "bbcode")
COLUMNS = ("Player", "Colour", "Finished", "Home")


def report_data(state: State, turn: int | None) -> JSON:
    """The report of the open turn (``turn``: None or its number; another turn is refused, naming the one there is)."""
    if turn is not None and turn != state["turn"]:
        raise RuleError("report", f"turn {turn} has no report: only the position at turn {state['turn']} is kept",
                        {"rounds": [state["turn"]]})
    shown = views.view(state, None, views.result(state) if state["over"] else None)
    rows = [{"player": p["name"], "colour": p["colour"], "finished": sum(p["finished"].values()),
             "home": len(p["home"]), "ejected": p["ejected"]} for p in shown["players"]]
    names = {p["id"]: p["name"] for p in shown["players"]}
    current = shown["current"]
    return {
        "round": state["turn"], "status": shown["status"],
        "current": None if current is None else {"player": current["name"], "colour": current["colour"],
                                                 "roll": current["roll"]},
        "rows": rows, "diagram": shown["diagram"],
        "winners": [names[w] for w in shown["result"]["winners"]] if state["over"] else [],
        "ended": state["ended"],
    }


def _cells(row: JSON, esc: Any) -> list[str]:
    return [esc(row["player"]) + (" (ejected)" if row["ejected"] else ""), row["colour"], str(row["finished"]),
            str(row["home"])]


def _headline(data: JSON, esc: Any) -> str:
    if data["status"] == "finished":
        winners = ", ".join(esc(w) for w in data["winners"]) or "nobody"
        return f"The game is over ({data['ended']}): won by {winners}."
    now = data["current"]
    return f"{esc(now['player'])} ({now['colour']}) to play, rolled {now['roll']}."


def _text(data: JSON, fmt: str) -> str:
    esc = for_format(fmt)
    title = f"SXYZM Cyclone - turn {data['round']}"
    table = [list(COLUMNS)] + [_cells(r, esc) for r in data["rows"]]
    if fmt == "text":
        widths = [max(len(line[i]) for line in table) for i in range(len(COLUMNS))]
        rows = ["  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip() for line in table]
        return "\n".join([title, _headline(data, esc), "", *rows, "", *data["diagram"]])
    if fmt == "markdown":
        rows = ["| " + " | ".join(line) + " |" for line in table]
        rows.insert(1, "|" + "---|" * len(COLUMNS))
        return "\n".join([f"### {title}", "", _headline(data, esc), "", *rows, "", "```",
                          *data["diagram"], "```"])
    cells = ["[tr]" + "".join(f"[th]{c}[/th]" for c in COLUMNS) + "[/tr]"]
    cells += ["[tr]" + "".join(f"[td]{c}[/td]" for c in line) + "[/tr]" for line in table[1:]]
    return "\n".join([f"[b]{title}[/b]", _headline(data, esc), "[table]", *cells, "[/table]", "[code]",
                      *data["diagram"], "[/code]"])


def render(state: State, turn: int | None, fmt: str) -> JSON:
    """The report of the open turn as json, text, markdown or bbcode."""
    if fmt not in FORMATS:
        raise RuleError("report", f"format must be one of {', '.join(FORMATS)}", {"format": fmt})
    data = report_data(state, turn)
    return data if fmt == "json" else _text(data, fmt)
