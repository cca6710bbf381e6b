"""The scripted demo hand (the story :mod:`datasets.assets.demo` renders into ``webui/demo/demo.json``): one short
sanma hand played step by step, with every physical tile tracked.

A tiny table simulator (deal, draw, discard, riichi, pon, ron) keeps each physical tile as
``(id, code)`` so that a tile keeps its id when it moves from a hand to a discard row, as a tracker
would. :func:`demo_steps` returns one :class:`Step` per moment of the hand: the table state JSON
(``assistant.table`` schema, validated), the tiles with their slot on the table, what just happened,
and at the end the win.

The hand (sanma, East = the camera player): East discards 1m; South throws 6s; South pons West's 5z;
West could pon South's 9m but passes; East draws 9s and declares riichi with 7z (waits 3s/6s, three
live copies each); East throws the drawn 1z; West throws 6s and East wins by ron.

The demo "detector" misreads East's 7z as 6z (confidence 0.41) until it is corrected: the live page
shows how a correction changes the hand, the advice and the discard row.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from assistant.table import TableState
from assistant.tiles import Tile, sort_key

SEATS = ("East", "South", "West")

#: tile id -> (misread code, confidence): the demo detector's mistakes
MISREADS: dict[str, tuple[str, float]] = {"t14": ("6z", 0.41)}


@dataclass
class Step:
    """One moment of the demo hand."""

    state: dict[str, Any]                      # table state JSON (truth)
    tiles: list[dict[str, Any]]                # physical tiles: id, code, seat, zone, index, sideways
    event: str                                 # what just happened, in words
    win: dict[str, Any] | None = None          # {"seat", "tile", "tsumo", "discarder"} at the win
    ids: dict[str, Any] = field(default_factory=dict)  # which tile id stands in each place of ``state``


def confidence(tile_id: str) -> float:
    """The demo detector's (deterministic) confidence for a tile it reads correctly."""
    if tile_id in MISREADS:
        return MISREADS[tile_id][1]
    h = int(hashlib.sha1(tile_id.encode()).hexdigest()[:6], 16)
    return round(0.86 + (h % 1300) / 10000, 2)


class DemoTable:
    """Minimal sanma table: just enough of the play to script the demo (no rule checks of its own;
    every state it produces is validated by :class:`~assistant.table.TableState`)."""

    def __init__(self, hands: list[list[str]], dora: str, live_wall: int, points: int = 35000) -> None:
        self._next = 0
        self.hands: list[list[tuple[str, str]]] = [[self._new(c) for c in h] for h in hands]
        self.melds: list[list[dict[str, Any]]] = [[] for _ in hands]
        self.discards: list[list[dict[str, Any]]] = [[] for _ in hands]
        self.points = [points] * len(hands)
        self.first_turn = [True] * len(hands)
        self.dora = [self._new(dora)]
        self.turn = 0
        self.phase = "turn_start"
        self.drawn: tuple[str, str] | None = None
        self.drawn_from: str | None = None
        self.sets_made: list[int] = []
        self.live_wall = live_wall
        self.sticks = 0
        self.win_tile: tuple[str, str] | None = None
        self.win_seat: int | None = None

    def _new(self, code: str) -> tuple[str, str]:
        self._next += 1
        return (f"t{self._next:02d}", code)

    # --- moves --------------------------------------------------------------------------------
    def draw(self, seat: int, code: str) -> str:
        tile = self._new(code)
        self.hands[seat].append(tile)
        self.turn, self.phase, self.drawn, self.drawn_from, self.sets_made = seat, "own_turn", tile, "wall", []
        self.live_wall -= 1
        return f"{SEATS[seat]} draws"

    def deal_draw(self, seat: int) -> str:
        """The dealer's 14th tile (already in the dealt hand) counts as the first draw."""
        self.turn, self.phase, self.drawn, self.drawn_from = seat, "own_turn", self.hands[seat][-1], "wall"
        return "Deal: East holds 14 tiles"

    def discard(self, seat: int, code: str, riichi: bool = False) -> str:
        hand = self.hands[seat]
        idx = next(i for i, t in enumerate(hand) if t[1] == code)
        tile = hand.pop(idx)
        self.discards[seat].append({"id": tile[0], "code": tile[1], "called_by": None, "riichi": riichi})
        self.first_turn[seat] = False
        if riichi:
            self.points[seat] -= 1000
            self.sticks += 1
        self.turn, self.phase, self.drawn, self.drawn_from, self.sets_made = seat, "claim_window", None, None, []
        return f"{SEATS[seat]} {'declares riichi with' if riichi else 'discards'} {code}"

    def pon(self, seat: int) -> str:
        src = self.turn
        taken = self.discards[src][-1]
        taken["called_by"] = seat
        hand = self.hands[seat]
        mine = [t for t in hand if t[1] == taken["code"]][:2]
        for t in mine:
            hand.remove(t)
        back = (seat - src) % len(self.hands)
        # the called tile lies sideways on the side of the player it came from (next player: right)
        tiles = [(t[0], t[1], False) for t in mine]
        called = (taken["id"], taken["code"], True)
        tiles = tiles + [called] if back == len(self.hands) - 1 else [called] + tiles
        self.melds[seat].append({"tiles": tiles, "source": back})
        self.first_turn = [False] * len(self.hands)
        self.turn, self.phase, self.drawn, self.drawn_from = seat, "own_turn", None, None
        self.sets_made = [len(self.melds[seat]) - 1]
        return f"{SEATS[seat]} pons {taken['code']} from {SEATS[src]}"

    def ron(self, seat: int) -> tuple[str, dict[str, Any]]:
        disc = self.discards[self.turn][-1]
        self.win_tile = (disc["id"], disc["code"])
        self.win_seat = seat
        win = {"seat": seat, "tile": disc["code"], "tsumo": False, "discarder": self.turn}
        return f"{SEATS[seat]} wins by ron on {disc['code']} from {SEATS[self.turn]}", win

    # --- views --------------------------------------------------------------------------------
    def sorted_hand(self, seat: int) -> list[tuple[str, str]]:
        """The concealed tiles as the player keeps them: sorted, a fresh draw apart at the right."""
        hand = list(self.hands[seat])
        drawn = self.drawn if self.drawn in hand and self.turn == seat and self.phase == "own_turn" else None
        rest = sorted((t for t in hand if t is not drawn), key=lambda t: sort_key(Tile.from_code(t[1])))
        return rest + ([drawn] if drawn else [])

    def tiles(self) -> list[dict[str, Any]]:
        """Every physical tile with its slot: ``zone`` hand / meld / discard / dora / win and ``index``."""
        out: list[dict[str, Any]] = []
        for seat in range(len(self.hands)):
            for i, (tid, code) in enumerate(self.sorted_hand(seat)):
                drawn = self.drawn is not None and tid == self.drawn[0]
                out.append({"id": tid, "code": code, "seat": seat, "zone": "hand", "index": i, "drawn": drawn})
            for m, meld in enumerate(self.melds[seat]):
                for i, (tid, code, side) in enumerate(meld["tiles"]):
                    out.append({"id": tid, "code": code, "seat": seat, "zone": "meld", "meld": m, "index": i,
                                "sideways": side})
            for i, d in enumerate(self.discards[seat]):
                if d["called_by"] is not None:
                    continue  # it lies in the caller's meld
                if self.win_tile is not None and d["id"] == self.win_tile[0]:
                    out.append({"id": d["id"], "code": d["code"], "seat": self.win_seat, "zone": "win", "index": 0,
                                "sideways": True, "discard_of": seat, "discard_index": i})
                    continue
                out.append({"id": d["id"], "code": d["code"], "seat": seat, "zone": "discard", "index": i,
                            "sideways": d["riichi"]})
        for i, (tid, code) in enumerate(self.dora):
            out.append({"id": tid, "code": code, "seat": None, "zone": "dora", "index": i})
        return out

    def state_ids(self) -> dict[str, Any]:
        """The tile id behind every tile of :meth:`state_json` (to rebuild the state from read codes)."""
        return {
            "seats": [{
                "concealed": [tid for tid, _ in self.sorted_hand(seat)],
                "melds": [[t[0] for t in m["tiles"]] for m in self.melds[seat]],
                "discards": [d["id"] for d in self.discards[seat]],
            } for seat in range(len(self.hands))],
            "dora_indicators": [tid for tid, _ in self.dora],
            "last_tile": self.discards[self.turn][-1]["id"] if self.phase == "claim_window" else None,
            "drawn_tile": self.drawn[0] if self.drawn else None,
        }

    def state_json(self) -> dict[str, Any]:
        seats = []
        for seat in range(len(self.hands)):
            concealed = "".join(c for _, c in self.sorted_hand(seat))
            melds = " ".join(f"[{''.join(t[1] for t in m['tiles'])}@{m['source']}]" for m in self.melds[seat])
            discards: list[Any] = []
            for d in self.discards[seat]:
                if d["called_by"] is None and not d["riichi"]:
                    discards.append(d["code"])
                else:
                    item: dict[str, Any] = {"tile": d["code"]}
                    if d["called_by"] is not None:
                        item["called_by"] = d["called_by"]
                    if d["riichi"]:
                        item["riichi"] = True
                    discards.append(item)
            seats.append({"name": SEATS[seat], "hand": (concealed + " " + melds).strip(), "discards": discards,
                          "points": self.points[seat], "first_turn": self.first_turn[seat]})
        last = self.discards[self.turn][-1]["code"] if self.phase == "claim_window" else None
        state = {
            "variant": "sanma", "turn": self.turn, "phase": self.phase, "last_tile": last,
            "drawn_tile": self.drawn[1] if self.drawn else None, "drawn_from": self.drawn_from,
            "sets_made_this_turn": list(self.sets_made), "live_wall": self.live_wall, "round_wind": "1z",
            "dora_indicators": "".join(c for _, c in self.dora), "honba": 0, "riichi_sticks": self.sticks,
            "seats": seats,
        }
        TableState.from_json(state)  # the script must only produce real tables
        return state


def demo_steps() -> list[Step]:
    """The whole scripted hand, one step per moment."""
    table = DemoTable(
        hands=[
            # East (dealer, the camera player): 14 tiles, the 7z drawn last
            ["1m", "2p", "3p", "4p", "5p", "6p", "7p", "9p", "9p", "4s", "5s", "7s", "8s", "7z"],
            ["1p", "1p", "8p", "9m", "1s", "2s", "3s", "6s", "2z", "3z", "4z", "5z", "5z"],
            ["9m", "9m", "4p", "6p", "8p", "1s", "1s", "5s", "7s", "6s", "2z", "3z", "5z"],
        ],
        dora="3s",
        live_wall=54,
    )
    steps: list[Step] = []

    def snap(event: str, win: dict[str, Any] | None = None) -> None:
        steps.append(Step(table.state_json(), table.tiles(), event, win, table.state_ids()))

    snap(table.deal_draw(0))
    snap(table.discard(0, "1m"))
    snap(table.draw(1, "2p"))
    snap(table.discard(1, "6s"))
    snap(table.draw(2, "3p"))
    snap(table.discard(2, "5z"))
    snap(table.pon(1))
    snap(table.discard(1, "9m"))
    snap(table.draw(2, "7p"))
    snap(table.discard(2, "2z"))
    snap(table.draw(0, "9s"))
    snap(table.discard(0, "7z", riichi=True))
    snap(table.draw(1, "8s"))
    snap(table.discard(1, "1p"))
    snap(table.draw(2, "2p"))
    snap(table.discard(2, "4p"))
    snap(table.draw(0, "1z"))
    snap(table.discard(0, "1z"))
    snap(table.draw(1, "4p"))
    snap(table.discard(1, "4z"))
    snap(table.draw(2, "1z"))
    snap(table.discard(2, "6s"))
    event, win = table.ron(0)
    steps.append(Step(steps[-1].state, table.tiles(), event, win, steps[-1].ids))
    return steps


__all__ = ["MISREADS", "SEATS", "DemoTable", "Step", "confidence", "demo_steps"]
