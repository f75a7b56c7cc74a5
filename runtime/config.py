"""Settings from the environment, read once.  Nothing secret has a default."""
from __future__ import annotations

import os
from dataclasses import dataclass
from urllib.parse import urlsplit

TRUE = ("1", "true", "yes", "on")
FALSE = ("", "0", "false", "no", "off")


class ConfigError(RuntimeError):
    """A setting that cannot work: raised at startup, before anything is served."""


@dataclass(frozen=True)
class Settings:
    redis_url: str
    queue_url: str
    queue_name: str
    admin_token: str | None
    max_body_bytes: int
    # The event store is a Redis Cluster and ``redis_url`` names any one of its nodes.
    # RQ cannot run on a cluster, so the queue then needs its own plain Redis.
    redis_cluster: bool = False
    # API processes hear each other's appends (replays/notices.py); off only to compare or to rule it out.
    append_notices: bool = True
    # Seconds any one Redis exchange may take (connect, command, reply): a frozen or partitioned
    # Redis then costs a request this long before its 503, never a hang (ARBITER_REDIS_TIMEOUT).
    redis_timeout: float = 1.0
    # The stream process's base URL as browsers reach it (``…/v1``, ARBITER_STREAM_URL; ``arbiter up`` sets its own):
    # the console's pages follow games live from it.  None: they poll the API.
    stream_url: str | None = None
    # The sweeper (workers/sweeper.py): it looks at the deadline index every ``sweep_every`` seconds and steps in
    # for a phase resolvable for ``sweep_grace`` seconds (ARBITER_SWEEP_EVERY, ARBITER_SWEEP_GRACE); a phase it
    # re-queued, or found waiting in the queue, it looks at again ``sweep_retry`` seconds later, then at doubling
    # intervals (ARBITER_SWEEP_RETRY).  Shorter ones only risk a duplicate job, which finds the phase resolved;
    # the fault tests run with short ones.
    sweep_every: float = 1.0
    sweep_grace: float = 5.0
    sweep_retry: float = 5.0
    # The key file that signs receipts and checkpoints (ARBITER_SIGNING_KEY; made on first use, runtime/signing.py),
    # and the name a new key gets, which is also every game's checkpoint origin prefix (ARBITER_ORIGIN).  No key file:
    # a key that dies with the process.
    signing_key: str | None = None
    origin: str = "arbiter.local"

    @property
    def stream_origin(self) -> str | None:
        """The stream's origin (scheme://host[:port]), the one other place the console's pages may connect to."""
        return origin(self.stream_url) if self.stream_url else None

    @classmethod
    def from_env(cls) -> "Settings":
        cluster = _flag("ARBITER_REDIS_CLUSTER")
        if cluster and not os.environ.get("REDIS_URL"):
            raise ConfigError("ARBITER_REDIS_CLUSTER=1 needs REDIS_URL naming one node of the cluster "
                              "(e.g. redis://10.0.0.5:7000/0).")
        redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
        queue_url = os.environ.get("ARBITER_QUEUE_URL") or None
        if cluster:
            check_cluster_queue(redis_url, queue_url)
        return cls(
            redis_url=redis_url,
            queue_url=queue_url or redis_url,
            queue_name=os.environ.get("ARBITER_QUEUE", "arbiter"),
            admin_token=os.environ.get("ARBITER_ADMIN_TOKEN") or None,
            max_body_bytes=int(os.environ.get("ARBITER_MAX_BODY_BYTES", str(64 * 1024))),
            redis_cluster=cluster,
            append_notices=_flag("ARBITER_APPEND_NOTICES", default=True),
            redis_timeout=_seconds("ARBITER_REDIS_TIMEOUT", 1.0),
            stream_url=stream_base(os.environ.get("ARBITER_STREAM_URL", "")),
            sweep_every=_seconds("ARBITER_SWEEP_EVERY", 1.0),
            sweep_grace=_seconds("ARBITER_SWEEP_GRACE", 5.0),
            sweep_retry=_seconds("ARBITER_SWEEP_RETRY", 5.0),
            signing_key=os.environ.get("ARBITER_SIGNING_KEY") or None,
            origin=key_name(os.environ.get("ARBITER_ORIGIN", "arbiter.local")),
        )


def check_cluster_queue(redis_url: str, queue_url: str | None) -> None:
    """With the store on a cluster, the queue must name a different, plain Redis.

    Only the address is checked here; ``Context`` also asks the queue's server whether it
    is a cluster node (another node of the same cluster has another address)."""
    if not queue_url:
        raise ConfigError("ARBITER_REDIS_CLUSTER=1 needs ARBITER_QUEUE_URL: RQ cannot run on Redis Cluster, "
                          "so the queue must live on a separate, plain Redis.")
    if set(nodes(queue_url)) & set(nodes(redis_url)):
        raise ConfigError(f"ARBITER_QUEUE_URL ({address(queue_url)}) points at the event store's cluster node; "
                          "RQ cannot run on Redis Cluster: give the queue a separate, plain Redis.")


def key_name(raw: str) -> str:
    """ARBITER_ORIGIN: a C2SP key name, such as the service's host (no spaces, no '+')."""
    name = raw.strip()
    if not name or any(c.isspace() or c == "+" for c in name) or not name.isprintable():
        raise ConfigError(f"ARBITER_ORIGIN must be a name without spaces or '+', such as arbiter.example.org, "
                          f"not {raw!r}.")
    return name


def stream_base(raw: str) -> str | None:
    """ARBITER_STREAM_URL checked: an http(s) URL with a host, its path ending in /v1, nothing after (no user, query
    or fragment); None if unset."""
    url = raw.strip().rstrip("/")
    if not url:
        return None
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  (raises for a port that is not a number)
    except ValueError:
        parts = None
    if (parts is None or parts.scheme not in ("http", "https") or not parts.hostname or parts.username
            or parts.query or parts.fragment or not parts.path.endswith("/v1")
            or any(c.isspace() or c in ";,'\"" for c in url)):
        raise ConfigError("ARBITER_STREAM_URL must be the stream process's base URL as browsers reach it, "
                          "e.g. http://127.0.0.1:8001/v1 (http or https, ending in /v1, no user, query or fragment).")
    return url


def origin(url: str) -> str:
    """scheme://host[:port] of a URL (what a Content-Security-Policy names)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def address(url: str) -> str:
    """host:port of a Redis URL (each, comma-separated, for a cluster's several nodes), for messages (never its
    password)."""
    found = nodes(url)
    return ",".join(f"{host}:{port}" for host, port in found) if found else urlsplit(url).path


def nodes(url: str) -> list[tuple[str, int]]:
    """The (host, port) pairs a Redis URL names.  On Redis Cluster REDIS_URL may name several nodes,
    ``redis://10.0.0.5:7000,10.0.0.6:7000/0``: a process then starts while any one of them is up."""
    hosts = urlsplit(url).netloc.rpartition("@")[2]
    found = []
    for item in filter(None, hosts.split(",")):
        parts = urlsplit(f"//{item}")
        if parts.hostname:
            found.append((parts.hostname, parts.port or 6379))
    return found


def _seconds(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = 0.0
    if not 0.05 <= value <= 60:
        raise ConfigError(f"{name} must be a number of seconds from 0.05 to 60, not {raw!r}.")
    return value


def _flag(name: str, default: bool = False) -> bool:
    value = os.environ.get(name, "1" if default else "").strip().lower()
    if value in TRUE:
        return True
    if value in FALSE:
        return False
    raise ConfigError(f"{name} must be 1 or 0 (true/false), not {value!r}.")
