"""mjai JSON lines of a followed game, read back with the format's field meanings: a hand worked out by hand
(riichi, a pon of the riichi tile, a North set aside, a ron), the dealer's seat mapped to player numbers, and
generated sanma hands (calls, kongs, kita, new dora) whose every line a reader of the format accepts and whose
hands at the end are the engine's."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from assistant.match.events import MatchError
from assistant.match.mjai import mjai_lines, mjai_tile, to_mjai
from assistant.play import Deal, Discard, Draw, HandLog, Kita, Pong, ReplacementDraw, Ron

REPO = Path(__file__).resolve().parents[1]
HANDS = ("111m234p678p34s99s", "1p9p1s9s1z2z3z4z5z2p8p2s8s", "1p9p1s9s1z2z3z6z7z7z3p7p3s")


def worked_hand(dealer: int = 0) -> HandLog:
    log = HandLog("sanma")
    for e in (Deal("sanma", HANDS, dora_indicators="5z", names=("Ann", "Bob", "Cid"), points=(35000, 30000, 40000),
                   dealer=dealer),
              Draw(0, "7z"), Discard(0, "7z", riichi=True),   # East: riichi on the red dragon it drew
              Pong(2),                                          # West pons it (the stick goes down first)
              Discard(2, "1p"), Draw(0, "6z"), Discard(0, "6z"),
              Draw(1, "4z"), Kita(1), ReplacementDraw(1, "5s"),  # South sets a North aside, draws its replacement
              Discard(1, "5s"), Ron((0,))):                     # and deals in: East rons 5s
        log.append(e)
    return log


def read_back(events: list[dict]) -> dict:
    """A reader of mjai: follows every player's concealed tiles from the fields' meanings and checks each event
    against them (a tile the camera never saw is '?': a known tile leaving such a hand uses one up)."""
    hands: dict[int, Counter] = {}
    last_discard = None
    at_end: list[dict[int, Counter]] = []
    n = 0

    def take(p: int, tile: str) -> None:
        if hands[p][tile] > 0:
            hands[p][tile] -= 1
        else:
            assert hands[p]["?"] > 0, f"player {p} does not hold {tile}"
            hands[p]["?"] -= 1

    assert events[0]["type"] == "start_game" and events[-1]["type"] == "end_game"
    for e in events[1:-1]:
        t = e["type"]
        if t == "start_kyoku":
            n = len(e["tehais"])
            assert len(e["scores"]) == n and e["kyoku"] == e["oya"] + 1 and all(len(h) == 13 for h in e["tehais"])
            hands = {p: Counter(h) for p, h in enumerate(e["tehais"])}
        elif t == "tsumo":
            hands[e["actor"]][e["pai"]] += 1
        elif t == "dahai":
            take(e["actor"], e["pai"])
            last_discard = (e["actor"], e["pai"])
        elif t in ("chi", "pon", "daiminkan"):
            assert last_discard == (e["target"], e["pai"]) and e["target"] != e["actor"]
            assert len(e["consumed"]) == {"chi": 2, "pon": 2, "daiminkan": 3}[t]
            for tile in e["consumed"]:
                take(e["actor"], tile)
        elif t == "ankan":
            assert len(e["consumed"]) == 4
            for tile in e["consumed"]:
                take(e["actor"], tile)
        elif t == "kakan":
            assert len(e["consumed"]) == 3
            take(e["actor"], e["pai"])
        elif t == "nukidora":
            take(e["actor"], "N")
        elif t in ("hora", "ryukyoku"):
            if not at_end or t == "ryukyoku" or at_end[-1] is not hands:
                at_end.append({p: +c for p, c in hands.items()})
            if t == "hora" and e["target"] != e["actor"]:
                assert last_discard == (e["target"], e["pai"])
        elif t in ("reach", "reach_accepted", "dora", "end_kyoku"):
            assert set(e) <= {"type", "actor", "dora_marker"}
        else:
            raise AssertionError(f"unknown mjai event {t}")
    return {"players": n, "hands_at_end": at_end}


def test_a_worked_hand_line_by_line():
    text = mjai_lines(to_mjai([worked_hand()]))
    lines = [json.loads(x) for x in text.splitlines()]
    assert lines == [
        {"type": "start_game", "names": ["Ann", "Bob", "Cid"]},
        {"type": "start_kyoku", "bakaze": "E", "dora_marker": "P", "kyoku": 1, "honba": 0, "kyotaku": 0, "oya": 0,
         "scores": [35000, 30000, 40000],
         "tehais": [["1m", "1m", "1m", "2p", "3p", "4p", "6p", "7p", "8p", "3s", "4s", "9s", "9s"],
                    ["1p", "9p", "1s", "9s", "E", "S", "W", "N", "P", "2p", "8p", "2s", "8s"],
                    ["1p", "9p", "1s", "9s", "E", "S", "W", "F", "C", "C", "3p", "7p", "3s"]]},
        {"type": "tsumo", "actor": 0, "pai": "C"},
        {"type": "reach", "actor": 0},
        {"type": "dahai", "actor": 0, "pai": "C", "tsumogiri": True},
        {"type": "reach_accepted", "actor": 0},
        {"type": "pon", "actor": 2, "target": 0, "pai": "C", "consumed": ["C", "C"]},
        {"type": "dahai", "actor": 2, "pai": "1p", "tsumogiri": False},
        {"type": "tsumo", "actor": 0, "pai": "F"},
        {"type": "dahai", "actor": 0, "pai": "F", "tsumogiri": True},
        {"type": "tsumo", "actor": 1, "pai": "N"},
        {"type": "nukidora", "actor": 1, "pai": "N"},
        {"type": "tsumo", "actor": 1, "pai": "5s"},
        {"type": "dahai", "actor": 1, "pai": "5s", "tsumogiri": True},
        {"type": "hora", "actor": 0, "target": 1, "pai": "5s"},
        {"type": "end_kyoku"},
        {"type": "end_game"},
    ]
    assert text.endswith("}\n") and "\n\n" not in text
    got = read_back(lines)
    assert got["hands_at_end"][0][0] == Counter("1m 1m 1m 2p 3p 4p 6p 7p 8p 3s 4s 9s 9s".split())


def test_actors_are_player_numbers_when_the_second_player_deals():
    lines = to_mjai([worked_hand(dealer=1)])
    kyoku = lines[1]
    # seat 0 (East) is player 1 (Bob); seat 1 is player 2 (Cid); seat 2 is player 0 (Ann)
    assert (kyoku["oya"], kyoku["kyoku"], kyoku["scores"]) == (1, 2, [40000, 35000, 30000])
    assert kyoku["tehais"][1][:3] == ["1m", "1m", "1m"]
    pon = next(e for e in lines if e["type"] == "pon")
    hora = next(e for e in lines if e["type"] == "hora")
    assert (pon["actor"], pon["target"], hora["actor"], hora["target"]) == (0, 1, 1, 2)
    read_back(lines)


def test_tiles_in_mjai_notation():
    assert [mjai_tile(c) for c in ("1m", "9m", "0m", "0p", "0s", "5p", "2z", "3z", "4z", "6z", "bk")] == [
        "1m", "9m", "5mr", "5pr", "5sr", "5p", "S", "W", "N", "F", "?"]


@pytest.mark.parametrize("seed", range(12))
def test_generated_sanma_hands_read_back_to_the_engines_hands(seed):
    from datasets.hand_video import play_hand

    events, states = play_hand("sanma", seed)
    log = HandLog("sanma", events)
    lines = to_mjai([log])
    got = read_back(lines)
    before_end = states[-2]
    dealer = events[0].dealer or 0
    n = got["players"]
    for player in range(n):
        seat = (player - dealer) % n
        want = Counter(mjai_tile(t) for t in before_end.seats[seat].hand.concealed)
        assert got["hands_at_end"][0][player] == want, (seed, player)
    kinds = {e["type"] for e in lines}
    assert {"start_kyoku", "tsumo", "dahai", "end_kyoku"} <= kinds


def test_only_riichi_hands_are_written_as_mjai():
    from datasets.hand_video import play_hand

    events, _ = play_hand("hong-kong", 0)
    with pytest.raises(MatchError, match="mjai is a riichi format: a hong-kong hand cannot be written as mjai"):
        to_mjai([HandLog("hong-kong", events)])


def test_match_export_mjai_on_the_command_line(tmp_path):
    hand = tmp_path / "hand.json"
    hand.write_text(json.dumps(worked_hand().to_json()))
    out = tmp_path / "game.jsonl"
    r = subprocess.run([sys.executable, "-m", "assistant", "match", "export", "--format", "mjai", "--hands",
                        str(hand), "--out", str(out)], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert (r.returncode, r.stdout.strip()) == (0, f"wrote {out}"), r.stderr
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(lines) == 17 and lines[-2:] == [{"type": "end_kyoku"}, {"type": "end_game"}]
    r = subprocess.run([sys.executable, "-m", "assistant", "match", "export", "--format", "mjai"],
                       capture_output=True, text=True, cwd=REPO, timeout=60)
    assert (r.returncode, r.stderr.strip()) == (2, "error: mjai needs the followed hands: --hands FILE ... (hand "
                                                   "logs: the live page's /api/live/hand.json, or eval-video's)")


def test_the_live_page_gives_the_followed_hands_as_a_hand_log_and_as_mjai(tmp_path):
    from webui import create_app
    from webui.feed import ScriptedDemoFeed

    class Following:  # what a camera feed's analyser offers: the hands it followed
        def hand_logs(self):
            return [worked_hand()]

    feed = ScriptedDemoFeed(auto=False)
    app = create_app({"FEED": feed, "DATA_DIR": str(tmp_path), "MATCH_DB": str(tmp_path / "m.db"), "TESTING": True})
    c = app.test_client()
    r = c.get("/api/live/hand.json")
    assert (r.status_code, r.get_json()["error"]) == (
        404, "no hand followed yet: the camera has not seen a deal (the scripted demo follows none)")
    feed.analyze = Following()
    r = c.get("/api/live/hand.json")
    assert r.status_code == 200
    assert HandLog.from_json(r.get_json()).events == worked_hand().events
    r = c.get("/api/live/game.mjai")
    assert (r.status_code, r.mimetype) == (200, "application/jsonl")
    assert r.get_data(as_text=True) == mjai_lines(to_mjai([worked_hand()]))
    app.extensions["hub"].stop()
