"""The command list: every provider's COMMANDS table names exactly the commands its register() adds, with the
same help (the quick listing must not drift from the real parsers); engine commands load neither OpenCV nor
Flask."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest


def _added(register) -> dict[str, str]:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command")
    register(sub)
    return {a.dest: a.help for a in sub._choices_actions}


@pytest.mark.parametrize("module", ["vision.cli", "webui.cli"])
def test_commands_table_matches_the_parsers(module):
    import importlib

    mod = importlib.import_module(module)
    assert _added(mod.register) == mod.COMMANDS


def test_engine_commands_and_help_load_no_opencv_or_flask():
    code = ("import sys; from assistant.cli import main; main(['waits', '111m 234p 678p 34s 99s']); "
            "main(['variants']); print([m for m in ('cv2', 'flask', 'onnxruntime') if m in sys.modules])")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == "[]"
    r = subprocess.run([sys.executable, "-m", "assistant", "--help"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "detect" in r.stdout and "serve" in r.stdout and "tileset" in r.stdout
    r = subprocess.run([sys.executable, "-m", "assistant", "detect", "--help"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0 and "--tileset" in r.stdout
