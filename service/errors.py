"""The API's one error shape: ``{"error": {"code", "message", "details"}}``."""
from __future__ import annotations

from typing import Any, Mapping


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str, details: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = dict(details or {})

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
