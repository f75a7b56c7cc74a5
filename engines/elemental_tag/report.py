"""The GM's forum post of a round, with the map: JSON, fixed-width text, Markdown or BBCode.

Round 1 is the bidding (who's it), round 2 the placement, round 3 on the moving rounds.  A
report holds what the round announced to everyone: the map, each player's move and square, the
collisions, who is it, the teams' points, the eliminations and team events.  The GM's JSON
report of the latest round adds the round's secrets (bids, the tag list, team actions); nobody
else's report has them, during the game or after.  The map is a monospaced block in every
format, and player names are escaped for each format (the map shows only a short key each).
"""
from __future__ import annotations

import re
from typing import Any, Callable

from engines.canonical import roundtrip
from engines.contract import GM, JSON, RuleError, State, Viewer
from engines.elemental_tag import board as grid
from engines.elemental_tag.rules import by_id

FORMATS = ("json", "text", "markdown", "bbcode")
KINDS = {1: "trading places", 2: "the same space", 3: "crossing diagonals"}


def _entry(state: State, number: int | None) -> JSON:
    played = len(state["history"])
    if not played:
        raise RuleError("report", "no round has been resolved yet", {"rounds": []})
    number = played if number is None else number
    if not 1 <= number <= played:
        raise RuleError("report", f"round {number} has no report", {"rounds": [1, played]})
    return state["history"][number - 1]


def _keys(players: list[str]) -> dict[str, str]:
    """A short key per player for the map: A..Z, then AA, AB ... (player names can be anything)."""
    out = {}
    for index, player in enumerate(players):
        key, n = "", index
        while True:
            key = chr(ord("A") + n % 26) + key
            n = n // 26 - 1
            if n < 0:
                break
        out[player] = key
    return out


def report_data(state: State, number: int | None, viewer: Viewer) -> JSON:
    entry = _entry(state, number)
    names, squares, teams = state["names"], entry["squares"], entry["teams"]
    team_of = {m: tid for tid, team in teams.items() for m in team["members"]}
    ids = sorted(squares, key=by_id)
    keys = _keys(ids)
    moving = entry["kind"] == "moving"
    data: dict[str, Any] = {
        "round": entry["turn"], "kind": entry["kind"],
        "title": {"bidding": "Round 1: who's it", "placement": "Round 2: places",
                  "moving": f"Moving round {entry['turn'] - 2}"}[entry["kind"]],
        "size": entry["size"], "it": entry["it"], "it_name": names.get(entry["it"]) if entry["it"] else None,
        "players": [
            {"id": p, "name": names[p], "key": keys[p], "team": team_of[p], "element": teams[team_of[p]]["element"],
             "square": squares[p], "move": entry["moves"].get(p, "stay") if moving else None,
             "collided": any(p in c["players"] for c in entry.get("collisions", []))}
            for p in ids
        ],
        "teams": [{"team": t, "element": teams[t]["element"], "points": teams[t]["points"],
                   "members": [names[m] for m in teams[t]["members"]]}
                  for t in sorted(teams, key=by_id)],
        "collisions": [{**c, "names": [names[p] for p in c["players"]]} for c in entry.get("collisions", [])],
        "tagged": entry.get("tagged"), "tagged_name": names.get(entry.get("tagged") or ""),
        "tagger_name": names.get(entry.get("tagger") or ""),
        "changes": entry["changes"],
        "eliminated": [{**e, "names": [names[p] for p in e["members"]]} for e in entry["eliminated"]],
        "team_events": [{**e, "names": [names[p] for p in ([e["player"]] if "player" in e else e["players"])]}
                        for e in entry.get("team_events", [])],
        "replaced": entry.get("replaced", []),
        "tied": entry.get("tied", []), "tied_names": [names[p] for p in entry.get("tied", [])],
        "it_transfer": entry.get("it_transfer"),
        "applications": entry.get("applications", {}),
    }
    data["map"] = _map(entry["size"], {p: squares[p] for p in ids}, keys)
    if viewer == GM:
        data["gm"] = state["last_secret"] if entry is state["history"][-1] else None  # the latest round's only
    return roundtrip(data)


def _map(size: int | None, squares: dict[str, list[int] | None], keys: dict[str, str]) -> list[str]:
    """The grid as lines of text: column numbers across, row numbers down, each player by their key."""
    if not size:
        return []
    width = max(2, max((len(k) for k in keys.values()), default=1), len(str(size))) + 1
    at = {tuple(sq): keys[pid] for pid, sq in squares.items() if sq is not None}
    gutter = len(str(size)) + 1
    lines = [" " * gutter + "".join(str(x).rjust(width) for x in range(1, size + 1))]
    for y in range(1, size + 1):
        cells = "".join(at.get((x, y), ".").rjust(width) for x in range(1, size + 1))
        lines.append(str(y).rjust(gutter - 1) + " " + cells)
    return lines


def _text_lines(data: JSON, esc: Callable[[str], str]) -> list[tuple[str, str]]:
    """The report's lines after the map, as (kind, text), every name written through ``esc``."""
    lines: list[tuple[str, str]] = [("head", "Players")]
    for p in data["players"]:
        move = ""
        if p["move"] == "stay":
            move = ", stayed"
        elif p["move"]:
            way = grid.NAMES[p["move"]]
            move = f", tried {way} (collided)" if p["collided"] else f", moved {way}"
        where = f"({p['square'][0]},{p['square'][1]})" if p["square"] else "-"
        team = p["element"] or "underworld"
        lines.append(("item", f"{p['key']} = {esc(p['name'])} [{team}] at {where}{move}"))
    if data["collisions"]:
        lines.append(("head", "Collisions"))
        for c in data["collisions"]:
            where = f" at ({c['square'][0]},{c['square'][1]})" if c["square"] else ""
            lines.append(("item", f"{KINDS[c['kind']]}{where}: {', '.join(esc(n) for n in c['names'])}"))
    lines.append(("head", "It"))
    lines.append(("item", f"{esc(data['it_name']) if data['it_name'] else 'nobody'} is it"))
    if data["tied"]:
        tied = ", ".join(esc(n) for n in data["tied_names"])
        lines.append(("item", f"the lowest bid was tied ({tied}); drawn by lot"))
    if data["tagged"]:
        lines.append(("item", f"{esc(data['tagged_name'])} was tagged by {esc(data['tagger_name'])}"))
    lines.append(("head", "Teams"))
    for t in data["teams"]:
        members = ", ".join(esc(m) for m in t["members"])
        lines.append(("item", f"{t['element'] or 'underworld'} ({members}): {t['points']} points"))
    for e in data["team_events"]:
        lines.append(("item", f"team event: {e['event']} {', '.join(esc(n) for n in e['names'])}"))
    if data["eliminated"]:
        lines.append(("head", "Eliminated"))
        for e in data["eliminated"]:
            who = ", ".join(esc(n) for n in e["names"]) or "nobody left"
            lines.append(("item", f"{e['element'] or 'underworld'} team ({who}) at {e['points']} points"))
    return lines


def render(state: State, number: int | None, fmt: str, viewer: Viewer = None) -> JSON:
    """The report of round ``number`` (None: the latest) in ``fmt``, as ``viewer`` may see it."""
    if fmt not in FORMATS:
        raise RuleError("report", f"format must be one of {', '.join(FORMATS)}", {"format": fmt})
    data = report_data(state, number, viewer)
    if fmt == "json":
        return data
    title = f"Elemental Tag - {data['title']}"
    if fmt == "text":
        lines = _text_lines(data, _plain)
        out = [title, "", *data["map"], ""]
        out += [f"{text}:" if kind == "head" else f"  {text}" for kind, text in lines]
        return "\n".join(out) + "\n"
    if fmt == "markdown":
        out = [f"### {title}", "", "```", *data["map"], "```", ""]
        for kind, text in _text_lines(data, _md):
            out.append(f"**{text}**" if kind == "head" else f"- {text}")
        return "\n".join(out) + "\n"
    out = [f"[b]{title}[/b]", "[code]", *data["map"], "[/code]"]
    for kind, text in _text_lines(data, _bb):
        out.append(f"[b]{text}[/b]" if kind == "head" else f"[*]{text}")
    return "\n".join(out) + "\n"


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~&])")
_BB_SPECIAL = re.compile(r"[\[\]]")
_LINE_BREAKS = re.compile(r"[\r\n\t\v\f\u2028\u2029]")


def _plain(name: str) -> str:
    """A name on one line (a name with a line break could forge a line of the report)."""
    return _LINE_BREAKS.sub(" ", name)


def _md(name: str) -> str:
    """Markdown-escaped: every character Markdown (or the HTML it passes through) reads as markup gets a
    backslash, so a name cannot make a link, emphasis, a heading or a tag."""
    return _MD_SPECIAL.sub(r"\\\1", _plain(name))


def _bb(name: str) -> str:
    """BBCode-escaped: each square bracket is wrapped in [noparse], so a name cannot open or close a tag."""
    return _BB_SPECIAL.sub(lambda m: f"[noparse]{m.group()}[/noparse]", _plain(name))
