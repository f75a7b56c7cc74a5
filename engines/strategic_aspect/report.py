"""The forum report of a cycle, as the GM would post it: JSON, fixed-width text, Markdown or BBCode.

A cycle's report gives its kind and tie-break space, each turn revealed so far (the move, any steal or
purchase, a suffice choice), the standings (space, steps, safety, "▲ steps" for departed cyclists), the
auction's revealed bids, the safety decisions and the ceremony's vote counts.  Only what the viewer may see:
the rest of the turn order and the open sealed orders are the GM's; a viewer's own sealed order is shown to
them, marked as theirs.  Names are escaped for each format (engines/report_text.py): shown, never obeyed.
"""
from __future__ import annotations

from typing import Any, Callable

from engines.contract import GM, RuleError
from engines.report_text import for_format
from engines.strategic_aspect import views

State = dict[str, Any]
FORMATS = ("json", "text", "markdown", "bbcode")
COLUMNS = ("Cyclist", "Space", "Steps", "Safety", "Status")
KINDS = {"normal": "cycle", "final": "final cycle", "sudden_death": "sudden death cycle", "suffice": "suffice cycle"}


def render(state: State, number: int | None, fmt: str, viewer: Any) -> Any:
    """The report of cycle ``number`` (None: the current one) in ``fmt``, as ``viewer`` may see it."""
    if fmt not in FORMATS:
        raise RuleError("report", f"format must be one of {', '.join(FORMATS)}", {"format": fmt})
    data = _data(state, number, viewer)
    if fmt == "json":
        return data
    return _render_text(data, fmt)


def _cycles(state: State) -> list[State]:
    """Every cycle so far, the open one last (a finished game's last cycle is in its history)."""
    live = [] if state["stage"] == "over" else [_live(state)]
    return [*state["history"], *live]


def _live(state: State) -> State:
    return {**state["cycle"], "auction": state["auction"], "safety": state["safety"], "ceremony": state["ceremony"],
            "live": True}


def _data(state: State, number: int | None, viewer: Any) -> State:
    cycles = _cycles(state)
    if not state["history"] and not cycles[-1]["turns"]:
        # as for every game's report: nothing to post before the first phase is resolved
        raise RuleError("report", "nothing has been revealed yet: the first turn is still open", {"cycles": []})
    if number is None:
        cycle = cycles[-1]
    else:
        found = [c for c in cycles if c["number"] == number]
        if not found:
            raise RuleError("report", f"cycle {number} has not been played",
                            {"cycles": [c["number"] for c in cycles]})
        cycle = found[0]
    names = state["names"]
    live = cycle.get("live", False)
    turns = [{**t, "name": names[t["cyclist"]],
              **({"steal_name": names[t["steal"]["from"]]} if t.get("steal") and t["steal"]["from"] else {})}
             for t in cycle["turns"]]
    auction = cycle["auction"]
    shown_auction = None if auction is None else {"bidders": auction["bidders"], "rounds": auction["rounds"],
                                                  "result": auction.get("result"), "winner": auction.get("winner")}
    ceremony = cycle["ceremony"] if cycle["ceremony"] and "counts" in cycle["ceremony"] else None
    data: dict[str, Any] = {
        "round": cycle["number"], "kind": cycle["kind"], "length": cycle["length"],
        "tiebreak_space": cycle["tiebreak_space"], "vote_holder": cycle["vote_holder"],
        "names": dict(names), "turns": turns, "standings": _standings(state, cycle, live),
        "auction": shown_auction, "safety": cycle["safety"], "ceremony": ceremony,
        "open": state["stage"] if live else None, "winner": state["winner"] if not live and state["stage"] == "over"
        and cycle is cycles[-1] else None,
    }
    ballots = state["ballots"].get(str(cycle["number"]))
    if viewer == GM and (live or ballots is not None):
        data["gm"] = {"order": list(state["order"]) if live else [], "pending": state["pending"] if live else {},
                      "ballots": ballots}
    elif live and viewer in state["pending"] and state["stage"] in views.SEALED_STAGES:
        data["yours"] = {"cyclist": viewer, **state["pending"][viewer]}
    return data


def _standings(state: State, cycle: State, live: bool) -> list[State]:
    if live:
        rows = views.standings(state)
        return [{k: r[k] for k in ("id", "name", "position", "steps", "shown", "safety", "vote_holder", "status")}
                for r in rows]
    rows = []
    holder = (cycle["safety"] or {}).get("holder") if (cycle["safety"] or {}).get("status") == "kept" else None
    for cyclist in state["roster"]:
        at = cycle["standings"][cyclist]
        left = state["departed"].get(cyclist)
        gone = state["eliminated"].get(cyclist)
        if left and left["cycle"] <= cycle["number"]:
            status, shown = "departed", f"▲ {left['steps']}"
        elif gone and gone["cycle"] < cycle["number"]:
            continue
        else:
            status = "eliminated" if gone and gone["cycle"] == cycle["number"] else "in"
            shown = str(at["steps"])
        rows.append({"id": cyclist, "name": state["names"][cyclist], "position": at["position"], "steps": at["steps"],
                     "shown": shown, "safety": cyclist == holder, "vote_holder": cycle["vote_holder"] == cyclist,
                     "status": status})
    return rows


# -- text formats ---------------------------------------------------------------------------------------------------
def _render_text(data: State, fmt: str) -> str:
    esc = for_format(fmt)
    name = {c: esc(n) for c, n in data["names"].items()}
    bold = {"text": lambda s: s, "markdown": lambda s: f"**{s}**", "bbcode": lambda s: f"[b]{s}[/b]"}[fmt]
    title = f"Strategic Aspect - {KINDS[data['kind']]} {data['round']} ({data['length']} spaces)"
    lines = [bold(title), ""]
    if data["tiebreak_space"] is not None:
        holder = data["vote_holder"]
        lines.append(f"Tie-breaking vote: space {data['tiebreak_space']}"
                     + (f", bought by {name[holder]}" if holder else ", not bought"))
    lines.append("")
    lines.append(bold("Turns"))
    lines += [_turn_line(t, name) for t in data["turns"]] or ["(no turn revealed yet)"]
    lines.append("")
    lines.append(bold("Standings"))
    lines += _table(data["standings"], name, fmt)
    lines += _auction_lines(data, name, bold)
    lines += _safety_lines(data, name, bold)
    lines += _ceremony_lines(data, name, bold)
    if data.get("yours"):
        yours = data["yours"]
        what = f"bid {yours['amount']}" if yours["type"] == "bid" else f"vote against {name[yours['against']]}"
        lines += ["", f"Your sealed order (yours alone, not yet revealed): {what}"]
    if data.get("gm"):
        if data["open"]:
            rest = ", ".join(name[c] for c in data["gm"]["order"]) or "-"
            lines += ["", f"GM only - the rest of this round's turn order: {rest}"]
        if data["gm"]["ballots"] is not None:
            cast = ", ".join(f"{name[v]} -> {name[t]}" for v, t in data["gm"]["ballots"].items()) or "-"
            lines += ["", f"GM only - the ballots: {cast}"]
    if data["winner"]:
        lines += ["", bold(f"Winner: {name[data['winner']]}")]
    return "\n".join(lines) + "\n"


def _turn_line(turn: State, name: dict[str, str]) -> str:
    who = name[turn["cyclist"]]
    missed = " (deadline missed: default)" if turn["missed"] else ""
    if "distance" in turn:
        return (f"{turn['turn']}. {who}: suffice, {turn['choice']} {turn['distance']} "
                f"({turn['steps']:+d} steps){missed}")
    spaces = "1 space" if turn["move"] == 1 else f"{turn['move']} spaces"
    line = (f"{turn['turn']}. (round {turn['round']}) {who}: {spaces}, {turn['from']} -> {turn['to']}, "
            f"{turn['steps']:+d} steps{missed}")
    steal = turn.get("steal")
    if steal:
        line += f"; stole 5 steps from {name[steal['from']]}" if steal["from"] else "; stole nothing"
    purchase = turn.get("purchase")
    if purchase:
        line += "; bought the tie-breaking vote" if purchase["buy"] else "; did not buy the tie-breaking vote"
    return line


def _cells(row: State, name: dict[str, str]) -> list[str]:
    notes = row["status"] + (", tie-breaking vote" if row["vote_holder"] else "")
    space = "-" if row["position"] is None else str(row["position"])
    return [name[row["id"]], space, row["shown"], "yes" if row["safety"] else "", notes]


def _table(rows: list[State], name: dict[str, str], fmt: str) -> list[str]:
    table = [_cells(r, name) for r in rows]
    if fmt == "text":
        widths = [max(len(line[i]) for line in [list(COLUMNS), *table]) for i in range(len(COLUMNS))]
        return ["  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip() for line in [list(COLUMNS), *table]]
    if fmt == "markdown":
        return ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS),
                *("| " + " | ".join(line) + " |" for line in table)]
    return ["[table]", "[tr]" + "".join(f"[td][b]{c}[/b][/td]" for c in COLUMNS) + "[/tr]",
            *("[tr]" + "".join(f"[td]{c}[/td]" for c in line) + "[/tr]" for line in table), "[/table]"]


def _auction_lines(data: State, name: dict[str, str], bold: Callable[[str], str]) -> list[str]:
    auction = data["auction"]
    if not auction:
        return []
    lines = ["", bold("Safety auction") + ": " + " and ".join(name[c] for c in auction["bidders"])]
    for number, bid in enumerate(auction["rounds"], start=1):
        shown = ", ".join(f"{name[c]} {n}" for c, n in bid["bids"].items())
        paid = ", ".join(f"{name[c]} pays {n}" for c, n in bid["paid"].items())
        lines.append(f"{'Bids' if number == 1 else 'Re-bids'}: {shown} -> {bid['result']} ({paid})")
    if auction["winner"]:
        lines.append(f"Safety won by {name[auction['winner']]}")
    return lines


def _safety_lines(data: State, name: dict[str, str], bold: Callable[[str], str]) -> list[str]:
    safety = data["safety"]
    if not safety or not safety.get("history"):
        return []
    lines = ["", bold("Safety")]
    for entry in safety["history"]:
        missed = " (deadline missed: default)" if entry["missed"] else ""
        to = f" to {name[entry['to']]}" if entry.get("to") else ""
        lines.append(f"{name[entry['cyclist']]}: {entry['choice']}{to}{missed}")
    return lines


def _ceremony_lines(data: State, name: dict[str, str], bold: Callable[[str], str]) -> list[str]:
    ceremony = data["ceremony"]
    if not ceremony:
        return []
    counts = ", ".join(f"{name[c]} {n}" for c, n in ceremony["counts"].items())
    lines = ["", bold("Elimination ceremony") + f" - votes: {counts}"]
    if ceremony["automatic"]:
        lines.append("Cast against themselves: " + ", ".join(name[c] for c in ceremony["automatic"]))
    if ceremony.get("list"):
        lines.append("Random list of the tied: " + ", ".join(name[c] for c in ceremony["list"]))
    if ceremony.get("eliminated"):
        lines.append(f"Eliminated: {name[ceremony['eliminated']]} ({ceremony['by']})")
    return lines
