"""Marks an engine puts on its sign-up schema for the platform to read."""
from __future__ import annotations

# Marshmallow metadata on a ``join_schema`` field (or a list's items) that is a name a player types: the platform
# checks it as it checks player names (service/names.py: no invisible or markup characters, no look-alike of a
# name in the game) before the engine sees it.
TYPED_NAME = "typed_name"
