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

import orjson

from engines.canonical import canonical_bytes

T = TypeVar("T")

_SPACE = 1 << 64
_FOUR_U64 = struct.Struct(">4Q")  # a SHA-256 block as four big-endian 8-byte draws
_U64S: dict[int, struct.Struct] = {}  # the same for several blocks, by their number (a few sizes are asked)
_PATH_TYPES = frozenset({str, int})  # what purposes are made of: orjson writes them canonically


class Rng:
    """A reproducible stream of uniform draws for one purpose within one game."""

    __slots__ = ("_seed", "_purpose", "_path", "_key", "_counter", "_pending")

    def __init__(self, seed: str, *purpose: str | int) -> None:
        path = _plain_path((seed, *purpose))
        self._open(seed, purpose, canonical_bytes([seed, *purpose]) if path is None else path)

    def _open(self, seed: str, purpose: tuple[str | int, ...], path: bytes) -> None:
        self._seed = seed
        self._purpose = purpose
        self._path = path  # canonical_bytes([seed, *purpose]), made at once: it raises where the path is not data
        self._key: bytes | None = None  # sha256(path), at the first draw: many streams are only forked, or unused
        self._counter = 0
        self._pending: list[int] = []  # the drawn blocks' draws not yet taken, the next one last

    def fork(self, *purpose: str | int) -> "Rng":
        """An independent stream for a sub-purpose, unaffected by draws made here.

        Its path's canonical bytes are this one's with the new parts' added (a JSON array's items are written
        each on its own), without writing the seed and this purpose again; any part orjson may not write as
        canonical_bytes does takes the whole path to canonical_bytes, which says what it makes of it."""
        full = (*self._purpose, *purpose)
        tail = _plain_path(purpose) if purpose else None
        if tail is not None:
            path = self._path[:-1] + b"," + tail[1:]
        else:
            path = self._path if not purpose else canonical_bytes([self._seed, *full])
        child = Rng.__new__(Rng)
        child._open(self._seed, full, path)
        return child

    def _blocks(self, count: int) -> tuple[int, ...]:
        """The stream's next ``count`` blocks' draws, the first one last (as ``_pending`` holds them): hashed in
        one loop and unpacked at once (setup draws eight blocks at a time)."""
        key = self._key
        if key is None:
            key = self._key = hashlib.sha256(self._path).digest()
        start = self._counter
        self._counter = start + count
        sha256 = hashlib.sha256
        if count == 1:  # most draws: one block, no loop
            return _FOUR_U64.unpack(sha256(key + start.to_bytes(8, "big")).digest())[::-1]
        data = b""
        for counter in range(start, start + count):  # a loop, not a comprehension: no frame to make
            data += sha256(key + counter.to_bytes(8, "big")).digest()
        unpacker = _U64S.get(count)
        if unpacker is None:
            unpacker = _U64S[count] = struct.Struct(f">{4 * count}Q")
        return unpacker.unpack(data)[::-1]

    def _u64(self) -> int:
        """The next 8 bytes of the stream as an unsigned big-endian integer (a block holds four)."""
        if not self._pending:
            self._pending = list(self._blocks(1))
        return self._pending.pop()

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``."""
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        limit = _SPACE - (_SPACE % n)
        while True:
            pending = self._pending  # the current block's next draw taken here: one call fewer per draw
            value = pending.pop() if pending else self._u64()
            if value < limit:
                return value % n

    def belows(self, n: int, count: int) -> list[int]:
        """``[self.below(n) for _ in range(count)]``: the same draws from the stream, taken in one call
        (setup draws hundreds).  A value that ``below`` would reject (about n in 2**64) sends them all
        back, to be drawn one by one."""
        if count <= 0:
            return []
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        pending = self._pending
        short = count - len(pending)
        if short > 0:
            pending[:0] = self._blocks((short + 3) // 4)  # after the draws still pending
        taken = pending[: -count - 1 : -1]  # the next ``count`` draws, in the stream's order
        if max(taken) >= _SPACE - (_SPACE % n):
            return [self.below(n) for _ in range(count)]
        del pending[-count:]
        return [value % n for value in taken]

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


def _plain_path(parts: tuple[str | int, ...]) -> bytes | None:
    """``canonical_bytes(list(parts))`` where every part is exactly a str or an int and orjson takes them all
    (the engines' purposes always are): orjson writes those canonically (engines/canonical.py).  None
    otherwise, for canonical_bytes to decide."""
    if not _PATH_TYPES.issuperset(map(type, parts)):
        return None
    try:
        return orjson.dumps(parts)
    except TypeError:  # an int past 64 bits, a str that is not valid UTF-8
        return None
