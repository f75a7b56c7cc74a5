"""SXYZM Cyclone engine tests.

Load every game package through the registry before any test imports this engine
directly: ``registry._load`` skips loading once any engine is registered, so a direct
import first would hide the other games from the conformance suite.
"""
from engines import registry

registry.names()
