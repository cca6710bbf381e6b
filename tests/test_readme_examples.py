"""The engine, match and tile-set examples of the README and of docs/*.md, run as printed (a fresh match
database and tile-set folder), and their table-state JSON through ``calls``: every one must work."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
RUNS = ("waits", "shanten", "discard", "variants", "score", "calls", "match", "tileset", "batch")
NEEDS_FILES = ("photo.jpg", "detections.json", "match.json", "sheet.csv", "tiles.json", "hands.txt")


def commands() -> list[str]:
    text = "\n".join(p.read_text(encoding="utf-8") for p in PAGES)
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


def test_every_example_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("MAHJONG_ASSISTANT_DB", str(tmp_path / "matches.db"))
    monkeypatch.setenv("MAHJONG_ASSISTANT_TILESETS", str(tmp_path / "sets"))
    env = dict(os.environ)
    from vision.tilesets import TileSet

    TileSet(name="home", variant="sanma").save()      # what `tileset enroll home photo.jpg` makes
    failures = []
    for line in commands():
        words = shlex.split(line)[1:]
        r = subprocess.run([sys.executable, "-m", "assistant", *words], capture_output=True, text=True, env=env,
                           timeout=300, cwd=tmp_path)
        if r.returncode != 0 or "Traceback" in r.stderr:
            failures.append(f"{line}\n  exit {r.returncode}: {r.stderr.strip()[:300]}")
    assert not failures, "\n".join(failures)


def test_the_table_state_example_runs_through_calls(tmp_path):
    text = "\n".join(p.read_text(encoding="utf-8") for p in PAGES)
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
