"""Names players type: one normal form, nothing invisible, and no look-alike of a name already taken.

A name is shown to every player, drawn on boards and pasted into forum reports, so it must read
as what it is.  ``player_name`` normalises a name (Unicode NFKC, so a full-width "Ａｎｎ" is "Ann";
runs of spaces made one space; trimmed) and refuses a blank one and any character that hides,
reorders or marks up text: control characters, line and paragraph separators, format characters
(bidirectional overrides and isolates, zero-width spaces and joiners, the soft hyphen), every
default-ignorable code point (variation selectors, Hangul fillers ...), private-use and unassigned
code points, BBCode's square brackets; a name needs a letter or a digit and cannot open with a
combining mark.  ``taken_by`` then refuses a name that looks like one already in the game: both are
reduced to Unicode's confusable skeleton (UTS #39, ``service/confusables.py``), case folded.

Every name a player types goes through here: player names at sign-up, and every sign-up field a
game type marks as a name (``TYPED_NAME``: Golden Strider's runner names), which must not look like
another player's name or typed name either.  The check is the platform's, at admission: recorded
games are never re-judged by it (a newer Unicode may refuse a name an older one let in).
"""
from __future__ import annotations

import re
import unicodedata
from typing import Any, Iterator

from marshmallow import Schema, fields

from engines.typed import TYPED_NAME
from service import confusables
from service.errors import ApiError, invalid

MAX_LENGTH = 60

# Unicode categories no name may hold: Cc control, Cf format (bidi, zero width, soft hyphen),
# Zl / Zp line and paragraph separators, Co private use, Cs surrogates, Cn unassigned.
_REFUSED = {"Cc": "a control character", "Cf": "an invisible formatting character (bidirectional or zero-width)",
            "Zl": "a line separator", "Zp": "a paragraph separator", "Co": "a private-use character",
            "Cs": "a surrogate", "Cn": "an unassigned code point"}
_MARKUP = {"[": "BBCode markup ([)", "]": "BBCode markup (])"}  # a forum report must not turn a name into a tag
# U+2800 BRAILLE PATTERN BLANK draws nothing, yet Unicode makes it a symbol, neither a space nor ignorable:
# here it is a space, so a name of it alone is blank and "Ann" followed by it is "Ann".
_SPACES = re.compile(r"[\s\u2800]+")


def _refusal(char: str) -> str | None:
    """Why ``char`` may not be in a name, or None."""
    why = _REFUSED.get(unicodedata.category(char)) or _MARKUP.get(char)
    if why is None and confusables.is_default_ignorable(char):
        why = "an invisible character"
    return why


def player_name(raw: str, field: str = "name") -> str:
    """The name as it will be stored and shown, or a 422 on ``field`` saying what is wrong with it."""
    name = unicodedata.normalize("NFKC", raw)
    for char in name:  # before spaces are merged: a newline or a tab is refused, not made a space
        if (why := _refusal(char)) is not None:
            raise invalid(f"A name cannot hold {why} (U+{ord(char):04X}).",
                          {field: [f"Contains {why}: U+{ord(char):04X}."]})
    name = _SPACES.sub(" ", name).strip()
    if not name:
        raise invalid("A name cannot be blank.", {field: ["Must contain a visible character."]})
    if not any(unicodedata.category(char)[0] in "LN" for char in name):
        raise invalid("A name needs a letter or a digit.", {field: ["Must contain a letter or a digit."]})
    if unicodedata.category(name[0]).startswith("M"):
        raise invalid("A name cannot open with a combining mark.", {field: ["Starts with a combining mark."]})
    if len(name) > MAX_LENGTH:
        raise invalid(f"A name has at most {MAX_LENGTH} characters.", {field: [f"Longer than {MAX_LENGTH}."]})
    return name


def skeleton(name: str) -> str:
    """What ``name`` looks like, as a key: two names with one skeleton are taken for each other."""
    folded = confusables.skeleton(confusables.skeleton(unicodedata.normalize("NFKC", name)).casefold())
    return _SPACES.sub(" ", folded).strip()


def taken_by(name: str, others: list[str]) -> str | None:
    """The first of ``others`` that ``name`` could be taken for, or None."""
    key = skeleton(name)
    return next((other for other in others if skeleton(other) == key), None)


def _typed_fields(schema: type[Schema] | None) -> Iterator[tuple[str, bool]]:
    """Each sign-up field ``schema`` marks ``TYPED_NAME``, and whether it holds a list of names."""
    for key, field in (schema._declared_fields.items() if schema is not None else ()):
        if field.metadata.get(TYPED_NAME):
            yield key, False
        elif isinstance(field, fields.List) and field.inner.metadata.get(TYPED_NAME):
            yield key, True


def typed_names(schema: type[Schema], loaded: dict[str, Any]) -> dict[str, Any]:
    """``loaded`` (sign-up fields, or an order) with every field ``schema`` marks ``TYPED_NAME`` checked and
    normalised like a player's name, also inside nested objects (a robot's algorithm); an empty one stays empty
    (where the schema allows it, it means no name).  A list of names is checked name by name, and its names must
    not look alike."""
    checked = dict(loaded)
    for key, many in _typed_fields(schema):
        if checked.get(key) in (None, ""):
            continue
        if not many:
            checked[key] = player_name(checked[key], key)
            continue
        checked[key] = [player_name(item, key) for item in checked[key]]
        for index, item in enumerate(checked[key]):
            if (twin := taken_by(item, checked[key][:index])) is not None:
                raise invalid("Two of these names look alike.", {key: [f"{item!r} looks like {twin!r}."]})
    for key, field in schema._declared_fields.items():
        if isinstance(field, fields.Nested) and isinstance(checked.get(key), dict):
            try:
                checked[key] = typed_names(type(field.schema), checked[key])
            except ApiError as exc:  # the inner field's error, under the field that holds it
                raise invalid(exc.message, {key: exc.details}) from exc
    return checked


def names_in_game(schema: type[Schema] | None, players: list[dict[str, Any]]) -> list[str]:
    """Every name these players go by: their own and every sign-up field ``schema`` marks ``TYPED_NAME``."""
    found = []
    for player in players:
        found.append(player["name"])
        for key, many in _typed_fields(schema):
            value = player["fields"].get(key)
            found.extend(value if many and value is not None else [value] if value is not None else [])
    return found


def refuse_typed_lookalikes(schema: type[Schema] | None, loaded: dict[str, Any], taken: list[str]) -> None:
    """A 422 on the field if a name typed in ``loaded`` looks like one of ``taken`` (the game's other names)."""
    for key, many in _typed_fields(schema):
        value = loaded.get(key)
        for item in (value if many else [value]) if value is not None else []:
            if (lookalike := taken_by(item, taken)) is not None:
                raise invalid("That name is taken in this game, or looks like one that is.",
                              {key: [f"{item!r} looks like {lookalike!r}."]})
