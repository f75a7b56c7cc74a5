"""The stream process answers bad input as the API does (issue 28 item 9): the JSON error envelope with CORS for
aiohttp's own refusals too (no such route, a method a route lacks, a request it cannot parse), duplicate JSON keys
refused, webhook URLs with spaces or line breaks refused, and no inside address smuggled in an IPv6 one."""
from __future__ import annotations


import pytest
import requests

from runtime import webhooks as hooks
from runtime.context import Context
from tests.platform.conftest import Game
from tests.platform.helpers import raw_exchange
from tests.streams.conftest import StreamServer


def _is_envelope(response: requests.Response, status: int, code: str) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["Content-Type"].startswith("application/json")
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    error = response.json()["error"]
    assert error["code"] == code and error["message"] and isinstance(error["details"], dict)
    return error


def test_unknown_routes_and_methods_get_the_envelope(streams: StreamServer, game: Game) -> None:
    _is_envelope(requests.get(f"{streams.url}/nothing-here", timeout=10), 404, "not_found")
    response = requests.put(f"{streams.url}{game.path('/webhooks')}", json={}, timeout=10)
    _is_envelope(response, 405, "method_not_allowed")
    assert set(response.headers["Allow"].replace(" ", "").split(",")) >= {"GET", "POST"}


def test_a_request_aiohttp_cannot_parse_gets_the_envelope(streams: StreamServer) -> None:
    head, body = raw_exchange(streams.port, b"GET /v1/stream-health HTTP/1.1\r\nHost: x\r\nBad Header: \x01\r\n\r\n")
    assert head.split(b" ")[1] == b"400", head[:200]
    assert b"Content-Type: application/json" in head and b"Access-Control-Allow-Origin: *" in head
    assert b'"code":"bad_request"' in body


def test_duplicate_keys_are_refused_and_nothing_is_registered(streams: StreamServer, game: Game) -> None:
    body = b'{"url": "http://1.1.1.1/", "url": "http://127.0.0.1/"}'
    response = requests.post(f"{streams.url}{game.path('/webhooks')}", data=body, timeout=10,
                             headers={"Authorization": f"Bearer {game.gm}", "Content-Type": "application/json"})
    assert _is_envelope(response, 400, "duplicate_key")["details"] == {"key": "url"}
    assert streams.call("GET", game.path("/webhooks"), token=game.gm)[1]["webhooks"] == []


@pytest.mark.parametrize("url", ["http://1.1.1.1/a b", "http://1.1.1.1/\r\nX-Injected: 1", "http://1.1.1.1/\n",
                                 "http://1.1.1.1/\tx", " http://1.1.1.1/", "http://1.1.1.1/\x7f",
                                 "http://1.1.1.1/\u00a0"])
def test_urls_with_spaces_or_line_breaks_are_refused(streams: StreamServer, game: Game, url: str) -> None:
    status, body = streams.call("POST", game.path("/webhooks"), {"url": url}, game.gm)
    assert status == 422 and "url" in body["error"]["details"], body
    assert streams.call("GET", game.path("/webhooks"), token=game.gm)[1]["webhooks"] == []


@pytest.mark.parametrize("url", [
    "http://[2002:7f00:1::]/",                        # 6to4 around 127.0.0.1
    "http://[2002:a9fe:a9fe::]/",                     # 6to4 around the cloud metadata address
    "http://[2002:c0a8:1::1]/",                       # 6to4 around 192.168.0.1
    "http://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/",  # Teredo: a public server, client 10.0.0.1
    "http://[64:ff9b::7f00:1]/",                      # NAT64 around 127.0.0.1
    "http://[64:ff9b::a9fe:a9fe]/",                   # NAT64 around 169.254.169.254
    "http://[64:ff9b:1::a00:1]/",                     # NAT64's local-use prefix
])
def test_an_inside_address_wrapped_in_ipv6_is_refused(streams: StreamServer, game: Game, url: str) -> None:
    status, body = streams.call("POST", game.path("/webhooks"), {"url": url}, game.gm)
    assert status == 422 and "not a public address" in body["error"]["details"]["url"][0], body


@pytest.mark.parametrize("url", ["http://[2002:101:101::]/", "http://[64:ff9b::101:101]/"])
def test_a_public_address_wrapped_in_ipv6_may_be_called(url: str) -> None:
    assert hooks.check_url(url)[3]


def test_a_handler_that_fails_answers_500_in_the_envelope(ctx: Context, game: Game,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from streams import live

    def broken(*_: object) -> None:
        raise KeyError("a bug")

    monkeypatch.setattr(live, "list_webhooks", broken)
    server = StreamServer(ctx)  # routes are bound as the app is made: this one's, with the broken function
    server.start()
    try:
        response = requests.get(f"{server.url}{game.path('/webhooks')}", timeout=10,
                                headers={"Authorization": f"Bearer {game.gm}"})
        error = _is_envelope(response, 500, "internal")
        assert "a bug" not in response.text and error["message"] == "Something went wrong on our side."
    finally:
        server.stop()


@pytest.mark.parametrize("game_id", ["g" * 65, "g.1"])
def test_a_game_id_no_game_can_have_is_a_404(streams: StreamServer, game_id: str) -> None:
    response = requests.get(f"{streams.url}/games/{game_id}/stream?after=0", timeout=10)
    assert _is_envelope(response, 404, "not_found")["message"] == f"No game {game_id!r}."
