"""Issue 18 item 8: every error is the JSON envelope, even gunicorn's own; a body must say it is JSON,
and a JSON object may not hold a key twice."""
from __future__ import annotations


import requests

from tests.e2e.stack import Stack
from tests.platform.helpers import raw_exchange


def _envelope(response: requests.Response, status: int, code: str) -> None:
    assert response.status_code == status, response.text[:300]
    assert response.headers["Content-Type"].startswith("application/json"), response.headers
    error = response.json()["error"]
    assert error["code"] == code and isinstance(error["message"], str) and error["details"] == {}, error


def test_a_query_string_over_gunicorns_limit_gets_the_json_envelope(stack: Stack) -> None:
    response = requests.get(f"{stack.url}/games?x=" + "a" * 10_000, timeout=10)
    _envelope(response, 414, "uri_too_long")
    assert response.headers["Access-Control-Allow-Origin"] == "*"


def test_headers_over_gunicorns_limit_get_the_json_envelope(stack: Stack) -> None:
    response = requests.get(f"{stack.url}/health", headers={"X-Big": "b" * 10_000}, timeout=10)
    assert response.status_code in (400, 431)
    assert response.headers["Content-Type"].startswith("application/json")
    assert response.json()["error"]["code"] in ("bad_request", "headers_too_large")


def test_a_request_gunicorn_cannot_parse_gets_the_json_envelope(stack: Stack) -> None:
    head, body = raw_exchange(stack.port, b"GET /v1/health HTTP/9.9\r\nHost: x\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400") and b"Content-Type: application/json" in head, head[:300]
    assert b'"code":"bad_request"' in body


def test_a_body_not_sent_as_json_is_refused_415(stack: Stack) -> None:
    for content_type in ("text/plain", "application/x-www-form-urlencoded", None):
        headers = {"Content-Type": content_type} if content_type else {}
        response = requests.post(f"{stack.url}/games", data=b'{"type": "extreme-ways"}', headers=headers,
                                 timeout=10)
        assert response.status_code == 415, (content_type, response.text)
        assert response.json()["error"]["code"] == "unsupported_media_type"
    for content_type in ("application/json", "application/json; charset=utf-8", "application/vnd.api+json"):
        response = requests.post(f"{stack.url}/games", data=b'{"type": "extreme-ways"}',
                                 headers={"Content-Type": content_type}, timeout=10)
        assert response.status_code == 201, (content_type, response.text)


def test_duplicate_keys_are_refused_400(stack: Stack) -> None:
    for raw in (b'{"type": "extreme-ways", "type": "sxyzm-cyclone"}',
                b'{"type": "extreme-ways", "options": {"rounds": 1, "rounds": 2}}'):
        response = requests.post(f"{stack.url}/games", data=raw, headers={"Content-Type": "application/json"},
                                 timeout=10)
        assert response.status_code == 400, response.text
        error = response.json()["error"]
        assert error["code"] == "duplicate_key" and error["details"]["key"] in ("type", "rounds")


def test_an_empty_start_needs_no_content_type(stack: Stack) -> None:
    status, created = stack.call("POST", "/games", {"type": "extreme-ways"})
    assert status == 201
    for name in ("Ann", "Bob"):
        assert stack.call("POST", f"/games/{created['game_id']}/players", {"name": name})[0] == 201
    response = requests.post(f"{stack.url}/games/{created['game_id']}/start",
                             headers={"Authorization": f"Bearer {created['gm_token']}"}, timeout=10)
    assert response.status_code == 200, response.text
