"""Reading the docs' Markdown for the tests that execute it (tests/docs): tables by their header, fenced blocks,
the JSON objects written in them, and the key sketches of docs/api.md (``{"seq", "receipt": {"at"}}``).

The conventions the docs keep, so a test can find what to run:

- an error table has the columns ``status | rule | when`` (a game's rules) or ``status | code | when`` (the API);
- a request is a fenced ``http`` block (``POST /v1/...`` then a blank line and the JSON body, or the body alone
  for an order) or a JSON object in a fenced ``json`` block or an inline code span;
- an answer is a fenced ``json`` block whose lines start with the status: ``202 {...}``.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DOCS = Path(__file__).resolve().parents[2] / "docs"
GAME_DOCS = sorted((DOCS / "games").glob("*.md"))
API_DOC = DOCS / "api.md"


@dataclass(frozen=True)
class Row:
    """One row of a table, by column name; ``where`` says which doc and line, for a failing test's name."""

    cells: dict[str, str]
    where: str

    def __getitem__(self, column: str) -> str:
        return self.cells[column]


@dataclass(frozen=True)
class Block:
    lang: str
    body: str
    where: str


def _cells(line: str) -> list[str]:
    """A table line's cells (a ``\\|`` inside a cell is a literal bar)."""
    parts = re.split(r"(?<!\\)\|", line.strip().strip("|"))
    return [part.strip().replace("\\|", "|") for part in parts]


def tables(path: Path, header: tuple[str, ...]) -> list[Row]:
    """Every row of every table in ``path`` whose header is exactly ``header``."""
    lines = path.read_text().splitlines()
    rows: list[Row] = []
    for index, line in enumerate(lines):
        if not line.startswith("|") or tuple(_cells(line)) != header:
            continue
        for number in range(index + 2, len(lines)):
            if not lines[number].startswith("|"):
                break
            rows.append(Row(dict(zip(header, _cells(lines[number]))), f"{path.name}:{number + 1}"))
    return rows


def blocks(path: Path) -> list[Block]:
    """Every fenced block, with its info string."""
    found, lang, body, start = [], None, [], 0
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if line.startswith("```"):
            if lang is None:
                lang, body, start = line[3:].strip(), [], number
            else:
                found.append(Block(lang, "\n".join(body), f"{path.name}:{start}"))
                lang = None
        elif lang is not None:
            body.append(line)
    return found


def code_spans(text: str) -> list[str]:
    return re.findall(r"`([^`]+)`", text)


def json_objects(text: str) -> list[Any]:
    """Every JSON object written in ``text`` (outermost first; an abridged one, with ``…``, is skipped but the
    whole objects inside it are read)."""
    decoder, found, at = json.JSONDecoder(), [], 0
    while (at := text.find("{", at)) != -1:
        try:
            value, end = decoder.raw_decode(text, at)
        except ValueError:
            at += 1
            continue
        found.append(value)
        at = end
    return found


def answers(path: Path) -> list[tuple[int, Any, str]]:
    """The answers written in ``json`` blocks: ``(status, body, where)`` for each ``NNN {...}``."""
    found = []
    for block in blocks(path):
        if block.lang != "json":
            continue
        for match in re.finditer(r"(?m)^(\d{3}) (?=\{)", block.body):
            body = json_objects(block.body[match.end():])
            if body:
                found.append((int(match.group(1)), body[0], block.where))
    return found


Sketch = dict[str, Any]


def sketch(text: str) -> Sketch:
    """The keys of a shape sketch such as ``{"seq", "receipt": {"game_id", "at"}, "status": "running"}``: each key
    maps to the sketch of its object, to its literal value, or to None (any value)."""
    tokens = re.findall(r'"(?:[^"\\]|\\.)*"|[{}:,]|[^\s{}:,"]+', text)
    position = 0

    def value() -> Any:
        nonlocal position
        token = tokens[position]
        position += 1
        if token == "{":
            return obj()
        return json.loads(token) if token.startswith('"') else token

    def obj() -> Sketch:
        nonlocal position
        keys: Sketch = {}
        while tokens[position] != "}":
            key = json.loads(tokens[position])
            position += 1
            keys[key] = None
            if tokens[position] == ":":
                position += 1
                keys[key] = value()
            if tokens[position] == ",":
                position += 1
        position += 1
        return keys

    assert tokens[0] == "{", text
    position = 1
    return obj()


def matches(sketched: Sketch, answer: dict[str, Any]) -> list[str]:
    """What differs between a sketch and an answer: missing or extra keys, nested objects, literal values."""
    problems = [f"the answer lacks {key!r}" for key in sketched if key not in answer]
    problems += [f"the doc lacks {key!r}" for key in answer if key not in sketched]
    for key, shape in sketched.items():
        if key not in answer:
            continue
        if isinstance(shape, dict):
            problems += [f"{key}: {p}" for p in matches(shape, answer[key] if isinstance(answer[key], dict) else {})]
        elif shape is not None and answer[key] != shape:
            problems.append(f"{key}: the doc says {shape!r}, the answer {answer[key]!r}")
    return problems
