"""The statuses a schema-valid request may get from the rules of the game, which no JSON Schema can say (409 not
now, 422 a rule broken), and those of replay (the generic and each game type's) and board.svg: 422 for an ``at``
beyond the log or a GM's ``as`` naming no player, 403 for an ``as`` naming another viewer than one's own, 409 for
a board before the start, and 304 for a conditional read whose If-None-Match holds (``*``): one schemathesis
config block for the fuzz and the stateful tests."""
from __future__ import annotations


def rule_statuses(posts: str) -> str:
    """``[[operations]]`` blocks for the POSTs matching the regex ``posts`` and for replay and board.svg; and the Live
    operations left out (the stream process serves them, not the app: their paths name it in ``servers``;
    tests/streams cover them)."""
    return r"""
[[operations]]
include-tag = "Live"
enabled = false

[[operations]]
include-path-regex = '%s'
include-method = "POST"
checks.positive_data_acceptance.expected-statuses = ["2xx", "401", "403", "404", "409", "422"]

[[operations]]
include-path-regex = '^/v1/(games|game-types/[^/]+/games)/\{game_id\}/replay$'
checks.positive_data_acceptance.expected-statuses = ["2xx", "304", "401", "403", "404", "422"]

[[operations]]
include-path = "/v1/games/{game_id}/board.svg"
checks.positive_data_acceptance.expected-statuses = ["2xx", "304", "401", "403", "404", "409", "422"]
""" % posts
