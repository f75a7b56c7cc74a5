"""Request body limits per endpoint, on a live gunicorn: a chunked body (no Content-Length) is cut off at the
endpoint's own limit (ARBITER_MAX_BODY_BYTES, 64 KiB here) instead of being buffered up to verify's 32 MiB."""
from __future__ import annotations

import json
import socket
from typing import Iterator

import requests

from service.api import VERIFY_LIMIT
from tests.e2e.stack import Stack

LIMIT = 64 * 1024  # what the Stack's environment leaves ARBITER_MAX_BODY_BYTES at (the default)


def _chunks(body: bytes, size: int = 16 * 1024) -> Iterator[bytes]:
    """A generator body: requests sends it with Transfer-Encoding: chunked and no Content-Length."""
    for start in range(0, len(body), size):
        yield body[start:start + size]


def _padded(size: int, **fields: object) -> bytes:
    text = json.dumps({**fields, "pad": ""})
    return text[:-2].encode() + b"x" * (size - len(text)) + b'"}'


def test_a_small_chunked_body_is_read(stack: Stack) -> None:
    response = requests.post(f"{stack.url}/games", data=_chunks(json.dumps({"type": "extreme-ways"}).encode()),
                             headers={"Content-Type": "application/json"}, timeout=30)
    assert response.status_code == 201, response.text


def test_a_chunked_body_over_the_limit_is_413(stack: Stack) -> None:
    body = _padded(LIMIT + 1024, type="extreme-ways")
    response = requests.post(f"{stack.url}/games", data=_chunks(body), headers={"Content-Type": "application/json"},
                             timeout=30)
    assert response.status_code == 413, response.text
    assert response.json()["error"]["code"] == "body_too_large"
    assert response.json()["error"]["details"] == {"limit": LIMIT}


def test_verify_still_takes_a_large_chunked_file_and_no_larger(stack: Stack) -> None:
    big = _padded(2 * 1024 * 1024, format="not-an-export")
    response = requests.post(f"{stack.url}/replays/verify", data=_chunks(big, 256 * 1024),
                             headers={"Content-Type": "application/json"}, timeout=60)
    assert response.status_code == 422 and response.json()["error"]["code"] == "not_an_export", response.text
    too_big = _padded(VERIFY_LIMIT + 1024, format="not-an-export")
    response = requests.post(f"{stack.url}/replays/verify", data=_chunks(too_big, 1024 * 1024),
                             headers={"Content-Type": "application/json"}, timeout=60)
    assert response.status_code == 413 and response.json()["error"]["details"] == {"limit": VERIFY_LIMIT}


def test_the_server_answers_413_without_waiting_for_the_rest_of_a_chunked_body(stack: Stack) -> None:
    """Send twice the limit of a body that never ends: the answer must come at once (an app-wide 32 MiB limit
    made the server wait for up to 32 MiB before its own 64 KiB check)."""
    with socket.create_connection(("127.0.0.1", stack.port), timeout=10) as sock:
        sock.sendall(b"POST /v1/games HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\n")
        chunk = b"x" * 4096
        for _ in range(2 * LIMIT // len(chunk)):
            sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        sock.settimeout(10)  # no terminating chunk: only a server that stops reading at the limit answers
        answer = sock.recv(4096)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
