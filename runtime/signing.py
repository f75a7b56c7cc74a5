"""The service's signing keys and the checkpoints it keeps outside Redis (issue 29).

The key file (``ARBITER_SIGNING_KEY``) is text: one ``PRIVATE+KEY+…`` line, the key that signs (Go's signer-key
form), and a ``retired <when> <vkey>`` line for each key a rotation retired, so old receipts still verify.  It lives
outside Redis on purpose: whoever can rewrite the store must not thereby be able to sign.  Without a key file the
process signs with a key of its own that dies with it (tests, a quick try): said on stderr.

Beside the key file, ``<key file>.checkpoints.sqlite`` keeps each game's latest signed checkpoint: after a full
restart the API and the worker compare every game's head with it, so a store that went back is found even when no
process remembers the game (``runtime/checkpoints.py``).
"""
from __future__ import annotations

import fcntl
import logging
import os
import sqlite3
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from eventlog import notes
from eventlog.events import Event, now_iso

log = logging.getLogger("arbiter.signing")

RETIRED = "retired"
RECHECK_S = 1.0  # how often a process looks whether the key file changed (a rotation)
HEADER = ("# Arbiter's signing keys. The PRIVATE+KEY line signs; each 'retired <when> <vkey>' line is a key\n"
          "# a rotation retired (`arbiter keys rotate`), kept so that what it signed still verifies. Keep this file\n"
          "# secret and backed up, outside Redis.\n")


@dataclass(frozen=True)
class KeyFile:
    active: notes.Signer
    retired: tuple[tuple[str, str], ...]  # (vkey, retired at)


def read_key_file(path: Path) -> KeyFile:
    active, retired = None, []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("PRIVATE+KEY+") and active is None:
            active = notes.parse_skey(line)
        elif line.startswith(RETIRED + " ") and len(line.split()) == 3:
            _, when, vkey = line.split()
            notes.parse_vkey(vkey)
            retired.append((vkey, when))
        else:
            raise notes.NoteError(f"{path}:{number}: neither the signing key nor a retired key")
    if active is None:
        raise notes.NoteError(f"{path} holds no PRIVATE+KEY line")
    return KeyFile(active, tuple(retired))


def _write_key_file(path: Path, keys: KeyFile, exclusive: bool) -> None:
    """Atomically: a new file is linked into place only if none is there (``exclusive``), else renamed over it."""
    text = HEADER + keys.active.skey + "\n" + "".join(f"{RETIRED} {when} {vkey}\n" for vkey, when in keys.retired)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".signing-")
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        if exclusive:
            os.link(temp, path)  # FileExistsError if another process made it first
        else:
            os.replace(temp, path)
    finally:
        if os.path.exists(temp):
            os.unlink(temp)


def ensure_key_file(path: Path, name: str) -> bool:
    """Make a key file named ``name`` if none is there; True if this call made it.  Safe when several processes start
    at once: one makes it, the others read it."""
    if path.exists():
        return False
    try:
        _write_key_file(path, KeyFile(notes.generate(name), ()), exclusive=True)
    except FileExistsError:
        return False
    return True


def rotate(path: Path) -> tuple[str, str]:
    """A new signing key of the same name; the old one is retired, its vkey kept.  (old vkey, new vkey).  Two
    rotations at once take turns (a lock file beside the key), so neither loses the other's retired key."""
    with open(path.with_name(path.name + ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        keys = read_key_file(path)
        old = keys.active.verifier.vkey
        new = notes.generate(keys.active.name)
        _write_key_file(path, KeyFile(new, ((old, now_iso()[:19] + "Z"), *keys.retired)), exclusive=False)
    return old, new.verifier.vkey


class Keys:
    """The keys this process signs and verifies with.  The key file is read again when it changes (looked at no
    more than once a second), so a rotation reaches running processes without a restart."""

    def __init__(self, path: Path | None, name: str) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._stamp: tuple[int, int] | None = None
        self._checked = 0.0
        if path is None:
            print("arbiter: no ARBITER_SIGNING_KEY: receipts and checkpoints are signed by a key that dies with this "
                  "process (set ARBITER_SIGNING_KEY to a key file; `arbiter up` makes one)", file=sys.stderr)
            self._keys = KeyFile(notes.generate(name), ())
        else:
            ensure_key_file(path, name)
            self._keys = read_key_file(path)
            self._stamp = _stamp(path)

    def current(self) -> KeyFile:
        if self.path is not None and time.monotonic() - self._checked >= RECHECK_S:
            with self._lock:
                self._checked = time.monotonic()
                try:
                    stamp = _stamp(self.path)
                except OSError as exc:  # moved or unreadable: the keys read last still sign, and it is said
                    if self._stamp is not None:
                        log.error("the signing key file %s cannot be read (%s); signing with the key read before",
                                  self.path, exc)
                    self._stamp = None
                    return self._keys
                if stamp != self._stamp:
                    self._keys, self._stamp = read_key_file(self.path), stamp
        return self._keys

    @property
    def name(self) -> str:
        return self.current().active.name

    def verifiers(self) -> list[notes.Verifier]:
        keys = self.current()
        return [keys.active.verifier, *(notes.parse_vkey(vkey) for vkey, _ in keys.retired)]

    def listing(self) -> list[dict[str, str | None]]:
        """``GET /v1/keys``: the signing key first, then the retired ones."""
        keys = self.current()
        active = keys.active.verifier
        return [{"vkey": active.vkey, "name": active.name, "id": active.id.hex(), "algorithm": "ed25519",
                 "status": "active", "retired_at": None},
                *({"vkey": vkey, "name": vkey.split("+")[0], "id": vkey.split("+")[1], "algorithm": "ed25519",
                   "status": "retired", "retired_at": when} for vkey, when in keys.retired)]

    def receipt(self, game_id: str, event: Event) -> str:
        """The signed note of a receipt: the log of ``game_id`` just after ``event``, and the event's prev_hash."""
        signer = self.current().active
        return signer.sign(notes.checkpoint_text(notes.Checkpoint(
            notes.origin(signer.name, game_id), event["seq"], event["hash"], event["prev_hash"])))

    def checkpoint(self, game_id: str, seq: int, head_hash: str) -> str:
        signer = self.current().active
        return signer.sign(notes.checkpoint_text(notes.Checkpoint(notes.origin(signer.name, game_id), seq, head_hash)))


def _stamp(path: Path) -> tuple[int, int]:
    stat = path.stat()
    return stat.st_mtime_ns, stat.st_ino


class Witness:
    """Each game's latest signed checkpoint, in a SQLite file outside Redis: only ever moved forward."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, timeout=10, isolation_level=None, check_same_thread=False)
        self._db.execute("CREATE TABLE IF NOT EXISTS latest (game_id TEXT PRIMARY KEY, seq INTEGER NOT NULL, "
                         "hash TEXT NOT NULL, note TEXT NOT NULL)")

    def keep(self, game_id: str, seq: int, head_hash: str, note: str) -> None:
        with self._lock:
            self._db.execute("INSERT INTO latest VALUES (?, ?, ?, ?) ON CONFLICT(game_id) DO UPDATE SET "
                             "seq = excluded.seq, hash = excluded.hash, note = excluded.note "
                             "WHERE excluded.seq > latest.seq", (game_id, seq, head_hash, note))

    def latest(self) -> dict[str, tuple[int, str]]:
        with self._lock:
            return {row[0]: (row[1], row[2]) for row in self._db.execute("SELECT game_id, seq, hash FROM latest")}

    def seq_of(self, game_id: str) -> int:
        with self._lock:
            row = self._db.execute("SELECT seq FROM latest WHERE game_id = ?", (game_id,)).fetchone()
        return row[0] if row else 0


def witness_path(key_path: Path) -> Path:
    return key_path.with_name(key_path.name + ".checkpoints.sqlite")
