"""Exports from anyone: a malformed file is a 4xx (API) or exit 2 (CLI), never a 500 or a traceback.

``POST /v1/replays/verify`` is open to anyone and ``arbiter verify`` reads any file, so
every field of every event may be missing, null, of the wrong JSON type, or re-hashed
so that the chain still holds.  A file whose events are not events is refused (422, exit
2) naming the event; a well-formed file that does not fit the game is a report with
``ok: false`` naming the seq (200, exit 1).
"""
from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.forgery import rehashed
from replays.audit import audit
import cli.main as cli
from runtime.context import Context
from tests.platform.conftest import new_game
from tests.platform.helpers import Api, run_queued_jobs

ARBITER = Path(sys.executable).parent / "arbiter"
Export = dict[str, Any]


@pytest.fixture()
def export(api: Api, ctx: Context) -> Export:
    """A real export of a game with orders and one resolved phase (seq 1 created, 2-5 joined, 6 started ...)."""
    game = new_game(api)
    for token in game.tokens.values():
        assert api.post(game.path("/actions"), {"type": "bid", "amount": 1}, token=token)[0] == 202
    run_queued_jobs(ctx)
    status, document = api.get(game.path("/export"), game.gm)
    assert status == 200 and any(e["type"] == "phase.resolved" for e in document["events"])
    status, report = api.post("/replays/verify", document)
    assert status == 200 and report["ok"], report  # the untouched file verifies: every case below breaks it
    return document


def rehash(document: Export, start: int = 0) -> Export:
    """Re-forge the chain from events[start] on, as an attacker would, and the file's head_hash too."""
    document["head_hash"] = rehashed(document["events"], start)[-1]["hash"]
    return document


def _event(index: int, change: Callable[[dict], None], forge: bool = False) -> Callable[[Export], Export]:
    def mutate(document: Export) -> Export:
        change(document["events"][index])
        return rehash(document, index) if forge else document
    return mutate


def _set(name: str, value: Any) -> Callable[[dict], None]:
    return lambda event: event.__setitem__(name, value)


def _drop(name: str) -> Callable[[dict], None]:
    return lambda event: event.pop(name)


def _replace(index: int, value: Any) -> Callable[[Export], Export]:
    def mutate(document: Export) -> Export:
        document["events"][index] = value
        return document
    return mutate


# Files that cannot be checked at all: 422 naming what is wrong, exit 2.
REFUSED: dict[str, tuple[Callable[[Export], Any], str]] = {
    "no format": (lambda d: {k: v for k, v in d.items() if k != "format"}, "format"),
    "events not a list": (lambda d: {**d, "events": {"1": d["events"][0]}}, "events"),
    "no events": (lambda d: {**d, "events": []}, "events"),
    "seed a number": (lambda d: {**d, "seed": 42}, "seed"),
    "event is a string": (_replace(2, "player.joined"), "events[2] (seq 3)"),
    "event is null": (_replace(2, None), "events[2] (seq 3)"),
    "event is a list": (_replace(2, [1, 2]), "events[2] (seq 3)"),
    "seq missing": (_event(2, _drop("seq")), "'seq' is missing"),
    "seq a string": (_event(2, _set("seq", "3")), "'seq' must be a whole number"),
    "seq null": (_event(2, _set("seq", None)), "'seq' must be a whole number"),
    "seq true": (_event(0, _set("seq", True), forge=True), "'seq' must be a whole number"),
    "type missing (re-hashed)": (_event(3, _drop("type"), forge=True), "'type' is missing"),
    "type a list (re-hashed)": (_event(3, _set("type", ["player.joined"]), forge=True), "'type' must be a string"),
    "type null": (_event(6, _set("type", None)), "'type' must be a string"),
    "data a list (re-hashed)": (_event(6, _set("data", []), forge=True), "'data' must be an object"),
    "actor a number": (_event(6, _set("actor", 7)), "'actor' must be a string"),
    "hash missing": (_event(6, _drop("hash")), "'hash' is missing"),
    "prev_hash an object": (_event(6, _set("prev_hash", {})), "'prev_hash' must be a string"),
}

# Well-formed files whose events do not fit the game: a report naming the seq, exit 1.
DIVERGED: dict[str, tuple[Callable[[Export], Any], int, str]] = {
    "unknown event type (re-hashed)": (_event(3, _set("type", "player.vanished"), forge=True), 4, "fold"),
    "an order without its action (re-hashed)": (_event(6, _set("data", {}), forge=True), 7, "fold"),
    "game.created again (re-hashed)": (lambda d: rehash({**d, "events": [d["events"][0], {
        **d["events"][0], "seq": 2}, *d["events"][2:]]}, 1), 2, "fold"),
    "a seq out of order": (_event(4, _set("seq", 9)), 5, "hash_chain"),
    "first event is not game.created (re-hashed)": (lambda d: rehash({**d, "events": [
        {**e, "seq": i} for i, e in enumerate(d["events"][1:], start=1)]}), 1, "fold"),
}


def _cli(tmp_path: Path, capsys: pytest.CaptureFixture[str], document: Any) -> subprocess.CompletedProcess[str]:
    """``arbiter verify`` of ``document``, run in this process (what the console script calls: a traceback would
    fail the test); the tests of files that are not JSON, or missing, run the real command."""
    file = tmp_path / "game.json"
    file.write_text(json.dumps(document))
    capsys.readouterr()
    code = cli.main(["verify", str(file)])
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(["arbiter", "verify", str(file)], code, out, err)


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_file_that_is_not_an_export_is_422_and_exit_2(api: Api, export: Export, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str], case: str) -> None:
    mutate, named = REFUSED[case]
    document = mutate(copy.deepcopy(export))
    status, body = api.post("/replays/verify", document)
    assert status == 422 and body["error"]["code"] == "not_an_export", body
    assert named in body["error"]["message"], body
    done = _cli(tmp_path, capsys, document)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and named in done.stderr and done.stdout == ""


@pytest.mark.parametrize("case", sorted(DIVERGED))
def test_a_file_that_does_not_fit_the_game_is_reported_at_its_seq(api: Api, export: Export, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str],
                                                                  case: str) -> None:
    mutate, seq, check = DIVERGED[case]
    document = mutate(copy.deepcopy(export))
    status, report = api.post("/replays/verify", document)
    assert status == 200 and not report["ok"], report
    assert report["divergences"][0]["seq"] == seq, report
    assert check in {d["check"] for d in report["divergences"] if d["seq"] == seq}, report
    done = _cli(tmp_path, capsys, document)
    assert done.returncode == 1 and f"FAILED at seq {seq}" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("text, says", [
    ("{not json", "cannot verify"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ('"a string"', "not an Arbiter export"),
])
def test_a_file_that_is_not_json_or_too_deep_is_exit_2(tmp_path: Path, text: str, says: str) -> None:
    file = tmp_path / "bad.json"
    file.write_text(text)
    done = subprocess.run([str(ARBITER), "verify", str(file)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and says in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_a_missing_file_is_exit_2(tmp_path: Path) -> None:
    done = subprocess.run([str(ARBITER), "verify", str(tmp_path / "nope.json")], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2 and "cannot verify" in done.stderr


@pytest.mark.parametrize("case", ["type missing (re-hashed)", "type a list (re-hashed)", "data a list (re-hashed)"])
def test_the_fold_names_the_seq_of_a_malformed_stored_event(export: Export, case: str) -> None:
    """The audit of a stored log has no verify() in front of it: the fold itself checks each event's shape."""
    events = REFUSED[case][0](copy.deepcopy(export))["events"]
    report = audit(events, None)
    index = next(i for i, (a, b) in enumerate(zip(events, export["events"])) if a.get("type") != b.get("type")
                 or a.get("data") != b.get("data"))
    assert not report["ok"] and report["hash_chain"]["ok"]
    assert [(d["seq"], d["check"]) for d in report["divergences"]] == [(index + 1, "fold")], report


JSON = st.recursive(st.none() | st.booleans() | st.integers(-2**63, 2**63 - 1) | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                                  max_size=3), max_leaves=6)
FIELDS = ["seq", "type", "actor", "at", "data", "prev_hash", "hash", "data.action", "data.outcome", "data.next",
          "data.phase", "data.number", "data.setup", "data.options", "data.player_id", "data.deadline"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(index=st.integers(0, 20), field=st.sampled_from(FIELDS), value=JSON, delete=st.booleans(),
       forge=st.booleans())
def test_any_field_of_any_event_made_anything_is_never_a_500(api: Api, export: Export, tmp_path: Path, index: int,
                                                              field: str, value: Any, delete: bool,
                                                              forge: bool) -> None:
    document = copy.deepcopy(export)
    index %= len(document["events"])
    target = document["events"][index]
    *parents, last = field.split(".")
    for name in parents:
        target = target[name]
    if delete:
        target.pop(last, None)
    else:
        target[last] = value
    if forge:
        rehash(document, index)
    status, body = api.post("/replays/verify", document)
    assert status in (200, 422), body
    if status == 200:
        assert isinstance(body["ok"], bool) and isinstance(body["divergences"], list)
    else:
        assert body["error"]["code"] == "not_an_export"
    file = tmp_path / "fuzzed.json"
    file.write_text(json.dumps(document))
    assert cli.main(["verify", str(file)]) == {200: 0 if status == 200 and body["ok"] else 1, 422: 2}[status]
