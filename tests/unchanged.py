"""Finding whether anything changed data it was given: for the checks that engines and the fold mutate nothing."""
from __future__ import annotations

import operator
from typing import Any

_CONTAINERS = (dict, list, tuple)
_IMMUTABLE = (str, int, float, bool, type(None))


class Unchanged:
    """Every dict, list and tuple reachable from what it was shown, as it was then (its keys in order and the very
    objects it held), each kept once however many states share it.

    A step shares what it leaves alone with the state before it, so a game's states hold little distinct data
    but their ``repr``s together are quadratic in its length: this costs the distinct data once.  Stricter than
    comparing ``repr``s: a value replaced by an equal copy counts as a change (it is a write to data given)."""

    def __init__(self) -> None:
        self._kept: dict[int, tuple[Any, list[Any] | None, list[Any]]] = {}  # id -> (object, its keys, its items)
        self._other: list[tuple[Any, str]] = []  # anything else (a set ...): its repr

    def keep(self, value: Any) -> Any:
        """Remember ``value`` and all it holds as they are now; returns ``value``."""
        todo = [value]
        while todo:
            item = todo.pop()
            kind = type(item)
            if kind in _CONTAINERS:
                if id(item) not in self._kept:
                    items = list(item.values()) if kind is dict else list(item)
                    self._kept[id(item)] = (item, list(item) if kind is dict else None, items)
                    todo.extend(items)
            elif kind not in _IMMUTABLE:
                self._other.append((item, repr(item)))
        return value

    def changed(self) -> list[Any]:
        """What has changed since it was kept (dicts, lists and other objects, as they are now): empty when nothing."""
        found = []
        for item, keys, items in self._kept.values():
            now = list(item.values()) if keys is not None else list(item)
            if (keys is not None and list(item) != keys) or len(now) != len(items) or any(
                    map(operator.is_not, now, items)):
                found.append(item)
        return found + [item for item, then in self._other if repr(item) != then]
