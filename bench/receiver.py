"""A webhook receiver on 127.0.0.1 for the fan-out bench and the tests: it checks each delivery's signature as a
real receiver would (refusing with 401 what does not verify), keeps what it accepted, and can be down (503) or
hang."""
from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from runtime import webhooks as hooks


class Receiver:
    def __init__(self, host: str = "127.0.0.1") -> None:
        self.secret = ""                              # every hook's secret, unless secrets names the hook's own
        self.secrets: dict[str, str] = {}
        self.accepted: list[dict[str, Any]] = []      # bodies of deliveries that verified, in arrival order
        self.refused = 0
        self.requests = 0                             # every POST that reached it, answered or not
        self.mode = "up"                              # up | down (503) | hang (answers after hang_s, if still asked)
        self.hang_s = 5.0
        self.in_flight = 0                            # POSTs it holds now, and the most it held at once
        self.peak = 0
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with receiver.lock:
                    receiver.requests += 1
                    receiver.in_flight += 1
                    receiver.peak = max(receiver.peak, receiver.in_flight)
                try:
                    if receiver.mode == "hang" and not self._held(receiver.hang_s):
                        return  # the sender gave up and hung up: nobody to answer
                finally:
                    with receiver.lock:
                        receiver.in_flight -= 1
                if receiver.mode == "down":
                    return self._answer(503)
                if not hooks.verify(receiver.secret_of(body), self.headers.get("Arbiter-Signature", ""), body):
                    with receiver.lock:
                        receiver.refused += 1
                    return self._answer(401)
                with receiver.lock:
                    receiver.accepted.append({**json.loads(body), "_at": time.monotonic(),
                                              "_delivery": self.headers.get("Arbiter-Delivery")})
                self._answer(204)

            def _held(self, seconds: float) -> bool:
                """Say nothing for ``seconds``, or until the sender hangs up (False): a request is in flight only
                while its sender waits for it."""
                self.connection.settimeout(seconds)
                try:
                    return self.connection.recv(1) != b""
                except TimeoutError:
                    return True

            def _answer(self, status: int) -> None:
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer((host, 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://{host}:{self.server.server_address[1]}/hook?x=1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def secret_of(self, body: bytes) -> str:
        try:
            return self.secrets.get(json.loads(body).get("hook_id"), self.secret)
        except (ValueError, AttributeError):
            return self.secret

    def seqs(self, hook_id: str | None = None) -> list[int]:
        with self.lock:
            return [d["event"]["seq"] for d in self.accepted if hook_id is None or d["hook_id"] == hook_id]

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
