"""The append notices: how an API process hears of the other processes' appends.

Every append publishes its event (``eventlog/append.lua``).  Without the notice, an order for a
game whose last event another API process appended is built on a stale cached record: the
append conflicts, and the order is validated, sealed and sent again.  With two API workers and
clients spread over many games that was about half of all orders.

No thread listens: a thread woken for every notice cost ~90 us of CPU a notice here, in GIL
hand-offs, more than the retries it saved.  Instead every request of a process that follows the
notices (``Context.follow_appends``, the API's) first drains whatever has arrived: one
non-blocking read, which finds nothing or a few notices.  A notice that is lost (a reconnect, a
process idle for so long that its backlog is dropped) costs only the retry it would have saved:
the log is the truth, the notice only a hint.
"""
from __future__ import annotations

import logging
import os
import ssl
import threading
import time
from typing import Any

import hiredis
from redis import Redis
from redis.exceptions import RedisError

from eventlog import keys
from replays.loader import GameLoader

log = logging.getLogger("arbiter.notices")
RETRY_S = 1.0   # between attempts to subscribe after a failure
IDLE_S = 10.0   # a subscription not drained for this long is dropped unread and made afresh
READ_SIZE = 64 * 1024
MAX_READS = 64  # per drain: what is left waits for the next request
SUBSCRIBE_TIMEOUT_S = 0.4  # the most a subscription's handshake may take


class AppendNotices:
    """This process's subscription, read by whichever request thread gets to it first."""

    def __init__(self, redis: Redis, loader: GameLoader) -> None:
        self._redis = redis
        self._loader = loader
        self._lock = threading.Lock()
        self._buffer = bytearray(READ_SIZE)
        self._connection: Any = None
        self._sock: Any = None
        self._reader: Any = None
        self._pid = 0
        self._drained = 0.0
        self._retry_at = 0.0

    def catch_up(self) -> None:
        """Fold every notice that has arrived into this process's cached records.  Never blocks on
        another thread's drain (that one covers it), and never raises: a failure only ends the subscription."""
        if not self._lock.acquire(blocking=False):
            return
        try:
            now = time.monotonic()
            if self._connection is not None and (self._pid != os.getpid() or now - self._drained > IDLE_S):
                self._close()  # a forked copy of the parent's, or a backlog not worth reading
            if self._connection is None and not self._subscribe(now):
                return
            self._drained = now
            self._drain()
        finally:
            self._lock.release()

    def close(self) -> None:
        with self._lock:
            self._close()

    def _subscribe(self, now: float) -> bool:
        if now < self._retry_at:
            return False
        pool = self._redis.connection_pool
        # RESP2, so that a notice is a plain reply; the socket's own reads, so that nothing is
        # buffered in redis-py's parser: everything after the handshake is read by ``_reader``.
        # A short timeout of its own: a frozen Redis must cost the request that subscribes little more than its
        # own commands' timeout (every request answers within 2 s of a frozen store).
        seconds = min(pool.connection_kwargs.get("socket_timeout") or SUBSCRIBE_TIMEOUT_S, SUBSCRIBE_TIMEOUT_S)
        connection = pool.connection_class(**{**pool.connection_kwargs, "protocol": 2, "socket_timeout": seconds,
                                              "socket_connect_timeout": seconds})
        try:
            connection.connect()
            sock = getattr(connection, "_sock", None)  # redis-py's socket, which every release so far has had
            if sock is None:
                raise ConnectionError("no socket to read notices from")
            sock.sendall(b"".join(connection.pack_command("SUBSCRIBE", keys.APPENDED)))
            sock.setblocking(False)
        except (RedisError, OSError) as exc:
            connection.disconnect()
            self._retry_at = now + RETRY_S
            log.warning("cannot hear append notices (%s); retrying in %.0f s", type(exc).__name__, RETRY_S)
            return False
        self._connection, self._sock, self._reader, self._pid = connection, sock, hiredis.Reader(), os.getpid()
        return True

    def _drain(self) -> None:
        try:
            for _ in range(MAX_READS):
                try:
                    size = self._sock.recv_into(self._buffer)
                except (BlockingIOError, ssl.SSLWantReadError):
                    break
                if size == 0:
                    raise ConnectionResetError("closed by the server")
                self._reader.feed(self._buffer, 0, size)
                while (reply := self._reader.gets()) is not False:
                    if type(reply) is list and len(reply) == 3 and reply[0] == b"message":
                        self._heard(reply[2])
        except (OSError, hiredis.ProtocolError) as exc:
            self._close()
            self._retry_at = time.monotonic() + RETRY_S
            log.warning("lost the append notices (%s); retrying in %.0f s", type(exc).__name__, RETRY_S)

    def _heard(self, notice: bytes) -> None:
        try:
            seq, game_id, stored = notice.split(b" ", 2)
            self._loader.heard(game_id.decode(), int(seq), stored)
        except Exception as exc:  # a hint only: the record stays as it was
            # Its type alone: a message could quote the event, and sealed orders stay out of the logs.
            log.warning("an append notice could not be followed (%s)", type(exc).__name__)

    def _close(self) -> None:
        if self._connection is not None:
            self._connection.disconnect()
        self._connection = self._sock = self._reader = None
