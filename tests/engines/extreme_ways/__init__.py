"""Extreme Ways engine tests.

Load the registry before any test imports ``engines.extreme_ways``: the registry's
``_load`` skips loading when an engine is already registered, so importing this
package first would hide the other games from the conformance suite.
"""
from engines import registry

registry.names()
