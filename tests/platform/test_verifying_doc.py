"""docs/verifying.md's third-party verifier, taken from the Markdown as a reader would copy it, checks a receipt and a
checkpoint of a live game (gunicorn and a worker signing with one key file), imports nothing but `cryptography` and
the standard library, and refuses a forged event, a note under another key and a checkpoint of another game."""
from __future__ import annotations

import ast
import copy
import re
from pathlib import Path
from typing import Any

import pytest
from cryptography.exceptions import InvalidSignature

from eventlog import notes
from runtime.config import Settings
from tests.e2e.play import create_and_join, play_to_the_end
from tests.e2e.stack import Stack

DOC = Path(__file__).resolve().parents[2] / "docs" / "verifying.md"


def _verifier() -> tuple[str, dict[str, Any]]:
    [code] = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    namespace: dict[str, Any] = {}
    exec(compile(code, str(DOC), "exec"), namespace)  # noqa: S102  (the project's own doc)
    return code, namespace


def test_the_verifier_imports_only_cryptography_and_is_about_forty_lines() -> None:
    code, _ = _verifier()
    imported = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    assert imported == {"base64", "hashlib", "json", "cryptography"}
    assert len([line for line in code.splitlines() if line.strip()]) <= 45


def test_the_verifier_checks_a_live_games_receipt_and_checkpoint(own_stack: Stack, settings: Settings) -> None:
    own_stack.start_worker("worker")  # the same key file as the API's (the stack's folder)
    receipts: list[dict] = []
    game_id, gm, tokens = create_and_join(own_stack, "golden-strider", 6, seed="verifying-doc",
                                          options={"variant": "robot"}, deadlines={"robots": 60})
    final = play_to_the_end(own_stack, settings, game_id, gm, tokens, receipts=receipts)
    assert final["status"] == "finished"
    status, listed = own_stack.call("GET", "/keys")
    assert status == 200
    vkey = listed["keys"][0]["vkey"]
    checkpoint = own_stack.call("GET", f"/games/{game_id}/checkpoint")[1]
    events = own_stack.call("GET", f"/games/{game_id}/events?limit=1000")[1]["events"]  # whole: the game is over
    _, verifier = _verifier()
    check, read = verifier["check"], verifier["read"]
    for receipt in receipts:
        check(receipt["note"], checkpoint["note"], events[receipt["seq"] - 1:], vkey)
        assert read(receipt["note"], vkey) == (game_id, receipt["seq"], receipt["hash"])
    # the worker's checkpoints, which the export carries, verify with the same key
    export = own_stack.call("GET", f"/games/{game_id}/export")[1]
    assert export["checkpoints"] and all(read(n, vkey)[0] == game_id for n in export["checkpoints"])
    assert read(export["checkpoints"][-1], vkey)[1:] == (checkpoint["seq"], checkpoint["head_hash"])

    first = receipts[0]
    forged = copy.deepcopy(events[first["seq"] - 1:])
    forged[0]["at"] = "2020-01-01T00:00:00.000000Z"
    with pytest.raises(AssertionError):
        check(first["note"], checkpoint["note"], forged, vkey)
    stranger = notes.generate("arbiter.local").verifier.vkey
    with pytest.raises(ValueError, match="no signature by this key"):
        check(first["note"], checkpoint["note"], events[first["seq"] - 1:], stranger)
    other, _gm, _tokens = create_and_join(own_stack, "golden-strider", 6, seed="other", options={"variant": "robot"})
    elsewhere = own_stack.call("GET", f"/games/{other}/checkpoint")[1]["note"]
    with pytest.raises(AssertionError):
        check(first["note"], elsewhere, events[first["seq"] - 1:], vkey)
    tampered = checkpoint["note"].replace(f"\n{checkpoint['seq']}\n", f"\n{checkpoint['seq'] + 1}\n")
    with pytest.raises(InvalidSignature):  # the signature no longer fits the text
        verifier["open_note"](tampered, vkey)
