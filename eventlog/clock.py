"""The one clock the platform reads (engines never do); freezegun patches it in tests."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone


def now() -> datetime:
    return datetime.now(timezone.utc)


def iso(moment: datetime) -> str:
    """Deadlines are whole seconds in UTC, ISO 8601 with a Z."""
    return moment.astimezone(timezone.utc).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def after(seconds: int, moment: datetime | None = None) -> str:
    """The deadline ``seconds`` from now, rounded up to the next whole second."""
    base = (moment or now()).astimezone(timezone.utc)
    if base.microsecond:
        base = base.replace(microsecond=0) + timedelta(seconds=1)
    return iso(base + timedelta(seconds=seconds))


def is_past(deadline: str, moment: datetime | None = None) -> bool:
    """An order is on time up to and including the deadline's own instant."""
    return (moment or now()) > parse(deadline)
