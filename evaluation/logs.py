"""Followed logs compared: how much of a script's log of events a followed log holds, in order.

The evaluation of generated hands (:mod:`evaluation.video`), the demo film's check (:mod:`evaluation.demo_film`)
and the tests compare with it; the follower itself never does (it has no script to compare with).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from difflib import SequenceMatcher

from assistant.play import Event


def compare_logs(inferred: Sequence[Event], expected: Sequence[Event]) -> tuple[int, str]:
    """(expected events matched in order, the first difference in words or "")."""
    sm = SequenceMatcher(None, list(inferred), list(expected), autojunk=False)
    matched = sum(b.size for b in sm.get_matching_blocks())
    first = ""
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op != "equal":
            got = ", ".join(json.dumps(e.to_json()) for e in inferred[i1:i2][:2]) or "nothing"
            want = ", ".join(json.dumps(e.to_json()) for e in expected[j1:j2][:2]) or "nothing"
            first = f"at event {j1}: inferred {got}; the script has {want}"
            break
    return matched, first
