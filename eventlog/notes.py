"""Signed notes and checkpoints (C2SP signed-note and tlog-checkpoint), with Ed25519 keys.

A signed note is a text ending in a newline, a blank line, and signature lines ``— <key name>
<base64 of key id ‖ signature>``; the key id is the first 4 bytes of SHA-256(name ‖ 0x0A ‖ 0x01 ‖
public key).  Keys travel as Go's ``golang.org/x/mod/sumdb/note`` writes them: the verifier key
``<name>+<8 hex of key id>+<base64 of 0x01 ‖ public key>`` and the signer key ``PRIVATE+KEY+<name>+<id>+<base64 of
0x01 ‖ seed>``, so that Go's tools and any C2SP verifier read Arbiter's notes.

A game's log is a transparency log of its own: a checkpoint's origin is ``<key name>/<game id>``, its size the head's
seq and its root hash the head's hash (the chain makes the head hash commit to every event before it, as a Merkle
root does to its leaves).  A receipt is the checkpoint of the log just after the caller's event, with one extension
line ``prev_hash <base64>``.  Pure: no I/O, no clock.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import re
from dataclasses import dataclass
from functools import cached_property

from nacl.exceptions import BadSignatureError, CryptoError
from nacl.signing import SigningKey, VerifyKey

ED25519 = b"\x01"
DASH = "\u2014 "
MAX_SIGNATURES = 16
MAX_NOTE_BYTES = 16 * 1024
PREV_HASH = "prev_hash "
_HEX64 = re.compile(r"[0-9a-f]{64}")
_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f]")  # what a note's text may not hold: control characters but newline


class NoteError(ValueError):
    """A note, key or checkpoint that is malformed, or whose signature does not verify."""


def valid_name(name: str) -> bool:
    """C2SP: a key name is non-empty, with no Unicode space and no plus."""
    return bool(name) and not any(c.isspace() or c == "+" for c in name) and name.isprintable()


def key_id(name: str, public: bytes) -> bytes:
    """The 4-byte key id: SHA-256(name ‖ newline ‖ 0x01 ‖ 32-byte public key)[:4]."""
    return hashlib.sha256(name.encode() + b"\n" + ED25519 + public).digest()[:4]


@dataclass(frozen=True)
class Verifier:
    name: str
    id: bytes
    public: bytes

    @property
    def vkey(self) -> str:
        return f"{self.name}+{self.id.hex()}+{base64.b64encode(ED25519 + self.public).decode()}"

    def verifies(self, text: bytes, signature: bytes) -> bool:
        try:
            VerifyKey(self.public).verify(text, signature)
        except (BadSignatureError, CryptoError, ValueError, TypeError):  # a bad signature, or not a key at all
            return False
        return True


@dataclass(frozen=True)
class Signer:
    name: str
    private: SigningKey

    @cached_property
    def verifier(self) -> Verifier:
        """Computed once: a receipt is signed on every order."""
        public = self.private.verify_key.encode()
        return Verifier(self.name, key_id(self.name, public), public)

    @property
    def skey(self) -> str:
        """The signer key in Go's text form (a secret: it goes in the key file only)."""
        seed = self.private.encode()
        return f"PRIVATE+KEY+{self.name}+{self.verifier.id.hex()}+{base64.b64encode(ED25519 + seed).decode()}"

    def sign(self, text: str) -> str:
        """The signed note of ``text`` (which must be a valid note text, ending in a newline)."""
        _check_text(text)
        signature = self.verifier.id + self.private.sign(text.encode()).signature
        return f"{text}\n{DASH}{self.name} {base64.b64encode(signature).decode()}\n"


def generate(name: str) -> Signer:
    if not valid_name(name):
        raise NoteError(f"a key name must be non-empty, without spaces or '+': {name!r}")
    return Signer(name, SigningKey.generate())


def parse_vkey(vkey: str) -> Verifier:
    """A verifier key ``<name>+<hex id>+<base64 of 0x01 ‖ public key>``, its id checked against its name and key."""
    parts = vkey.strip().split("+", 2)
    if len(parts) != 3 or not valid_name(parts[0]) or not re.fullmatch(r"[0-9a-f]{8}", parts[1]):
        raise NoteError(f"not a verifier key (name+hex id+base64 key): {vkey!r}")
    material = _b64(parts[2], "the verifier key's key")
    if material[:1] != ED25519 or len(material) != 33:
        raise NoteError("the verifier key is not an Ed25519 key (0x01 and 32 bytes)")
    verifier = Verifier(parts[0], bytes.fromhex(parts[1]), material[1:])
    if key_id(verifier.name, verifier.public) != verifier.id:
        raise NoteError("the verifier key's id does not match its name and key")
    return verifier


def parse_skey(skey: str) -> Signer:
    """A signer key ``PRIVATE+KEY+<name>+<hex id>+<base64 of 0x01 ‖ seed>``, its id checked."""
    parts = skey.strip().split("+", 4)  # base64 may hold "+" too
    if len(parts) != 5 or parts[:2] != ["PRIVATE", "KEY"] or not valid_name(parts[2]):
        raise NoteError("not a signer key (PRIVATE+KEY+name+hex id+base64 seed)")
    material = _b64(parts[4], "the signer key's seed")
    if material[:1] != ED25519 or len(material) != 33:
        raise NoteError("the signer key is not an Ed25519 seed (0x01 and 32 bytes)")
    signer = Signer(parts[2], SigningKey(material[1:]))
    if signer.verifier.id.hex() != parts[3]:
        raise NoteError("the signer key's id does not match its name and key")
    return signer


@dataclass(frozen=True)
class Opened:
    """A note whose signature by ``by`` verified."""

    text: str
    by: Verifier


def open_note(note: str, verifiers: list[Verifier]) -> Opened:
    """The note's text, if a known key's signature on it verifies.  Unknown keys' signatures are skipped (C2SP); a
    known key's signature that fails rejects the whole note."""
    if not isinstance(note, str) or len(note.encode()) > MAX_NOTE_BYTES:
        raise NoteError("a note is a text of at most 16 KiB")
    if _CONTROL.search(note) or not note.endswith("\n"):
        raise NoteError("malformed note: control characters, or no final newline")
    split = note.rfind("\n\n")
    if split < 0:
        raise NoteError("malformed note: no blank line before the signatures")
    text, lines = note[: split + 1], note[split + 2:].splitlines()
    if not lines or len(lines) > MAX_SIGNATURES:
        raise NoteError(f"malformed note: 1 to {MAX_SIGNATURES} signature lines")
    found: Verifier | None = None
    for line in lines:
        match = re.fullmatch(r"\u2014 (\S+) ([A-Za-z0-9+/=]+)", line)
        if match is None or not valid_name(match[1]):
            raise NoteError(f"malformed signature line: {line!r}")
        signature = _b64(match[2], "a signature")
        if len(signature) < 5:
            raise NoteError("malformed signature line: too short")
        known = [v for v in verifiers if v.name == match[1] and v.id == signature[:4]]
        if not known:
            continue
        if not known[0].verifies(text.encode(), signature[4:]):
            raise NoteError(f"the signature of {known[0].name}+{known[0].id.hex()} does not verify")
        found = found or known[0]
    if found is None:
        raise NoteError("no signature by a known key (see GET /v1/keys)")
    return Opened(text, found)


# -- checkpoints and receipts ------------------------------------------------------------------------

@dataclass(frozen=True)
class Checkpoint:
    """What a signed checkpoint or receipt says: the game's log had ``size`` events, the last with hash ``head``."""

    origin: str
    size: int
    head: str                     # hex, as the events carry it
    prev_hash: str | None = None  # a receipt's: its event's prev_hash

    @property
    def kind(self) -> str:
        return "receipt" if self.prev_hash is not None else "checkpoint"


def origin(key_name: str, game_id: str) -> str:
    """Every game is a log of its own, named under the service's key name."""
    return f"{key_name}/{game_id}"


def checkpoint_text(cp: Checkpoint) -> str:
    lines = [cp.origin, str(cp.size), _b64hash(cp.head)]
    if cp.prev_hash is not None:
        lines.append(PREV_HASH + _b64hash(cp.prev_hash))
    return "\n".join(lines) + "\n"


def parse_checkpoint(text: str) -> Checkpoint:
    """A checkpoint's (or receipt's) text: origin, size, base64 head hash, and at most the ``prev_hash`` line."""
    lines = text.split("\n")
    if lines[-1] != "" or len(lines) not in (4, 5) or not lines[0]:
        raise NoteError("a checkpoint is an origin, a size, a root hash and at most a prev_hash line")
    if not re.fullmatch(r"0|[1-9][0-9]{0,17}", lines[1]):
        raise NoteError(f"a checkpoint's size is a decimal number: {lines[1]!r}")
    prev = None
    if len(lines) == 5:
        if not lines[3].startswith(PREV_HASH):
            raise NoteError(f"unknown extension line: {lines[3]!r}")
        prev = _hexhash(lines[3][len(PREV_HASH):])
    return Checkpoint(lines[0], int(lines[1]), _hexhash(lines[2]), prev)


def _check_text(text: str) -> None:
    if not text.endswith("\n") or _CONTROL.search(text):
        raise NoteError("a note's text ends in a newline and has no other control characters")


def _b64hash(hex_hash: str) -> str:
    if not _HEX64.fullmatch(hex_hash):
        raise NoteError(f"not a SHA-256 hash in hex: {hex_hash!r}")
    return base64.b64encode(bytes.fromhex(hex_hash)).decode()


def _hexhash(text: str) -> str:
    raw = _b64(text, "a hash")
    if len(raw) != 32:
        raise NoteError("a hash is 32 bytes")
    return raw.hex()


def _b64(text: str, what: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise NoteError(f"{what} is not base64") from exc
