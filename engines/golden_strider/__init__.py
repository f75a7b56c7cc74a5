"""Golden Strider: a middle-distance race game, with Steeplechase, Tarnished and Robot variants."""
from engines.golden_strider.engine import GoldenStrider
from engines.registry import register

ENGINE = register(GoldenStrider())

__all__ = ["ENGINE", "GoldenStrider"]
