"""``mahjong-assistant serve``: the web app on the demo feed or a camera.

Registered through the ``mahjong_assistant.commands`` entry point (``webui = "webui.cli:register"``),
so the engine's CLI imports nothing from this package.
"""

from __future__ import annotations

import argparse
import io
import socket
import sys
from typing import Any

DEFAULT_PORT = 8765
#: seconds a client has to send a request's line and headers (a half-open or trickling connection is dropped then)
HEADER_TIMEOUT = 10.0
#: seconds a connection may sit without a byte read or written once its request has begun (a body sent too slowly,
#: a viewer whose page stopped reading)
IDLE_TIMEOUT = 60.0
#: the commands :func:`register` adds (name -> help): ``mahjong-assistant`` lists them without loading them
COMMANDS = {"serve": "the web page: live table view, analysis, score sheet"}


def make_feed(source: str | None, fps: float = 10.0, analyze: Any = None, *, variant: str = "sanma",
              calibration_dir: str | None = None, recognize: bool = True, quiet: bool = True,
              tileset: str | None = None):
    """The demo (no source, ``demo`` or ``demo-film``: the demo film read by the models; the scripted demo when
    they do not load), the scripted demo (``demo-script``) or a camera feed for a camera index, video, image
    folder or URL.

    A camera feed reads the table with :class:`vision.live.LiveAnalyzer` (``recognize``, the default, and
    no ``analyze`` given) when the recognition models load; otherwise it shows the camera only and says why."""
    from .feed import CameraFeed, FilmDemoFeed, RecognitionUnavailable, ScriptedDemoFeed

    if source == "demo-script":
        return ScriptedDemoFeed(fps=fps)
    if source in (None, "", "demo", "demo-film"):
        try:
            return FilmDemoFeed(fps=fps)
        except (RecognitionUnavailable, FileNotFoundError, ValueError) as e:
            if not quiet:
                print(f"mahjong-assistant: {e}; playing the scripted demo instead", file=sys.stderr, flush=True)
            return ScriptedDemoFeed(fps=fps)
    if analyze is None and recognize:
        analyze = live_analyzer(str(source), variant, calibration_dir, quiet=quiet, tileset=tileset)
    return CameraFeed(source, analyze, fps=fps)


def live_analyzer(camera_id: str, variant: str = "sanma", calibration_dir: str | None = None, *,
                  quiet: bool = True, tileset: str | None = None):
    """A background :class:`vision.live.LiveAnalyzer`, or None (with a message) when the models do not load.
    ``tileset``: the enrolled tile set to read with (default: the one chosen with ``tileset use``; 'none')."""
    try:
        from vision.inference import TileRecognizer
        from vision.live import LiveAnalyzer
        from vision.tileset_cli import chosen_tileset

        rec = TileRecognizer(tileset=chosen_tileset(tileset))
        return LiveAnalyzer(variant, camera_id=camera_id, calibration_dir=calibration_dir, background=True,
                            recognizer=rec)
    except Exception as e:  # noqa: BLE001 - missing model files, onnxruntime not installed, a broken model
        if not quiet:
            print(f"mahjong-assistant: recognition models not available ({type(e).__name__}: {e}); "
                  "showing the camera without reading tiles", file=sys.stderr, flush=True)
        return None


def serve(source: str | None = None, variant: str = "sanma", host: str = "127.0.0.1", port: int = DEFAULT_PORT,
          *, config: dict[str, Any] | None = None, token: str | None = None, quiet: bool = False,
          tileset: str | None = None) -> int:
    """Run the web app until interrupted. Any host but 127.0.0.1/localhost needs the access token the
    server generates here (or ``token``) and prints with the URL."""
    import os
    from pathlib import Path

    from werkzeug.serving import make_server

    from .app import DEFAULT_DATA_DIR, create_app
    from .auth import needs_token, new_token

    problem = _cannot_listen(host, port)
    if problem:   # before the models load and threads start: a clear message, exit 2
        print(f"error: {problem}", file=sys.stderr)
        return 2
    cfg: dict[str, Any] = {"VARIANT": variant, **(config or {})}
    data = Path(str(cfg.get("DATA_DIR") or os.environ.get("MAHJONG_ASSISTANT_WEB_DATA") or DEFAULT_DATA_DIR))
    cfg.setdefault("SETTINGS_FILE", str(data / "settings.json"))  # the table's choices survive a restart
    if needs_token(host):
        cfg["ACCESS_TOKEN"] = token or cfg.get("ACCESS_TOKEN") or new_token()
    if "FEED" not in cfg:
        cal_dir = cfg.get("CALIBRATION_DIR") or str(data / "calibration")
        cfg["FEED"] = make_feed(source, variant=variant, calibration_dir=cal_dir, quiet=quiet, tileset=tileset)
    app = create_app(cfg)
    hub = app.extensions["hub"].start()
    try:
        server = make_server(host, port, app, threaded=True, request_handler=_redacting_handler())
    except OSError as e:
        hub.stop()
        print(f"error: cannot listen on {host}:{port}: {e.strerror or e}", file=sys.stderr)
        return 2
    shown = host if host not in ("0.0.0.0", "::") else socket.gethostname()
    url = f"http://{shown}:{server.server_port}/"
    if cfg.get("ACCESS_TOKEN"):
        url += f"?token={cfg['ACCESS_TOKEN']}"
    if not quiet:
        what = {None: "the demo table", "": "the demo table", "demo": "the demo table",
                "demo-film": "the demo table", "demo-script": "the scripted demo"}.get(source, f"source {source}")
        print(f"mahjong-assistant: serving {what} ({variant}) at {url}", flush=True)
        if cfg.get("ACCESS_TOKEN"):
            print(f"access token: {cfg['ACCESS_TOKEN']} (needed on every request from another machine)", flush=True)
        print("press Ctrl+C to stop", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        hub.stop()
    return 0


class _Deadline(io.RawIOBase):
    """The socket as a request handler reads it: while ``deadline`` is set (the request line and headers), every
    read must be done by then, however slowly the bytes trickle in; after it, each read or write may wait
    ``idle`` seconds."""

    def __init__(self, sock: socket.socket, idle: float) -> None:
        self.sock = sock
        self.idle = idle
        self.deadline: float | None = None

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        import time

        wait = self.idle
        if self.deadline is not None:
            wait = min(wait, self.deadline - time.monotonic())
            if wait <= 0:
                raise TimeoutError("the request's headers did not arrive in time")
        self.sock.settimeout(wait)
        return self.sock.recv_into(buffer)


def _redacting_handler(header_timeout: float | None = None, idle_timeout: float | None = None):
    """Werkzeug's request handler with the access token blanked out of the request log, and timeouts: a client
    gets ``header_timeout`` seconds (:data:`HEADER_TIMEOUT`) to send its request line and headers, each later read
    or write may wait ``idle_timeout`` (:data:`IDLE_TIMEOUT`); a connection that takes longer is closed, so
    half-open connections do not hold the server's threads."""
    import re
    import time

    from werkzeug.serving import WSGIRequestHandler

    headers_within = HEADER_TIMEOUT if header_timeout is None else header_timeout
    idle = IDLE_TIMEOUT if idle_timeout is None else idle_timeout

    class Handler(WSGIRequestHandler):
        def setup(self) -> None:
            super().setup()
            self.rfile.close()  # nothing read from it yet: every read goes through the deadline instead
            self._deadline = _Deadline(self.connection, idle)
            self.rfile = io.BufferedReader(self._deadline)

        def handle_one_request(self) -> None:
            self._deadline.deadline = time.monotonic() + headers_within
            super().handle_one_request()

        def parse_request(self) -> bool:
            ok = super().parse_request()
            self._deadline.deadline = None  # the headers are in: the body and the reply have the idle timeout
            self.connection.settimeout(idle)
            return ok

        def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
            hide = r"(token=)[^&\s]+"
            self.requestline = re.sub(hide, r"\1(hidden)", getattr(self, "requestline", "") or "")
            if hasattr(self, "path"):
                self.path = re.sub(hide, r"\1(hidden)", self.path)
            super().log_request(code, size)

    return Handler


def _cannot_listen(host: str, port: int) -> str | None:
    """Why the server could not listen on ``host``:``port`` (None when it can)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as e:
        return f"cannot listen on {host}:{port}: the host name does not resolve ({getattr(e, 'strerror', None) or e})"
    except OverflowError:
        return f"cannot listen on {host}:{port}: the port must be 1-65535"
    family, _, _, _, addr = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(addr)
        except OSError as e:
            why = "the port is in use (another server runs there: stop it or pick --port)" \
                if e.errno in (98, 48, 10048) else (e.strerror or str(e))
            return f"cannot listen on {host}:{port}: {why}"
    return None


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is not a port: use 1-65535")
    return value


def cmd_serve(args: argparse.Namespace) -> int:
    from assistant.variants import get_variant

    get_variant(args.variant)  # ValueError -> the CLI's "error: unknown rule system ..."
    if args.tileset not in (None, "none"):
        from vision.tilesets import TileSet, TileSetError

        try:
            TileSet.load(args.tileset)
        except TileSetError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
    config: dict[str, Any] = {}
    if args.db:
        from assistant.match.store import Store

        Store(args.db).close()  # MatchError ("db init", cannot connect) before anything starts: exit 2
        config["MATCH_DB"] = args.db
    return serve(args.source, args.variant, args.host, args.port, tileset=args.tileset, config=config or None)


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``serve`` to the ``mahjong-assistant`` sub-commands."""
    from assistant.variants import variant_names

    p = subparsers.add_parser("serve", help="the web page: live table view, analysis, score sheet",
                              description="Serve the table assistant's web page. Without --source it plays "
                                          "a built-in demo hand.")
    p.add_argument("--source", default=None, metavar="CAMERA|FILE|URL",
                   help="camera index (0), video file, image folder or stream URL (default: the demo table, a "
                        "filmed hand read live by the models; demo-script: the same hand with a scripted reading)")
    p.add_argument("--variant", "-v", default="sanma", choices=variant_names(), help="rule system (default sanma)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1; any other needs the printed access token)")
    p.add_argument("--port", type=_port, default=DEFAULT_PORT, help=f"port 1-65535 (default {DEFAULT_PORT})")
    p.add_argument("--tileset", metavar="NAME", help="read the camera with this enrolled tile set (default: the one "
                   "chosen with `tileset use` or on the page; 'none' for none)")
    p.add_argument("--db", default=None, help="match ledger for the score sheet and the club page: a SQLite file or a "
                   "postgresql://USER@HOST/DB URL (default $MAHJONG_ASSISTANT_DB or the per-user file)")
    p.set_defaults(func=cmd_serve)
    return p


__all__ = ["DEFAULT_PORT", "cmd_serve", "make_feed", "register", "serve"]
