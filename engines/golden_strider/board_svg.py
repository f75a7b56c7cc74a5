"""Golden Strider's track as SVG: squares to the finish, obstacles, and each runner where the viewer's view puts it."""
from __future__ import annotations

from html import escape
from typing import Any

CELL = 18
ROW = 20   # squares a row: the track wraps, so the picture stays about 400 units wide and readable on a phone
PAD = 20
LANE = 16  # each runner's lane within a row
GAP = 26   # between rows: the square numbers and the obstacle marks


def render(view: dict[str, Any]) -> str:
    """The track from square 0 to the finish in rows of ROW squares, barriers (|) and water jumps (~) marked, one
    lane per runner (a numbered disc where the runner stands), then a legend of names, squares and places."""
    length = int(view.get("race_length") or 1)
    runners = [r for r in view.get("runners", []) if isinstance(r, dict)]
    obstacles = view.get("obstacles") or {}
    lanes = max(len(runners), 1)
    rows = length // ROW + 1
    width = PAD * 2 + ROW * CELL
    top = PAD + 24
    row_height = LANE * lanes + GAP
    legend = top + rows * row_height + 6
    height = legend + 20 * len(runners) + PAD
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
           f'height="{height}" role="img" aria-label="Golden Strider track, round {escape(str(view.get("round")))}">',
           f'<rect width="{width}" height="{height}" fill="#fff"/>',
           f'<text x="{PAD}" y="{PAD}" font-family="sans-serif" font-size="15">Round {escape(str(view.get("round")))}'
           f' of a {length}-square race ({escape(str(view.get("variant")))})</text>']

    def at(square: int) -> tuple[int, int]:
        """The top left corner of a square's column in its row."""
        return PAD + (square % ROW) * CELL, top + (square // ROW) * row_height

    for square in range(length + 1):
        x, y = at(square)
        fill = "#ffe9a8" if square == length else "#eef3ea"
        out.append(f'<rect class="square" x="{x}" y="{y}" width="{CELL}" height="{LANE * lanes}" '
                   f'fill="{fill}" stroke="#ccc"/>')
        if square % 5 == 0 or square == length:
            out.append(f'<text x="{x + 1}" y="{y + LANE * lanes + 12}" font-family="sans-serif" '
                       f'font-size="11">{square}</text>')
    for kind, mark, colour in (("barriers", "|", "#8b4513"), ("water_jumps", "~", "#1f77b4")):
        for square in obstacles.get(kind, []) or []:
            if isinstance(square, int) and 0 <= square <= length:
                x, y = at(square)
                out.append(f'<text class="obstacle" x="{x + 5}" y="{y - 3}" font-size="13" font-weight="bold" '
                           f'fill="{colour}" font-family="sans-serif">{mark}</text>')
    for lane, runner in enumerate(runners):
        square = runner.get("square")
        if isinstance(square, int):
            x, y = at(min(max(square, 0), length))
            cx, cy = x + CELL // 2, y + lane * LANE + LANE // 2
            out.append(f'<g class="runner" data-runner="{escape(str(runner.get("id")))}">'
                       f'<circle cx="{cx}" cy="{cy}" r="7" fill="{"#aaa" if runner.get("withdrawn") else "#c0392b"}"/>'
                       f'<text x="{cx}" y="{cy + 3}" text-anchor="middle" font-family="sans-serif" font-size="9" '
                       f'fill="#fff">{lane + 1}</text></g>')
        place = runner.get("position")
        label = f'{lane + 1}. {runner.get("name")}: square {square if square is not None else "?"}' + (
            f", place {place}" if place is not None else "") + (", withdrawn" if runner.get("withdrawn") else "")
        out.append(f'<text x="{PAD}" y="{legend + 20 * lane + 14}" font-family="sans-serif" '
                   f'font-size="14">{escape(label)}</text>')
    out.append("</svg>")
    return "".join(out)
