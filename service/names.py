"""Player names: one normal form, nothing invisible, and no look-alike of a name already taken.

A name is shown to every player and pasted into forum reports, so it must read as what it
is.  ``player_name`` normalises a name (Unicode NFKC, so a full-width "Ａｎｎ" is "Ann";
runs of spaces made one space; trimmed) and refuses a blank one and any character that
hides or reorders text: control characters, line and paragraph separators, format
characters (bidirectional overrides and isolates, zero-width spaces and joiners, the soft
hyphen), private-use and unassigned code points.  ``taken_by`` then refuses a name that looks
like one already in the game: both are reduced to a *skeleton* (``skeleton``) in which the
letters of other scripts that look like Latin letters (Cyrillic "А", Greek "Ο") are those
letters, "I", "1" and "|" are "l", "0" is "o", "rn" is "m", and case is folded.

The table is the common look-alikes of Latin letters in Cyrillic and Greek, in the spirit of
Unicode's confusables (UTS #39) without its whole data file: it errs on the side of refusing
(a Cyrillic "в" counts as a "b", since its capital looks like one), because a refused name
costs a player a second try, and a confusable one lets them pass for somebody else.
"""
from __future__ import annotations

import re
import unicodedata

from service.errors import invalid

MAX_LENGTH = 60

# Unicode categories no name may hold: Cc control, Cf format (bidi, zero width, soft hyphen),
# Zl / Zp line and paragraph separators, Co private use, Cs surrogates, Cn unassigned.
_REFUSED = {"Cc": "a control character", "Cf": "an invisible formatting character (bidirectional or zero-width)",
            "Zl": "a line separator", "Zp": "a paragraph separator", "Co": "a private-use character",
            "Cs": "a surrogate", "Cn": "an unassigned code point"}

# Look-alikes, by the Latin letter each passes for (capitals and small letters apart: a Greek
# capital Nu looks like N, its small letter like v).
_LOOKS_LIKE = {
    "A": "АΑᎪᗅ", "B": "ВΒᏴ", "C": "СϹᏟ", "E": "ЕΕᎬ", "H": "НΗᎻ", "J": "ЈᎫ", "K": "КΚᏦ", "M": "МΜᎷ",
    "N": "Ν", "O": "ОΟ", "P": "РΡᏢ", "S": "ЅᏚ", "T": "ТΤᎢ", "X": "ХΧ", "Y": "УΥҮ", "Z": "ΖᏃ",
    "a": "аα", "b": "вЬ", "c": "сϲ", "d": "ԁ", "e": "еҽ", "g": "ɡ", "h": "һн", "i": "іιı", "j": "јϳ",
    "k": "кκ", "m": "м", "n": "п", "o": "оοσ0", "p": "рρ", "q": "ԛ", "s": "ѕ", "t": "т", "u": "υ",
    "v": "νѵ", "w": "ԝѡ", "x": "хχ", "y": "уү",
    "l": "I1|ӀΙⅠӏ",
}
_SKELETON = str.maketrans({char: latin[0] for latin, chars in _LOOKS_LIKE.items() for char in chars})
_SPACES = re.compile(r"\s+")


def player_name(raw: str) -> str:
    """The name as it will be stored and shown, or a 422 on ``name`` saying what is wrong with it."""
    name = unicodedata.normalize("NFKC", raw)
    for char in name:  # before spaces are merged: a newline or a tab is refused, not made a space
        why = _REFUSED.get(unicodedata.category(char))
        if why is not None:
            raise invalid(f"A name cannot hold {why} (U+{ord(char):04X}).",
                          {"name": [f"Contains {why}: U+{ord(char):04X}."]})
    name = _SPACES.sub(" ", name).strip()
    if not name:
        raise invalid("A name cannot be blank.", {"name": ["Must contain a visible character."]})
    if len(name) > MAX_LENGTH:
        raise invalid(f"A name has at most {MAX_LENGTH} characters.", {"name": [f"Longer than {MAX_LENGTH}."]})
    return name


def skeleton(name: str) -> str:
    """What ``name`` looks like, as a key: two names with one skeleton are taken for each other."""
    folded = unicodedata.normalize("NFKC", name).translate(_SKELETON).casefold()
    return _SPACES.sub(" ", folded).replace("rn", "m").strip()


def taken_by(name: str, others: list[str]) -> str | None:
    """The first of ``others`` that ``name`` could be taken for, or None."""
    key = skeleton(name)
    return next((other for other in others if skeleton(other) == key), None)
