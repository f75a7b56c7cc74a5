"""What a forger does to a log, for the tests that show the audit and the fold still catch it."""
from __future__ import annotations

from typing import Any

from eventlog.events import GENESIS, event_hash


def rehashed(events: list[dict[str, Any]], start: int = 0) -> list[dict[str, Any]]:
    """The chain re-sealed from ``events[start]`` on (in place), as a forger who rewrites history would."""
    for i in range(start, len(events)):
        body = {k: v for k, v in events[i].items() if k != "hash"}
        body["prev_hash"] = events[i - 1]["hash"] if i else GENESIS
        events[i] = {**body, "hash": event_hash(body["prev_hash"], body)}
    return events


def lowered_top_bid(export: dict[str, Any]) -> int:
    """An Extreme Ways export whose largest first-round bid a forger lowers to 1, re-sealing the chain (in place):
    every hash holds, the first auction's outcome does not.  The seq of that resolution."""
    events = export["events"]
    resolved = next(e["seq"] for e in events if e["type"] == "phase.resolved")
    bids = [e for e in events if e["type"] == "action.submitted" and e["seq"] < resolved
            and e["data"]["action"]["type"] == "bid"]
    top = max(bids, key=lambda e: e["data"]["action"]["amount"])
    top["data"]["action"]["amount"] = 1
    export["head_hash"] = rehashed(events, events.index(top))[-1]["hash"]
    return resolved


def reversed_keys(value: Any) -> Any:
    """The same data with every object's keys in reverse order."""
    if isinstance(value, dict):
        return {key: reversed_keys(value[key]) for key in reversed(list(value))}
    if isinstance(value, list):
        return [reversed_keys(item) for item in value]
    return value
