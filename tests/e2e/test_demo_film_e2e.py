"""End to end on the default demo: the demo film read live by the models, in Chromium — East's hand and its
waits after the riichi, the win read from the table and scored, recorded to a new match. Screenshots:
tests/e2e/artifacts/demo_film_*.png."""

from __future__ import annotations

import time

from test_webui_e2e import ARTIFACTS, PHONE, no_sideways_scroll, open_live, shoot, wait_published


def play_to(server, step: int) -> None:
    """Show the film's frames up to ``step`` in order, each until the models have read it as often as the
    page does (the followed hand needs every frame), and wait until that snapshot is published."""
    feed = server["feed"]
    start = max(feed.frames_read()[0], 0)    # the frame shown first is read to the end too
    for k in range(start, step + 1):
        if k != feed.frames_read()[0]:
            feed.goto(k)
        deadline = time.monotonic() + 60
        while feed.frames_read()[0] != k or feed.frames_read()[1] < feed.analyses_per_step:
            assert time.monotonic() < deadline, f"the demo film did not read frame {k}"
            time.sleep(0.02)
    wait_published(server, step)


def test_the_demo_film_is_read_live_to_the_win_and_scored(page_factory, film_server):
    riichi = next(i for i, s in enumerate(film_server["feed"].steps) if "riichi" in s["event"])
    play_to(film_server, riichi)              # East has declared riichi on 7z: ready on 3s/6s
    page = open_live(page_factory(), film_server)
    page.wait_for_selector('#waits .wait[data-tile="3s"]')
    assert page.locator("#hand img").count() == 13
    for tile in ("3s", "6s"):
        assert "can ron" in page.locator(f'#waits .wait[data-tile="{tile}"]').inner_text()
    page.wait_for_selector('.seat[data-seat="0"] img.sideways[data-code="7z"]')   # the riichi tile, read sideways
    page.wait_for_function("document.getElementById('st-source').textContent.includes('demo film')")
    assert page.locator("#overlay polygon.tile-box").count() > 40
    # at a glance: hand tiles readable from a chair, the seat named once, the status line in words, labels
    # that never overlap, the calls of a face-down hand phrased as conditions
    widths = page.eval_on_selector_all("#hand img", "els => els.map(e => e.getBoundingClientRect().width)")
    assert min(widths) >= 40, widths
    me = page.locator("#me-name").inner_text()
    assert me.startswith("East") and "(East)" not in me
    assert page.locator("#st-event").inner_text() == "You discarded 7z and declared riichi"
    overlaps = page.eval_on_selector_all("#overlay text.tile-label", """els => {
        const r = els.map(e => e.getBoundingClientRect()); let n = 0;
        for (let i = 0; i < r.length; i++) for (let j = i + 1; j < r.length; j++)
          if (r[i].left < r[j].right - 1 && r[j].left < r[i].right - 1
              && r[i].top < r[j].bottom - 1 && r[j].top < r[i].bottom - 1) n++;
        return n; }""")
    assert overlaps == 0
    hidden = page.locator('#calls .seat-calls[data-seat="1"] li.maybe[data-kind="pong"]').inner_text()
    assert hidden.startswith("may pong 7z") and "if they hold 7z7z" in hidden
    assert page.locator("#calls").inner_text().count("yes pong") == 0
    shoot(page, "demo_film_riichi_desktop.png", full_page=True)

    play_to(film_server, len(film_server["feed"].steps) - 1)    # West throws 6s: East wins by ron
    page.wait_for_selector("#win-card:not([hidden]) .win-head")
    assert "East wins by ron" in page.locator(".win-head").inner_text()
    items = page.locator("#win table.items").inner_text()
    assert "Riichi" in items and "Dora" in items
    assert "West pays East" in page.locator("#win").inner_text()
    page.locator("form.new-match button[type=submit]").click()
    page.wait_for_selector("#sheet-table")
    page.locator("#record-win").click()
    row = page.locator('#sheet-table tbody tr[data-hand="1"]')
    row.wait_for()
    assert "Ann wins" in row.inner_text()
    shoot(page, "demo_film_win_desktop.png", full_page=True)

    phone = open_live(page_factory(PHONE), film_server)
    phone.wait_for_selector("#win-card:not([hidden]) .win-head")
    assert no_sideways_scroll(phone)
    shoot(phone, "demo_film_win_phone.png", full_page=True)
    assert ARTIFACTS.is_dir()
