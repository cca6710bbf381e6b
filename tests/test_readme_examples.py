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
RUNS = ("waits", "shanten", "discard", "variants", "score", "calls", "match", "tileset", "batch", "detect",
        "analyze", "reconstruct", "calibrate", "cameras", "finetune", "db", "club")
NEEDS_FILES = ("hands.txt",)
MAY_REFUSE = {"finetune": "no corrections"}   # needs corrections tapped on the page first: a clear refusal


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


def _fixtures(folder: Path, env: dict) -> None:
    """The files the examples name: photo.jpg (a rendered layout of sanma tiles), detections.json and tiles.json
    (`detect --json` of it), match.json (a match exported from another database), hand.json (a followed hand)."""
    import cv2
    import numpy as np

    from datasets.art import ArtLibrary
    from datasets.codes import TILE_CODES
    from datasets.crop_synth import FaceBank, _face_texture, render_layout
    from vision.tilesets import layout_rows

    art = ArtLibrary(root=folder / "noart", cache_dir=folder / "artcache")
    bank = FaceBank.build(per_code=1, bonus_per_code=1, seed=4, art=art)
    rng = np.random.default_rng(4)
    body = np.array([225.0, 238, 244])
    rows = [[_face_texture(bank.pick(TILE_CODES.index(c), rng), body, rng) for c in r] for r in layout_rows("sanma")]
    img, _ = render_layout(rows, rng, size=(1280, 960))
    cv2.imwrite(str(folder / "photo.jpg"), img)
    r = subprocess.run([sys.executable, "-m", "assistant", "detect", "photo.jpg", "--json"], capture_output=True,
                       text=True, env=env, timeout=300, cwd=folder)
    assert r.returncode == 0, r.stderr
    (folder / "detections.json").write_text(r.stdout)
    (folder / "tiles.json").write_text(r.stdout)
    from assistant.play import HandLog
    from datasets.hand_video import play_hand

    events, _ = play_hand("sanma", 0)  # hand.json: a followed hand's log, as the live page gives it
    (folder / "hand.json").write_text(json.dumps(HandLog("sanma", events).to_json()))
    other = {**env, "MAHJONG_ASSISTANT_DB": str(folder / "other.db")}
    for args in (["match", "new", "--variant", "sanma", "--players", "Dee", "Eli", "Fay", "--id", "other1"],
                 ["match", "export", "--format", "json", "--out", "match.json"]):
        assert subprocess.run([sys.executable, "-m", "assistant", *args], env=other, cwd=folder,
                              capture_output=True, timeout=120).returncode == 0


@pytest.mark.skipif(not __import__("vision.inference", fromlist=["x"]).CLASSIFIER_PATH.is_file(),
                    reason="no shipped models")
def test_every_example_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("MAHJONG_ASSISTANT_DB", str(tmp_path / "matches.db"))
    monkeypatch.setenv("MAHJONG_ASSISTANT_TILESETS", str(tmp_path / "sets"))
    monkeypatch.setenv("MAHJONG_ASSISTANT_WEB_DATA", str(tmp_path / "web"))
    monkeypatch.setenv("MAHJONG_CALIBRATION_DIR", str(tmp_path / "calibration"))
    env = dict(os.environ)
    _fixtures(tmp_path, env)
    failures = []
    for line in commands():
        words = shlex.split(line)[1:]
        r = subprocess.run([sys.executable, "-m", "assistant", *words], capture_output=True, text=True, env=env,
                           timeout=300, cwd=tmp_path)
        refusal = MAY_REFUSE.get(words[0])
        if r.returncode == 2 and refusal and refusal in r.stderr:
            continue
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
