"""The README's engine and match examples, run as printed (a fresh match database), and its table-state JSON
through ``calls``: every one must work."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
RUNS = ("waits", "shanten", "discard", "variants", "score", "calls", "match")
NEEDS_FILES = ("photo.jpg", "detections.json", "match.json", "sheet.csv")


def commands() -> list[str]:
    text = README.read_text(encoding="utf-8")
    out = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        joined = re.sub(r"\\\n\s*", " ", block)
        for line in joined.splitlines():
            line = re.sub(r"\s+#.*$", "", line).strip()
            if not line.startswith("mahjong-assistant "):
                continue
            words = shlex.split(line)
            if words[1] in RUNS and not any(f in line for f in NEEDS_FILES):
                out.append(line)
    return out


def test_the_readme_has_examples():
    cmds = commands()
    assert len(cmds) >= 10
    assert any(c.startswith("mahjong-assistant match new") for c in cmds)


def test_every_example_runs(tmp_path):
    env = {**os.environ, "MAHJONG_ASSISTANT_DB": str(tmp_path / "matches.db")}
    failures = []
    for line in commands():
        words = shlex.split(line)[1:]
        r = subprocess.run([sys.executable, "-m", "assistant", *words], capture_output=True, text=True, env=env,
                           timeout=300, cwd=tmp_path)
        if r.returncode != 0 or "Traceback" in r.stderr:
            failures.append(f"{line}\n  exit {r.returncode}: {r.stderr.strip()[:300]}")
    assert not failures, "\n".join(failures)


def test_the_table_state_example_runs_through_calls(tmp_path):
    text = README.read_text(encoding="utf-8")
    blocks = re.findall(r"```json\n(.*?)```", text, re.S)
    if not blocks:
        pytest.skip("no JSON example in the README")
    for block in blocks:
        data = json.loads(block)
        if "seats" not in data:
            continue
        path = tmp_path / "state.json"
        path.write_text(block)
        r = subprocess.run([sys.executable, "-m", "assistant", "calls", str(path)], capture_output=True, text=True,
                           timeout=300)
        assert r.returncode == 0, r.stderr
        assert "claim window" in r.stdout
