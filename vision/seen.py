"""What the page shows of a table read from a camera or a photo: :class:`SeenTile` (a tile where it lies, what
it reads as), :class:`ZoneOutline` (a fitted zone) and :class:`SeenWin` (the win being scored). Each is made
by the vision side (:mod:`vision.live`) or by a demo feed (:mod:`webui.feed`) and serialised only at the
page's edge (``to_json``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

#: a tile's four corners in image pixels, TL, TR, BR, BL of the face as it reads upright
Corners = tuple[tuple[float, float], ...]


def corners_of(points: Sequence[Sequence[float]]) -> Corners:
    """``[[x, y], ...]`` (a list, an array) as :data:`Corners`."""
    return tuple((float(x), float(y)) for x, y in points)


@dataclass(frozen=True)
class TilePlace:
    """Where the rebuilt table puts a tile: its ``zone`` (hand, meld, discard, bonus, north, dora, centre,
    wall, unplaced, ignored) and the table position of its ``seat`` (None where it belongs to no one)."""

    zone: str
    seat: int | None


@dataclass(frozen=True)
class SeenTile:
    """One tile on the page: its ``id`` (``t<track id>`` live, ``p<n>`` in a photo), ``code`` and how sure the
    reading is, its ``corners``, whether it lies ``face_up``; where the feed says so, whether its reading is
    ``stable`` (tracked over frames), the classifier's ``top3`` and its ``place`` on the rebuilt table;
    ``corrected`` when a user set its code; ``read_as``: what the classifier read when the table's counts
    read it again (then ``code`` is the table's)."""

    id: str
    code: str
    confidence: float
    corners: Corners
    face_up: bool
    stable: bool | None = None
    top3: tuple[tuple[str, float], ...] | None = None
    corrected: bool = False
    place: TilePlace | None = None
    read_as: str | None = None

    def corrected_to(self, code: str) -> SeenTile:
        """The tile as a user corrected it to ``code`` (sure of it)."""
        return replace(self, code=code, corrected=True, confidence=1.0)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "code": self.code, "confidence": self.confidence,
                               "corners": [list(p) for p in self.corners], "face_up": self.face_up}
        if self.stable is not None:
            out["stable"] = self.stable
        if self.top3 is not None:
            out["top3"] = [{"code": c, "p": p} for c, p in self.top3]
        out["corrected"] = self.corrected
        if self.place is not None:
            out["zone"], out["seat"] = self.place.zone, self.place.seat
        if self.read_as is not None:
            out["read_as"] = self.read_as
        return out

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> SeenTile:
        """A tile of a demo's script (``webui/demo/demo.json``: id, code, confidence, corners, face_up, zone,
        seat) or of :meth:`to_json`."""
        top3 = d.get("top3")
        return cls(str(d["id"]), str(d["code"]), float(d.get("confidence", 1.0)), corners_of(d["corners"]),
                   bool(d["face_up"]), d.get("stable"),
                   None if top3 is None else tuple((str(t["code"]), float(t["p"])) for t in top3),
                   bool(d.get("corrected", False)), TilePlace(d["zone"], d.get("seat")) if "zone" in d else None,
                   d.get("read_as"))


@dataclass(frozen=True)
class ZoneOutline:
    """A fitted zone as the page draws it: its ``name`` (centre, discards, hand, melds), the engine ``seat``
    it belongs to (None for the centre) and its outline in image pixels."""

    name: str
    seat: int | None
    polygon: tuple[tuple[float, float], ...]

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "seat": self.seat, "polygon": [list(p) for p in self.polygon]}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> ZoneOutline:
        return cls(str(d["name"]), d.get("seat"), corners_of(d["polygon"]))


@dataclass(frozen=True)
class SeenWin:
    """A win on the table, to be scored: the winner's ``seat``, the winning ``tile``, ``tsumo`` or not, and the
    ``discarder`` of a ron (engine seats)."""

    seat: int
    tile: str
    tsumo: bool
    discarder: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "tile": self.tile, "tsumo": self.tsumo, "discarder": self.discarder}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> SeenWin:
        return cls(int(d["seat"]), str(d["tile"]), bool(d["tsumo"]), d.get("discarder"))


__all__ = ["Corners", "SeenTile", "SeenWin", "TilePlace", "ZoneOutline", "corners_of"]
