"""Extreme Ways: information auctions, then a flight as far from Odin as possible."""
from engines.extreme_ways.engine import ENGINE, ExtremeWays
from engines.registry import register

register(ENGINE)

__all__ = ["ENGINE", "ExtremeWays"]
