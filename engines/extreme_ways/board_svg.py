"""Extreme Ways as SVG: the players and, once the moves are revealed, the map of where each one ended."""
from __future__ import annotations

from html import escape
from typing import Any

PAD = 24
SCALE = 12


def render(view: dict[str, Any]) -> str:
    """A table of players (with the viewer's own gold and garnets), then the plane with each final position."""
    players = [p for p in view.get("players", []) if isinstance(p, dict)]
    results = view.get("results") if isinstance(view.get("results"), dict) else {}
    positions = {k: v for k, v in (results.get("positions") or {}).items() if isinstance(v, list) and len(v) == 2}
    you = view.get("you") if isinstance(view.get("you"), dict) else {}
    reach = max([abs(int(c)) for v in positions.values() for c in v] + [10])
    side = (2 * reach + 2) * SCALE
    table_h = 22 * (len(players) + 2)
    width = max(PAD * 2 + side, 420)
    height = PAD * 2 + table_h + (side if positions else 0)
    stage = (f'Round {view.get("round")} of {view.get("rounds_total")}, {view.get("stage")}'
             if view.get("round") is not None else f'{view.get("stage")} after {view.get("rounds_total")} rounds')
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
           f'height="{height}" role="img" aria-label="Extreme Ways, {escape(stage)}">',
           f'<rect width="{width}" height="{height}" fill="#fff"/>',
           f'<text x="{PAD}" y="{PAD}" font-family="sans-serif" font-size="14">{escape(stage)}</text>']
    for index, player in enumerate(players):
        y = PAD + 22 * (index + 1)
        mine = player.get("id") == you.get("id")
        extra = f' (you: {you.get("gold")} gold, {you.get("garnets")} garnets)' if mine and "gold" in you else ""
        gone = " (ejected)" if player.get("ejected") else ""
        where = positions.get(player.get("id"))
        at = f" ended at ({where[0]}, {where[1]})" if where else ""
        out.append(f'<text class="player" x="{PAD}" y="{y}" font-family="sans-serif" font-size="12">'
                   f'{index + 1}. {escape(str(player.get("name")))}{escape(gone + extra + at)}</text>')
    if positions:
        top = PAD + table_h
        cx, cy = PAD + side // 2, top + side // 2
        out.append(f'<rect x="{PAD}" y="{top}" width="{side}" height="{side}" fill="#f7f7f2" stroke="#bbb"/>'
                   f'<line x1="{PAD}" y1="{cy}" x2="{PAD + side}" y2="{cy}" stroke="#999"/>'
                   f'<line x1="{cx}" y1="{top}" x2="{cx}" y2="{top + side}" stroke="#999"/>'
                   f'<text x="{cx + 4}" y="{cy + 14}" font-family="sans-serif" font-size="10">(0, 0)</text>')
        order = [p.get("id") for p in players]
        for pid, (x, y) in positions.items():
            number = order.index(pid) + 1 if pid in order else "?"
            px, py = cx + int(x) * SCALE, cy - int(y) * SCALE
            out.append(f'<g class="position" data-player="{escape(str(pid))}"><circle cx="{px}" cy="{py}" r="8" '
                       f'fill="#c0392b"/><text x="{px}" y="{py + 4}" text-anchor="middle" font-size="9" '
                       f'font-family="sans-serif" fill="#fff">{number}</text></g>')
    out.append("</svg>")
    return "".join(out)
