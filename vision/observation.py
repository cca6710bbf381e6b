"""What one frame shows of the table: :class:`TableObservation` (the vision side's own type; the lead maps it
to engine events).

Seats are *positions* on the physical table (0 = near side / camera player, then counter-clockwise: 1 right,
2 across, 3 left), listed in turn order; the vision cannot tell winds. Tile codes and meld notation follow
``shared/rules/README.md`` §2 (``bk`` = a tile seen face down). Conventions:

* ``hand``: the concealed tiles left to right *from that player's view* (``bk`` for backs);
* ``melds``: in call order (the first call lies rightmost); ``tiles`` left to right from the owner's view,
  ``sideways`` the index of the sideways (claimed) tile, ``source`` = ``@k`` seats back in turn order,
  ``source_position`` the table position it came from; an added kong's extra tile is ``added``; a concealed
  kong shows two backs (``bk X X bk``, Hong Kong ``X bk bk X``);
* ``discards``: in discard order - rows of six, left to right from the player's view, the first row
  nearest the centre and later rows towards the player (the third row runs on); ``riichi`` = the index of the
  sideways riichi tile;
* ``bonus``: flowers, seasons, animals, faces and sunk Fei, left to right; ``norths``: sanma's set-aside
  Norths;
* ``dora_indicators`` in reveal order; ``centre_discards``: Hong Kong's unordered pool (canonical order);
* ``problems``: impossible or unreadable things, each with a plain-words ``message``.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING

from assistant.variants import variant_names

if TYPE_CHECKING:
    from .zones import TableZones

#: JSON schema of :meth:`TableObservation.to_dict` (draft 2020-12).
OBSERVATION_SCHEMA: dict = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "TableObservation",
    "type": "object",
    "required": ["variant", "players", "seats", "dora_indicators", "centre_discards", "problems"],
    "properties": {
        "variant": {"type": "string", "enum": variant_names()},
        "players": {"type": "integer", "enum": [3, 4]},
        "seats": {"type": "array", "items": {"$ref": "#/$defs/seat"}},
        "dora_indicators": {"type": "array", "items": {"$ref": "#/$defs/code"}},
        "centre_discards": {"type": "array", "items": {"$ref": "#/$defs/code"}},
        "unplaced": {"type": "array", "items": {"type": "object", "properties": {
            "code": {"$ref": "#/$defs/code"}, "table_xy": {"type": "array", "items": {"type": "number"}},
            "zone": {"type": "string"}}}},
        "problems": {"type": "array", "items": {"$ref": "#/$defs/problem"}},
        "meta": {"type": "object"},
        "assignments": {"type": "array", "items": {"type": "object", "properties": {
            "index": {"type": "integer"}, "code": {"$ref": "#/$defs/code"},
            "part": {"type": "string", "enum": ["hand", "meld", "discard", "bonus", "north", "dora", "centre",
                                                "wall", "unplaced", "ignored"]},
            "position": {"type": ["integer", "null"]}, "at": {}, "table_xy": {"type": "array"},
            "confidence": {"type": "number"},
            "top3": {"type": "array", "items": {"type": "array", "prefixItems": [
                {"$ref": "#/$defs/code"}, {"type": "number"}]}}}}},
    },
    "$defs": {
        "code": {"type": "string", "pattern": "^([0-9][mpszfgah]|jk|bk)$"},
        "seat": {"type": "object", "required": ["position", "hand", "melds", "discards", "riichi", "bonus", "norths"],
                 "properties": {
                     "position": {"type": "integer", "minimum": 0, "maximum": 3},
                     "hand": {"type": "array", "items": {"$ref": "#/$defs/code"}},
                     "hand_state": {"type": "string", "enum": ["unseen", "faces", "backs", "mixed"]},
                     "melds": {"type": "array", "items": {"$ref": "#/$defs/meld"}},
                     "discards": {"type": "array", "items": {"$ref": "#/$defs/code"}},
                     "riichi": {"type": ["integer", "null"]},
                     "bonus": {"type": "array", "items": {"$ref": "#/$defs/code"}},
                     "norths": {"type": "array", "items": {"$ref": "#/$defs/code"}},
                     "notation": {"type": "string"}}},
        "meld": {"type": "object", "required": ["type", "tiles", "sideways", "source", "added", "concealed"],
                 "properties": {
                     "type": {"type": "string", "enum": ["chow", "pong", "kong", "unknown"]},
                     "tiles": {"type": "array", "items": {"$ref": "#/$defs/code"}},
                     "sideways": {"type": ["integer", "null"]},
                     "source": {"type": ["integer", "null"], "minimum": 1, "maximum": 3},
                     "source_position": {"type": ["integer", "null"]},
                     "added": {"anyOf": [{"$ref": "#/$defs/code"}, {"type": "null"}]},
                     "concealed": {"type": "boolean"},
                     "stands_for": {"type": "array", "items": {"$ref": "#/$defs/code"}},
                     "notation": {"type": "string"}}},
        "problem": {"type": "object", "required": ["kind", "message"],
                    "properties": {"kind": {"type": "string"}, "message": {"type": "string"},
                                   "position": {"type": ["integer", "null"]},
                                   "tiles": {"type": "array", "items": {"type": "string"}}}},
    },
}

PROBLEM_KINDS = (
    "too_many_copies",     # a fifth copy (or more copies than the set has, e.g. a second 1f)
    "too_many_red",        # more red fives than the set has
    "not_in_set",          # a tile kind the rule system lacks
    "hand_size",           # concealed + 3 per meld is not 13 or 14
    "bonus_in_hand",       # a flower/season/animal/face (or sunk Fei) among the concealed tiles
    "bad_meld",            # a group in the meld area that is no chow/pong/kong of this rule system
    "bad_source",          # a sideways tile where no player sits
    "bad_discard",         # a bonus tile or Fei among the discards
    "riichi",              # two riichi tiles, or riichi with an open hand, or riichi where there is none
    "too_many_melds",      # more than four sets shown
    "too_many_kongs",      # more than four kongs on the table
    "unplaced",            # a tile that fits no zone (scattered, or the layout is unusual)
    "norths",              # Norths set aside outside sanma
)


#: another player's hand showing fewer faces than this (3 per meld counted) and no back is no hand laid down
TOPS_BELOW = 10


def mostly_backs(hand: list[str] | tuple[str, ...]) -> bool:
    """A hand seen from behind: at least half of it backs (a few faces are tops of standing tiles read as
    faces)."""
    return 2 * list(hand).count("bk") >= len(hand)


def tops_only(hand: list[str] | tuple[str, ...], melds: int) -> bool:
    """A few faces and no back where a hand stands: too few for a hand laid down, the tops of standing tiles
    read as faces (a blank white dragon looks much like a tile's top)."""
    return bool(hand) and "bk" not in hand and len(hand) + 3 * melds < TOPS_BELOW


@dataclass
class MeldObservation:
    type: str                          # chow, pong, kong, unknown
    tiles: list[str]                   # left to right from the owner's view
    sideways: int | None = None
    source: int | None = None          # @k
    source_position: int | None = None
    added: str | None = None
    concealed: bool = False
    stands_for: list[str] = field(default_factory=list)
    notation: str = ""


@dataclass
class SeatObservation:
    position: int
    hand: list[str] = field(default_factory=list)
    hand_state: str = "unseen"
    melds: list[MeldObservation] = field(default_factory=list)
    discards: list[str] = field(default_factory=list)
    riichi: int | None = None
    bonus: list[str] = field(default_factory=list)
    norths: list[str] = field(default_factory=list)
    notation: str = ""


@dataclass
class Problem:
    kind: str
    message: str
    position: int | None = None
    tiles: list[str] = field(default_factory=list)


@dataclass
class TableObservation:
    variant: str
    players: int
    seats: list[SeatObservation]
    dora_indicators: list[str] = field(default_factory=list)
    centre_discards: list[str] = field(default_factory=list)
    unplaced: list[dict] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    meta: dict = field(default_factory=dict)
    #: per detection, in input order: {index, code, part (hand, meld, discard, bonus, north, dora, centre,
    #: wall, unplaced, ignored), position, at (index within the part; melds: [meld, tile or "added"]), table_xy,
    #: and where the classifier gave them: confidence, top3 ([code, probability] best first)}
    assignments: list[dict] = field(default_factory=list)
    #: the zones fitted to the table (:func:`vision.reconstruct.reconstruct`'s, for drawing them): not in the JSON
    zones_fitted: TableZones | None = field(default=None, repr=False, compare=False)

    def seat(self, position: int) -> SeatObservation | None:
        return next((s for s in self.seats if s.position == position), None)

    def to_dict(self) -> dict:
        d = asdict(replace(self, zones_fitted=None))
        del d["zones_fitted"]
        return d

    def to_json(self, **kw) -> str:
        return json.dumps(self.to_dict(), **kw)

    def page_view(self) -> dict:
        """:meth:`to_dict` without the assignments: the table as the page shows it (the page's tiles say where
        each lies)."""
        view = asdict(replace(self, zones_fitted=None, assignments=[]))   # assignments are most of the copying
        del view["zones_fitted"], view["assignments"]
        return view

    @classmethod
    def from_dict(cls, d: dict) -> TableObservation:
        seats = []
        for s in d["seats"]:
            melds = [MeldObservation(**m) for m in s.get("melds", [])]
            seats.append(SeatObservation(**{**s, "melds": melds}))
        return cls(d["variant"], d["players"], seats, list(d.get("dora_indicators", [])),
                   list(d.get("centre_discards", [])), list(d.get("unplaced", [])),
                   [Problem(**p) for p in d.get("problems", [])], dict(d.get("meta", {})),
                   list(d.get("assignments", [])))

    def summary(self) -> str:
        """One line per seat in the rules notation, then dora, centre and problems."""
        lines = []
        for s in self.seats:
            disc = "".join(f"{c}{'*' if i == s.riichi else ''} " for i, c in enumerate(s.discards)).strip()
            lines.append(f"position {s.position}: {s.notation or '-'}" + (f"   discards: {disc}" if disc else ""))
        if self.dora_indicators:
            lines.append("dora indicators: " + " ".join(self.dora_indicators))
        if self.centre_discards:
            lines.append("centre discards: " + " ".join(self.centre_discards))
        for p in self.problems:
            lines.append(f"problem ({p.kind}): {p.message}")
        return "\n".join(lines)


def _seat_name(position) -> str:
    return "table" if position is None else f"seat {position}"


def describe_change(before: dict | None, after: dict) -> str:
    """A short text of what changed between two observations (dicts of ``TableObservation.to_dict``)."""
    if before is None:
        return ""
    parts: list[str] = []
    old = {s["position"]: s for s in before.get("seats", [])}
    for s in after.get("seats", []):
        p, o = s["position"], old.get(s["position"])
        if o is None:
            continue
        if s["discards"][:len(o["discards"])] == o["discards"] and len(s["discards"]) > len(o["discards"]):
            for c in s["discards"][len(o["discards"]):]:
                parts.append(f"{_seat_name(p)} discarded {c}")
        elif s["discards"] != o["discards"]:
            parts.append(f"{_seat_name(p)} discards changed")
        new_melds = [m["notation"] or "".join(m["tiles"]) for m in s["melds"]]
        old_melds = [m["notation"] or "".join(m["tiles"]) for m in o["melds"]]
        for m in Counter(new_melds) - Counter(old_melds):
            parts.append(f"{_seat_name(p)} called {m}")
        gained = Counter(s["hand"]) - Counter(o["hand"])
        lost = Counter(o["hand"]) - Counter(s["hand"])
        if len(s["hand"]) == len(o["hand"]) + 1 and sum(gained.values()) == 1:
            parts.append(f"{_seat_name(p)} drew {next(iter(gained))}" if next(iter(gained)) != "bk"
                         else f"{_seat_name(p)} drew")
        elif gained or lost:
            if not any(x.startswith(_seat_name(p)) for x in parts):
                parts.append(f"{_seat_name(p)} hand changed")
        for c in (Counter(s["bonus"] + s["norths"]) - Counter(o["bonus"] + o["norths"])).elements():
            parts.append(f"{_seat_name(p)} set aside {c}")
    new_dora = Counter(after.get("dora_indicators", [])) - Counter(before.get("dora_indicators", []))
    for c in new_dora.elements():
        parts.append(f"new dora indicator {c}")
    for c in (Counter(after.get("centre_discards", [])) - Counter(before.get("centre_discards", []))).elements():
        parts.append(f"{c} discarded to the centre")
    return "; ".join(parts)
