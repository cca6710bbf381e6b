"""Hong Kong's centre pool, tile by tile: a discard keeps the reading it was followed as while it lies where it lay.

The pool has no order, so a followed discard the frame reads otherwise looks like a tile gone and another come
("a 1m vanished from the centre discards"): generated hong-kong hands lost their whole rest so, one misread pool
tile in a frame. :class:`PoolPlaces` remembers where each followed pool tile lies on the table (the
observation's ``table_xy``, mm) and which tile the followed hand took it as; a tile the next frame reads at one
of those places (within :data:`SAME_PLACE` tile widths) is read as it was followed there, whatever the
classifier says now. Tiles at new places are the frame's own readings: new discards. A followed place where the
frame reads no tile is a tile the detector missed, and stays, but for the latest discard: a claim (or a win)
may have taken it, and the checks and the moves judge that, as before (generated hong-kong hand 2: a discard
missed from its frame 32 on stopped the hand).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..observation import TableObservation
from .tile_codes import sorted_codes

#: a pool tile read within this many tile widths of a followed one's place is that tile
SAME_PLACE = 0.5
#: at most this many followed pool tiles a frame reads no tile at are taken as missed by the detector; more
#: (or a pool read empty) is a table being cleared or dealt anew, or a camera moved: read as the frame reads it
MISSED_AT_MOST = 2


@dataclass(frozen=True)
class PoolTile:
    """A tile of the centre pool as the followed hand took it: where it lies (table mm) and its code."""

    x: float
    y: float
    code: str


def _pool_tiles(obs: TableObservation) -> list[PoolTile]:
    """The centre pool's tiles the observation placed, with where they lie (those without a place left out)."""
    out = []
    for a in obs.assignments:
        xy = a.get("table_xy")
        if a.get("part") == "centre" and isinstance(xy, (list, tuple)) and len(xy) == 2:
            out.append(PoolTile(float(xy[0]), float(xy[1]), str(a.get("code"))))
    return out


def _tile_width(obs: TableObservation) -> float | None:
    size = obs.meta.get("tile_mm") if isinstance(obs.meta, dict) else None
    try:
        return float(size[0]) if size else None
    except (TypeError, ValueError, IndexError):
        return None


@dataclass
class PoolPlaces:
    """Where the followed centre pool's tiles lie, and what they were followed as (see the module)."""

    tiles: list[PoolTile] = field(default_factory=list)

    def clear(self) -> None:
        self.tiles = []

    def _nearest(self, t: PoolTile, reach: float, taken: set[int]) -> int | None:
        best, at = reach * reach, None
        for k, p in enumerate(self.tiles):
            d = (p.x - t.x) ** 2 + (p.y - t.y) ** 2
            if k not in taken and d <= best:
                best, at = d, k
        return at

    def _matched(self, obs: TableObservation) -> tuple[list[tuple[PoolTile, PoolTile | None]], list[PoolTile]]:
        """(each pool tile of ``obs`` with the followed tile lying at its place, None at a new place; the
        followed tiles at whose places the frame reads none); no places known, or no tile size: every tile at a
        new place, none missed."""
        width = _tile_width(obs)
        seen = _pool_tiles(obs)
        if width is None or not self.tiles:
            return [(t, None) for t in seen], []
        taken: set[int] = set()
        out: list[tuple[PoolTile, PoolTile | None]] = []
        for t in seen:
            k = self._nearest(t, SAME_PLACE * width, taken)
            if k is not None:
                taken.add(k)
            out.append((t, None if k is None else self.tiles[k]))
        return out, [p for k, p in enumerate(self.tiles) if k not in taken]

    def kept(self, obs: TableObservation, centre: Sequence[str], latest: str | None = None) -> tuple[str, ...]:
        """The pool as ``obs`` reads it (``centre``) with each tile at a followed place read as followed there,
        and each followed tile at whose place the frame reads none kept too (the detector missed it: a tile
        leaves the pool only when called, or won on, as the latest discard; at most :data:`MISSED_AT_MOST`
        of them, in a pool read with tiles), but for one that reads as ``latest`` (the discard a claim may
        have just taken); ``centre`` itself when the observation's pool tiles have no places (a hand-made
        observation)."""
        pairs, missed = self._matched(obs)
        if len(pairs) != len(centre) or Counter(t.code for t, _ in pairs) != Counter(centre):
            return tuple(centre)
        codes = [p.code if p is not None else t.code for t, p in pairs]
        held = [p.code for p in missed] if pairs and len(missed) <= MISSED_AT_MOST else []
        if latest is not None and latest in held:
            held.remove(latest)
        return sorted_codes(codes + held)

    def remember(self, obs: TableObservation, followed: Sequence[str]) -> None:
        """After a frame was followed: the places of its pool tiles, each as the followed pool (``followed``)
        takes it: the frame's reading kept by place (:meth:`kept`), else its own reading where the followed
        pool holds it; a followed place the frame missed, while the followed pool still holds its tile; where
        exactly one tile and one followed code are left (a new discard the moves took in another reading),
        that code at that tile's place. Any other tile is left out (read as the frame reads it next time)."""
        pairs, missed = self._matched(obs)
        left = Counter(followed)
        tiles: list[PoolTile] = []
        unsure: list[PoolTile] = []
        for t, p in pairs:
            code = p.code if p is not None else t.code
            if left[code] > 0:
                left[code] -= 1
                tiles.append(PoolTile(t.x, t.y, code))
            else:
                unsure.append(t)
        for p in missed:      # a tile the frame missed that the followed pool still holds keeps its place
            if left[p.code] > 0:
                left[p.code] -= 1
                tiles.append(p)
        rest = list(left.elements())
        if len(unsure) == 1 and len(rest) == 1:
            tiles.append(PoolTile(unsure[0].x, unsure[0].y, rest[0]))
        self.tiles = tiles
