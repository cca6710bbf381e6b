import io
import json
import subprocess
import sys

import pytest

from assistant.cli import main, run_batch


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_waits_json(capsys):
    code, out, _ = run_cli(capsys, "waits", "111m 234p 678p 34s 99s", "--variant", "sanma", "--visible", "2s5s",
                           "--json")
    assert code == 0
    res = json.loads(out)
    assert res["shanten"] == 0
    assert [(w["tile"], w["live"], w["shapes"]) for w in res["waits"]] == [("2s", 3, ["ryanmen"]),
                                                                          ("5s", 3, ["ryanmen"])]
    assert res["live_total"] == 6


def test_waits_with_melds_option(capsys):
    code, out, _ = run_cli(capsys, "waits", "23456789p11z", "--melds", "[777z@1]", "-v", "sanma", "--json")
    assert code == 0
    assert [w["tile"] for w in json.loads(out)["waits"]] == ["1p", "4p", "7p"]


def test_waits_human_output(capsys):
    code, out, _ = run_cli(capsys, "waits", "1112345678999p", "-v", "hong-kong")
    assert code == 0
    assert "Waits: 9 kinds, 23 tiles live" in out


def test_shanten_json(capsys):
    code, out, _ = run_cli(capsys, "shanten", "19m19p19s1234567z", "-v", "hong-kong", "--json")
    assert json.loads(out) == {
        "variant": "hong-kong", "hand": "19m19p19s1234567z", "shanten": 0, "standard": 8,
        "seven_pairs": 6, "thirteen_orphans": 0,
    }


def test_discard_json(capsys):
    code, out, _ = run_cli(capsys, "discard", "123p456p789s4566s1z", "-v", "sanma", "--json")
    res = json.loads(out)
    assert res["options"][0]["discard"] == "1z"
    assert res["options"][0]["live_total"] == 9


def test_bad_hand_exits_2_with_a_clear_message(capsys):
    code, out, err = run_cli(capsys, "waits", "123m456p789s11z2m", "-v", "sanma")
    assert code == 2 and out == ""
    assert "2m is not in the sanma tile set" in err and "position 1" in err


def test_batch_one_json_object_per_line():
    text = "\n".join([
        "123m456m789p345s2p",
        "# comment",
        "1112345678999p",
        "12q",
        '{"hand": "23456789p11z [777z]", "variant": "sanma"}',
        '{"hand": "123p456p789s4566s1z", "op": "discard"}',
    ])
    out = io.StringIO()
    ok, failed = run_batch(text.splitlines(), "hong-kong", "waits", out)
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    assert (ok, failed) == (4, 1)
    assert [r["line"] for r in rows] == [1, 3, 4, 5, 6]
    assert rows[0]["waits"] == [{"tile": "2p", "live": 3}]
    assert [w["tile"] for w in rows[1]["waits"]] == [f"{i}p" for i in range(1, 10)]
    assert "unknown suit letter" in rows[2]["error"]
    assert rows[3]["waits"] == [{"tile": "1p", "live": 4}, {"tile": "4p", "live": 3}, {"tile": "7p", "live": 3}]
    assert rows[4]["options"][0]["discard"] == "1z"


@pytest.mark.parametrize("variant", ["sanma", "korean-3p", "hong-kong", "three-kaki"])
def test_batch_fast_and_slow_paths_agree(variant):
    from assistant.cli import DEMO_HANDS

    hand = DEMO_HANDS[variant]
    fast, slow = io.StringIO(), io.StringIO()
    run_batch([hand], variant, "waits", fast)
    run_batch([json.dumps({"hand": hand, "visible": ""})], variant, "waits", slow)
    assert json.loads(fast.getvalue()) == json.loads(slow.getvalue())


def test_python_dash_m_and_console_script_work():
    r = subprocess.run([sys.executable, "-m", "assistant", "demo"], capture_output=True, text=True, check=True)
    assert "Hong Kong Old Style" in r.stdout and "waits: 2p (3 live)" in r.stdout


def test_score_sanma_e1_tsumo_loss(capsys):
    # sanma.md E1: South 111m 234p 678p 34s 99s draws 5s: 1 han 30 fu -> East 500, West 300
    code, out, _ = run_cli(capsys, "score", "111m 234p 678p 34s 99s", "--win-tile", "5s", "--tsumo",
                           "--seat", "S", "--variant", "sanma", "--json")
    res = json.loads(out)
    assert code == 0 and res["legal"] and (res["total"], res["fu"]) == (1, 30)
    assert sorted((p["payer"], p["receiver"], p["amount"]) for p in res["payments"]) == [(0, 1, 500), (2, 1, 300)]


def test_score_below_minimum_exits_1_with_the_verdict(capsys):
    # hong-kong.md H1: won on West's 2p the hand has 2 core faan
    code, out, _ = run_cli(capsys, "score", "123m 456m 789p 345s 2p | 2f", "--win-tile", "2p", "--ron-from", "W",
                           "--seat", "S", "--variant", "hong-kong")
    assert code == 1 and "cannot win: 2 below the minimum of 3 faan" in out


def test_score_needs_to_know_how_the_hand_was_won(capsys):
    code, _, err = run_cli(capsys, "score", "111m 234p 678p 34s 99s", "--win-tile", "5s", "-v", "sanma")
    assert code == 2 and "--tsumo or --ron-from" in err


def test_calls_on_a_json_state(capsys, tmp_path):
    state = {"variant": "sanma", "turn": 0, "phase": "claim_window", "last_tile": "6p",
             "seats": [{"hand": "19m123456789p12s", "discards": ["6p"]},
                       {"hand": "45p111z222z333z77z", "discards": ["6p"]}, {"hand": "1m9m1p1s9s1234567z7z"}]}
    path = tmp_path / "state.json"
    path.write_text(json.dumps(state))
    code, out, _ = run_cli(capsys, "calls", str(path), "--seat", "S", "--json")
    (south,) = json.loads(out)["seats"]
    codes = {a["kind"]: (a["legal"], a["code"]) for a in south["actions"]}
    assert codes["chow"] == (False, "NO_CHI") and codes["ron"] == (False, "FURITEN_OWN_DISCARD")
    assert [(w["tile"], w["label"]) for w in south["waits"]] == [("3p", "tsumo only"), ("6p", "tsumo only")]


def test_calls_bad_state_is_a_clear_error(capsys):
    code, _, err = run_cli(capsys, "calls", '{"variant": "sanma", "seats": [{"hand": "5m"}]}')
    assert code == 2 and "a sanma table has 3 seats; got 1" in err
    three = '{"variant": "sanma", "seats": [{"hand": "5m123456789p12s"}, {"hand": "1z"}, {"hand": "2z"}]}'
    code, _, err = run_cli(capsys, "calls", three)
    assert code == 2 and "5m is not in the sanma tile set" in err
    code, _, err = run_cli(capsys, "calls", "{not json}")
    assert code == 2 and "not valid JSON" in err
