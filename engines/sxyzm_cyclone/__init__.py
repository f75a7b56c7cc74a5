"""SXYZM Cyclone: roll a die, move cubes toward the other bases, push stacks home."""
from engines.registry import register
from engines.sxyzm_cyclone.engine import SxyzmCyclone

ENGINE = register(SxyzmCyclone())

__all__ = ["ENGINE", "SxyzmCyclone"]
