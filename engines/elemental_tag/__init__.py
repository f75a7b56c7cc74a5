"""Elemental Tag: tag on a grid in teams of the elements, with points as life."""
from engines.elemental_tag.engine import ENGINE, ENGINES, ElementalTag
from engines.registry import register

for _engine in ENGINES:
    register(_engine)

__all__ = ["ENGINE", "ElementalTag"]
