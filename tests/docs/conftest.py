"""The docs' tests call the Flask app over the session's real Redis, as the platform's tests do."""
from tests.platform.conftest import api  # noqa: F401  (the fixture, shared)
