"""Elemental Tag's grid as SVG, drawn from a viewer's view only (so it shows nothing that view hides)."""
from __future__ import annotations

from html import escape
from typing import Any

CELL = 56
PAD = 24


def render(view: dict[str, Any]) -> str:
    """The grid with each player on their square in their element's colour (the square tinted with it), "it" ringed
    in red, then a legend of names, teams and elements."""
    size = int(view.get("size") or 1)
    players = [p for p in view.get("players", []) if isinstance(p, dict)]
    legend_top = PAD * 2 + size * CELL
    width = max(PAD * 2 + size * CELL, 360)
    height = legend_top + 22 * (len(players) + 1) + PAD
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
           f'height="{height}" role="img" aria-label="Elemental Tag grid, round {escape(str(view.get("round")))}">',
           f'<rect width="{width}" height="{height}" fill="#fff"/>',
           f'<text x="{PAD}" y="{PAD - 6}" font-family="sans-serif" font-size="14">Round '
           f'{escape(str(view.get("round")))}, {escape(str(view.get("stage")))}</text>']
    elements = {p.get("id"): p.get("element") for p in players}
    tint = {}  # an occupied square takes the tint of the element of its first player's team
    for player in players:
        square = player.get("square")
        if isinstance(square, list) and len(square) == 2:
            tint.setdefault((int(square[0]), int(square[1])), ELEMENTS.get(elements.get(player.get("id")), NONE)[1])
    for row in range(size):
        for col in range(size):
            out.append(f'<rect class="square" x="{PAD + col * CELL}" y="{PAD + row * CELL}" width="{CELL}" '
                       f'height="{CELL}" fill="{tint.get((col + 1, row + 1), "#f4f1e8")}" stroke="#999"/>')
    crowd: dict[tuple[int, int], int] = {}
    for index, player in enumerate(players):
        square = player.get("square")
        if not (isinstance(square, list) and len(square) == 2):
            continue
        x, y = int(square[0]), int(square[1])
        slot = crowd.get((x, y), 0)
        crowd[(x, y)] = slot + 1
        cx = PAD + (x - 1) * CELL + 14 + (slot % 3) * 14
        cy = PAD + (y - 1) * CELL + 16 + (slot // 3) * 18
        it = player.get("id") == view.get("it")
        fill, _, ink = ELEMENTS.get(player.get("element"), NONE)
        out.append(f'<g class="player" data-player="{escape(str(player.get("id")))}">'
                   f'<circle cx="{cx}" cy="{cy}" r="8" fill="{fill}" '
                   f'stroke="{"#c00" if it else "#333"}" stroke-width="{3 if it else 1}"/>'
                   f'<text x="{cx}" y="{cy + 4}" text-anchor="middle" font-family="sans-serif" font-size="9" '
                   f'fill="{ink}">{index + 1}</text></g>')
    teams = {m: t.get("team") for t in view.get("teams", []) for m in t.get("members", [])}
    for index, player in enumerate(players):
        y = legend_top + 22 * index
        it = " (it)" if player.get("id") == view.get("it") else ""
        label = (f'{index + 1}. {player.get("name")}{it}, team {teams.get(player.get("id"), "-")}, '
                 f'element {player.get("element") or "none"}')
        out.append(f'<circle cx="{PAD + 6}" cy="{y - 4}" r="6" fill="{ELEMENTS.get(player.get("element"), NONE)[0]}" '
                   'stroke="#333"/>'
                   f'<text x="{PAD + 18}" y="{y}" font-family="sans-serif" font-size="12">{escape(label)}</text>')
    out.append("</svg>")
    return "".join(out)


# Each element's colour (a player's disc), the tint of a square its team stands on, and the ink of a number on it;
# the underworld (no element yet) is grey.
ELEMENTS = {
    "fire": ("#d62728", "#fbe0dc", "#fff"), "water": ("#1f5fb4", "#dce8f8", "#fff"),
    "earth": ("#8c564b", "#efe4dc", "#fff"), "air": ("#9edae5", "#eef8fa", "#111"),
    "lightning": ("#f2c200", "#fdf6d2", "#111"), "ice": ("#c6e2ff", "#f0f7ff", "#111"),
    "light": ("#fffbe6", "#fffdf2", "#111"), "darkness": ("#2b2340", "#e2dfe9", "#fff"),
}
NONE = ("#9a9a9a", "#ececec", "#fff")
