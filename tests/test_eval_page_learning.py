"""evaluation.page_learning (the Chromium check of a set learnt on the page; itself too slow for the test run):
which tiles it taps, as a user would."""

from __future__ import annotations

from evaluation.page_learning import lesson_words, to_tap


def _t(tid, code, conf, corrected=False):
    return {"id": tid, "code": code, "confidence": conf, "corrected": corrected}


def test_every_misread_tile_is_corrected_then_the_least_sure_right_ones_confirmed():
    matched = [(_t("a", "1m", 0.9), "1m"), (_t("b", "2m", 0.5), "3m"), (_t("c", "4m", 0.6), "4m"),
               (_t("d", "5m", 0.4, True), "6m"), (_t("e", "7m", 0.3), "7m"), (_t("f", "8m", 0.7), "9m")]
    assert [(t["id"], c) for t, c in to_tap(matched, 4, confirm=True)] == [("b", "3m"), ("f", "9m"), ("e", "7m"),
                                                                           ("c", "4m")]
    assert [t["id"] for t, _ in to_tap(matched, 1, confirm=True)] == ["b", "f"]    # never fewer than the misread
    assert [t["id"] for t, _ in to_tap(matched, 9, confirm=False)] == ["b", "f"]   # an earlier frame: misread only


def test_a_lessons_line_names_the_guards_figures():
    line = lesson_words({"added": 2, "examples": 12, "adapts": "network", "kept": True, "held_back": 3,
                         "shipped_before": 2 / 3, "accuracy_before": 2 / 3, "accuracy_after": 1.0,
                         "earlier_before": None, "earlier_after": None, "generic_before": 0.95, "generic_after": 0.95,
                         "other_tiles": 21, "other_tiles_after": 1.0, "seconds": 71.2})
    assert "held-back (3): built-in 67%, in use 67%, adapted 100%" in line and "generic: 95% -> 95%" in line
    assert "context: 21 tiles read the same 100%" in line and "kept" in line
