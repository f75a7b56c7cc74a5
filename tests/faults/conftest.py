"""Fixtures for the fault suite: a live stack (gunicorn + `arbiter worker` processes)."""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from service.config import Settings
from tests.e2e.stack import Stack


@pytest.fixture()
def stack(settings: Settings, tmp_path: Path) -> Iterator[Stack]:
    live = Stack(settings, tmp_path)
    try:
        live.start_api()
        yield live
    finally:
        live.stop()
