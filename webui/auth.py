"""Who may talk to the server: the Host it is reached by, the origin of state-changing requests, the token.

*Host allow-list* (DNS rebinding): a server without an access token (the default on 127.0.0.1) answers only
requests whose Host is a loopback name (``ALLOWED_HOSTS`` in the app config widens it).

*Cross-site requests*: every state-changing request (POST, PUT, PATCH, DELETE) must come from the page's own
origin: an ``Origin`` header naming another site, or ``Sec-Fetch-Site: cross-site`` / ``same-site``, is
refused with 403 and changes nothing. JSON endpoints also take only ``Content-Type: application/json``
(:func:`webui.errors.json_body`), which a plain cross-site form cannot send. Programs that send no Origin
(curl, scripts on this machine) are served as before.

*Access token* for a server that listens beyond this machine.

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


SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


def _host_name(host: str) -> str:
    host = (host or "").strip().lower()
    if host.startswith("["):
        return host[1:host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def _same_origin(origin: str) -> bool:
    from urllib.parse import urlsplit

    try:
        o = urlsplit(origin)
    except ValueError:
        return False
    return bool(o.netloc) and o.netloc.lower() == (request.host or "").lower() and o.scheme in ("http", "https")


def install_token_check(app: Flask) -> None:
    @app.before_request
    def _guard():
        allowed = app.config.get("ALLOWED_HOSTS")
        if allowed is None and not app.config.get("ACCESS_TOKEN"):
            allowed = LOOPBACK
        if allowed and _host_name(request.host) not in {h.lower() for h in allowed}:
            return error_response(f"this server answers only to {', '.join(allowed)}, not to the host "
                                  f"{request.host!r}", 421)
        if request.method not in SAFE_METHODS:
            origin = request.headers.get("Origin")
            site = (request.headers.get("Sec-Fetch-Site") or "").lower()
            if (origin and origin != "null" and not _same_origin(origin)) or origin == "null" or \
                    (not origin and site in ("cross-site", "same-site")):
                return error_response("cross-site request refused: changes are accepted only from this "
                                      "server's own pages", 403)
        return None

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
