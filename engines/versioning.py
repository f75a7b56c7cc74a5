"""Engine versions: a game package that changed behaviour keeps one ``Rulings`` row per version (its
``versions.py``) and one engine per row, so every recorded game replays under the rules it was played under."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping

from engines.contract import Engine


@dataclass(frozen=True, kw_only=True)
class Rulings:
    """One version's answers where versions differ: a game's row adds a field per ruling that changed."""

    version: str
    # Option defaults of this version, where they differ from the options schema's (a log that predates an option
    # plays under the default its version had).
    defaults: Mapping[str, Any] = field(default_factory=dict)


class Versioned(Engine):
    """An engine played under one row of its game's versions table; its rules read ``self.rulings``."""

    rulings: Rulings

    def __init__(self, rulings: Rulings) -> None:
        self.rulings = rulings
        self.meta = replace(type(self).meta, version=rulings.version)


def every_version(engine: type[Versioned], versions: tuple[Rulings, ...]) -> tuple[Versioned, ...]:
    """One engine per version, oldest first: the last is the one new games get."""
    return tuple(engine(rulings) for rulings in versions)
