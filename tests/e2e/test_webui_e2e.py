"""End to end: the live page on the demo feed in Chromium — the hand and its waits, a tile correction,
recording a win to the score sheet. Screenshots: tests/e2e/artifacts/ (desktop and phone)."""

from __future__ import annotations

import json
import time
from pathlib import Path

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
PHONE = {"width": 390, "height": 844}


def goto_step(server, step: int) -> None:
    """Put the demo on ``step`` and wait until the analysis of it is published."""
    server["feed"].goto(step)
    wait_published(server, step)


def wait_published(server, step: int) -> None:
    """Wait until the hub publishes the analysis of the demo's ``step``."""
    hub = server["app"].extensions["hub"]
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        _, payload, _ = hub.current()
        if payload and payload.get("snapshot", {}).get("step") == step:
            return
        time.sleep(0.05)
    raise AssertionError(f"the demo did not reach step {step}")


def open_live(page, server):
    page.goto(server["url"] + "/", wait_until="domcontentloaded")  # the MJPEG <img> never finishes loading
    page.wait_for_selector("#hand img")
    return page


def shoot(page, name: str, **kw) -> None:
    """Screenshot once the camera frame and every tile image have loaded."""
    page.wait_for_function("(!document.getElementById('mjpeg') || document.getElementById('mjpeg').naturalWidth > 0)"
                           " && Array.from(document.images).every(i => !i.src || (i.complete && i.naturalWidth > 0))")
    page.screenshot(path=str(ARTIFACTS / name), **kw)


def no_sideways_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")


def test_hand_and_waits_appear(page_factory, server):
    goto_step(server, 11)  # East has declared riichi: ready on 3s/6s
    page = open_live(page_factory(), server)
    page.wait_for_selector('#waits .wait[data-tile="3s"]')
    assert page.locator("#hand img").count() == 13
    for tile in ("3s", "6s"):
        text = page.locator(f'#waits .wait[data-tile="{tile}"]').inner_text()
        assert "3 live" in text and "can ron" in text
    assert "riichi" in page.locator("#st-event").inner_text()
    assert page.locator("#overlay polygon.tile-box").count() > 40
    page.wait_for_function("document.getElementById('st-fps').textContent.includes('fps')")
    shoot(page, "live_waits_desktop.png", full_page=True)

    phone = open_live(page_factory(PHONE), server)
    phone.wait_for_selector('#waits .wait[data-tile="6s"]')
    assert no_sideways_scroll(phone)
    shoot(phone, "live_waits_phone.png", full_page=True)


def test_correct_a_tile(page_factory, server):
    goto_step(server, 10)  # East holds the 7z the demo detector misreads as 6z (tile t14)
    page = open_live(page_factory(), server)
    page.wait_for_selector('#hand img[data-code="6z"]')
    # the note names where the tile lies and what it was read as, in players' words (no track id)
    assert "The tile in East's hand was read as Green dragon (6z), only 41 % sure" in \
        page.locator("#problems").inner_text()
    page.locator('#overlay polygon[data-tile="t14"]').click()
    page.wait_for_selector("#palette[open]")
    shoot(page, "correction_palette_desktop.png")
    page.locator('#palette-tiles button[data-code="7z"]').click()
    page.wait_for_selector('#hand img[data-code="7z"]')
    assert page.locator('#hand img[data-code="6z"]').count() == 0
    page.wait_for_selector('#overlay polygon.corrected[data-tile="t14"]')
    assert page.locator("#advice li").first.get_attribute("data-discard") == "7z"
    shoot(page, "correction_done_desktop.png", full_page=True)

    lines = (server["root"] / "corrections" / "corrections.jsonl").read_text().splitlines()
    rec = json.loads(lines[-1])
    assert (rec["tile_id"], rec["code"], rec["was"]) == ("t14", "7z", "6z")
    assert (server["root"] / "corrections" / rec["crop"]).is_file()

    goto_step(server, 11)  # the correction stays with the tile: now the riichi discard
    page.wait_for_selector('.seat[data-seat="0"] img.sideways[data-code="7z"]')


def test_record_a_win_to_the_score_sheet(page_factory, server):
    goto_step(server, 22)  # East wins by ron on West's 6s
    page = open_live(page_factory(), server)
    page.wait_for_selector("#win-card:not([hidden]) .win-head")
    assert "East wins by ron" in page.locator(".win-head").inner_text()
    items = page.locator("#win table.items").inner_text()
    assert "Riichi" in items and "Pinfu" in items and "Dora" in items
    assert "West pays East 5,800" in page.locator("#win").inner_text()

    page.locator("form.new-match button[type=submit]").click()  # Ann, Bob, Cid; sanma
    page.wait_for_selector("#sheet-table")
    assert page.locator("#sheet-table tbody tr").count() == 1  # the start row
    page.locator("#record-win").click()
    row = page.locator('#sheet-table tbody tr[data-hand="1"]')
    row.wait_for()
    assert "Ann wins" in row.inner_text() and "40,800" in row.inner_text()
    page.wait_for_selector(".record-msg.success")
    assert page.locator("#record-win").is_disabled()
    shoot(page, "win_recorded_desktop.png", full_page=True)

    phone = open_live(page_factory(PHONE), server)
    phone.wait_for_selector('#sheet-table tbody tr[data-hand="1"]')
    assert no_sideways_scroll(phone)
    phone.locator("#win-card").screenshot(path=str(ARTIFACTS / "win_phone.png"))
    shoot(phone, "win_recorded_phone.png", full_page=True)

    page.locator("#undo").click()
    page.wait_for_selector('#sheet-table tbody tr[data-hand="1"]', state="detached")


def test_other_pages(page_factory, server):
    """Typed hand, calibration clicks, settings and the full score sheet work in the browser, on both sizes."""
    page = page_factory()
    page.goto(server["url"] + "/photo")
    page.wait_for_selector("#hand-variant option", state="attached")
    page.locator("#hand-form button[type=submit]").click()
    page.wait_for_selector('#hand-result .wait img[data-code="6s"]')
    page.locator("#score-form button[type=submit]").click()
    page.wait_for_selector("#score-result .total")
    assert "Total 3 han" in page.locator("#score-result").inner_text()
    frame = Path(__file__).resolve().parents[2] / "webui" / "demo" / "frames" / "step_12.jpg"
    page.locator("#photo").set_input_files({"name": "table.jpg", "mimeType": "image/jpeg",
                                            "buffer": frame.read_bytes()})
    page.locator("#photo-form button[type=submit]").click()
    page.wait_for_selector("#photo-result img.photo-overlay", timeout=60_000)  # the models read the photo
    text = page.locator("#photo-result").inner_text()
    assert "Read " in text and " tiles." in text
    shoot(page, "photo_desktop.png", full_page=True)

    page.goto(server["url"] + "/calibration")
    page.wait_for_selector("#calib-img")
    box = page.locator("#calib").bounding_box()
    for fx, fy in ((0.1, 0.9), (0.9, 0.9), (0.9, 0.1), (0.1, 0.1)):
        page.mouse.click(box["x"] + fx * box["width"], box["y"] + fy * box["height"])
    page.locator("#calib-save").click()
    page.wait_for_selector("#calib-msg.success")
    assert (server["root"] / "calibration" / "demo.json").is_file()
    shoot(page, "calibration_desktop.png", full_page=True)

    page.goto(server["url"] + "/settings")
    page.wait_for_selector("#options input")
    page.locator("#teaching").check()
    page.locator("#settings-form button[type=submit]").click()
    page.wait_for_selector("#settings-msg.success")
    shoot(page, "settings_desktop.png", full_page=True)
    goto_step(server, 21)
    live = open_live(page_factory(), server)
    live.wait_for_selector('.seat[data-seat="1"] .hand .muted')  # teaching: South's hand is hidden
    assert "hidden" in live.locator('.seat[data-seat="1"]').inner_text()
    page.locator("#teaching").uncheck()
    page.locator("#settings-form button[type=submit]").click()
    page.wait_for_selector("#settings-msg.success")

    phone = page_factory(PHONE)
    for path, name in (("/match", "match_phone.png"), ("/settings", "settings_phone.png"),
                       ("/photo", "photo_phone.png"), ("/calibration", "calibration_phone.png")):
        phone.goto(server["url"] + path)
        phone.wait_for_load_state("domcontentloaded")
        phone.wait_for_timeout(300)
        assert no_sideways_scroll(phone), path
        phone.screenshot(path=str(ARTIFACTS / name), full_page=True)
    page.goto(server["url"] + "/match")
    page.wait_for_selector("#matches li")
    shoot(page, "match_desktop.png", full_page=True)


def test_the_score_sheet_shows_every_player_on_a_phone(page_factory, server):
    """A four-player match on a 390 px phone: every player's column is on screen (none cut off or scrolled
    away), each hand's result under its name; keyboard users reach the sheet's controls."""
    from assistant.match import Store

    db = server["app"].config["MATCH_DB"]
    with Store(db) as st:
        mid = st.create_match("hong-kong", ["Annabelle", "Bartholomew", "Cid", "Dorothea"])
    server["app"].extensions["hub"].settings.update({"match": mid})
    phone = page_factory(PHONE)
    phone.goto(server["url"] + "/match")
    phone.wait_for_selector("#sheet-table th.num")
    heads = phone.eval_on_selector_all("#sheet-table th.num",
                                       "els => els.map(e => e.getBoundingClientRect().right)")
    assert len(heads) == 4 and max(heads) <= PHONE["width"], heads
    assert no_sideways_scroll(phone)
    titles = phone.eval_on_selector_all("#sheet-table th.num", "els => els.map(e => e.title)")
    assert titles[0] == "Annabelle (East)" and titles[3] == "Dorothea (North)"
    phone.keyboard.press("Tab")
    focused = [phone.evaluate("document.activeElement.tagName")]
    for _ in range(12):
        phone.keyboard.press("Tab")
        focused.append(phone.evaluate("document.activeElement.tagName"))
    assert "BUTTON" in focused and "A" in focused     # links and buttons are reached by the keyboard
    shoot(phone, "match_phone_4_players.png", full_page=True)


CONTRAST_JS = """() => {
  function rgb(s) { const m = s.match(/[\\d.]+/g); return m ? m.map(Number) : [0, 0, 0, 0]; }
  function lum(c) { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
                    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); }
  function bg(e) { for (; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor);
                   if (c.length < 4 || c[3] > 0.5) return c; } return [255, 255, 255]; }
  const bad = [];
  for (const e of document.querySelectorAll("main *")) {
    if (e.closest("svg") || !e.offsetParent) continue;
    const own = Array.from(e.childNodes).some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own) continue;
    const a = lum(rgb(getComputedStyle(e).color)), b = lum(bg(e));
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    if (ratio < 4.5) bad.push(`${e.tagName}.${e.className}: ${ratio.toFixed(2)} ${e.textContent.trim().slice(0, 30)}`);
  }
  return bad;
}"""


def test_accessibility_basics(page_factory, server):
    """Tile images carry their names as text, text contrast is at least 4.5:1 (WCAG AA), and the keyboard
    reaches the tiles on the camera view (to correct them) and the page's buttons."""
    page = page_factory()
    page.goto(server["url"] + "/", wait_until="domcontentloaded")
    page.wait_for_selector("#hand img")
    alts = page.eval_on_selector_all("img.tile", "els => els.map(e => e.alt)")
    assert alts and all(a and "(" in a for a in alts), alts[:5]
    assert any("dots" in a or "bamboo" in a or "characters" in a or "dragon" in a for a in alts)
    for path in ("/", "/match", "/settings", "/photo", "/your-tiles"):
        page.goto(server["url"] + path, wait_until="domcontentloaded")
        page.wait_for_timeout(800)
        assert page.evaluate(CONTRAST_JS) == [], path
    page.goto(server["url"] + "/", wait_until="domcontentloaded")
    page.wait_for_selector("#overlay polygon.tile-box")
    reached = set()
    for _ in range(60):
        page.keyboard.press("Tab")
        reached.add(page.evaluate("(document.activeElement.getAttribute('role') || '') + ':' + "
                                  "document.activeElement.tagName"))
    assert "button:polygon" in reached and any(r.endswith(":A") for r in reached)


def test_the_club_page_follows_every_table_live(page_factory, server):
    """The club page in Chromium: a league's standings as recorded, and a hand recorded at another table (by
    another process, here the ledger directly) appears by itself; readable on a phone without sideways scroll."""
    from assistant.match.store import Store
    from tests.test_club import ron

    db = server["app"].config["MATCH_DB"]
    with Store(db) as st:
        st.create_match("sanma", ["Ann", "Bob", "Cid"], match_id="e2e1", table="T1", session="e2e", league="E2E")
        st.append("e2e1", ron("Ann", "Bob", 8000))
        st.create_match("sanma", ["Dee", "Eli", "Fay"], match_id="e2e2", table="T2", session="e2e", league="E2E")
    page = page_factory()
    page.goto(server["url"] + "/club", wait_until="domcontentloaded")
    page.wait_for_selector("#club-standings table")
    page.select_option("#club-scope", "league:E2E")
    page.wait_for_function("document.querySelector('#club-standings tbody tr th').textContent === 'Ann'")
    # Ann: (43,000 - 40,000) / 1,000 + 15 uma + 15 oka = +33.0, the match still open
    first = page.locator("#club-standings tbody tr").first.inner_text().split("\t")
    assert first[:4] == ["1", "Ann", "1 (1 open)", "+33.0"]
    assert page.locator("#club-tables .club-table").count() == 2
    with Store(db) as st:  # table T2 records a hand: Fay rons Dee 12,000 -> Fay +37.0 leads
        st.append("e2e2", ron("Fay", "Dee", 12000))
    page.wait_for_function("document.querySelector('#club-standings tbody tr th').textContent === 'Fay'")
    assert page.locator("#club-standings tbody tr").first.inner_text().split("\t")[3] == "+37.0"
    shoot(page, "club_desktop.png", full_page=True)
    phone = page_factory(PHONE)
    phone.goto(server["url"] + "/club", wait_until="domcontentloaded")
    phone.wait_for_selector("#club-standings table")
    assert no_sideways_scroll(phone)
    shoot(phone, "club_phone.png", full_page=True)


def test_every_page_speaks_in_players_words(page_factory, server):
    """No page shows the engine's names for events and phases, track ids or the back's code (issue 33): the
    live page at every step of the demo, and every other page."""
    from page_words import internal_words

    page = page_factory()
    said = {}
    for step in range(0, 24, 3):
        goto_step(server, step)
        page.goto(server["url"] + "/", wait_until="domcontentloaded")
        page.wait_for_selector("#hand img")
        page.wait_for_timeout(300)
        said[f"/ step {step}"] = internal_words(page.inner_text("body"))
    for path in ("/photo", "/calibration", "/settings", "/match", "/your-tiles", "/club"):
        page.goto(server["url"] + path, wait_until="domcontentloaded")
        page.wait_for_timeout(800)
        said[path] = internal_words(page.inner_text("body"))
    assert {k: v for k, v in said.items() if v} == {}
