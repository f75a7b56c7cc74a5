"""The API fixtures of the platform tests (the Flask app on a real Redis, a started game), shared here."""
from tests.platform.conftest import api, game  # noqa: F401
