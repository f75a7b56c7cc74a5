"""``arbiter follow``: a game's events on a terminal as they happen, from the NDJSON stream.

A dropped connection is made again from the last seq printed (``?after=``), so nothing is printed twice
and nothing is skipped.  Only the standard library: the command runs wherever Arbiter is installed.
"""
from __future__ import annotations

import json
import sys
import time
import urllib.error
import urllib.request
from typing import Any, Callable, TextIO

RECONNECT_S = 1.0


def describe(event: dict[str, Any]) -> str:
    """One line for a person: seq, time, type, who, and what the event says in brief."""
    data = event.get("data") or {}
    what = ""
    if event["type"] == "action.submitted":
        action = data.get("action")
        what = "(sealed)" if data.get("sealed") else json.dumps(action, sort_keys=True) if action else ""
    elif event["type"] == "phase.resolved":
        upcoming = data.get("next")
        what = f"phase {data.get('number')} {data.get('name')} resolved; " + (
            f"next: {upcoming.get('name')} until {upcoming.get('deadline')}" if upcoming else
            f"game over: {json.dumps(data.get('result'), sort_keys=True)}")
    elif event["type"] == "player.joined":
        what = f"{data.get('player_id')} {data.get('name')}"
    elif "reason" in data:
        what = str(data["reason"])
    return f"#{event['seq']:<5} {event.get('at', '')}  {event['type']:<20} {event.get('actor', '')}  {what}".rstrip()


def follow(base: str, game_id: str, token: str | None, after: int = 0, as_json: bool = False,
           out: TextIO = sys.stdout, opener: Callable[..., Any] = urllib.request.urlopen) -> int:
    last, failures = after, 0
    while True:
        request = urllib.request.Request(f"{base.rstrip('/')}/games/{game_id}/stream?after={last}",
                                         headers={"Accept": "application/x-ndjson"})
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with opener(request, timeout=60) as response:
                failures = 0
                for raw in response:
                    line = raw.strip()
                    if not line:
                        continue  # a heartbeat
                    item = json.loads(line)
                    if "end" in item:
                        print(f"-- the game is over (last event #{item['end']['seq']})", file=out, flush=True)
                        return 0
                    if "checkpoint" in item:  # the signed checkpoint after an event that closed a phase
                        signed = item["checkpoint"]
                        print(json.dumps(item, sort_keys=True) if as_json else
                              f"-- signed checkpoint: {signed['seq']} events, head {signed['head_hash'][:16]}…",
                              file=out, flush=True)
                        continue
                    last = item["seq"]
                    print(json.dumps(item, sort_keys=True) if as_json else describe(item), file=out, flush=True)
        except urllib.error.HTTPError as exc:
            print(f"cannot follow {game_id}: {exc.code} {_message(exc)}", file=sys.stderr)
            return 1
        except (OSError, ValueError) as exc:
            failures += 1
            if failures > 5:
                print(f"cannot follow {game_id}: {exc}", file=sys.stderr)
                return 1
        time.sleep(RECONNECT_S)  # the stream closed without an end (a restart, too slow): resume after `last`


def _message(exc: urllib.error.HTTPError) -> str:
    try:
        return json.loads(exc.read())["error"]["message"]
    except (ValueError, KeyError, TypeError):
        return exc.reason
