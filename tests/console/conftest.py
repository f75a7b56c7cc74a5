"""The console's tests use the API tests' fixtures: the Flask app on a real Redis."""
from tests.platform.conftest import api  # noqa: F401  (a fixture, found by name)
