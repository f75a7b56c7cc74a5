"""Escaping player-provided strings (names, mostly) for the forum reports.

A report is pasted into a forum post as it is, so a name must read as a name and nothing
more: it may not start a line of its own, bold a forged "Winner" line, or open a BBCode tag
that makes the GM speak.  One function per report format; each takes any string and gives
one that the format shows as exactly those characters, on one line.

- ``text``: every character that would break or hide the line (control characters, line and
  paragraph separators, format characters such as bidirectional overrides and zero-width
  joiners) is written as a visible ``\\u{...}`` escape; a backslash is doubled so that an
  escape cannot be forged.
- ``markdown``: ``text``, then every ASCII punctuation mark that CommonMark (or a GFM table,
  for ``|``) could read as syntax is backslash-escaped, which CommonMark defines for every
  ASCII punctuation character.
- ``bbcode``: ``text``, then every ``[`` is followed by an empty ``[b][/b]`` pair, so that no
  bracket can begin a tag: BBCode has no escape character, and forums differ on ``[noparse]``
  and entities, but every parser reads ``[[b][/b]b]`` as a bracket, an empty bold, and ``b]``.

Pure functions of their argument: engines may call them.
"""
from __future__ import annotations

import unicodedata
from typing import Callable

# Categories that break or hide a line: Cc control, Cf format (bidi overrides, zero width),
# Zl / Zp line and paragraph separators, Co private use, Cs surrogates, Cn unassigned.
_HIDDEN = frozenset({"Cc", "Cf", "Zl", "Zp", "Co", "Cs", "Cn"})
_MARKDOWN_SPECIAL = frozenset("\\`*_{}[]()#+-.!|<>~&=")
_BBCODE_BREAK = "[[b][/b]"


def _visible(char: str) -> str:
    if char == "\\":
        return "\\\\"
    if unicodedata.category(char) in _HIDDEN:
        return f"\\u{{{ord(char):04x}}}"
    return char


def text(value: str) -> str:
    """``value`` on one line, every invisible or line-breaking character written out."""
    return "".join(_visible(c) for c in str(value))


def markdown(value: str) -> str:
    """``value`` as Markdown that renders as exactly ``text(value)``, also inside a table cell."""
    return "".join("\\" + c if c in _MARKDOWN_SPECIAL else c for c in text(value))


def bbcode(value: str) -> str:
    """``value`` as BBCode that renders as exactly ``text(value)``: no bracket can open a tag."""
    return text(value).replace("[", _BBCODE_BREAK)


ESCAPE: dict[str, Callable[[str], str]] = {"text": text, "markdown": markdown, "bbcode": bbcode}


def for_format(fmt: str) -> Callable[[str], str]:
    """The escaping function of a report format (``json`` needs none: the identity)."""
    return ESCAPE.get(fmt, str)
