"""Reading an export as it streams, so that verifying a large one costs about its size, not its parsed objects.

A 31 MiB export parsed whole is 160 MiB of Python objects before the audit starts.  Here the file is read
twice, never whole: ``read_header`` walks every token once, building nothing but the top-level fields other
than ``events`` (format, seed, head hash ...), and refuses what is not one JSON object (nested deeper than the
API's parser allows, a key twice in one object, broken JSON); ``events`` then yields the events one at a time
for the audit (``replays.audit.verify_events``).  The source must be seekable: a file, or the request's body.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, BinaryIO, Iterable, Iterator

import ijson
from ijson.common import ObjectBuilder

from eventlog import notes as signed
from replays import audit, proofs

# yajl (ijson's C backend) refuses integers beyond 64 bits, which orjson and JSON allow: a file holding one (never
# an export Arbiter writes) is read again by ijson's pure-Python parser, slower but exact.
_WIDE = ijson.get_backend("python")
MAX_DEPTH = 1024  # as deep as orjson parses the API's other bodies: deeper is refused, not walked
_OPEN = {"start_map": "map", "start_array": "array"}
_CLOSE = frozenset({"end_map", "end_array"})


class NotJson(ValueError):
    """The source is not one JSON object: ``code`` says how (invalid_json, not_an_object, duplicate_key)."""

    def __init__(self, code: str, message: str, key: str | None = None, overflow: bool = False) -> None:
        super().__init__(message)
        self.code, self.key, self.overflow = code, key, overflow


@dataclass
class Header:
    """The export's top-level fields but its events (the seed, the head hash, the signed notes ...), and what the
    events field is: ``events_kind`` ("array", "map", a scalar's type, or None if absent) and how many."""

    fields: dict[str, Any] = field(default_factory=dict)
    events_kind: str | None = None
    events: int = 0


def read_header(source: BinaryIO, parser: Any = ijson) -> Header:
    """One pass over ``source`` that keeps only the header; raises ``NotJson``.  Every token of the file passes
    through this loop, so it does as little as it can for each."""
    header = Header()
    depth = 0
    keys: list[set[str] | None] = []  # the keys seen so far in each open object (None: an array)
    key: str | None = None  # the top-level key whose value is being read
    source.seek(0)
    tokens = parser.basic_parse(source, use_float=True)  # no prefixes: they cost depth squared
    try:
        top = next(tokens, (None, None))[0]  # a JSON object's first token is start_map
        if top in _OPEN:
            depth, keys = 1, [set() if top == "start_map" else None]
        building: Any = None  # a top-level value other than the events (notes, keys ...): kept whole
        for event, value in tokens:
            if building is not None:
                building.event(event, value)
            if event == "map_key":
                seen = keys[-1]
                if value in seen:  # type: ignore[operator]
                    raise NotJson("duplicate_key", f"The key {value!r} appears twice in one object; JSON parsers "
                                  "disagree on which one counts, so send it once.", value)
                seen.add(value)  # type: ignore[union-attr]
                if depth == 1:
                    key = value
            elif event in _OPEN:
                if depth == 1 and top == "start_map":
                    if key == "events":
                        header.events_kind = _OPEN[event]
                    else:
                        building = ObjectBuilder()
                        building.event(event, value)
                elif depth == 2 and key == "events":
                    header.events += 1
                depth += 1
                keys.append(set() if event == "start_map" else None)
                if depth > MAX_DEPTH:
                    raise NotJson("invalid_json", "The export is nested too deeply.")
            elif event in _CLOSE:
                depth -= 1
                keys.pop()
                if depth == 1 and building is not None:
                    header.fields[key] = building.value  # type: ignore[index]
                    building = None
            elif depth == 1 and top == "start_map":
                if key == "events":
                    header.events_kind = event
                else:
                    header.fields[key] = value  # type: ignore[index]
            elif depth == 2 and key == "events":
                header.events += 1
    except ijson.JSONError as exc:
        raise NotJson("invalid_json", f"The export is not valid UTF-8 JSON: {exc}",
                      overflow=parser is ijson and "integer overflow" in str(exc)) from exc
    if top is None or depth != 0:
        raise NotJson("invalid_json", "The export is not valid JSON: it ends too early.")
    if top != "start_map":  # as orjson would tell: once the whole is known to be JSON
        raise NotJson("not_an_object", "not an Arbiter export: it must be a JSON object.")
    return header


def events(source: BinaryIO, parser: Any = ijson) -> Iterator[Any]:
    """The export's events one at a time, from the start of ``source`` (``read_header`` has checked it with
    ``parser``)."""
    source.seek(0)
    return parser.items(source, "events.item", use_float=True)


def verify(source: BinaryIO, notes: Iterable[Any] = (),
           seqs: Iterable[int] = ()) -> tuple[dict[str, Any], dict[str, Any]]:
    """``replays.audit.verify`` of the export in ``source``, read as it streams: ``NotJson`` if it is not one JSON
    object, a ValueError if it is not an export.  Also the export as ``replays.proofs.check`` reads it: its header
    fields, and its events as the signed notes need them: the seq, hash and prev_hash of each event a note names
    (the file's notes and checkpoints, and ``notes``) or ``seqs`` lists (receipts given), an empty object for every
    other."""
    parser: Any = ijson
    try:
        header = read_header(source)
    except NotJson as exc:
        if not exc.overflow:
            raise
        parser = _WIDE
        header = read_header(source, parser)
    kind = header.fields.get("format")
    if kind not in (audit.EXPORT_FORMAT, audit.VIEW_FORMAT):
        raise ValueError(f"not an Arbiter export: 'format' must be {audit.EXPORT_FORMAT!r}")
    if header.events_kind != "array" or not header.events:
        raise ValueError("an export needs a non-empty 'events' list")
    wanted = _named_seqs([*notes, *_listed(header.fields, "notes"), *_listed(header.fields, "checkpoints")])
    wanted.update(seqs)
    kept: list[dict[str, Any]] = []
    streamed = _linked(events(source, parser), kept, wanted)
    if kind == audit.VIEW_FORMAT:
        report = audit.verify_view(header.fields, streamed)
    else:
        report = audit.verify_events(header.fields, streamed)
    return report, {**header.fields, "events": kept}


_ELSEWHERE: dict[str, Any] = {}  # every event no note names: one shared object, a pointer each


def _linked(events: Iterator[Any], kept: list[dict[str, Any]], wanted: set[int]) -> Iterator[Any]:
    """``events``, keeping the place in the chain of each one whose seq is ``wanted``."""
    for event in events:
        seq = event.get("seq") if isinstance(event, dict) else None
        named = type(seq) is int and seq in wanted  # a forged seq may be anything (a list): it names nothing
        kept.append({name: event.get(name) for name in ("seq", "hash", "prev_hash")} if named
                    else _ELSEWHERE)
        yield event


def _listed(fields: dict[str, Any], name: str) -> list[Any]:
    value = fields.get(name)
    return value if isinstance(value, list) else []


def _named_seqs(notes: list[Any]) -> set[int]:
    """The seqs these notes name, read without checking their signatures (``proofs.check`` does that): only to
    know which events to keep for it."""
    seqs = set()
    for item in notes:
        try:
            note = proofs.note_of(item)
            seqs.add(signed.parse_checkpoint(note[: note.rfind("\n\n") + 1]).size)
        except ValueError:  # not a note (NoteError is one): proofs.check says so
            continue
    return seqs
