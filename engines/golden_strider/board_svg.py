"""Golden Strider's track as SVG: squares to the finish, obstacles, and each runner where the viewer's view puts it."""
from __future__ import annotations

from html import escape
from typing import Any

CELL = 14
PAD = 24
LANE = 22


def render(view: dict[str, Any]) -> str:
    """The track from square 0 to the finish, barriers (|) and water jumps (~) marked, one lane per runner."""
    length = int(view.get("race_length") or 1)
    runners = [r for r in view.get("runners", []) if isinstance(r, dict)]
    obstacles = view.get("obstacles") or {}
    width = PAD * 2 + (length + 1) * CELL + 220
    top = PAD + 20
    height = top + LANE * max(len(runners), 1) + PAD + 20
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
           f'height="{height}" role="img" aria-label="Golden Strider track, round {escape(str(view.get("round")))}">',
           f'<rect width="{width}" height="{height}" fill="#fff"/>',
           f'<text x="{PAD}" y="{PAD}" font-family="sans-serif" font-size="14">Round {escape(str(view.get("round")))}'
           f' of a {length}-square race ({escape(str(view.get("variant")))})</text>']
    for square in range(length + 1):
        x = PAD + square * CELL
        fill = "#ffe9a8" if square == length else "#eef3ea"
        out.append(f'<rect class="square" x="{x}" y="{top}" width="{CELL}" height="{LANE * max(len(runners), 1)}" '
                   f'fill="{fill}" stroke="#ccc"/>')
        if square % 10 == 0:
            out.append(f'<text x="{x + 2}" y="{height - 8}" font-family="sans-serif" font-size="9">{square}</text>')
    for kind, mark, colour in (("barriers", "|", "#8b4513"), ("water_jumps", "~", "#1f77b4")):
        for square in obstacles.get(kind, []) or []:
            if isinstance(square, int) and 0 <= square <= length:
                out.append(f'<text class="obstacle" x="{PAD + square * CELL + 4}" y="{top - 4}" font-size="12" '
                           f'fill="{colour}" font-family="sans-serif">{mark}</text>')
    for lane, runner in enumerate(runners):
        square = runner.get("square")
        y = top + lane * LANE + LANE // 2
        if isinstance(square, int):
            x = PAD + min(max(square, 0), length) * CELL + CELL // 2
            out.append(f'<g class="runner" data-runner="{escape(str(runner.get("id")))}">'
                       f'<circle cx="{x}" cy="{y}" r="6" fill="{"#aaa" if runner.get("withdrawn") else "#c0392b"}"/>'
                       '</g>')
        place = runner.get("position")
        label = f'{runner.get("name")} (square {square if square is not None else "?"}' + (
            f', place {place})' if place is not None else ")")
        out.append(f'<text x="{PAD + (length + 1) * CELL + 8}" y="{y + 4}" font-family="sans-serif" '
                   f'font-size="11">{escape(label)}</text>')
    out.append("</svg>")
    return "".join(out)
