"""A test client for the stream process: reads SSE or NDJSON with requests, one item at a time."""
from __future__ import annotations

import json
from typing import Any, Iterator

import requests


class Stream:
    def __init__(self, url: str, game_id: str, token: str | None = None, fmt: str = "ndjson",
                 after: int | None = None, last_event_id: int | None = None, ticket: str | None = None) -> None:
        headers = {"Accept": "text/event-stream" if fmt == "sse" else "application/x-ndjson"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if last_event_id is not None:
            headers["Last-Event-ID"] = str(last_event_id)
        params: dict[str, Any] = {}
        if after is not None:
            params["after"] = after
        if ticket is not None:
            params["ticket"] = ticket
        self.fmt = fmt
        self.signed: list[dict[str, Any]] = []  # the checkpoints read so far, in order
        self.response = requests.get(f"{url}/games/{game_id}/stream", headers=headers, params=params, stream=True,
                                     timeout=(5, 5))
        self._lines = self.response.iter_lines(chunk_size=1) if self.response.status_code == 200 else iter(())

    @property
    def status(self) -> int:
        return self.response.status_code

    def items(self) -> Iterator[dict[str, Any]]:
        """Each event (with "seq"), checkpoint ({"checkpoint": ...}, also kept in ``signed``) or end marker
        ({"end": ...}); heartbeats as {"heartbeat": True}."""
        for item in self._items():
            if "checkpoint" in item:
                self.signed.append({**item["checkpoint"], "after": self._last})
            elif "seq" in item:
                self._last = item["seq"]
            yield item

    _last = 0

    def _items(self) -> Iterator[dict[str, Any]]:
        if self.fmt == "ndjson":
            for line in self._lines:
                yield json.loads(line) if line.strip() else {"heartbeat": True}
            return
        fields: dict[str, str] = {}
        for raw in self._lines:
            line = raw.decode()
            if line.startswith(":"):
                yield {"heartbeat": True}
            elif line == "":
                if "data" in fields:
                    item = json.loads(fields["data"])
                    if fields.get("event") == "checkpoint":
                        assert "id" not in fields, "a checkpoint leaves Last-Event-ID as its event's seq"
                        item = {"checkpoint": item}
                    elif fields.get("event") not in (None, "end"):
                        raise AssertionError(f"unexpected SSE event type {fields['event']}")
                    if "id" in fields:
                        assert int(fields["id"]) == item["seq"], "the SSE id is the event's seq"
                    yield item
                fields = {}
            else:
                name, _, value = line.partition(":")
                fields[name] = value[1:] if value.startswith(" ") else value

    def events(self, count: int) -> list[dict[str, Any]]:
        """The next ``count`` events (heartbeats skipped)."""
        got: list[dict[str, Any]] = []
        for item in self.items():
            if "seq" in item:
                got.append(item)
                if len(got) == count:
                    break
        return got

    def until_end(self) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
        got: list[dict[str, Any]] = []
        for item in self.items():
            if "end" in item:
                return got, item["end"]
            if "seq" in item:
                got.append(item)
        return got, None

    def close(self) -> None:
        self.response.close()
