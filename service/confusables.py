"""Unicode's confusable skeletons (UTS #39) and default-ignorable code points, from maintained data.

The look-alike classes come from Unicode's ``confusables.txt`` as the ``confusable_homoglyphs`` package ships
it (each source character beside its prototype, both directions); the default-ignorable set is the Unicode
property ``Default_Ignorable_Code_Point`` as the ``regex`` module knows it.  Neither is a hand list: a new
Unicode release comes with a package upgrade.

``confusables.txt`` maps every source character to a prototype that is never itself a source, so its pairs
form classes with one prototype each; the prototype is the only member that may be longer than one character
("rn" for "m").  A class's key is its prototype where that is a sequence, else its smallest member: the
skeleton differs from UTS #39's letter for letter, never in which strings it makes equal.
"""
from __future__ import annotations

import functools
import importlib.resources
import json
import unicodedata

import regex

_IGNORABLE = regex.compile(r"\p{Default_Ignorable_Code_Point}")
_DIRECTION_MARKS = str.maketrans("", "", "\u200e\u200f")  # the data wraps right-to-left characters in them


def is_default_ignorable(char: str) -> bool:
    """Drawn as nothing by Unicode's rule (a variation selector, a Hangul filler, a zero-width joiner ...)."""
    return _IGNORABLE.match(char) is not None


@functools.cache
def _prototypes() -> dict[str, str]:
    """Each confusable character, mapped to its class's key."""
    pairs = json.loads((importlib.resources.files("confusable_homoglyphs") / "confusables.json").read_text("utf-8"))
    parent: dict[str, str] = {}

    def root(item: str) -> str:
        while parent.setdefault(item, item) != item:
            parent[item] = parent[parent[item]]
            item = parent[item]
        return item

    for source, likes in pairs.items():
        for like in likes:
            one, other = root(source.translate(_DIRECTION_MARKS)), root(like["c"].translate(_DIRECTION_MARKS))
            if one != other:
                parent[one] = other
    classes: dict[str, list[str]] = {}
    for member in list(parent):
        classes.setdefault(root(member), []).append(member)
    single = {member: min(members) for members in classes.values() for member in members if len(member) == 1}
    table = {}
    for members in classes.values():
        sequences = [m for m in members if len(m) > 1]
        key = "".join(single.get(c, c) for c in sequences[0]) if sequences else min(members)
        table.update({member: key for member in members if len(member) == 1 and member != key})
    return table


def skeleton(text: str) -> str:
    """UTS #39's skeleton: decomposed, default-ignorables dropped, each character its class's key, decomposed."""
    table = _prototypes()
    decomposed = unicodedata.normalize("NFD", text)
    mapped = "".join(table.get(char, char) for char in decomposed if not is_default_ignorable(char))
    return unicodedata.normalize("NFD", mapped)
