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
