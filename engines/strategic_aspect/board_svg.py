"""Strategic Aspect as SVG: the cycle's spaces, steal and tie-break spaces marked, each cyclist and their steps."""
from __future__ import annotations

from html import escape
from typing import Any

CELL = 34
ROW = 10   # spaces a row: the cycle wraps, so the picture stays under 400 units wide and readable on a phone
PAD = 24
LANE = 18
GAP = 24   # between rows: the space numbers


def render(view: dict[str, Any]) -> str:
    """The spaces 0..length in rows of ROW, each cyclist's marker on their space and their step count in the legend."""
    cycle = view.get("cycle") if isinstance(view.get("cycle"), dict) else {}
    length = int(cycle.get("length") or 30)
    steals = set(cycle.get("steal_spaces") or [])
    tiebreak = cycle.get("tiebreak_space")
    riders = [s for s in view.get("standings", []) if isinstance(s, dict)]
    width = PAD * 2 + ROW * CELL
    top = PAD + 20
    lanes = max(len(riders), 1)
    row_height = LANE * lanes + GAP
    legend = top + (length // ROW + 1) * row_height + 14
    height = legend + 20 * len(riders) + PAD
    title = f'Cycle {cycle.get("number")}, round {cycle.get("round")}, {view.get("stage")}'
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
           f'height="{height}" role="img" aria-label="Strategic Aspect, {escape(title)}">',
           f'<rect width="{width}" height="{height}" fill="#fff"/>',
           f'<text x="{PAD}" y="{PAD}" font-family="sans-serif" font-size="14">{escape(title)}</text>']

    def at(space: int) -> tuple[int, int]:
        return PAD + (space % ROW) * CELL, top + (space // ROW) * row_height

    for space in range(length + 1):
        x, y = at(space)
        fill = "#f9d5d3" if space in steals else "#d6e4f5" if space == tiebreak else "#f1efe6"
        out.append(f'<rect class="space" x="{x}" y="{y}" width="{CELL - 2}" height="{LANE * lanes}" fill="{fill}" '
                   f'stroke="#bbb"/><text x="{x + 3}" y="{y + LANE * lanes + 13}" font-family="sans-serif" '
                   f'font-size="11">{space}</text>')
    for lane, rider in enumerate(riders):
        position = rider.get("position")
        if isinstance(position, int):
            x, y = at(min(max(position, 0), length))
            x += CELL // 2 - 1
            out.append(f'<g class="cyclist" data-player="{escape(str(rider.get("id")))}"><circle cx="{x}" '
                       f'cy="{y + LANE * lane + 9}" r="7" fill="#2c7fb8"/><text x="{x}" y="{y + LANE * lane + 12}" '
                       f'text-anchor="middle" font-size="9" font-family="sans-serif" fill="#fff">{lane + 1}</text></g>')
        where = f"space {position}" if position is not None else "off the board"
        label = (f'{lane + 1}. {rider.get("name")}: {where}, steps {rider.get("shown", rider.get("steps"))}'
                 f', {rider.get("status")}' + (", holds the vote" if rider.get("vote_holder") else ""))
        out.append(f'<text x="{PAD}" y="{legend + 20 * lane}" font-family="sans-serif" '
                   f'font-size="13">{escape(label)}</text>')
    out.append("</svg>")
    return "".join(out)
