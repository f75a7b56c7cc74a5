"""Issue 18 item 17: the image holds every package (so `arbiter bench` and `arbiter stream` run in it), and the
api and worker services have health checks that tell a healthy process from a dead one."""
from __future__ import annotations

import subprocess
import sys
import time
import tomllib
from pathlib import Path

import yaml
from redis import Redis
from rq import Worker

from runtime.config import Settings
from tests.e2e.stack import Stack, stack_env

ROOT = Path(__file__).resolve().parents[2]


def test_the_image_copies_every_package_the_project_installs() -> None:
    include = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]["include"]
    packages = {pattern.rstrip("*") for pattern in include}
    copied = {line.split()[1] for line in (ROOT / "Dockerfile").read_text().splitlines() if line.startswith("COPY ")}
    assert packages <= copied, packages - copied
    license_ = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["license"]
    assert isinstance(license_, str)  # an SPDX expression, not the deprecated table


def test_the_api_and_the_worker_have_health_checks() -> None:
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    for name, kind in (("api", "api"), ("worker", "worker")):
        test = services[name]["healthcheck"]["test"]
        assert test[:4] == ["CMD", "python", "-m", "cli.healthcheck"] and test[4] == kind, test


def test_the_processes_that_sign_share_one_key_file_outside_redis() -> None:
    """Issue 29: the API, the worker (checkpoints at each resolution) and the stream process sign with one key, kept
    on a volume of its own that the image's user may write (the first process to start makes the key)."""
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    for name in ("api", "worker", "stream"):
        key = services[name]["environment"]["ARBITER_SIGNING_KEY"]
        assert key == "/var/lib/arbiter/signing.key" and "keys:/var/lib/arbiter" in services[name]["volumes"], name
    assert "ARBITER_SIGNING_KEY" not in services["redis"].get("environment", {})
    assert "chown arbiter /var/lib/arbiter" in (ROOT / "Dockerfile").read_text()


def _check(settings: Settings, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cli.healthcheck", *args], env=stack_env(settings),
                          capture_output=True, text=True, timeout=30)


def test_the_health_checks_tell_healthy_from_dead(own_stack: Stack) -> None:
    stack = own_stack  # it stops the API
    assert _check(stack.settings, "api", f"{stack.url}/health").returncode == 0
    assert _check(stack.settings, "worker").returncode == 1  # no worker yet
    worker = stack.start_worker("health")
    deadline = time.monotonic() + 30
    while _check(stack.settings, "worker").returncode != 0:
        assert time.monotonic() < deadline, "the worker never showed healthy"
        time.sleep(0.5)
    stack.kill(worker, 15)
    # a worker stopped cleanly unregisters: the check fails again
    assert Worker.all(connection=Redis.from_url(stack.settings.queue_url)) == []
    assert _check(stack.settings, "worker").returncode == 1
    stack.api.terminate()
    stack.api.wait(timeout=20)
    dead = _check(stack.settings, "api", f"{stack.url}/health")
    assert dead.returncode == 1 and "unhealthy" in dead.stderr
