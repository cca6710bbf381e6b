"""Fuzz: random arguments to every engine and match command, random JSON bodies to every JSON endpoint.

Nothing may raise (the CLI answers with exit status 0, 1 or 2; argparse's own usage errors exit 2), no
endpoint may answer 5xx, and a rejected request changes nothing (matches, settings, corrections)."""

from __future__ import annotations

import contextlib
import io
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.cli import main as cli_main

TILE_ALPHABET = "0123456789mpszfgahjkb[]{}()@+=|*, -"
tile_text = st.text(alphabet=TILE_ALPHABET, max_size=40)
any_text = st.text(max_size=30)
word = st.one_of(tile_text, any_text, st.sampled_from(["sanma", "hong-kong", "korean-3p", "three-kaki", "E", "S",
                                                       "W", "N", "5s", "1z", "-", "0", "-1", "99999999999999999999"]))

@contextlib.contextmanager
def _stdin(text: str):
    """``-`` arguments read this as standard input."""
    import sys

    old, sys.stdin = sys.stdin, io.StringIO(text)
    try:
        yield
    finally:
        sys.stdin = old


def _run(argv: list[str]) -> tuple[int, str]:
    """The command's exit status (argparse's usage errors included) and what it wrote to standard error."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = cli_main(argv)
        except SystemExit as e:     # argparse: usage error
            rc = e.code
    return rc, err.getvalue()


COMMANDS = [
    lambda a: ["waits", a[0], "--variant", a[1]],
    lambda a: ["waits", a[0], "--melds", a[2], "--visible", a[3]],
    lambda a: ["shanten", a[0], "--variant", a[1]],
    lambda a: ["discard", a[0], "--variant", a[1], "--json"],
    lambda a: ["score", a[0], "--win-tile", a[2], "--seat", a[3], "--variant", a[1]],
    lambda a: ["score", a[0], "--win-tile", a[2], "--tsumo", "--option", a[3]],
    lambda a: ["score", a[0], "--win-tile", "5s", "--ron-from", a[2], "--honba", a[3]],
    lambda a: ["calls", a[0]],
    lambda a: ["calls", json.dumps({"variant": a[1], "seats": [{"hand": a[0]}, {"hand": a[2]}, {"hand": a[3]}]})],
    lambda a: ["variants", "--options"],
]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(range(len(COMMANDS))), st.lists(word, min_size=4, max_size=4))
def test_engine_commands_never_raise(which, args):
    argv = COMMANDS[which](args)
    with _stdin(args[1]):
        rc, err = _run(argv)
    assert rc in (0, 1, 2), (argv, rc, err[-300:])


MATCH_COMMANDS = [
    lambda a: ["match", "new", "--variant", a[0], "--players", a[1], a[2], a[3]],
    lambda a: ["match", "record", "win", a[1], "--from", a[2], "--pay", a[3]],
    lambda a: ["match", "record", "win", a[1], "--tsumo", "--hand", a[0]],
    lambda a: ["match", "record", "riichi", a[1]],
    lambda a: ["match", "record", "draw", "--tenpai", a[1], a[2]],
    lambda a: ["match", "undo"],
    lambda a: ["match", "show", "--json"],
    lambda a: ["match", "export", "--format", "csv"],
    lambda a: ["match", "new", "--variant", "sanma", "--players", "A", "B", "C", "--option", a[0]],
]


@pytest.fixture(scope="module")
def match_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("fuzzdb") / "m.db"
    assert cli_main(["match", "new", "--variant", "sanma", "--players", "A", "B", "C", "--db", str(db)]) == 0
    return str(db)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(st.sampled_from(range(len(MATCH_COMMANDS))), st.lists(word, min_size=4, max_size=4))
def test_match_commands_never_raise(match_db, which, args):
    argv = [*MATCH_COMMANDS[which](args), "--db", match_db]
    rc, err = _run(argv)
    assert rc in (0, 1, 2), (argv, rc, err[-300:])


# --- JSON endpoints --------------------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**30, 10**30) | st.floats(allow_nan=True) | st.text(max_size=20)
    | tile_text,
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=10), children, max_size=5),
    max_leaves=20)

KEYS = {
    "/api/matches": ["variant", "players", "options"],
    "/api/matches/current/win": ["live", "state", "win", "key"],
    "/api/matches/current/undo": ["event"],
    "/api/settings": ["variant", "options", "teaching", "me", "match"],
    "/api/analysis/state": ["state", "seat"],
    "/api/analysis/score": ["state", "win"],
    "/api/analysis/hand": ["hand", "melds", "variant", "win_tile", "tsumo"],
    "/api/live/correct": ["tile_id", "code"],
    "/api/calibration": ["camera_id", "corners", "image_size"],
    "/api/tilesets/active": ["name"],
}


@pytest.fixture(scope="module")
def web(tmp_path_factory):
    from webui import create_app
    from webui.feed import ScriptedDemoFeed

    root = tmp_path_factory.mktemp("fuzzweb")
    app = create_app({"FEED": ScriptedDemoFeed(auto=False, fps=20), "DATA_DIR": str(root),
                      "MATCH_DB": str(root / "m.db"), "TESTING": True})
    app.extensions["hub"].start()
    c = app.test_client()
    assert c.post("/api/matches", json={"variant": "sanma", "players": ["A", "B", "C"]}).status_code == 201
    yield app, c
    app.extensions["hub"].stop()


def _state(c) -> str:
    return json.dumps([c.get("/api/matches").get_json(), c.get("/api/settings").get_json()], sort_keys=True)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(st.sampled_from(sorted(KEYS)), st.data())
def test_json_endpoints_never_answer_5xx(web, path, data):
    app, c = web
    keys = KEYS[path]
    body = data.draw(st.one_of(json_values, st.fixed_dictionaries({}, optional={k: json_values for k in keys})))
    before = _state(c)
    method = c.put if path == "/api/settings" and data.draw(st.booleans()) else c.post
    r = method(path, data=json.dumps(body), content_type="application/json")
    assert r.status_code < 500, (path, body, r.get_data(as_text=True)[:300])
    assert r.is_json and "error" in r.get_json() if r.status_code >= 400 else True
    if r.status_code >= 400:
        assert _state(c) == before, (path, body)


# --- tile sets, imports, the club ------------------------------------------------------------------------------

corner = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10**12, 10**12), st.text(max_size=3))
tile_entry = st.one_of(
    json_values,
    st.fixed_dictionaries({}, optional={
        "code": st.one_of(st.sampled_from(["1m", "5z", "none", "bk", "jk", "9x", ""]), json_values),
        "corners": st.one_of(st.lists(st.lists(corner, max_size=3), max_size=5), json_values)}))


class _Means:
    """A stand-in reader: a crop's mean colour spread over 192 features (no classifier file)."""

    def features(self, crops):
        import numpy as np

        m = np.asarray(crops, np.float64).reshape(len(crops), -1, 3).mean(1) / 255.0
        return np.tile(m, 64)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.one_of(json_values, st.fixed_dictionaries({"tiles": st.lists(tile_entry, max_size=6)})))
def test_tile_set_lessons_never_raise(tmp_path, monkeypatch, tiles):
    import numpy as np

    from vision import tilesets as T

    monkeypatch.setenv("MAHJONG_ASSISTANT_TILESETS", str(tmp_path / "sets"))
    image = np.random.default_rng(0).integers(0, 255, (120, 160, 3), dtype=np.uint8)
    try:
        rep = T.learn_from_json("fuzz", image, tiles, _Means(), "sanma")
    except T.TileSetError:
        return
    json.dumps(rep, allow_nan=False)          # what --json prints and the page reads: no NaN


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.one_of(json_values, st.lists(st.fixed_dictionaries({}, optional={
    k: json_values for k in ("seq", "type", "match", "time", "author", "variant", "players", "seat", "points")}),
    max_size=4)))
def test_match_imports_never_raise(tmp_path, body):
    f = tmp_path / "log.json"
    f.write_text(json.dumps(body))
    rc, err = _run(["match", "import", str(f), "--db", str(tmp_path / "m.db")])
    assert rc in (0, 1, 2), (body, rc, err[-300:])


CLUB_COMMANDS = [
    lambda a: ["club", "standings", "--json"],
    lambda a: ["club", "standings", "--csv"],
    lambda a: ["club", "tables"],
    lambda a: ["club", "check"],
    lambda a: ["club", "audit", "--match", a[0]],
    lambda a: ["club", "standings", "--since", a[1]],
]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.sampled_from(range(len(CLUB_COMMANDS))), st.lists(word, min_size=2, max_size=2))
def test_club_commands_never_raise(match_db, which, args):
    argv = [*CLUB_COMMANDS[which](args), "--db", match_db]
    rc, err = _run(argv)
    assert rc in (0, 1, 2), (argv, rc, err[-300:])
