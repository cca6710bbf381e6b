"""JSON errors for every endpoint: one exception type, one handler, helpers that validate input.

Every bad request gets a 4xx JSON body ``{"error": "<plain words>", "status": N}`` (plus ``field`` when
one input field is at fault); nothing is written before the input has been validated.
"""

from __future__ import annotations

from typing import Any, Literal, overload

from flask import Flask, Request, jsonify, request
from werkzeug.exceptions import HTTPException

from assistant.errors import TileError


class ApiError(Exception):
    """A request the server refuses: ``status`` (4xx), the message, optionally the offending ``field``."""

    def __init__(self, message: str, status: int = 400, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.field = field


def error_response(message: str, status: int, field: str | None = None):
    body: dict[str, Any] = {"error": message, "status": status}
    if field:
        body["field"] = field
    resp = jsonify(body)
    resp.status_code = status
    return resp


def register_error_handlers(app: Flask) -> None:
    @app.errorhandler(ApiError)
    def _api_error(e: ApiError):
        return error_response(e.message, e.status, e.field)

    @app.errorhandler(TileError)
    def _tile_error(e: TileError):
        return error_response(str(e), 400)

    @app.errorhandler(ValueError)
    def _value_error(e: ValueError):  # the engine's "bad input" (the CLI's exit status 2)
        return error_response(str(e), 400)

    @app.errorhandler(413)
    def _too_large(e):
        limit = app.config.get("MAX_CONTENT_LENGTH") or 0
        return error_response(f"upload too large: the limit is {limit / 1e6:.0f} MB", 413)

    @app.errorhandler(HTTPException)
    def _http(e: HTTPException):
        if request.path.startswith(("/api/", "/events", "/stream", "/frame", "/tiles/")) or request.is_json:
            return error_response(e.description or e.name, e.code or 500)
        return e


def json_body(req: Request | None = None, required: bool = True) -> dict[str, Any]:
    """The request's JSON object, or ApiError 400 saying what is wrong with it."""
    req = req or request
    raw = req.get_data(cache=True)
    if not raw.strip():
        if required:
            raise ApiError("the request needs a JSON object body")
        return {}
    if req.mimetype != "application/json":
        raise ApiError(f"send the body as JSON with 'Content-Type: application/json' (got "
                       f"{req.mimetype or 'no content type'!r})", 415)
    try:
        import json

        data = json.loads(raw)
    except RecursionError:
        raise ApiError("the JSON body is nested too deeply") from None
    except (ValueError, UnicodeDecodeError) as e:
        raise ApiError(f"the body is not valid JSON: {e}") from None
    if not isinstance(data, dict):
        raise ApiError(f"the body must be a JSON object, got {type(data).__name__}")
    return data


@overload
def get_str(data: dict[str, Any], key: str, default: str, *, required: bool = False, max_len: int = 2000) -> str: ...
@overload
def get_str(data: dict[str, Any], key: str, default: None = None, *, required: Literal[True],
            max_len: int = 2000) -> str: ...
@overload
def get_str(data: dict[str, Any], key: str, default: None = None, *, required: bool = False,
            max_len: int = 2000) -> str | None: ...
def get_str(data: dict[str, Any], key: str, default: str | None = None, *, required: bool = False,
            max_len: int = 2000) -> str | None:
    if key not in data or data[key] is None:
        if required:
            raise ApiError(f"'{key}' is missing", field=key)
        return default
    value = data[key]
    if not isinstance(value, str):
        raise ApiError(f"'{key}' must be a string, got {type(value).__name__}", field=key)
    if len(value) > max_len:
        raise ApiError(f"'{key}' is too long ({len(value)} characters, at most {max_len})", field=key)
    return value


def get_int(data: dict[str, Any], key: str, default: int | None = None, *, required: bool = False,
            lo: int | None = None, hi: int | None = None) -> int | None:
    if key not in data or data[key] is None:
        if required:
            raise ApiError(f"'{key}' is missing", field=key)
        return default
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise ApiError(f"'{key}' must be a whole number, got {value!r}", field=key)
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise ApiError(f"'{key}' must be between {lo} and {hi}, got {value}", field=key)
    return value


def get_bool(data: dict[str, Any], key: str, default: bool = False) -> bool:
    if key not in data or data[key] is None:
        return default
    value = data[key]
    if not isinstance(value, bool):
        raise ApiError(f"'{key}' must be true or false, got {value!r}", field=key)
    return value


def get_obj(data: dict[str, Any], key: str, default: dict | None = None, *, required: bool = False) -> dict | None:
    if key not in data or data[key] is None:
        if required:
            raise ApiError(f"'{key}' is missing", field=key)
        return default
    value = data[key]
    if not isinstance(value, dict):
        raise ApiError(f"'{key}' must be a JSON object, got {type(value).__name__}", field=key)
    return value


__all__ = ["ApiError", "error_response", "get_bool", "get_int", "get_obj", "get_str", "json_body",
           "register_error_handlers"]
