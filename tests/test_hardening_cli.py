"""Bad table options and bad server arguments: one clear line and exit status 2 (no traceback, no abort)."""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest

from webui import create_app
from webui.feed import ScriptedDemoFeed

HAND = ["score", "111m 234p 678p 34s 99s", "--win-tile", "5s", "--tsumo", "--seat", "S", "--variant", "sanma"]


def run(*args, timeout=120):
    return subprocess.run([sys.executable, "-m", "assistant", *args], capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("option, words", [
    ("pao=5", "option 'pao' of sanma must be a list of daisangen, daisuushii, suukantsu or \"none\"; got 5"),
    ('honba={"ron":"a","tsumo_each":null}', "option 'honba' of sanma must be an object {\"ron\": whole number"),
    ("honba=[1,2]", "option 'honba' of sanma must be an object"),
    ("red_fives=maybe", "option 'red_fives' of sanma must be true or false; got \"maybe\""),
    ("start_points=-5", "option 'start_points' of sanma must be a whole number from 0 to"),
])
def test_bad_options_are_named(option, words):
    r = run(*HAND, "--option", option)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines() == [r.stderr.strip()] and words in r.stderr


def test_good_options_still_work():
    r = run(*HAND, "--option", 'honba={"ron": 300, "tsumo_each": 100}', "--option", 'pao=["daisangen"]')
    assert r.returncode == 0, r.stderr


def test_settings_refuse_bad_options(tmp_path):
    app = create_app({"FEED": ScriptedDemoFeed(auto=False), "DATA_DIR": str(tmp_path), "TESTING": True,
                      "MATCH_DB": str(tmp_path / "m.db")})
    c = app.test_client()
    r = c.put("/api/settings", json={"options": {"honba": {"ron": None, "tsumo_each": None}}})
    assert r.status_code == 400 and "option 'honba'" in r.get_json()["error"]
    assert c.get("/api/settings").get_json()["settings"]["options"] == {}
    app.extensions["hub"].stop()


@pytest.mark.parametrize("port, words", [("-1", "-1 is not a port: use 1-65535"), ("99999", "99999 is not a port"),
                                         ("http", "'http' is not a port number")])
def test_serve_bad_port(port, words):
    r = run("serve", "--port", port)
    assert r.returncode == 2 and words in r.stderr and "Traceback" not in r.stderr


def test_serve_port_in_use_and_unknown_host():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        r = run("serve", "--port", str(port), "--source", "demo-script")
    assert r.returncode == 2 and "the port is in use" in r.stderr and "Traceback" not in r.stderr
    r = run("serve", "--host", "no-such-host.invalid", "--source", "demo-script")
    assert r.returncode == 2 and "does not resolve" in r.stderr


def test_tracebacks_elsewhere_are_clear_errors(tmp_path):
    img = tmp_path / "p.png"
    import cv2
    import numpy as np

    cv2.imwrite(str(img), np.full((64, 64, 3), 128, np.uint8))
    for args, words in [
        (["detect", str(img), "--overlay", str(tmp_path / "out.txt")], "give a picture file name"),
        (["analyze", str(img), "--overlay", str(tmp_path)], "cannot write overlay"),
        (["batch", str(tmp_path / "nosuch.txt")], "no such file"),
        (["batch", str(tmp_path)], "not a file"),
        (["detect", str(img), "--threads", "100000"], "100000 threads: use 1-64"),
        (["score", "111m 234p 678p 34s 99s", "--win-tile", "5s", "--tsumo", "--honba", "99999999999999999999"],
         "out of range (0-100)"),
        (["waits", "456p789s11z 99s", "--variant", "sanma", "--melds", "{123p@1}"], "has no chow"),
    ]:
        r = run(*args)
        assert r.returncode == 2 and words in r.stderr and "Traceback" not in r.stderr, (args, r.stderr)


def test_match_bounds(tmp_path):
    db = str(tmp_path / "m.db")
    r = run("match", "new", "--db", db, "--variant", "sanma", "--players", "A", "B", "x" * 5000)
    assert r.returncode == 2 and "at most 32 characters" in r.stderr
    assert run("match", "new", "--db", db, "--variant", "sanma", "--players", "A", "B", "C").returncode == 0
    r = run("match", "record", "win", "A", "--from", "B", "--pay", "1" + "0" * 23, "--db", db)
    assert r.returncode == 2 and "at most 10,000,000" in r.stderr
    r = run("match", "show", "--db", db, "--json")
    assert r.returncode == 0 and '"hands": []' in r.stdout


def test_corrections_are_not_stored_twice(tmp_path):
    import numpy as np

    from webui.hub import CorrectionStore

    store = CorrectionStore(tmp_path)
    rec = {"tile_id": "t3", "code": "7z", "frame": 12, "camera": "demo", "step": 4}
    first = store.add(rec, np.zeros((96, 72, 3), np.uint8))
    again = store.add(dict(rec), np.zeros((96, 72, 3), np.uint8))
    assert again is first and store.count() == 1
    store.add({**rec, "code": "6z"}, None)
    assert store.count() == 2
    store.MAX = 2
    with pytest.raises(ValueError, match="holds 2 corrections already"):
        store.add({**rec, "code": "5z"}, None)


def test_deeply_nested_json_inputs_are_clear_errors(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100000 + "]" * 100000)
    for args in (["calls", str(deep)], ["match", "import", str(deep), "--db", str(tmp_path / "m.db")],
                 ["reconstruct", str(deep), "--variant", "sanma"]):
        r = run(*args)
        assert r.returncode == 2 and "nested too deeply" in r.stderr and "Traceback" not in r.stderr, args
    assert not (tmp_path / "m.db").exists() or run("match", "list", "--db", str(tmp_path / "m.db")).returncode == 0
