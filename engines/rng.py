"""Deterministic randomness from the game seed: SHA-256 in counter mode.

A stream is keyed by the seed and a purpose path (for example ``("phase", 7)``):
``key = sha256(canonical_json([seed, *purpose]))`` and block ``i`` is
``sha256(key || i as 8 bytes big-endian)``.  Each draw takes the next 8 bytes as an
unsigned big-endian integer; ``below(n)`` rejects values at or above the largest
multiple of ``n`` so every outcome is exactly uniform.  Nothing here depends on
Python's ``random`` module, so the draws are the same on every machine and version.
"""
from __future__ import annotations

import hashlib
import struct
from typing import Sequence, TypeVar

from engines.canonical import canonical_bytes

T = TypeVar("T")

_SPACE = 1 << 64
_FOUR_U64 = struct.Struct(">4Q")  # a SHA-256 block as four big-endian 8-byte draws


class Rng:
    """A reproducible stream of uniform draws for one purpose within one game."""

    __slots__ = ("_seed", "_purpose", "_path", "_key", "_counter", "_pending")

    def __init__(self, seed: str, *purpose: str | int) -> None:
        self._seed = seed
        self._purpose = purpose
        self._path = canonical_bytes([seed, *purpose])  # at once: it raises where the path is not data
        self._key: bytes | None = None  # sha256(path), at the first draw: many streams are only forked, or unused
        self._counter = 0
        self._pending: list[int] = []  # the drawn block's draws not yet taken, the next one last

    def fork(self, *purpose: str | int) -> "Rng":
        """An independent stream for a sub-purpose, unaffected by draws made here."""
        return Rng(self._seed, *self._purpose, *purpose)

    def _u64(self) -> int:
        """The next 8 bytes of the stream as an unsigned big-endian integer (a block holds four)."""
        if not self._pending:
            if self._key is None:
                self._key = hashlib.sha256(self._path).digest()
            block = hashlib.sha256(self._key + self._counter.to_bytes(8, "big")).digest()
            self._counter += 1
            self._pending = list(_FOUR_U64.unpack(block)[::-1])
        return self._pending.pop()

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``."""
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        limit = _SPACE - (_SPACE % n)
        while True:
            value = self._u64()
            if value < limit:
                return value % n

    def randint(self, low: int, high: int) -> int:
        """A uniform integer in ``[low, high]``, both ends included."""
        if high < low:
            raise ValueError("randint() needs low <= high")
        return low + self.below(high - low + 1)

    def choice(self, items: Sequence[T]) -> T:
        if not items:
            raise ValueError("choice() from an empty sequence")
        return items[self.below(len(items))]

    def shuffled(self, items: Sequence[T]) -> list[T]:
        """A new list in uniformly random order (Fisher-Yates from the end)."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out

    def sample(self, items: Sequence[T], k: int) -> list[T]:
        """``k`` distinct items in random order."""
        if not 0 <= k <= len(items):
            raise ValueError("sample() size out of range")
        return self.shuffled(items)[:k]

