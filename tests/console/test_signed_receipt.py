"""Issue 29: the console's verify form checks an export against a receipt a player pastes: a forger who changed
that order's `at` and re-hashed the chain is caught at the receipt's seq."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest
import requests

from runtime.config import Settings
from tests.console.browser import chromium, wait_for
from tests.e2e.play import create_and_join, play_to_the_end
from tests.forgery import rehashed


@pytest.fixture()
def browser() -> Iterator[Any]:
    yield from chromium()


def test_a_pasted_receipt_catches_a_rehashed_rewrite(stack: Any, settings: Settings, browser: Any,
                                                     tmp_path: Path) -> None:
    stack.start_worker("worker")
    receipts: list[dict] = []
    game_id, gm, tokens = create_and_join(stack, "golden-strider", 6, seed="console-receipt",
                                          options={"variant": "robot"}, deadlines={"robots": 60})
    play_to_the_end(stack, settings, game_id, gm, tokens, receipts=receipts)
    base = f"http://127.0.0.1:{stack.port}"
    forged = requests.get(f"{base}/v1/games/{game_id}/export", timeout=10).json()
    receipt = receipts[0]
    forged["events"][receipt["seq"] - 1]["at"] = "2020-01-01T00:00:00.000000Z"
    forged["head_hash"] = rehashed(forged["events"], receipt["seq"] - 1)[-1]["hash"]
    forged["checkpoints"] = []
    (tmp_path / "forged.json").write_text(json.dumps(forged))

    browser.get(f"{base}/console/")
    browser.find_element("id", "verify-file").send_keys(str(tmp_path / "forged.json"))
    browser.find_element("id", "verify-notes").send_keys(receipt["note"])  # the note's text, as a forum post has it
    browser.find_element("css selector", "#verify-form button[type=submit]").click()
    wait_for(browser, lambda: "Signed receipts" in browser.find_element("id", "verify-verdict").text, "the verdict")
    verdict = browser.find_element("id", "verify-verdict").text
    assert f"first divergence at seq {receipt['seq']} (signed_receipt)" in verdict, verdict
    assert f"Your receipt of seq {receipt['seq']}: the event at seq {receipt['seq']} is not the one" in verdict
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []
