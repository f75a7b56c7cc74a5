"""Settings from the environment, read once.  Nothing secret has a default."""
from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Settings:
    redis_url: str
    queue_url: str
    queue_name: str
    admin_token: str | None
    max_body_bytes: int

    @classmethod
    def from_env(cls) -> "Settings":
        redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
        return cls(
            redis_url=redis_url,
            queue_url=os.environ.get("ARBITER_QUEUE_URL", redis_url),
            queue_name=os.environ.get("ARBITER_QUEUE", "arbiter"),
            admin_token=os.environ.get("ARBITER_ADMIN_TOKEN") or None,
            max_body_bytes=int(os.environ.get("ARBITER_MAX_BODY_BYTES", str(64 * 1024))),
        )
