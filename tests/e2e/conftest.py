"""Browser tests: the web app on the demo feeds (scripted, and the film read by the models), driven by
Playwright through Debian's Chromium.

Skipped (with the reason) when the ``playwright`` package or ``/usr/bin/chromium`` is missing; never
runs ``playwright install``. Screenshots go to ``tests/e2e/artifacts/`` (git-ignored).
"""

from __future__ import annotations

import logging
import os
import shutil
import threading
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("MAHJONG_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run"]
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
DESKTOP = {"width": 1400, "height": 1000}
PHONE = {"width": 390, "height": 844}


def _why_skip() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright Python package is not installed (pip install playwright)"
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)) and not shutil.which("chromium"):
        return f"Chromium not found at {CHROMIUM} (apt-get install -y chromium)"
    return None


def _serve(tmp_path_factory, make_feed, name: str):
    """The web app on the feed ``make_feed()`` makes, on a free port, with its data in a temporary folder."""
    reason = _why_skip()
    if reason:
        pytest.skip(reason)
    from werkzeug.serving import make_server

    from webui import create_app

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    root = tmp_path_factory.mktemp(name)
    feed = make_feed()
    app = create_app({"FEED": feed, "DATA_DIR": str(root), "MATCH_DB": str(root / "matches.db"),
                      "SETTINGS_FILE": None})
    hub = app.extensions["hub"].start()
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield {"url": f"http://127.0.0.1:{srv.server_port}", "app": app, "feed": feed, "root": root}
    srv.shutdown()
    hub.stop()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The web app on the scripted demo (stepped by the tests)."""
    from webui.feed import ScriptedDemoFeed

    yield from _serve(tmp_path_factory, lambda: ScriptedDemoFeed(auto=False, fps=10), "webui-e2e")


@pytest.fixture(scope="module")
def film_server(tmp_path_factory):
    """The web app on the default demo: the demo film read by the models (stepped by the test)."""
    from webui.feed import FilmDemoFeed

    yield from _serve(tmp_path_factory, lambda: FilmDemoFeed(auto=False, fps=10), "webui-e2e-film")


@pytest.fixture(scope="module")
def browser():
    reason = _why_skip()
    if reason:
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    path = CHROMIUM if os.path.isfile(CHROMIUM) else shutil.which("chromium")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def page_factory(browser):
    pages = []

    def make(viewport=DESKTOP):
        page = browser.new_page(viewport=viewport)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.errors = errors
        page.set_default_timeout(10_000)
        pages.append(page)
        return page

    yield make
    for page in pages:
        assert not page.errors, f"JavaScript errors: {page.errors}"
        page.close()
