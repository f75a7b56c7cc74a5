"""Proofs from signed notes: a log checked against the receipts and checkpoints the service signed (issue 29).

The hash chain proves a log is whole only to someone who trusts whoever hands it over: its keeper can rewrite an
event and re-hash everything after it.  A signed receipt or checkpoint is the service's word, given at the time, that
the log had ``size`` events ending in ``hash``.  Against an export (or one viewer's export) each verified note says:

- its seq is in the file with the same hash: the event is in the game (the chain from there to the head proves it);
- its seq is in the file with another hash (or another prev_hash): the event was **rewritten**;
- its seq is beyond the file's head: the file lost events the service once had (a **truncation**);
- two notes give one seq two hashes: the service signed two histories (a **fork**): the two notes are the proof,
  checkable by anyone with the service's key.

Notes are trusted only under the keys given (``vkeys``); without any, the keys the file names, which proves only that
the file agrees with itself: compare them with the service's ``GET /v1/keys``.
"""
from __future__ import annotations

from typing import Any, Iterable

from eventlog import notes as signed
from eventlog.notes import Checkpoint, NoteError

MAX_NOTES = 20_000  # given and exported together: each costs a signature check (~0.1 ms), and a file is anyone's


def note_of(item: Any) -> str:
    """A note given as itself, or inside a receipt (``{"note"}``), a 202's body (``{"receipt": {"note"}}``) or a
    checkpoint's answer."""
    if isinstance(item, dict):
        item = item.get("receipt", item)
        item = item.get("note") if isinstance(item, dict) else item
    if not isinstance(item, str):
        raise ValueError("a receipt or checkpoint is a signed note (text), or an object holding one as 'note'")
    return item


def verifiers(vkeys: Iterable[Any]) -> list[signed.Verifier]:
    found = []
    for vkey in vkeys:
        if isinstance(vkey, dict):
            vkey = vkey.get("vkey")
        if not isinstance(vkey, str):
            raise ValueError("a verifier key is a string <name>+<hex id>+<base64 key>")
        try:
            found.append(signed.parse_vkey(vkey))
        except NoteError as exc:
            raise ValueError(str(exc)) from exc
    return found


def check(document: dict[str, Any], report: dict[str, Any], given: Iterable[Any] = (),
          vkeys: list[signed.Verifier] | None = None, keys_from: str = "given") -> dict[str, Any]:
    """Add to a verify ``report`` what the notes prove: ``report["signed"]``, and a divergence for each rewrite,
    truncation and fork (each naming its seq).  ``given``: the verifier's own notes; the file's ``checkpoints`` are
    checked too.  ``vkeys`` None: the file's ``keys`` (``keys_from`` says which were used)."""
    if vkeys is None:
        vkeys, keys_from = verifiers(_list(document, "keys")), "the file (compare them with GET /v1/keys)"
    events = _list(document, "events")
    by_seq = {e.get("seq"): e for e in events if isinstance(e, dict)}
    head = len(events)
    game_id = document.get("game_id")
    sources = [("given", note_of(item)) for item in given]
    sources += [("export", note_of(item)) for item in _list(document, "checkpoints")]
    if len(sources) > MAX_NOTES:
        raise ValueError(f"at most {MAX_NOTES} signed notes (receipts and checkpoints) are checked at once")
    findings, divergences, seen = [], [], {}
    for source, note in sources:
        finding: dict[str, Any] = {"source": source, "note": note}
        try:
            opened = signed.open_note(note, vkeys)
            cp = signed.parse_checkpoint(opened.text)
        except NoteError as exc:
            findings.append({**finding, "ok": False, "problem": f"not verified: {exc}"})
            continue
        finding.update(kind=cp.kind, seq=cp.size, hash=cp.head, key=opened.by.vkey)
        if cp.origin != signed.origin(opened.by.name, str(game_id)):
            findings.append({**finding, "ok": False, "problem": f"a note of another log ({cp.origin}): ignored"})
            continue
        problem = _against_log(cp, by_seq.get(cp.size), head)
        findings.append({**finding, "ok": problem is None, "problem": problem and problem[1]})
        if problem is not None:
            divergences.append({"seq": cp.size, "check": problem[0], "problem": problem[1]})
        other = seen.setdefault(cp.size, (cp, note))
        if other[0].head != cp.head and not any(d["check"] == "fork" and d["seq"] == cp.size for d in divergences):
            divergences.append({"seq": cp.size, "check": "fork", "notes": [other[1], note], "problem":
                                f"the service signed two different logs at seq {cp.size} (a fork): these two notes "
                                "prove it to anyone holding its key"})
    report["signed"] = {"keys": [v.vkey for v in vkeys], "keys_from": keys_from, "notes": findings,
                        "included": sum(1 for f in findings if f["ok"])}
    if divergences:
        report["ok"] = False
        report["divergences"] = [*report["divergences"], *divergences]
    return report


def _list(document: dict[str, Any], name: str) -> list[Any]:
    value = document.get(name)
    if value is not None and not isinstance(value, list):
        raise ValueError(f"'{name}' must be a list")
    return value or []


def _against_log(cp: Checkpoint, event: dict[str, Any] | None, head: int) -> tuple[str, str] | None:
    """(check, problem) if the log does not hold what the note says; None if it does."""
    what = "receipt" if cp.kind == "receipt" else "checkpoint"
    if cp.size > head:
        return ("truncation", f"the service signed a {what} at seq {cp.size}, beyond this log's head at seq {head}: "
                              "the log lost events it had (a truncation)")
    if cp.size == 0 or event is None:
        return None
    if event.get("hash") != cp.head or (cp.prev_hash is not None and event.get("prev_hash") != cp.prev_hash):
        return (f"signed_{what}", f"the event at seq {cp.size} is not the one the service signed in a {what} "
                                  "(a rewrite)")
    return None
