"""The GM's forum post, per round: Loki's Auction announcements and the final results.

Rounds 1..N report that round's auction (what ``announce`` and the leftover-packet
addendum make public); round N+1 reports the results after the Moving Phase.  Only
public facts appear, so every viewer gets the same report.
"""
from __future__ import annotations

from engines.extreme_ways import rules

import json
from typing import Any

from engines.contract import JSON, RuleError, State
from engines.report_text import for_format

FORMATS = ("json", "text", "markdown", "bbcode")
RESULT_COLUMNS = ("Player", "Position", "Distance", "Gold", "Tokens of Life")


def _fmt_move(move: list[int]) -> str:
    return f"({move[0]}, {move[1]})"


def _packet_lines(contents: JSON) -> list[str]:
    """One line per option named in a packet: its true move or the false moves."""
    lines = []
    for letter, info in contents.items():
        if "true" in info:
            lines.append(f"Option {letter}: true move {_fmt_move(info['true'])}")
        else:
            lines.append(f"Option {letter}: false " + ", ".join(_fmt_move(m) for m in info["false"]))
    return lines


def _auction(state: State, number: int) -> JSON:
    public = state["auctions"][number - 1]["public"]
    names = state["names"]
    announcement = public["announcement"]
    winners: list[JSON] = []
    if announcement is not None:
        for packet, entry in announcement.items():
            players = entry["players"] if isinstance(entry, dict) else entry
            row: dict[str, Any] = {"packet": packet, "players": [names[p] for p in players]}
            if isinstance(entry, dict):
                row["amount"] = entry["amount"]
            winners.append(row)
    return {
        "round": number,
        "kind": "auction",
        "announced": announcement is not None,
        "winners": winners,
        "revealed_packets": public["revealed_packets"],
    }


def _results(state: State, number: int) -> JSON:
    res, names = state["results"], state["names"]
    rows = [
        {"player": names[p], "position": res["positions"][p], "distance": res["distances"][p],
         "gold": res["gold"][p],
         "tokens_of_life": rules.tokens_held(res["tokens_of_life"], p)}
        for p in sorted(res["positions"], key=lambda p: (-res["distances"][p], p))
    ]
    elim = state["elimination"]
    return {
        "round": number,
        "kind": "results",
        "rows": rows,
        "elimination_candidate": names.get(elim["ec"]) if elim["ec"] else None,
        "elimination_decided_by": elim["decided_by"],
        "tied_candidates": [names[p] for p in elim["candidates"]] if elim["ec"] is None else [],
    }


def report_data(state: State, round_no: int | None) -> JSON:
    """The public report of one round (None = latest); RuleError if there is none yet."""
    total = len(state["rounds"])
    played = len(state["auctions"]) + (1 if state["results"] is not None else 0)
    if played == 0:
        raise RuleError("report", "no auction has been held yet", {"rounds": []})
    number = played if round_no is None else round_no
    if not 1 <= number <= played:
        raise RuleError("report", f"round {number} has no report yet", {"rounds": list(range(1, played + 1))})
    return _auction(state, number) if number <= total else _results(state, number)


def _auction_lines(data: JSON) -> list[str]:
    lines = []
    if not data["announced"]:
        lines.append("The winners are not announced.")
    elif not data["winners"]:
        lines.append("Nobody bid.")
    for row in data["winners"]:
        plural = "piece" if row.get("amount") == 1 else "pieces"
        amount = f" ({row['amount']} gold {plural})" if "amount" in row else ""
        lines.append(f"Info Packet {row['packet']}: {', '.join(row['players'])}{amount}")
    for packet, contents in data["revealed_packets"].items():
        lines.append(f"Leftover Info Packet {packet}: " + "; ".join(_packet_lines(contents)))
    return lines


def _result_cells(row: JSON) -> list[str]:
    return [row["player"], _fmt_move(row["position"]), str(row["distance"]), str(row["gold"]),
            ", ".join(d.replace("_", " ") for d in row["tokens_of_life"])]


def _ec_line(data: JSON) -> str:
    if data["elimination_candidate"]:
        return f"Elimination Candidate: {data['elimination_candidate']} ({data['elimination_decided_by']})"
    if data["tied_candidates"]:
        return "Elimination Candidate to be voted among: " + ", ".join(data["tied_candidates"])
    return "No Elimination Candidate (every player holds a Token of Life)."


def _text(data: JSON, fmt: str) -> str:
    title = (f"Extreme Ways - Loki's Auction, round {data['round']}" if data["kind"] == "auction"
             else "Extreme Ways - results")
    body = _auction_lines(data) if data["kind"] == "auction" else None
    if fmt == "text":
        if body is not None:
            return "\n".join([title, *body])
        table = [list(RESULT_COLUMNS)] + [_result_cells(r) for r in data["rows"]]
        widths = [max(len(line[i]) for line in table) for i in range(len(RESULT_COLUMNS))]
        rows = ["  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip() for line in table]
        return "\n".join([title, *rows, _ec_line(data)])
    if fmt == "markdown":
        if body is not None:
            return "\n".join([f"### {title}", "", *[f"- {line}" for line in body]])
        head = "| " + " | ".join(RESULT_COLUMNS) + " |"
        rule = "|" + "---|" * len(RESULT_COLUMNS)
        rows = ["| " + " | ".join(_result_cells(r)) + " |" for r in data["rows"]]
        return "\n".join([f"### {title}", "", head, rule, *rows, "", _ec_line(data)])
    if body is not None:
        return "\n".join([f"[b]{title}[/b]", "[list]", *[f"[*]{line}" for line in body], "[/list]"])
    cells = ["[tr]" + "".join(f"[th]{c}[/th]" for c in RESULT_COLUMNS) + "[/tr]"]
    cells += ["[tr]" + "".join(f"[td]{c}[/td]" for c in _result_cells(r)) + "[/tr]" for r in data["rows"]]
    return "\n".join([f"[b]{title}[/b]", "[table]", *cells, "[/table]", _ec_line(data)])


def render(state: State, round_no: int | None, fmt: str) -> JSON:
    """The report of ``round_no`` (None = latest) as json, text, markdown or bbcode."""
    if fmt not in FORMATS:
        raise RuleError("report", f"format must be one of {', '.join(FORMATS)}", {"format": fmt})
    data = json.loads(json.dumps(report_data(state, round_no)))
    return data if fmt == "json" else _text(_names_escaped(data, fmt), fmt)


def _names_escaped(data: JSON, fmt: str) -> JSON:
    """The report's player names escaped for ``fmt`` (engines/report_text.py): a name is shown, never obeyed."""
    esc = for_format(fmt)
    out = dict(data)
    if "winners" in out:
        out["winners"] = [{**row, "players": [esc(p) for p in row["players"]]} for row in out["winners"]]
    if "rows" in out:
        out["rows"] = [{**row, "player": esc(row["player"])} for row in out["rows"]]
    if out.get("elimination_candidate"):
        out["elimination_candidate"] = esc(out["elimination_candidate"])
    if "tied_candidates" in out:
        out["tied_candidates"] = [esc(p) for p in out["tied_candidates"]]
    return out
