"""The process ``bench.instructions`` runs under callgrind (spec on stdin): it warms up an app, has callgrind
count only the measured calls (``callgrind_control -i on``, then ``off``), and exits."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from typing import Any, Callable

from werkzeug.test import EnvironBuilder

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Any]


def _app(side: str) -> WsgiApp:
    if side == "baseline":
        from bench.baseline_app import create_app as baseline

        return baseline()
    from service.app import create_app

    return create_app()


def _calls(app: WsgiApp, requests: list[dict[str, Any]]) -> Callable[[int, str], None]:
    """``call(i, tag)``: the i-th request (round robin) with its own Idempotency-Key, as a WSGI call."""
    environs = []
    for item in requests:
        headers = {**item["headers"], "Content-Type": "application/json"}
        environs.append((EnvironBuilder(path=item["path"], method=item["method"], headers=headers,
                                        data=item["body"]).get_environ(), item["body"].encode()))

    def call(index: int, tag: str) -> None:
        base, body = environs[index % len(environs)]
        environ = {**base, "wsgi.input": io.BytesIO(body), "HTTP_IDEMPOTENCY_KEY": f"{tag}-{index}"}
        statuses: list[str] = []
        reply = app(environ, lambda status, headers, exc_info=None: statuses.append(status))
        try:
            b"".join(reply)
        finally:
            getattr(reply, "close", lambda: None)()
        if not statuses[0].startswith("202"):
            raise RuntimeError(f"an order was answered {statuses[0]}")

    return call


def _signing() -> Callable[[int, str], None]:
    """One receipt's signed note a call, for an event like an order's."""
    from eventlog.events import GENESIS, seal
    from runtime.signing import Keys

    keys = Keys(None, "arbiter.bench")
    event = seal(7, GENESIS, "action.submitted", "p1", {"phase": 1, "action": {"type": "bid", "amount": 3}})

    def call(index: int, tag: str) -> None:
        keys.receipt(f"g{index % 50}", event)

    return call


def _counting(on: bool) -> None:
    subprocess.run(["callgrind_control", "-i", "on" if on else "off", str(os.getpid())], check=True,
                   capture_output=True)


def main() -> int:
    spec = json.loads(sys.stdin.read())
    call = _signing() if spec["side"] == "signing" else _calls(_app(spec["side"]), spec["requests"])
    for index in range(spec["warm"]):
        call(index, "warm")
    _counting(True)
    for index in range(spec["count"]):
        call(index, "measured")
    _counting(False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
