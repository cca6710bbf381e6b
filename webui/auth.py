"""Access token for a server that listens beyond this machine.

On 127.0.0.1 no token is needed. ``serve --host 0.0.0.0`` (any other host) generates a token, prints
the URL with it, and every request must carry it: as the ``mahjong_token`` cookie, a ``token`` query
parameter, an ``X-Access-Token`` header or ``Authorization: Bearer``. A valid query parameter also
sets the cookie, so the page's images, streams and scripts work after opening the printed link.
"""

from __future__ import annotations

import hmac
import secrets

from flask import Flask, request

from .errors import error_response

COOKIE = "mahjong_token"
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def new_token() -> str:
    return secrets.token_urlsafe(18)


def needs_token(host: str) -> bool:
    return host not in LOOPBACK


def _given() -> tuple[str | None, bool]:
    q = request.args.get("token")
    if q:
        return q, True
    h = request.headers.get("X-Access-Token")
    if h:
        return h, False
    auth = request.headers.get("Authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip(), False
    return request.cookies.get(COOKIE), False


def install_token_check(app: Flask) -> None:
    @app.before_request
    def _check():
        token = app.config.get("ACCESS_TOKEN")
        if not token:
            return None
        given, _ = _given()
        if given and hmac.compare_digest(given.encode(), token.encode()):
            return None
        return error_response("access token required: open the link the server printed at start "
                              "(…/?token=…), or send the X-Access-Token header", 401)

    @app.after_request
    def _remember(resp):
        token = app.config.get("ACCESS_TOKEN")
        if token:
            given, from_query = _given()
            if from_query and given and hmac.compare_digest(given.encode(), token.encode()):
                resp.set_cookie(COOKIE, token, httponly=True, samesite="Strict", max_age=7 * 86400)
        return resp


__all__ = ["COOKIE", "install_token_check", "needs_token", "new_token"]
