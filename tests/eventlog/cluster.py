"""A real three-primary Redis Cluster on free ports in a temp dir, for the store's cluster tests."""
from __future__ import annotations

import shutil
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import redis

from cli import embedded_redis

PRIMARIES = 3


@dataclass
class LocalCluster:
    ports: list[int]
    processes: list[subprocess.Popen] = field(default_factory=list)

    @property
    def url(self) -> str:
        """Any one node: the client discovers the others from it."""
        return f"redis://127.0.0.1:{self.ports[0]}/0"

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def redis_cli() -> str | None:
    return shutil.which("redis-cli")


ATTEMPTS = 3  # a node whose port another process took between our choosing it and its binding it exits: start anew


class NodeExited(RuntimeError):
    """A node's process ended before it answered (its port or bus port was taken meanwhile)."""


def start(directory: Path, timeout: float = 20.0, primaries: int = PRIMARIES, replicas: int = 0,
          full_coverage: bool = True, node_timeout_ms: int | None = None) -> LocalCluster:
    """Start the nodes, join them with ``redis-cli --cluster create``, wait for cluster_state:ok.  The outage
    tests ask for replicas, partial coverage and a short node timeout, so that a failover happens in seconds."""
    for attempt in range(ATTEMPTS):
        try:
            return _start(directory / f"attempt{attempt}", timeout, primaries, replicas, full_coverage,
                          node_timeout_ms)
        except NodeExited:
            if attempt == ATTEMPTS - 1:
                raise
    raise AssertionError("unreachable")


def _start(directory: Path, timeout: float, primaries: int, replicas: int, full_coverage: bool,
           node_timeout_ms: int | None) -> LocalCluster:
    server = embedded_redis.find_binary()
    cli = redis_cli()
    if cli is None:
        raise RuntimeError("redis-cli is not on PATH")
    # Each node also needs a bus port; set it explicitly (port + 10000 may be past 65535).
    nodes_count = primaries * (1 + replicas)
    chosen = _free_ports(2 * nodes_count)
    ports, bus_ports = chosen[:nodes_count], chosen[nodes_count:]
    cluster = LocalCluster(ports)
    tuning = ["--cluster-require-full-coverage", "yes" if full_coverage else "no"] + (
        ["--cluster-node-timeout", str(node_timeout_ms)] if node_timeout_ms else [])
    try:
        for index, (port, bus_port) in enumerate(zip(ports, bus_ports)):
            node_dir = (directory / f"node{index}").resolve()
            node_dir.mkdir(parents=True, exist_ok=True)
            args = [server, "--port", str(port), "--cluster-port", str(bus_port),
                    "--bind", "127.0.0.1", "--dir", str(node_dir), "--cluster-enabled", "yes",
                    "--cluster-config-file", "nodes.conf", *tuning, "--save", "", "--appendonly", "no",
                    "--daemonize", "no", "--logfile", str(node_dir / "redis.log")]
            cluster.processes.append(subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        limit = time.monotonic() + timeout
        nodes = [redis.Redis(port=port) for port in ports]
        for node, port, process in zip(nodes, ports, cluster.processes):
            _wait(node.ping, limit, f"node {port} did not start", process)
        subprocess.run([cli, "--cluster", "create", *(f"127.0.0.1:{p}" for p in ports),
                        "--cluster-replicas", str(replicas), "--cluster-yes"],
                       check=True, capture_output=True, timeout=timeout)
        for node, port in zip(nodes, ports):
            _wait(lambda node=node: node.cluster("info")["cluster_state"] == "ok", limit,
                  f"node {port} never reached cluster_state:ok")
            node.close()
        return cluster
    except BaseException:
        cluster.stop()
        raise


def _free_ports(count: int) -> list[int]:
    """``count`` distinct free ports: held open together while chosen, so none is handed out twice."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def _wait(check, limit: float, message: str, process: subprocess.Popen | None = None) -> None:
    while True:
        try:
            if check():
                return
        except redis.RedisError:
            pass
        if process is not None and process.poll() is not None:
            raise NodeExited(message)
        if time.monotonic() > limit:
            raise RuntimeError(message)
        time.sleep(0.05)
