"""The API's one error shape: ``{"error": {"code", "message", "details"}}``."""
from __future__ import annotations

from typing import Any, Mapping

from runtime.commit import Refused


class ApiError(Refused):
    def __init__(self, status: int, code: str, message: str, details: Mapping[str, Any] | None = None,
                 headers: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = dict(details or {})
        self.headers = dict(headers or {})  # sent with the error (Retry-After, RateLimit, Allow)

    def body(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message, "details": self.details}}


def invalid(message: str, details: Mapping[str, Any] | None = None, code: str = "invalid") -> ApiError:
    return ApiError(422, code, message, details)


def conflict(code: str, message: str, details: Mapping[str, Any] | None = None) -> ApiError:
    return ApiError(409, code, message, details)


def forbidden(message: str, code: str = "forbidden") -> ApiError:
    return ApiError(403, code, message)


def unauthorized(message: str = "A valid bearer token for this game is required.") -> ApiError:
    return ApiError(401, "unauthorized", message)


def not_found(message: str) -> ApiError:
    return ApiError(404, "not_found", message)


def corrupt_log(game_id: str, seq: int) -> ApiError:
    """A log that cannot be folded is the server's fault, not the caller's: a 5xx that monitoring sees, but never
    a bare 500.  The message names only the seq: the fold's own words may quote hidden data."""
    return ApiError(503, "corrupt_log", f"The log of game {game_id} cannot be read past seq {seq - 1}: the event "
                    f"at seq {seq} does not fit the game. Its GM can read GET /audit and /export to diagnose it.",
                    {"seq": seq})


# Error codes for an engine's RuleError, by its status: 403 wrong actor, 409 not now, 422 against the rules.
RULE_CODES = {403: "forbidden", 409: "not_now", 422: "rule_violation"}
