"""A read the server never answers: the console gives it up after 10 s, says so, and goes on following the game.

The page polls one refresh at a time, so without a limit one answer that never came (a connection dropped unseen on
the way) stopped it following the game for good, with nothing shown.  The browser reaches the API through a proxy
here that holds one read of the game unanswered."""
from __future__ import annotations

import http.client
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest
import requests

from tests.console.browser import chromium, wait_for
from tests.e2e.play import create_and_join

DOC = Path(__file__).resolve().parents[2] / "docs" / "console.md"


class HangingProxy:
    """Forwards every request to the API, except that it holds the next GET of exactly ``hang_path`` (once armed)
    without answering until the test ends."""

    def __init__(self, api_port: int) -> None:
        self.hang_path = ""
        self.held = 0
        self.release = threading.Event()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _forward(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0") or 0))
                if self.command == "GET" and proxy.hang_path and self.path.split("?", 1)[0] == proxy.hang_path:
                    proxy.hang_path, proxy.held = "", proxy.held + 1
                    proxy.release.wait(60)  # no answer: the browser gives up first, or the test ends
                    self.close_connection = True
                    return
                upstream = http.client.HTTPConnection("127.0.0.1", api_port, timeout=30)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
                upstream.request(self.command, self.path, body=body or None, headers=headers)
                answer = upstream.getresponse()
                data = answer.read()
                self.send_response(answer.status)
                for name, value in answer.getheaders():
                    if name.lower() not in ("connection", "transfer-encoding", "content-length"):
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                upstream.close()

            do_GET = do_POST = do_DELETE = _forward  # noqa: N815 (http.server's names)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture()
def browser() -> Iterator[Any]:
    yield from chromium()


def test_a_read_never_answered_is_given_up_and_the_page_goes_on_following(stack: Any, browser: Any) -> None:
    api = f"http://127.0.0.1:{stack.port}"
    gid, _gm, tokens = create_and_join(stack, "extreme-ways", 3, seed="hung")
    proxy = HangingProxy(stack.port)
    try:
        browser.get(f"http://127.0.0.1:{proxy.port}/console/games/{gid}")
        wait_for(browser, lambda: "game.started" in browser.find_element("css selector", "#timeline li summary").text,
                 "the page, polling (this server names no stream process)")
        proxy.hang_path = f"/v1/games/{gid}"  # the next poll's first read: the game itself
        wait_for(browser, lambda: proxy.held == 1, "a poll's read held unanswered")
        shown = wait_for(browser, lambda: "did not answer within 10 s" in browser.find_element("id", "error").text
                         and browser.find_element("id", "error").text, "the page to give the read up and say so")
        assert f'"{shown}"' in DOC.read_text(), "docs/console.md quotes the message as the page shows it"
        bid = requests.post(f"{api}/v1/games/{gid}/actions", json={"type": "bid", "amount": 5},
                            headers={"Authorization": f"Bearer {tokens['p1']}"}, timeout=10).json()["seq"]
        wait_for(browser, lambda: browser.find_element("css selector", "#timeline li summary").text.startswith(
            f"#{bid} action.submitted"), "the next poll to bring the bid")
        assert browser.find_element("id", "error").text == ""  # the message goes with the next answer
    finally:
        proxy.stop()
