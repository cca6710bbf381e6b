"""Screenshots of the page for the README and docs (``python docs/screenshots.py [--out docs/img]``).

Serves the web app on the built-in demo film (read by the models) in a temporary data folder, drives Debian's
Chromium through Playwright and writes: ``live.png`` (the live page mid-hand), ``win.png`` (the scored win),
``your-tiles.png`` (enrolling a tile set), ``live-phone.png`` (a 390 px wide phone), ``club.png`` (a club evening
of three tables on the club page). ``--only club`` takes that one alone. Needs the ``e2e`` extra and
``/usr/bin/chromium``."""

from __future__ import annotations

import argparse
import logging
import tempfile
import threading
import time
from pathlib import Path

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run"]


def club_evening(db: str) -> None:
    """Three tables of a league evening: two finished, one playing."""
    from assistant.match.events import event_from_json
    from assistant.match.store import Store

    def ev(kind: str, **payload):  # type: ignore[no-untyped-def]
        return event_from_json({"type": kind, "payload": payload})

    def ron(w: str, d: str, amount: int):  # type: ignore[no-untyped-def]
        return ev("win", discarder=d, winners=[{"player": w, "payments": [{"from": d, "to": w, "amount": amount}]}])

    with Store(db) as st:
        for mid, players, hands, done in (
                ("w1", ["Ann", "Bob", "Cid"], [ron("Ann", "Bob", 8000), ev("draw", tenpai=["Cid"])], True),
                ("w2", ["Dee", "Eli", "Fay"], [ron("Fay", "Dee", 12000), ron("Eli", "Fay", 3900)], True),
                ("w3", ["Gus", "Hal", "Ivy"], [ev("riichi", player="Hal"), ron("Hal", "Gus", 5200)], False)):
            st.create_match("sanma", players, match_id=mid, table=f"Table {mid[1]}", session="2026-12-04",
                            league="Winter", by="front desk")
            for e in hands:
                st.append(mid, e, by=f"Table {mid[1]} tablet")
            if done:
                st.append(mid, ev("match_end", reason="closing time"), by="front desk")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "img"))
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--only", choices=["club"], help="take only this screenshot")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import sync_playwright
    from werkzeug.serving import make_server

    from webui import create_app
    from webui.feed import FilmDemoFeed

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory() as tmp:
        feed = FilmDemoFeed(auto=False)
        app = create_app({"FEED": feed, "DATA_DIR": tmp, "MATCH_DB": f"{tmp}/m.db", "SETTINGS_FILE": None})
        club_evening(f"{tmp}/m.db")
        hub = app.extensions["hub"].start()
        srv = make_server("127.0.0.1", 0, app, threaded=True)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{srv.server_port}"
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=args.chromium, args=ARGS)
                page = browser.new_page(viewport={"width": 1400, "height": 1000})

                def at(step: int) -> None:
                    """Play the film's frames in order up to ``step`` (the followed hand needs every frame)."""
                    for k in range(max(feed.frames_read()[0], 0), step + 1):
                        if k != feed.frames_read()[0]:
                            feed.goto(k)
                        deadline = time.monotonic() + 60
                        while feed.frames_read()[0] != k or feed.frames_read()[1] < feed.analyses_per_step:
                            if time.monotonic() > deadline:
                                raise SystemExit(f"the demo film did not read frame {k}")
                            time.sleep(0.02)
                    deadline = time.monotonic() + 10
                    while time.monotonic() < deadline:
                        _, payload, _ = hub.current()
                        if payload and payload["snapshot"].get("step") == step:
                            break
                        time.sleep(0.1)

                page.goto(url + "/club", wait_until="domcontentloaded")
                page.wait_for_selector("#club-standings table")
                page.select_option("#club-scope", "league:Winter")
                page.wait_for_timeout(1500)
                page.screenshot(path=str(out / "club.png"), full_page=True)
                if args.only == "club":
                    browser.close()
                    return 0
                riichi = next(i for i, st in enumerate(feed.steps) if "riichi" in st["event"])
                at(riichi)
                page.goto(url + "/", wait_until="domcontentloaded")
                page.wait_for_selector("#hand img")
                page.wait_for_timeout(2500)
                page.screenshot(path=str(out / "live.png"))
                phone = browser.new_page(viewport={"width": 390, "height": 844})
                phone.goto(url + "/", wait_until="domcontentloaded")
                phone.wait_for_selector("#hand img")
                phone.wait_for_timeout(2000)
                phone.screenshot(path=str(out / "live-phone.png"))
                at(len(feed.steps) - 1)
                page.wait_for_selector("#win-card:not([hidden]) .win-head")
                page.wait_for_timeout(3000)
                page.screenshot(path=str(out / "win.png"))
                page.goto(url + "/your-tiles")
                page.wait_for_timeout(1500)
                page.screenshot(path=str(out / "your-tiles.png"))
                browser.close()
        finally:
            srv.shutdown()
            hub.stop()
    for name in ("live.png", "win.png", "your-tiles.png", "live-phone.png", "club.png"):
        print(out / name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
