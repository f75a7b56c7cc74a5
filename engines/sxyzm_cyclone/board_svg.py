"""SXYZM Cyclone's board as SVG: each colour's path with its stacks (bottom cube lowest), the centre and the bases."""
from __future__ import annotations

from html import escape
from typing import Any

CELL = 40
CUBE = 14
PAD = 24
COLOURS = {"blue": "#1f77b4", "yellow": "#e6b800", "green": "#2ca02c", "red": "#d62728"}


def render(view: dict[str, Any]) -> str:
    """One row per open path, its spaces left to right toward the centre; each stack drawn upward; then each
    player's colour and their base's cubes home and finished."""
    paths = {c: p for c, p in (view.get("paths") or {}).items() if isinstance(p, dict) and p.get("open")}
    length = int(view.get("path_length") or max((len(p.get("spaces", [])) for p in paths.values()), default=1))
    tallest = max([len(s.get("stack", [])) for p in paths.values() for s in p.get("spaces", [])] + [3])
    row_height = CUBE * tallest + 28
    players = [p for p in view.get("players", []) if isinstance(p, dict)]
    width = PAD * 2 + 60 + length * CELL  # the bases' counts go in the legend: the picture fits a phone
    height = PAD * 2 + 20 + row_height * max(len(paths), 1) + 22 * (len(players) + 1)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
           f'height="{height}" role="img" aria-label="SXYZM Cyclone board, turn {escape(str(view.get("turn")))}">',
           f'<rect width="{width}" height="{height}" fill="#fff"/>',
           f'<text x="{PAD}" y="{PAD}" font-family="sans-serif" font-size="14">Turn {escape(str(view.get("turn")))}'
           f'{_current(view)}</text>']
    bases = view.get("bases") or {}
    for row, (colour, path) in enumerate(paths.items()):
        base_y = PAD + 20 + row * row_height + row_height - 14
        out.append(f'<text x="{PAD}" y="{base_y}" font-family="sans-serif" font-size="12">{escape(colour)}</text>')
        for index, space in enumerate(path.get("spaces", [])):
            x = PAD + 60 + index * CELL
            out.append(f'<rect class="space" x="{x}" y="{base_y - 8}" width="{CELL - 6}" height="10" '
                       f'fill="{COLOURS.get(colour, "#999")}" opacity="0.35"/>')
            for level, cube in enumerate(space.get("stack", [])):
                out.append(_cube(cube, x + (CELL - 6 - CUBE) // 2, base_y - 10 - (level + 1) * CUBE))
    centre = view.get("centre") or []
    if centre:
        out.append(f'<text x="{PAD}" y="{height - 22 * (len(players) + 1) - 4}" font-family="sans-serif" '
                   f'font-size="11">centre: {escape(", ".join(map(str, centre)))}</text>')
    for index, player in enumerate(players):
        y = height - 22 * (len(players) - index) - 6
        base = bases.get(str(player.get("colour"))) or {}
        label = (f'{player.get("name")}: {player.get("colour")}, home {len(base.get("home", []))}, finished '
                 f'{len(base.get("finished", []))}' + (" (ejected)" if player.get("ejected") else ""))
        out.append(f'<rect x="{PAD}" y="{y - 10}" width="12" height="12" '
                   f'fill="{COLOURS.get(str(player.get("colour")), "#999")}"/>'
                   f'<text x="{PAD + 18}" y="{y}" font-family="sans-serif" font-size="12">{escape(label)}</text>')
    out.append("</svg>")
    return "".join(out)


def _cube(cube: str, x: int, y: int) -> str:
    colour, _, number = str(cube).partition("-")
    return (f'<g class="cube" data-cube="{escape(str(cube))}"><rect x="{x}" y="{y}" width="{CUBE}" height="{CUBE}" '
            f'fill="{COLOURS.get(colour, "#999")}" stroke="#222"/><text x="{x + CUBE // 2}" y="{y + 11}" '
            f'text-anchor="middle" font-family="sans-serif" font-size="9" fill="#fff">{escape(number)}</text></g>')


def _current(view: dict[str, Any]) -> str:
    current = view.get("current")
    if not isinstance(current, dict):
        return ""
    roll = f', rolled {current["roll"]}' if current.get("roll") is not None else ""
    return escape(f', {current.get("name")} to play{roll}')
