"""Security tests run on the Flask app over the session's real Redis.

Each token calls from its own client address, as real callers do: bad-token throttling
counts per game and address, so one careless caller must not lock the others out.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import pytest

from service.app import create_app
from runtime.context import Context
from tests.platform.helpers import Api


def address_of(token: str | None) -> str:
    digest = hashlib.sha256((token or "").encode()).digest()
    return f"10.{digest[0]}.{digest[1]}.{digest[2] or 1}"


@dataclass
class AddressedApi(Api):
    def environ(self, token: str | None) -> dict[str, Any]:
        return {"environ_base": {"REMOTE_ADDR": address_of(token)}}


@pytest.fixture()
def api(ctx: Context) -> Api:
    return AddressedApi(create_app(ctx).test_client())


@pytest.fixture()
def game(api: Api):
    from tests.platform.conftest import new_game

    return new_game(api)
