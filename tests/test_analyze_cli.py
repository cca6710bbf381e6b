import json

import cv2
import numpy as np

from assistant.cli import main
from vision.analyze import own_hand_analysis


def test_own_hand_waits_with_visible_tiles():
    # sanma E1's hand: waits 2s/5s; one 2s and one 5s are visible elsewhere -> 3 live each
    res = own_hand_analysis(["1m", "1m", "1m", "2p", "3p", "4p", "6p", "7p", "8p", "3s", "4s", "9s", "9s"], [],
                            ["2s", "5s"], "sanma")
    assert res["readable"] and [(w["tile"], w["live"]) for w in res["waits"]] == [("2s", 3), ("5s", 3)]


def test_own_hand_discard_advice_for_14_tiles():
    codes = ["1p", "2p", "3p", "4p", "5p", "6p", "7s", "8s", "9s", "4s", "5s", "6s", "6s", "1z"]
    res = own_hand_analysis(codes, [], [], "sanma")
    assert res["readable"] and res["options"][0]["discard"] == "1z"


def test_unreadable_hands_say_why():
    assert own_hand_analysis(["bk"] * 13, [], [], "sanma")["reason"] == "the hand is not face up to the camera"
    res = own_hand_analysis(["1p", "2p"], [], [], "sanma")
    assert not res["readable"] and "2 tiles read" in res["reason"]
    assert "5m is not in the sanma tile set" in own_hand_analysis(["5m"] * 13, [], [], "sanma")["reason"]


def test_analyze_command_on_a_blank_picture_and_a_bad_file(tmp_path, capsys):
    img = tmp_path / "blank.png"
    cv2.imwrite(str(img), np.full((120, 160, 3), 90, np.uint8))
    assert main(["analyze", str(img), "--variant", "sanma", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["tiles"] == [] and res["own_hand"] == {"readable": False, "reason": "no tile found in the picture"}
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"not an image")
    assert main(["analyze", str(bad), "--variant", "sanma"]) == 2
    assert "error:" in capsys.readouterr().err
