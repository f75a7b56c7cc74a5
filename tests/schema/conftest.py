"""Schemathesis's test items, one per API operation, get node ids of their own.

Under pytest 9 they all share the parametrized function's node id (the operation is only in their name), and
pytest-xdist, which sends tests to its workers by node id, then runs the first operation alone: the fuzz test
fuzzed GET /v1/health and nothing else under ``-n 2``.  Each item's id is given its operation, as without
xdist."""
from __future__ import annotations

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if type(item).__name__ != "SchemathesisFunction" or "[" in item.nodeid:
            continue
        unique = f"{item.nodeid.rsplit('::', 1)[0]}::{item.name}"
        if hasattr(item, "_id"):  # pytest 9: a structured id
            from _pytest.nodeid import coerce_node_id

            item._id = coerce_node_id(unique)
        else:
            item._nodeid = unique
