"""A GM-chosen seed shorter than 32 characters is accepted with a weak_seed warning: its sha256 is public at
creation, so a short seed can be found by trying candidates, and with it every draw of the game."""
from __future__ import annotations

import hashlib

import pytest

from service.schemas import MIN_SEED_LENGTH
from tests.platform.helpers import Api


@pytest.mark.parametrize("seed", ["x", "fixed-seed", "a" * (MIN_SEED_LENGTH - 1)])
def test_a_short_seed_is_accepted_with_a_warning(api: Api, seed: str) -> None:
    status, created = api.post("/games", {"type": "extreme-ways", "seed": seed})
    assert status == 201
    assert created["seed_commitment"] == hashlib.sha256(seed.encode()).hexdigest()
    [warning] = created["warnings"]
    assert warning["code"] == "weak_seed" and warning["field"] == "seed"
    assert f"has {len(seed)} characters" in warning["message"] and str(MIN_SEED_LENGTH) in warning["message"]
    assert seed not in warning["message"]  # the seed itself stays secret


@pytest.mark.parametrize("body", [{"seed": "a" * MIN_SEED_LENGTH}, {"seed": None}, {}])
def test_a_long_or_generated_seed_has_no_warning(api: Api, body: dict) -> None:
    status, created = api.post("/games", {"type": "extreme-ways", **body})
    assert status == 201 and created["warnings"] == []


def test_the_warning_is_documented_in_openapi(api: Api) -> None:
    document = api.get("/openapi.json")[1]
    schemas = document["components"]["schemas"]
    assert "warnings" in schemas["CreatedGame"]["required"]
    assert str(MIN_SEED_LENGTH) in schemas["CreateGame"]["properties"]["seed"]["description"]
