"""Elemental Tag: tag on a grid in teams of the elements, with points as life."""
from engines.elemental_tag.engine import ENGINE, ElementalTag
from engines.registry import register

register(ENGINE)

__all__ = ["ENGINE", "ElementalTag"]
