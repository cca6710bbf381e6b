"""One frame's tile detections -> a :class:`~vision.observation.TableObservation`.

Pipeline (all in table coordinates, see :mod:`vision.zones`):

1. every detection (code, corners TL, TR, BR, BL of the face as it reads upright, face_up) is mapped through
   the calibration onto the plane of lying tile faces: centre, "up" vector, width and height in mm;
2. the tile size is the median of the mapped tiles (a detector box's width corrected for perspective);
   zones are fitted (wall ring from the lying backs, else the discard rows) and each tile gets a position
   (pinwheel ownership) and a zone. Seen from a seat camera, the far wall's top layer, the far standing
   hand and the far melds map within a few mm of each other on the plane of lying faces: rows are cut
   where their tiles overlap, and a tile in the wall band is a wall tile only on the line of a layer of its
   wall row (or, where that wall is not seen, where its top layer would map, unless it is in line with the
   side's hand row);
3. per position, the **outer row** (hand, melds, bonus area) is read left to right from the owner's view
   and split by a small dynamic programme into hand | melds | bonus: a meld is 3 tiles with one sideways
   tile (chow or pong; an added kong has a 4th sideways tile lying beyond the sideways one), 4 tiles with
   one sideways tile (kong from a discard), or ``bk X X bk`` / ``X bk bk X`` (concealed kong); gaps between
   tiles, code validity and the rule system's hand sizes (13, or 14 with the draw) weigh the choice;
4. the **discard** band is cut into rows by distance from the centre (nearest row first) and read left to
   right; the sideways tile is the riichi tile. Where discards go to the centre (``keeps_discard_rows`` False:
   Hong Kong) they are the unordered centre pool, anywhere inside the wall square;
5. face-up tiles on the **wall** ring are dora indicators (in wall order) where the rule system has them
   (``has_dora_indicators``) and the tile lies on the line of its wall row's top layer;
6. the result is checked (copies, red fives, tile kinds of the rule system, hand sizes, meld shapes,
   bonus tiles in the wrong place, riichi) and every finding becomes a plain-words problem.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from itertools import product

import numpy as np

from assistant.table import tile_problems
from assistant.tiles import Tile

from .calibration import Calibration, apply_h, standing_tiles
from .kinds import KINDS
from .observation import MeldObservation, Problem, SeatObservation, TableObservation, mostly_backs, tops_only
from .zones import TableZones, from_seat, pinwheel_owner, to_seat, toward_centre

BONUS_SUITS = "fgah"

#: the parse cost of a meld made a set by reading a tile as its next best (besides how much less likely)
MELD_REREAD_COST = 2.0
#: the parse cost of a pong or kong whose tile where a sideways tile lies reads as another kind and no tile as
#: sideways: that tile taken as its sideways tile, boxed upright and misread through its squeezed crop (a
#: generated korean-3p pong of 9p read 9p 9p 3p); set below three tiles of the bonus area, never a pong
ODD_TILE_COST = 11.0
#: the parse cost of a chow, pong or kong of face-up tiles with no tile read as sideways and none guessed so
#: (:func:`_widest`, :func:`_spaced`, :func:`_odd_tile`): a meld whose sideways tile was boxed upright, shown
#: with its sideways tile and source unknown (the follower takes them from the claim that made it); below what
#: three tiles misplaced in a bonus area cost, above a hand split between two tightly laid tiles
UNSEEN_SIDE_COST = 5.0
#: such a group that makes no set as read is made one by its tiles' next best readings (as melds with a sideways
#: tile are): off, as measured (eval-video --from-images, cached readings: korean-3p 365 -> 348 of 659 events,
#: the other rule systems unchanged; docs/benchmarks.md, seventh session)
REREAD_UNSEEN_SIDE = False
#: the parse cost, besides :data:`UNSEEN_SIDE_COST`, of such a group that makes no set even so: a meld of unknown
#: shape (a tile of it misread), so that the melds beside it are still parsed as melds and its tiles are not
#: taken for bonus tiles (generated hong-kong hand 4 read its chow 1m2m3m 3m 2m 3m, and its next meld 3s4s5s went
#: to the bonus area with it); None (as shipped): no such meld, the row's melds end at the group. Tried at 12:
#: eval-video --from-images, cached readings, 783 of 2,264 events against 788 (hong-kong 87 against 90: a
#: camera hand's tiles taken for such a meld; korean-3p 376 against 377; sanma 311, from a first form of the
#: late dora indicator in the same run, since mended; docs/benchmarks.md, eighth session)
UNKNOWN_UNSEEN_SIDE_COST: float | None = None
#: neighbours of a group closer than this many tile widths are one tile boxed twice
SPLIT_BOX = 0.8
#: the least probability of a top-3 reading a meld may take (a sideways pong tile far away is often read as a
#: neighbouring honour with its own kind a few per cent behind)
MELD_READING_FLOOR = 0.02
#: a tile in a bonus area read less surely than this as a kind that never lies there is the rule system's
#: only kind that does (:func:`sole_aside`); a sure reading there is a meld or hand tile misplaced
SOLE_ASIDE_UNSURE = 0.5


@dataclass
class Piece:
    """One detection in table coordinates."""

    index: int
    code: str
    face_up: bool
    confidence: float
    xy: np.ndarray                 # centre on the lying-face plane (mm)
    up: np.ndarray                 # mapped up vector (mm; its length is the mapped face height)
    width: float                   # mapped face width (mm)
    xy_top: np.ndarray | None = None   # centre if it lies on top of the wall (one thickness higher)
    standing: bool = False         # mapped shape too tall for a lying tile: a standing hand tile
    stand_err: float = 0.0         # how far the image "up" is from a standing tile's vertical (relative)
    flat_width: float = 0.0        # face width if the tile lies flat, corrected for an oriented box's shear
    position: int = -1
    zone: str = ""
    x: float = 0.0                 # seat frame of the owner: along the row, to the owner's right
    d: float = 0.0                 # distance from the centre towards the owner
    turn: int = 0                  # quarter turns (counter-clockwise) of the face from upright for the owner
    extra: Piece | None = None     # an added kong's fourth tile lying beyond this sideways tile
    top3: list = field(default_factory=list)

    @property
    def sideways(self) -> bool:
        return self.turn in (1, 3)

    @property
    def back(self) -> bool:
        return self.code == "bk"


def _get(det, name, default=None):
    if isinstance(det, dict):
        return det.get(name, default)
    return getattr(det, name, default)


def _is_bonus(code: str) -> bool:
    return len(code) == 2 and code[1] in BONUS_SUITS


def _plain(code: str) -> str:
    return "5" + code[1] if len(code) == 2 and code[0] == "0" else code


def _kind(code: str) -> int | None:
    from assistant.tiles import Tile

    try:
        return Tile.from_code(code).kind
    except Exception:
        return None


# --------------------------------------------------------------------------- reading within the set


def in_set(code: str, variant) -> bool:
    """Whether ``code`` can lie on a table of ``variant`` (its tile kinds; a red five only where it has them)."""
    if code == "none":
        return True
    kind = _kind(code)
    if kind is None or not variant.has_kind(kind):
        return False
    return code[0] != "0" or bool(variant.red_fives.get(kind, 0))


def _alternatives(det) -> list[tuple[str, float]]:
    out = []
    for a in _get(det, "top3", []) or []:
        code, p = (a.get("code"), a.get("p", 0.0)) if isinstance(a, dict) else (a[0], a[1])
        out.append((str(code), float(p)))
    return out


def _set_aside(code: str, variant) -> bool:
    """Whether ``code`` is a tile that lies in a bonus area: a bonus tile, a sunk Fei, a North set aside where
    the rules have kita."""
    return _is_bonus(code) or code == "jk" or (variant.can_kita and code == "4z")


def bonus_reading(piece, variant, floor: float = 0.05) -> str | None:
    """For a tile in a bonus area read as a tile that never lies there: its best top-3 alternative that does
    (probability at least ``floor``, in the rule system's set), else None."""
    for code, p in _alternatives(piece):
        if p < floor or code == piece.code:
            continue
        if bool(variant.has_jokers) if code == "jk" else (_set_aside(code, variant) and in_set(code, variant)):
            return code
    return None


def sole_aside(variant) -> str | None:
    """The one kind of tile that lies in a rule system's bonus areas, where it has only one (sanma: the North
    set aside), else None: there, a tile in a bonus area read as a kind that never lies there is that kind."""
    kinds = [c for c in KINDS if c not in ("bk", "none") and in_set(c, variant)
             and (bool(variant.has_jokers) if c == "jk" else _set_aside(c, variant))]
    return kinds[0] if len(kinds) == 1 else None


def read_in_set(detections, variant, floor: float = 0.05) -> tuple[list, list[dict]]:
    """The detections with a code the rule system lacks read as their best alternative that it has (top-3,
    probability at least ``floor``): a 3 Kaki joker read on a sanma table is far likelier a misread than a
    stray tile. Returns (detections, what was changed: index, read, now); a detection with no such
    alternative keeps its code, and the checks report it."""
    out, changed = [], []
    for i, det in enumerate(detections):
        code = str(_get(det, "code"))
        if not in_set(code, variant):
            alt = next(((c, p) for c, p in _alternatives(det) if c != code and p >= floor and in_set(c, variant)), None)
            if alt is not None:
                d = det.to_dict() if hasattr(det, "to_dict") else dict(det)
                d.update(code=alt[0], confidence=alt[1])
                changed.append({"index": i, "read": code, "now": alt[0]})
                det = d
        out.append(det)
    return out, changed


def _placed(obs: TableObservation):
    """(code, place) of every tile the table counts: not the tops of standing tiles read as faces (a hand mostly
    of backs, or a few faces where a hand stands), not loose tiles (a marker read as a tile must not make the
    placed tiles look impossible: it is reported as unplaced), not backs."""
    for s in obs.seats:
        k = s.position
        parts = [([] if mostly_backs(s.hand) or tops_only(s.hand, len(s.melds)) else s.hand, f"hand of position {k}"),
                 ([c for m in s.melds for c in m.tiles + ([m.added] if m.added else [])], f"melds of position {k}"),
                 (s.discards, f"discards of position {k}"), (s.bonus + s.norths, f"bonus area of position {k}")]
        for codes, place in parts:
            yield from ((c, place) for c in codes if c != "bk")
    yield from ((c, "dora indicators") for c in obs.dora_indicators if c != "bk")
    yield from ((c, "centre discards") for c in obs.centre_discards if c != "bk")


def _counted(obs: TableObservation) -> Counter:
    """Plain code -> copies on the table, as :func:`check` counts them (:func:`_placed`)."""
    return Counter(_plain(c) for c, _ in _placed(obs))


def _fits_part(code: str, where: str, variant) -> bool:
    """Whether ``code`` can lie in part ``where`` of a seat (hand, discard, bonus, north, dora, centre)."""
    if where in ("bonus", "north"):
        return bool(variant.has_jokers) if code == "jk" else _set_aside(code, variant)
    if where == "hand":
        return not _is_bonus(code)
    return not _is_bonus(code) and code != "jk"      # discards, dora indicators: never a bonus tile or Fei


def resolve_copies(obs: TableObservation, pieces: list[Piece], part: dict, variant, floor: float = 0.05) -> list[dict]:
    """More copies of a tile than the set has: the least sure of them (not in a meld, whose tiles read as a
    group) is read as its best top-3 alternative that fits where it lies and of which the table shows fewer
    than the set has (probability at least ``floor``); repeated while that helps. The observation's lists
    are changed in place; returns what was changed (index, read, now). An excess no alternative explains is
    left for :func:`check` to report."""
    lists = {"hand": lambda s: s.hand, "discard": lambda s: s.discards, "bonus": lambda s: s.bonus,
             "north": lambda s: s.norths}
    changed: list[dict] = _plain_fives(obs, pieces, part, variant, lists)
    tried: set[int] = set()
    while True:
        seen = _counted(obs)
        over = {c for c, n in seen.items() if _kind(c) is not None and n > variant.copies.get(_kind(c), 0) > 0}
        cands = [p for p in pieces if _plain(p.code) in over and p.index not in tried
                 and part.get(p.index, ("",))[0] in ("hand", "discard", "bonus", "north", "dora", "centre")]
        if not cands:
            return changed
        p = min(cands, key=lambda q: (q.confidence, q.index))
        tried.add(p.index)
        where, position, at = part[p.index]
        if where == "hand" and not _hand_read(obs, position):
            continue
        alt = next((c for c, q in _alternatives(p) if q >= floor and _plain(c) != _plain(p.code)
                    and in_set(c, variant) and _fits_part(c, where, variant)
                    and seen[_plain(c)] < variant.copies.get(_kind(c), 0)), None)
        if alt is None:
            continue
        if where in lists:
            lists[where](obs.seat(position))[at] = alt
        elif where == "dora":
            obs.dora_indicators[at] = alt
        else:
            obs.centre_discards.remove(p.code)
            obs.centre_discards.append(alt)
            obs.centre_discards.sort(key=_canon)
        changed.append({"index": p.index, "read": p.code, "now": alt})
        p.code = alt


def _hand_read(obs: TableObservation, position: int) -> bool:
    """Whether the seat's hand is read face by face (not seen from behind, not only its tops)."""
    s = obs.seat(position)
    return s is not None and not mostly_backs(s.hand) and not tops_only(s.hand, len(s.melds))


def _plain_fives(obs: TableObservation, pieces: list[Piece], part: dict, variant, lists: dict) -> list[dict]:
    """More red fives of a suit than the set has (a sanma camera hand read 0s twice): the least sure of them
    (not in a meld) is read as the plain five, the same tile kind, until the set's number is left. Changes the
    observation's lists in place; returns what was changed (index, read, now)."""
    changed: list[dict] = []
    while True:
        reds = Counter(c for c, _ in _placed(obs) if c[0] == "0")
        over = {c for c, n in reds.items() if _kind(c) is not None and n > variant.red_fives.get(_kind(c), 0) > 0}
        cands = [p for p in pieces if p.code in over and part.get(p.index, ("",))[0] in lists
                 and (part[p.index][0] != "hand" or _hand_read(obs, part[p.index][1]))]
        if not cands:
            return changed
        p = min(cands, key=lambda q: (q.confidence, q.index))
        where, position, at = part[p.index]
        plain = _plain(p.code)
        lists[where](obs.seat(position))[at] = plain
        changed.append({"index": p.index, "read": p.code, "now": plain})
        p.code = plain


# --------------------------------------------------------------------------- mapping


def map_detections(detections, calibration: Calibration, face_height: float | None = None) -> list[Piece]:
    """Detections -> :class:`Piece` on the lying-face plane (``face_height`` mm above the table; default
    0.72 x the measured tile width)."""
    corners: list[np.ndarray] = []
    meta = []
    for i, det in enumerate(detections):
        corners.append(np.asarray(_get(det, "corners"), np.float64).reshape(4, 2))
        conf = _get(det, "confidence", 1.0)
        top3 = _get(det, "top3", []) or []
        meta.append((i, str(_get(det, "code")), bool(_get(det, "face_up", _get(det, "code") != "bk")),
                     float(conf if conf is not None else 1.0), list(top3)))
    if not corners:
        return []
    quads = np.array(corners)
    left, right = (quads[:, 0] + quads[:, 3]) / 2, (quads[:, 1] + quads[:, 2]) / 2
    bottom, top = (quads[:, 2] + quads[:, 3]) / 2, (quads[:, 0] + quads[:, 1]) / 2
    centre = quads.mean(1)
    n = len(quads)

    def project(H):
        m = apply_h(H, np.concatenate([left, right, bottom, top, centre])).reshape(5, n, 2)
        return m[4], m[3] - m[2], np.linalg.norm(m[1] - m[0], axis=1)

    if face_height is None:
        if calibration.tile_mm:
            face_height = 0.72 * calibration.tile_mm[0]
        else:
            _, _, w0 = project(calibration.homography)
            face_height = 0.72 * float(np.median(w0))
    H_face = calibration.homography_at(face_height)
    xy, up, width = project(H_face)
    xy_top = project(calibration.homography_at(2 * face_height))[0]
    standing, e_stand = standing_tiles(calibration, quads, xy, width, face_height, errors=True)
    flat = flat_widths(H_face, left, right, bottom, top)
    return [Piece(i, code, fu, conf, xy[k], up[k], float(width[k]), xy_top[k], bool(standing[k]),
                  float(e_stand[k]), float(flat[k]), top3=top3)
            for k, (i, code, fu, conf, top3) in enumerate(meta)]


def flat_widths(H: np.ndarray, left: np.ndarray, right: np.ndarray, bottom: np.ndarray, top: np.ndarray
                ) -> np.ndarray:
    """Face widths (mm on the plane of ``H``) of lying tiles from their edge midpoints in the image.

    A detector's oriented box is a rectangle: its top and bottom midpoints are the tile's, but its left and
    right ones lie on the line square to "up" in the image, while a lying tile's own left-right line is
    slanted there by perspective (square to "up" on the table). With the box's width as the length of that
    slanted line, the direction in the image that maps square to "up" gives the width (unchanged for an exact
    quad, whose left-right line already maps square to "up")."""
    n = len(left)
    c = (bottom + top) / 2
    r_img, u_img = right - left, top - bottom
    w_img = np.maximum(np.linalg.norm(r_img, axis=1), 1e-9)
    h_img = np.maximum(np.linalg.norm(u_img, axis=1), 1e-9)
    m = apply_h(H, np.concatenate([c - r_img / 2, c + r_img / 2, c - u_img / 2, c + u_img / 2])).reshape(4, n, 2)
    P, U = m[1] - m[0], m[3] - m[2]         # table images of the box's width and height vectors
    # the image vector w (cos a r^ + sin a u^) maps to cos a P + (w / h) sin a U; square to U when:
    a = np.arctan2(-(h_img / w_img) * np.einsum("ij,ij->i", P, U), np.maximum(np.einsum("ij,ij->i", U, U), 1e-9))
    vec = np.cos(a)[:, None] * P + ((w_img / h_img) * np.sin(a))[:, None] * U
    return np.linalg.norm(vec, axis=1)


def tile_size(pieces: list[Piece]) -> tuple[float, float]:
    """(width, height) in mm: medians over tiles whose mapped shape looks like a lying tile (widths corrected
    for the shear of an oriented box, see :func:`flat_widths`)."""
    if not pieces:
        return 26.0, 35.0
    w = np.array([p.flat_width or p.width for p in pieces])
    h = np.array([np.linalg.norm(p.up) for p in pieces])
    ratio = h / np.maximum(w, 1e-6)
    ok = (ratio > 1.15) & (ratio < 1.65)
    if ok.sum() < 3:
        tw = float(np.median(w))
        return tw, 1.36 * tw
    tw = float(np.median(w[ok]))
    th = float(np.median(h[ok]))
    return tw, th


# --------------------------------------------------------------------------- melds


def _chow_ok(stands: list[str]) -> bool:
    found = [_kind(c) for c in stands]
    if None in found:
        return False
    kinds = sorted(k for k in found if k is not None)
    return kinds[0] < 27 and kinds[1] == kinds[0] + 1 and kinds[2] == kinds[0] + 2 and kinds[0] // 9 == kinds[2] // 9


def resolve_meld(codes: list[str], sideways: int | None, extra: str | None, variant) -> tuple[str, list[str]] | None:
    """(type, stands_for) of a shown group, or None when it is no set. A Fei (jk) stands for what its place
    says: in a pong the pong's tile; in a chow the value that keeps the non-claimed tiles in ascending order."""
    plain = [_plain(c) for c in codes]
    real = [c for c in plain if c != "jk"]
    if not real or "bk" in plain:
        return None
    if any(_is_bonus(c) for c in real):
        return None
    n_jk = len(plain) - len(real)
    jokers_ok = variant is None or variant.has_jokers
    if n_jk and (not jokers_ok or n_jk > 1 or len(plain) != 3):
        return None
    if sideways is not None and plain[sideways] == "jk":
        return None
    if len(set(real)) == 1:
        base = real[0]
        if len(plain) == 3 and extra is None:
            return "pong", [base] * 3
        if extra is not None and _plain(extra) == base and len(plain) == 3 and n_jk == 0:
            return "kong", [base] * 3
        if len(plain) == 4 and n_jk == 0 and extra is None:
            return "kong", [base] * 4
        if len(plain) == 3 and extra is not None:
            return None
    if len(plain) != 3 or extra is not None:
        return None
    if n_jk == 0:
        return ("chow", plain) if _chow_ok(plain) else None
    # a chow with one Fei: try every value, keep the one consistent with the layout order
    j = plain.index("jk")
    suit = real[0][1]
    if suit not in "mps" or any(c[1] != suit for c in real):
        return None
    for rank in range(1, 10):
        cand = list(plain)
        cand[j] = f"{rank}{suit}"
        if not _chow_ok(cand):
            continue
        rest = [c for k, c in enumerate(cand) if k != sideways]
        if rest == sorted(rest, key=lambda c: _kind(c) or 0):   # (every code of a chow has a kind)
            return "chow", cand
    return None


def meld_reading(tiles, sideways: int | None, extra: str | None, variant, floor: float = MELD_READING_FLOOR
                 ) -> tuple[list[str], tuple[str, list[str]], float] | None:
    """For a group read as no set: the likeliest readings of its tiles (each its code or a top-3 alternative
    of probability at least ``floor`` in the rule system's set) that make it one. Returns (codes, (type,
    stands_for), how much less likely than as read: the sum of log-probability ratios), or None."""
    options = []
    for p in tiles:
        read = p.confidence
        opts = [(p.code, 0.0)]
        opts += [(c, float(np.log(max(read, 1e-6) / max(q, 1e-6)))) for c, q in _alternatives(p)
                 if c != p.code and q >= floor and in_set(c, variant)]
        options.append(opts)
    best = None
    for combo in product(*options):
        cost = sum(c for _, c in combo)
        if best is not None and cost >= best[2]:
            continue
        codes = [c for c, _ in combo]
        shape = resolve_meld(codes, sideways, extra, variant)
        if shape is not None and cost > 0:
            best = (codes, shape, cost)
    return best


def _widest(tiles: list[Piece], margin: float = 1.25) -> int | None:
    """The index of the tile whose mapped shape is clearly the widest for its depth (more than ``margin`` times
    any other's width/height ratio): the sideways tile of a meld read all upright; None when none stands out."""
    r = [p.width / max(float(np.linalg.norm(p.up)), 1e-6) for p in tiles]
    order = np.argsort(r)[::-1]
    return int(order[0]) if r[int(order[0])] > margin * r[int(order[1])] else None


def _spaced(tiles: list[Piece], tw: float, th: float) -> int | None:
    """The index of the end tile lying further from its neighbour than the other tiles lie from theirs by at
    least a third of the half-height a sideways tile adds: the sideways tile of a meld whose box was read
    upright or upside down (generated three-kaki hand 0: a pong with a joker, its sideways tile boxed upside
    down, 41 mm from its neighbour where the upright ones lie 29 apart); None when neither end (or both)
    stands out so. Distances are compared with each other, not with the tile size: mapped positions along a
    row far away are compressed."""
    d = [b.x - a.x for a, b in zip(tiles, tiles[1:], strict=False)]
    need = 0.3 * (th - tw)
    found = [k for k, adj, rest in ((0, d[0], d[1:]), (len(tiles) - 1, d[-1], d[:-1]))
             if rest and adj - max(rest) > need]
    return found[0] if len(found) == 1 else None


def _boxed_twice(tiles: list[Piece], tw: float) -> bool:
    """Neighbours of a group lie closer than :data:`SPLIT_BOX` tile widths: one tile boxed twice."""
    return any(b.x - a.x < SPLIT_BOX * tw for a, b in zip(tiles, tiles[1:], strict=False))


def _odd_tile(tiles: list[Piece], variant, players: int, tw: float) -> tuple[int | None, str]:
    """(the index of the tile of a group of face-up tiles, at a place a meld's sideways tile lies, that reads as
    another kind than all the others and less surely than each of them, the others' kind), or (None, ""): the
    others of one kind, none set aside (jokers stand in for it where the rules have them). The sideways tile of a
    pong or kong boxed upright and misread through its squeezed crop (:data:`ODD_TILE_COST`); a sure odd tile is
    more likely the misread others' true kind. Tiles closer than :data:`SPLIT_BOX` tile widths are one tile
    boxed twice (generated sanma hand 4: the sideways 4p of a pong boxed as two halves read 2p 2p): no guess."""
    if any(p.back for p in tiles) or _boxed_twice(tiles, tw):
        return None, ""
    codes = [_plain(p.code) for p in tiles]
    for odd in range(len(tiles)):
        if _source_of(odd, len(tiles), players) is None:
            continue
        if codes[odd] == "jk" and variant.has_jokers:
            continue     # a joker stands in for the others' kind: it is no misreading
        rest = {c for k, c in enumerate(codes) if k != odd and not (c == "jk" and variant.has_jokers)}
        kind = next(iter(rest)) if len(rest) == 1 else ""
        least_sure = all(tiles[odd].confidence < p.confidence for k, p in enumerate(tiles) if k != odd)
        if kind and codes[odd] != kind and least_sure and not _set_aside(kind, variant) and _kind(kind) is not None:
            return odd, kind
    return None, ""


def _source_of(index: int, size: int, players: int) -> int | None:
    if index == 0:
        return 1
    if players == 4 and index == 1:
        return 2
    if index == size - 1:
        return players - 1
    return None


def _meld_notation(m: MeldObservation) -> str:
    from assistant.hand import make_meld
    from assistant.tiles import Tile

    try:
        if m.concealed:
            x = next(c for c in m.tiles if c != "bk")
            tiles = [Tile.from_code(c if c != "bk" else _plain(x)) for c in m.tiles]
            return make_meld(tiles, concealed=True).format()
        tiles = [Tile.from_code(c) for c in m.tiles]
        stands = [Tile.from_code(c) for c in m.stands_for]
        if m.added:
            tiles.append(Tile.from_code(m.added))
            stands.append(Tile.from_code(_plain(m.added)))
        return make_meld(tiles, stands, added=bool(m.added), source=m.source).format()
    except Exception:
        return "?" + "".join(m.tiles)


# --------------------------------------------------------------------------- outer row parse


@dataclass
class _Group:
    kind: str                      # meld, bonus
    start: int
    end: int
    meld: MeldObservation


def _parse_row(row: list[Piece], tw: float, variant, players: int, tile_h: float | None = None
               ) -> tuple[list[Piece], list[_Group], list[Piece]]:
    """Split a row (left to right) into hand | melds | bonus. Returns (hand, meld groups, bonus pieces)."""
    n = len(row)
    if n == 0:
        return [], [], []
    # extents along the row from the table's tile size (a detector box's width maps poorly far away)
    th = 1.36 * tw if tile_h is None else tile_h
    along = [(th if p.sideways else tw) for p in row]
    gaps = [row[i + 1].x - row[i].x - (along[i] + along[i + 1]) / 2 for i in range(n - 1)]
    tau_in, tau_out, unit = 0.14 * tw, 0.16 * tw, 0.05 * tw

    def inner_cost(i, j):      # gaps inside [i, j)
        return sum(max(0.0, gaps[k] - tau_in) / unit for k in range(i, j - 1))

    def boundary_cost(k):      # a boundary between row[k-1] and row[k]
        if k <= 0 or k >= n:
            return 0.0
        return max(0.0, tau_out - gaps[k - 1]) / (0.6 * unit)

    def bonus_cost(p: Piece) -> float:
        if not p.face_up:
            return 8.0
        if not _set_aside(p.code, variant):
            return 8.0 if bonus_reading(p, variant) is None else 2.0    # a bonus tile misread?
        return 3.0 if p.sideways else 0.0

    meld_cache: dict[tuple[int, int], tuple[float, MeldObservation] | None] = {}

    def meld_at(i, j):
        if (i, j) in meld_cache:
            return meld_cache[(i, j)]
        tiles = row[i:j]
        side = [k for k, p in enumerate(tiles) if p.sideways]
        codes = [p.code for p in tiles]
        res = None
        guessed = 0.0
        kinds = {_plain(c) for c in codes if not (c == "jk" and variant.has_jokers)}
        if not side and len(tiles) in (3, 4) and not any(p.back for p in tiles) and \
                len(kinds) == 1 and not _set_aside(next(iter(kinds)), variant):
            # a pong or kong of one kind (jokers standing in where the rules have them) whose sideways tile was
            # read upright (a blank white dragon shows no up, and a square-ish box hides which way it lies):
            # the tile whose shape is clearly the widest, else the one spaced from its neighbours as a
            # sideways tile is
            s_guess = _widest(tiles)
            if s_guess is None:
                s_guess = _spaced(tiles, tw, th)
            if s_guess is not None:
                side, guessed = [s_guess], 3.0
        odd, others = _odd_tile(tiles, variant, players, tw) if not side and len(tiles) in (3, 4) else (None, "")
        if odd is not None:
            side, guessed = [odd], ODD_TILE_COST
        if not side and len(tiles) in (3, 4) and not any(p.back or not p.face_up for p in tiles) and \
                not _boxed_twice(tiles, tw) and \
                not any(_set_aside(c, variant) for c in codes if not (c == "jk" and variant.has_jokers)):
            # a meld none of whose tiles reads as sideways (its sideways tile boxed upright, of another kind
            # than a pong's): which tile lies sideways, and so whom it came from, left unknown
            shape = resolve_meld(codes, None, None, variant)
            cost = inner_cost(i, j) + UNSEEN_SIDE_COST
            if shape is None and REREAD_UNSEEN_SIDE:   # a tile misread too: its next best readings making a set
                reread = meld_reading(tiles, None, None, variant)
                if reread is not None:
                    codes, shape = reread[0], reread[1]
                    cost += MELD_REREAD_COST + min(reread[2], 6.0)
            if shape is not None:
                res = (cost, MeldObservation(shape[0], codes, None, None, None, None, False, shape[1]))
            elif UNKNOWN_UNSEEN_SIDE_COST is not None:
                res = (cost + UNKNOWN_UNSEEN_SIDE_COST,
                       MeldObservation("unknown", codes, None, None, None, None, False, [_plain(c) for c in codes]))
            meld_cache[(i, j)] = res
            return res
        if len(side) == 1 and not any(p.back for p in tiles):
            s = side[0]
            extra = tiles[s].extra.code if tiles[s].extra is not None else None
            if odd is not None:     # read as the kind of the others
                codes = [c if k != odd else others for k, c in enumerate(codes)]
            shape = resolve_meld(codes, s, extra, variant)
            src = _source_of(s, len(tiles), players)
            cost = inner_cost(i, j) + guessed
            if odd is not None and shape is None:
                meld_cache[(i, j)] = None
                return None
            if shape is None:
                # a tile of the meld misread: its next best readings that make it a set (a pong of 7z read
                # 7z 1z 4z far across the table)
                reread = meld_reading(tiles, s, extra, variant)
                if reread is not None:
                    codes, shape = reread[0], reread[1]
                    cost += MELD_REREAD_COST + min(reread[2], 6.0)
            if shape is None:
                cost += 12.0
                mtype, stands = "unknown", [_plain(c) for c in codes]
            else:
                mtype, stands = shape
            if src is None:
                cost += 4.0
            if mtype == "chow" and src != 1:
                cost += 2.0
            m = MeldObservation(mtype, codes, s, src, None, extra, False, stands)
            res = (cost, m)
        elif not side and len(tiles) == 4:
            backs = [p.back for p in tiles]
            faces = [p.code for p in tiles if not p.back]
            if backs in ([True, False, False, True], [False, True, True, False]) and \
                    len({_plain(c) for c in faces}) == 1 and _kind(faces[0]) is not None and _kind(faces[0]) < 34:
                m = MeldObservation("kong", codes, None, None, None, None, True, [_plain(faces[0])] * 4)
                res = (inner_cost(i, j), m)
        meld_cache[(i, j)] = res
        return res

    # bonus suffix start b: all row[b:] must be upright face-up tiles
    best: tuple[float, int, list[_Group], int] | None = None
    b = n
    while True:
        bcost = 0.0
        if b < n:
            bcost = inner_cost(b, n) + sum(bonus_cost(p) for p in row[b:]) + boundary_cost(b)
        # melds right-to-left from b: M[j] = min cost to parse row[j:b] as melds
        M: dict[int, tuple[float, list[_Group]]] = {b: (0.0, [])}
        for j in range(b - 1, -1, -1):
            options = []
            for L in (3, 4):
                if j + L <= b and (j + L) in M:
                    r = meld_at(j, j + L)
                    if r is None:
                        continue
                    c, m = r
                    options.append((c + M[j + L][0] + (boundary_cost(j + L) if j + L < b else 0.0),
                                    [_Group("meld", j, j + L, m)] + M[j + L][1]))
            if options:
                M[j] = min(options, key=lambda o: o[0])
        for j, (mcost, groups) in M.items():
            hand = row[:j]
            hcost = sum(6.0 for p in hand if p.sideways) + boundary_cost(j)
            # a hand is one tight row (the drawn tile may sit apart at its right end)
            for k in range(j - 1):
                allowed = 0.95 * tw if k == j - 2 else 0.3 * tw
                hcost += max(0.0, gaps[k] - allowed) / unit
            n_backs = sum(p.back for p in hand)
            if 0 < n_backs < len(hand):
                hcost += 3.0
            size = len(hand) + 3 * len(groups)
            if size not in variant.hand_sizes and hand:
                hcost += 1.5
            total = hcost + mcost + bcost
            if best is None or total < best[0] - 1e-9:
                best = (total, j, groups, b)
        if b == 0 or not row[b - 1].face_up:
            break
        b -= 1
    assert best is not None   # (the first pass always parses: every tile in the hand)
    _, j, groups, b = best
    return row[:j], groups, row[b:]


# --------------------------------------------------------------------------- reconstruction


def _turn(up: np.ndarray, position: int) -> int:
    """Quarter turns (counter-clockwise) from the owner's upright direction to ``up``."""
    ref = toward_centre(position)
    ang = math.atan2(ref[0] * up[1] - ref[1] * up[0], ref @ up)
    return int(round(ang / (math.pi / 2))) % 4


def _mark_extras(pieces: list[Piece], tw: float, th: float) -> list[Piece]:
    """Attach an added kong's fourth tile (sideways, beyond a sideways tile) to that tile; returns the rest."""
    side = [p for p in pieces if p.sideways and p.face_up]
    extras = set()
    for p in side:
        below = [q for q in side if q is not p and abs(q.x - p.x) < 0.45 * th and 0.3 * tw < q.d - p.d < 1.8 * tw
                 and id(q) not in extras]
        if below and p.extra is None:
            q = min(below, key=lambda q: abs(q.x - p.x))
            if q.extra is None:
                q.extra = p
                extras.add(id(p))
    return [p for p in pieces if id(p) not in extras]


def _rows(pieces: list[Piece], th: float) -> list[list[Piece]]:
    """Discard rows: cut by the far edge's distance from the centre, nearest row first, left to right."""
    if not pieces:
        return []
    def far(p):
        depth = p.width if p.sideways else np.linalg.norm(p.up)
        return p.d - depth / 2
    ps = sorted(pieces, key=far)
    rows, cur = [], [ps[0]]
    for p in ps[1:]:
        if far(p) - far(cur[-1]) > 0.5 * th:
            rows.append(cur)
            cur = [p]
        else:
            cur.append(p)
    rows.append(cur)
    return [sorted(r, key=lambda p: p.x) for r in rows]


def _turn_order(positions: list[int]) -> list[int]:
    return sorted(positions)


def possible_seatings(shown, players: int) -> list[list[int]]:
    """Every set of ``players`` occupied sides (in turn order) that includes the sides ``shown`` to hold a
    player's tiles. One seating when every player shows something; when a player shows nothing at all (a
    standing hand seen edge-on, no melds, discards or bonus tiles) and another side is empty too, one frame
    cannot tell which of them is occupied."""
    from itertools import combinations

    shown = sorted(set(int(k) for k in shown))
    if players >= 4:
        return [[0, 1, 2, 3]]
    if len(shown) >= players:
        return [shown[:players]]
    free = [k for k in range(4) if k not in shown]
    return [sorted(shown + list(c)) for c in combinations(free, players - len(shown))]


def source_position(position: int, source: int, seatings: list[list[int]]) -> int | None:
    """The table position ``source`` seats back in turn order from ``position``: None unless every
    seating that has ``position`` occupied agrees."""
    found = set()
    for order in seatings:
        if position in order:
            found.add(order[(order.index(position) - source) % len(order)])
    return found.pop() if len(found) == 1 else None


def locate_pieces(detections, calibration: Calibration, players: int = 4, zones: TableZones | None = None,
                  face_height: float | None = None, discard_rows: bool = True, dora: bool = True
                  ) -> tuple[list[Piece], TableZones, float, float]:
    """Map detections to the table, fit the zones and give every piece its position, zone and seat-frame
    coordinates. ``dora``: the rule system reveals dora indicators on the wall (else no face-up tile
    belongs there). Returns (pieces, zones, tile width, tile height)."""
    face_h = face_height
    if face_h is None:
        if calibration.tile_mm:
            face_h = 0.72 * calibration.tile_mm[0]
        elif detections:
            face_h = 0.72 * tile_size(map_detections(detections, calibration, 0.0))[0]
        else:
            face_h = 0.72 * 26.0
    pieces = map_detections(detections, calibration, face_h)
    tw, th = tile_size(pieces)
    # a tile in a row of standing tiles stands too (its own shape can be ambiguous)
    if pieces:
        xy = np.array([p.xy for p in pieces])
        st = np.array([p.standing for p in pieces])
        err = np.array([p.stand_err for p in pieces])
        seat_xy = np.stack([to_seat(xy, k) for k in range(4)])   # [side, piece, (x, d)]
        for i, p in enumerate(pieces):
            if p.standing or not st.any():
                continue
            # two standing neighbours in line with it (the same row, either side)
            side = int(np.argmax(seat_xy[:, i, 1]))
            rel = seat_xy[side] - seat_xy[side, i]
            near = st & (np.abs(rel[:, 1]) < 0.3 * tw) & (np.abs(rel[:, 0]) < 2.3 * tw)
            # ... unless a tile overlaps it that stands or looks more upright: two tiles of one row never
            # overlap, so one of them is on another row (a seat camera sees the far wall's top layer just in
            # front of the far standing hand, a few mm apart on the face plane)
            overlap = (np.abs(rel[:, 1]) < 0.6 * tw) & (np.abs(rel[:, 0]) < 0.6 * tw) & (st | (err < p.stand_err))
            overlap[i] = False
            if near.sum() >= 2 and not overlap.any() and p.stand_err < 0.35:
                p.standing = True
    if zones is None:
        xy = np.array([p.xy for p in pieces]).reshape(-1, 2)
        H_face = calibration.homography_at(face_h)
        G_top = np.linalg.inv(calibration.homography_at(2 * face_h))

        def wall_shift(k, d):      # a wall-top centre at distance d on side k, as seen on the face plane
            p = from_seat(np.array([[0.0, d]]), k)
            return float(to_seat(apply_h(H_face, apply_h(G_top, p)), k)[0, 1])

        zones = TableZones.fit(xy, [p.code for p in pieces], tw, th, players,
                               wall_xy=np.array([p.xy_top for p in pieces]).reshape(-1, 2),
                               standing=np.array([p.standing for p in pieces], bool), wall_shift=wall_shift,
                               discard_rows=discard_rows, faces_on_wall=dora,
                               tall=np.array([np.linalg.norm(p.up) / max(p.width, 1e-6) > 1.55 for p in pieces]))
    if pieces:
        pos, zn = zones.locate(np.array([p.xy for p in pieces]))
        _wall_row_ends(pieces, pos, zn, zones, tw, th)
        seat_xy = np.stack([to_seat(np.array([q.xy for q in pieces]), k) for k in range(4)])
        standing = np.array([q.standing for q in pieces])
        standing_d = {k: seat_xy[k, standing, 1] for k in zones.wall_sides}
        for i, (p, k, z) in enumerate(zip(pieces, pos, zn, strict=False)):
            p.position, p.zone = int(k), z
            if p.standing and z in ("discards", "centre") and \
                    seat_xy[max(int(k), 0), i, 1] < zones.inner_limit_of(max(int(k), 0)) - 0.5 * th:
                # deep inside the wall ring nothing stands: a lying tile seen at a grazing angle (its mapped
                # shape stretched by box noise), not a hand tile
                p.standing = False
            if p.standing and p.back and z == "wall" and k in standing_d:
                # a back on the line of a wall row that was seen, with no standing row near it: a wall-top
                # tile whose box noise made it look upright
                d = seat_xy[int(k), i, 1]
                others = standing_d[int(k)]
                near = np.abs(others - d) < 1.5 * th
                if abs(d - zones.wall_centres[int(k)]) <= 0.17 * th and near.sum() < 3:    # itself and one more
                    p.standing = False
            if p.standing and z != "outer":   # only hands stand
                own = int(pinwheel_owner(p.xy[None], zones.outer_pinwheel)[0])
                if own < 0:
                    own = int(np.argmax(seat_xy[:, i, 1]))
                p.position, p.zone, k = own, "outer", own
            if k >= 0:
                x, d = seat_xy[int(k), i]
                p.x, p.d = float(x), float(d)
                # a shape no lying tile has (much too tall or too flat): standing, its "up" says nothing
                ratio = np.linalg.norm(p.up) / max(p.width, 1e-6)
                odd = ratio > 1.8 or ratio < 0.7
                p.turn = 0 if (p.standing or (odd and p.zone == "outer")) else _turn(p.up, int(k))
    _row_tiles_on_unseen_walls(pieces, zones, tw, th)
    _wall_top_backs(pieces, zones, tw, th)
    _off_wall_tiles(pieces, zones, th, dora)
    _added_kong_tiles(pieces, tw, th)
    return pieces, zones, tw, th


def _wall_row_ends(pieces: list[Piece], pos, zn, zones: TableZones, tw: float, th: float) -> None:
    """A few backs (three at most on the side) on the line of a wall row that was seen, next to its lying
    tiles along the row, are the row's last stacks however tall their boxes look (at a row's end a stack
    shows its side too), not a hand: a hand seen on that line from across the table shows more standing."""
    line: dict[int, tuple[int, float]] = {}
    for i, p in enumerate(pieces):
        k = int(pos[i])
        if zn[i] == "wall" and k in zones.wall_sides and p.back:
            x, d = to_seat(p.xy[None], k)[0]
            if abs(d - zones.wall_centres[k]) <= 0.17 * th:
                line[i] = (k, float(x))
    for k in set(w[0] for w in line.values()):
        tiles = sorted((x, i) for i, (kk, x) in line.items() if kk == k)
        if sum(pieces[i].standing for _, i in tiles) > 3:
            continue        # more standing there: a hand seen on the wall's line, from across the table
        groups: list[list[tuple[float, int]]] = []
        for x, i in tiles:
            same = groups and pieces[groups[-1][-1][1]].standing == pieces[i].standing
            if same and x - groups[-1][-1][0] < 1.3 * tw:
                groups[-1].append((x, i))
            else:
                groups.append([(x, i)])
        for gi, g in enumerate(groups):
            if not pieces[g[0][1]].standing:
                continue
            beside = [groups[j] for j in (gi - 1, gi + 1) if 0 <= j < len(groups)]
            if any(not pieces[h[0][1]].standing and min(abs(h[-1][0] - g[0][0]), abs(h[0][0] - g[-1][0])) < 1.3 * tw
                   for h in beside):
                for _, i in g:
                    pieces[i].standing = False


def _set_side(p: Piece, k: int) -> None:
    """Seat-frame coordinates and turn of ``p`` for the owner ``k``."""
    p.position = k
    if k >= 0:
        x, d = to_seat(p.xy[None], k)[0]
        p.x, p.d, p.turn = float(x), float(d), _turn(p.up, k)


def _row_tiles_on_unseen_walls(pieces: list[Piece], zones: TableZones, tw: float, th: float) -> None:
    """On a side whose wall row was not seen, the wall band reaches out to where that side's top layer
    would map (:meth:`TableZones.fit`); a tile there in line with that side's hand/meld row belongs to the
    row."""
    nominal = zones.wall_outer + 0.45 * tw
    row_d: dict[int, list[float]] = {}
    for p in pieces:
        if p.zone == "outer" and p.position >= 0:
            row_d.setdefault(p.position, []).append(p.d)
    for p in pieces:
        k = p.position
        if p.zone != "wall" or k < 0 or k in zones.wall_sides or p.d <= nominal:
            continue
        if sum(abs(d - p.d) < 0.2 * th for d in row_d.get(k, [])) >= 2:
            p.zone = "outer"
            _set_side(p, k)


def _tall(p: Piece) -> bool:
    return p.standing or bool(np.linalg.norm(p.up) / max(p.width, 1e-6) > 1.55)


def _wall_top_backs(pieces: list[Piece], zones: TableZones, tw: float, th: float) -> None:
    """A lying back in the outer band that sits on the wall ring when mapped one tile higher is a wall-top
    tile (a low camera maps it out towards the hand on the lower plane) when it lies

    * in front of a standing hand (two tall tiles further out, around it along the row),
    * alone in front of its side's row (half a tile nearer the centre than two of the row's tiles, in line
      with at most one other tile: a standing hand seen from across lies in front of its melds too, but as a
      row),
    * in line with a standing hand but apart from it, with at most two other backs: left of it, where
      nothing of the player's lies (melds and bonus tiles lie right of the hand), or right of it (the ends
      of the far wall seen past its corners), or
    * nearly alone on its side (the last stacks of a wall seen past its corner, where nobody sits)."""
    W = zones.wall_outer
    outer_of: dict[int, list[Piece]] = {}
    for p in pieces:
        if p.zone == "outer":
            outer_of.setdefault(p.position, []).append(p)
    for p in pieces:
        if p.zone != "outer" or not p.back or _tall(p):
            continue
        k = p.position
        assert p.xy_top is not None   # (map_detections places every piece on the wall's top too)
        d_top = to_seat(p.xy_top[None], k)[0, 1]
        if not (W - th - 0.2 * tw < d_top < W + 0.2 * tw):
            continue
        row = [q for q in outer_of.get(k, []) if q is not p]
        behind = [q for q in row if _tall(q) and q.d > p.d + 0.3 * tw and abs(q.x - p.x) < 2 * tw]
        beyond = [q for q in row if q.d > p.d + 0.5 * th]
        level = [q for q in row if abs(q.d - p.d) < 0.2 * th]
        if len(behind) >= 2 or (len(beyond) >= 2 and len(level) <= 1) or len(row) <= 1 or \
                _apart_from_standing_row(p, level, tw):
            p.zone = "wall"


def _apart_from_standing_row(p: Piece, level: list[Piece], tw: float) -> bool:
    """``p`` and at most two other backs form a group of their own (gaps of more than a tile and a half)
    beside a row with three standing tiles or more, in line with it."""
    tiles = sorted(level + [p], key=lambda q: q.x)
    groups: list[list[Piece]] = [[tiles[0]]]
    for q in tiles[1:]:
        if q.x - groups[-1][-1].x > 1.6 * tw:
            groups.append([])
        groups[-1].append(q)
    main = max(groups, key=lambda g: sum(q.standing for q in g))
    own = next(g for g in groups if any(q is p for q in g))
    if own is main or sum(q.standing for q in main) < 3 or len(own) > 3:
        return False
    return all(q.back and not q.standing for q in own)


#: how far inside a seen wall row's line (in tile heights) a face-up tile may map and still be that wall's
#: dora indicator: an indicator lies on the top layer, and from a low seat camera a far wall's box often
#: falls short of the line (measured on generated sanma hands: 0.21-0.26; discard rows lie a tile or more in)
DORA_INSIDE = 0.3


def _off_wall_tiles(pieces: list[Piece], zones: TableZones, th: float, dora: bool) -> None:
    """Tiles in the wall band that cannot be wall tiles go to the band they are nearest: a face-up tile is a
    dora indicator only on the wall's top layer, so on a side whose wall row was seen it must lie on that
    row's line (a seat camera sees the far melds and bonus tiles just beyond the wall's top on the
    lying-face plane), and where the rule system reveals no indicators it is never on the wall; a back is
    off the wall when it lies beyond both layers' lines of a wall row that was seen (the lower layer maps
    to the top layer's table distance, the top layer to the row's line). Such a tile goes to the outer
    band when it lies beyond the wall's line or in line with its side's hand/meld row, else inside."""
    row_d: dict[int, list[float]] = {}
    for p in pieces:
        if p.zone == "outer" and p.position >= 0:
            row_d.setdefault(p.position, []).append(p.d)
    for p in pieces:
        if p.zone != "wall" or p.position < 0:
            continue
        k = p.position
        off = p.d - zones.wall_centres.get(k, p.d)
        if not p.face_up:
            if k not in zones.wall_sides or \
                    p.d <= max(zones.wall_centres[k], zones.wall_candidates[k][1]) + 0.22 * th:
                continue
        elif dora and (k not in zones.wall_sides or -DORA_INSIDE * th <= off <= 0.17 * th):
            continue
        # in line with its side's hand/meld row: part of it (seen across the table, a meld beyond the wall
        # can map inside the line of the wall's top layer)
        if sum(abs(d - p.d) < 0.2 * th for d in row_d.get(k, [])) >= 2:
            off = 1.0
        if off > 0:
            own = int(pinwheel_owner(p.xy[None], zones.outer_pinwheel)[0])
            p.zone = "outer"
            _set_side(p, own if own >= 0 else k)
        else:
            own = int(pinwheel_owner(p.xy[None], zones.centre_half)[0])
            p.zone = "discards" if own >= 0 else "centre"
            _set_side(p, own)


def _added_kong_tiles(pieces: list[Piece], tw: float, th: float) -> None:
    """A sideways face-up tile just beyond a sideways meld tile is an added kong's tile (dora indicators lie
    upright); seen from a low camera it can map onto the wall ring or into Hong Kong's pool."""
    side_meld = [q for q in pieces if q.zone == "outer" and q.sideways and q.face_up]
    for p in pieces:
        if p.zone == "outer" or not p.face_up:
            continue
        for q in side_meld:
            x, d = to_seat(p.xy[None], q.position)[0]
            if abs(x - q.x) < 0.45 * th and 0.3 * tw < q.d - d < 1.8 * tw and _turn(p.up, q.position) % 2 == 1:
                p.zone = "outer"
                _set_side(p, q.position)
                break


def reconstruct(detections, calibration: Calibration, variant="sanma", players: int | None = None,
                zones: TableZones | None = None, face_height: float | None = None,
                positions: list[int] | None = None) -> TableObservation:
    """Rebuild the table from one frame's detections (dicts with code, corners, face_up[, confidence,
    top3] or :class:`vision.inference.Tile`). ``positions``: the occupied sides when the match knows them
    (three players); otherwise the sides showing the most hand, meld and discard tiles. When a player shows
    no tile at all the occupied sides are a guess: ``meta["seatings"]`` lists every seating the frame
    allows, and a meld's ``source_position`` that differs between them is None (its ``source`` stays)."""
    from assistant.variants import get_variant

    v = get_variant(variant) if isinstance(variant, str) else variant
    players = players or v.players
    detections, reread = read_in_set(detections, v)
    # only the rule systems with dora indicators show face-up tiles on the wall (sanma.md)
    pieces, zones, tw, th = locate_pieces(detections, calibration, players, zones, face_height,
                                          discard_rows=v.keeps_discard_rows, dora=v.has_dora_indicators)
    pooled = not v.keeps_discard_rows          # discards lie in one unordered pool in the centre
    sole = sole_aside(v)
    # occupied positions: the sides with most hand/meld/discard tiles
    evidence = Counter(p.position for p in pieces if p.zone in ("outer", "discards") and p.position >= 0)
    if positions is not None:
        occupied = sorted(int(k) for k in positions)
        seatings = [_turn_order(occupied)]
    elif players >= 4:
        occupied = [0, 1, 2, 3]
        seatings = [occupied]
    else:
        ranked = sorted(range(4), key=lambda k: (-evidence.get(k, 0), k))
        occupied = sorted(ranked[:players])
        shown = [k for k in ranked if evidence.get(k, 0) > 0]
        # a player showing nothing: the guess above is one of several seatings (their melds' sources that
        # depend on it are left open)
        seatings = [occupied] if len(shown) >= players else possible_seatings(shown, players)
    order = _turn_order(occupied)
    problems: list[Problem] = []
    unplaced: list[dict] = []
    seats: list[SeatObservation] = []
    dora_pieces: list[Piece] = []
    centre: list[str] = []
    part: dict[int, tuple] = {}        # detection index -> (part, position, index within the part)
    melds_reread: list[dict] = []
    for p in pieces:
        if p.zone == "wall" and p.face_up:
            dora_pieces.append(p)
        elif p.zone == "wall":
            part[p.index] = ("wall", p.position, None)
        elif p.zone == "centre" or (pooled and p.zone == "discards"):
            if pooled and p.face_up:
                part[p.index] = ("centre", None, len(centre))
                centre.append(p.code)
            elif p.face_up:
                part[p.index] = ("unplaced", p.position, len(unplaced))
                unplaced.append(_unplaced(p))
        elif p.position >= 0 and p.position not in occupied and p.zone in ("outer", "discards"):
            if p.back:     # a face-down tile where nobody sits: taken for a wall tile
                part[p.index] = ("wall", p.position, None)
            else:
                part[p.index] = ("unplaced", p.position, len(unplaced))
                unplaced.append(_unplaced(p))
    for k in order:
        seat = SeatObservation(k)
        outer = [p for p in pieces if p.position == k and p.zone == "outer"]
        outer = _mark_extras(outer, tw, th)
        for p in _stray_backs(outer, th):      # a false box beside a face-up hand: left out, not in the hand
            outer.remove(p)
            part[p.index] = ("unplaced", p.position, len(unplaced))
            unplaced.append(_unplaced(p))
        row = sorted(outer, key=lambda p: p.x)
        # a tile read as sideways that sits closer to a neighbour than a sideways tile could is upright, and so
        # is a run of three or more "sideways" tiles (melds have one each): a standing hand seen from its side.
        # Not a tile whose shape says it lies flat next to upright lying tiles: a meld of a side seat, whose
        # row runs away from a seat camera (foreshortened: its box centres are a few mm off along the row)
        close = 0.5 * (tw + th) - 0.2 * tw

        def lying_upright(q: Piece) -> bool:
            return q.face_up and not q.sideways and not _tall(q)

        def ratio(q: Piece) -> float:
            return float(np.linalg.norm(q.up) / max(q.width, 1e-6))

        flip = set()
        for i, p in enumerate(row):
            if not p.sideways:
                continue
            near = [row[j] for j in (i - 1, i + 1) if 0 <= j < len(row) and abs(row[j].x - p.x) < close]
            if near and not (p.stand_err >= 0.35 and all(lying_upright(q) for q in near)):
                flip.add(i)
            # ... and a tile shaped like its standing neighbours (a seat camera's own hand seen from above
            # looks flat, and its mapped "up" turns away from the camera towards the row's ends)
            odd = [ratio(row[j]) for j in (i - 1, i + 1) if 0 <= j < len(row) and abs(row[j].x - p.x) < 1.3 * tw
                   and (row[j].standing or not 0.7 <= ratio(row[j]) <= 1.8)]
            if odd and abs(ratio(p) - float(np.median(odd))) < 0.15:
                flip.add(i)
        flip.update(i for i, p in enumerate(row) if p.back)      # backs never lie sideways in the outer row
        i = 0
        while i < len(row):
            j = i
            while j < len(row) and row[j].sideways and (j == i or row[j].x - row[j - 1].x < th + 0.5 * tw):
                j += 1
            if j - i >= 3:
                flip.update(range(i, j))
            i = max(j, i + 1)
        for i in flip:
            row[i].turn = 0
        hand, groups, bonus = _parse_row(row, tw, v, players, th)
        seat.hand = [p.code for p in hand]
        for i, p in enumerate(hand):
            part[p.index] = ("hand", k, i)
        for gi, g in enumerate(groups):
            for j, p in enumerate(row[g.start:g.end]):
                if g.meld is not None and g.meld.tiles[j] != p.code:    # read as its next best (meld_reading)
                    melds_reread.append({"index": p.index, "read": p.code, "now": g.meld.tiles[j]})
                    p.code = g.meld.tiles[j]
                part[p.index] = ("meld", k, (len(groups) - 1 - gi, j))
                if p.extra is not None:
                    part[p.extra.index] = ("meld", k, (len(groups) - 1 - gi, "added"))
        if hand:
            backs = sum(p.back for p in hand)
            seat.hand_state = "backs" if backs == len(hand) else "faces" if backs == 0 else "mixed"
        melds = []
        for g in reversed(groups):   # the first call lies rightmost
            m = g.meld
            if m.source is not None:
                m.source_position = source_position(k, m.source, seatings)
            m.notation = _meld_notation(m)
            melds.append(m)
        seat.melds = melds
        for p in bonus:
            if not _set_aside(p.code, v):
                p.code = bonus_reading(p, v) or (
                    sole if sole and p.confidence < SOLE_ASIDE_UNSURE else p.code)   # the bonus tile it likely is
            if v.can_kita and p.code == "4z":
                part[p.index] = ("north", k, len(seat.norths))
                seat.norths.append(p.code)
            else:
                part[p.index] = ("bonus", k, len(seat.bonus))
                seat.bonus.append(p.code)
        if not pooled:
            rows = _rows([p for p in pieces if p.position == k and p.zone == "discards" and p.face_up], th)
            flat = [p for r in rows for p in r]
            seat.discards = [p.code for p in flat]
            for i, p in enumerate(flat):
                part[p.index] = ("discard", k, i)
            side = [i for i, p in enumerate(flat) if p.sideways]
            seat.riichi = side[0] if side else None
            if len(side) > 1:
                problems.append(Problem("riichi", f"Position {k} has {len(side)} sideways tiles in the discards; "
                                                  "only the riichi tile lies sideways.", k))
        seat.notation = _seat_notation(seat)
        seats.append(seat)
    ordered = _wall_order(dora_pieces, zones)
    dora = [p.code for p in ordered]
    for i, p in enumerate(ordered):
        part[p.index] = ("dora", p.position, i)
    obs = TableObservation(v.name, players, seats, dora, sorted(centre, key=_canon), unplaced, problems,
                           meta={"tile_mm": [round(tw, 1), round(th, 1)], "zones": zones.to_dict(),
                                 "occupied": occupied, "calibration": calibration.source})
    obs.zones_fitted = zones                 # (kept out of the JSON) the zones, for drawing
    if len(seatings) > 1:
        obs.meta["seatings"] = seatings      # the occupied sides cannot be told from this frame
    if reread:
        obs.meta["read_in_set"] = reread     # codes outside the rule system read as their next best
    if melds_reread:
        obs.meta["melds_reread"] = melds_reread   # meld tiles read as their next best to make a set
    fixed = resolve_copies(obs, pieces, part, v)
    if fixed:
        obs.meta["copies_reread"] = fixed    # a copy too many read as its next best
        for seat in obs.seats:
            seat.notation = _seat_notation(seat)
    obs.assignments = [{"index": p.index, "code": p.code, "part": part.get(p.index, ("ignored", p.position, None))[0],
                        "position": part.get(p.index, (None, p.position, None))[1],
                        "at": part.get(p.index, (None, None, None))[2],
                        "table_xy": [round(float(p.xy[0]), 1), round(float(p.xy[1]), 1)],
                        **({"confidence": round(p.confidence, 4),
                            "top3": [[c, round(q, 4)] for c, q in _alternatives(p)]} if p.top3 else {})}
                       for p in pieces]
    obs.problems.extend(check(obs, v))
    return obs


def _canon(code: str):
    from assistant.tiles import Tile, sort_key

    try:
        return (0, sort_key(Tile.from_code(code)))
    except Exception:
        return (1, (0, 0))


#: a back this far (tile heights) from the line of a row of faces lies off that row
STRAY_BACK_OFF = 0.7


def _stray_backs(outer: list[Piece], th: float) -> list[Piece]:
    """Backs far off the line of an outer row that is mostly faces (a hand laid face up to the camera): false
    boxes, such as a wall row's corner shadow between the wall and the camera player's hand (generated Hong
    Kong hand 0 read one there in every frame: a back in the camera player's hand stopped the hand), not hand
    tiles; a concealed kong's backs lie on the row's line."""
    faces = [p.d for p in outer if p.face_up and not p.back]
    if len(faces) < 5 or 2 * sum(p.back for p in outer) >= len(outer):
        return []
    line = float(np.median(faces))
    return [p for p in outer if p.back and abs(p.d - line) > STRAY_BACK_OFF * th]


def _unplaced(p: Piece) -> dict:
    return {"code": p.code, "table_xy": [round(float(p.xy[0]), 1), round(float(p.xy[1]), 1)], "zone": p.zone,
            "position": p.position}


def _wall_order(pieces: list[Piece], zones: TableZones) -> list[Piece]:
    """Dora indicators in wall order: counter-clockwise around the ring (left to right from each wall's
    owner), starting after the largest empty stretch."""
    if not pieces:
        return []
    L = 2 * zones.wall_outer
    along = []
    for p in pieces:
        k = max(p.position, 0)
        x = to_seat((p.xy_top if p.xy_top is not None else p.xy)[None], k)[0, 0]
        along.append(k * L + x + zones.wall_outer)
    coord = np.array(along)
    order = np.argsort(coord)
    c = coord[order]
    gaps = np.diff(np.append(c, c[0] + 4 * L))
    start = (int(np.argmax(gaps)) + 1) % len(c)
    return [pieces[i] for i in np.roll(order, -start)]


def _seat_notation(seat: SeatObservation) -> str:
    from assistant.tiles import Tile, format_tiles

    try:
        hand = [c for c in seat.hand if c not in ("bk",)]
        tiles = [Tile.from_code(c) for c in hand if c != "jk"]
        parts = [format_tiles(tiles)] if tiles else []
        parts += ["jk"] * sum(c == "jk" for c in hand)
        backs = sum(c == "bk" for c in seat.hand)
        if backs:
            parts.append("bk" * backs)
        parts += [m.notation for m in seat.melds]
        text = " ".join(p for p in parts if p)
        extra = seat.bonus + seat.norths
        if extra:
            text += " | " + " ".join(extra)
        return text
    except Exception:
        return ""


# --------------------------------------------------------------------------- checks


def _who(position: int | None) -> str:
    return f"position {position}" if position is not None else "the table"


def check(obs: TableObservation, variant) -> list[Problem]:
    """Impossible observations, as plain-words problems."""
    v = variant
    out: list[Problem] = []
    where: dict[str, Counter] = {}
    placed = []
    for code, place in _placed(obs):
        if _kind(code) is None:
            out.append(Problem("not_in_set", f"{code} is not a tile code.", None, [code]))
            continue
        placed.append(Tile.from_code(code))
        where.setdefault(_plain(code), Counter())[place] += 1
    # the engine's own judgement of the tiles seen together (kinds the set lacks, copies), in words with places
    for p in tile_problems(v, placed):
        if p.kind == "not_in_set":
            what = "jokers exist only in three-kaki" if p.code == "jk" else f"the {v.name} set has no {p.code}"
            msg = (f"{p.code} (a red five) is not in the {v.name} tile set: it has no red fives." if p.code[0] == "0"
                   else f"{p.code} is not in the {v.name} tile set ({what}); seen in "
                        f"{_places(where.get(_plain(p.code), {}))}.")
        elif p.kind == "too_many_copies":
            nth = {5: "fifth", 6: "sixth", 7: "seventh", 8: "eighth"}.get(p.count, f"{p.count}th")
            what = f"a {nth} copy of {p.code}" if p.cap == 4 else f"{p.count} copies of {p.code}"
            msg = (f"{what[0].upper() + what[1:]} is on the table, but the {v.name} set has {p.cap}: seen in "
                   f"{_places(where[p.code])}. One of them is misread.")
        else:
            msg = f"{p.count} red fives {p.code} are on the table, but the {v.name} set has {p.cap}."
        out.append(Problem(p.kind, msg, None, [p.code]))
    kongs = 0
    for s in obs.seats:
        k = s.position
        # a hand seen from behind (mostly backs: a few faces are tops of standing tiles read as faces) is not
        # counted: standing tiles show the camera little more than their tops, and the engine does not need
        # its size (the seat's draws and discards are what it follows)
        if s.hand and not mostly_backs(s.hand):
            size = len(s.hand) + 3 * len(s.melds)
            if size not in (v.hand_size, v.hand_size + 1):
                out.append(Problem("hand_size", f"Position {k} shows {len(s.hand)} tile(s) in hand and {len(s.melds)} "
                                   f"meld(s), which counts {size}; a hand holds {v.hand_size} ({v.hand_size + 1} "
                                   "with the tile just drawn), counting 3 for each meld. A tile is missed or "
                                   "misplaced.", k))
        # (not in a hand seen from behind either: its faces are tops read as faces)
        bad = [c for c in s.hand if _is_bonus(c)] if not mostly_backs(s.hand) else []
        if bad:
            out.append(Problem("bonus_in_hand", f"Bonus tile(s) {' '.join(bad)} in the hand of position {k}: "
                                                "bonus tiles "
                               "are laid out beside the melds and replaced, never kept in hand.", k, bad))
        for m in s.melds:
            kongs += m.type == "kong"
            if m.type == "unknown":
                out.append(Problem("bad_meld", f"The group {' '.join(m.tiles)} in the melds of position {k} "
                                               "is no chow, "
                                   f"pong or kong of {v.name}.", k, list(m.tiles)))
            elif m.type == "chow" and not v.can_chow:
                out.append(Problem("bad_meld", f"A chow ({' '.join(m.tiles)}) is shown by position {k}, but {v.name} "
                                   "never allows a chow from a discard.", k, list(m.tiles)))
            if not m.concealed and m.sideways is not None and m.source is None:
                out.append(Problem("bad_source", f"The sideways tile of {' '.join(m.tiles)} (position {k}) points at "
                                   "a side where nobody sits.", k, list(m.tiles)))
        if len(s.melds) > v.max_melds:
            out.append(Problem("too_many_melds", f"Position {k} shows {len(s.melds)} melds; a hand has at most "
                               f"{v.max_melds}.", k))
        bad = [c for c in s.discards if _is_bonus(c) or c == "jk"]
        if bad:
            out.append(Problem("bad_discard", f"{' '.join(bad)} among the discards of position {k}: bonus tiles "
                               "and Fei are never discarded into the row (a thrown Fei is sunk into the bonus area).",
                               k, bad))
        refusal = None if s.riichi is None else v.riichi_refusal(claimed_sets=any(not m.concealed for m in s.melds))
        if refusal is not None:
            if refusal == "no_riichi":
                out.append(Problem("riichi", f"A sideways tile in the discards of position {k}, but {v.name} has no "
                                   "riichi.", k))
            else:
                out.append(Problem("riichi", f"Position {k} shows a riichi tile but has an open meld; riichi needs a "
                                   "closed hand.", k))
        wrong = [c for c in s.bonus if not (_is_bonus(c) or (c == "jk" and v.has_jokers))]
        if wrong:
            kind = "norths" if all(c == "4z" for c in wrong) else "bad_meld"
            msg = (f"North tile(s) set aside by position {k}, but only sanma sets Norths aside." if kind == "norths"
                   else f"{' '.join(wrong)} in the bonus area of position {k} is not a bonus tile.")
            out.append(Problem(kind, msg, k, wrong))
    # the table's kong limit is the engine's (the riichi family: four kans); where only the wall limits kongs,
    # more of them than one hand can show is taken for a misreading
    kong_limit = v.kong_limit if v.kong_limit is not None else v.max_melds
    if kongs > kong_limit:
        out.append(Problem("too_many_kongs", f"{kongs} kongs are shown; a hand allows at most {kong_limit}.", None))
    for u in obs.unplaced:
        out.append(Problem("unplaced", f"A {u['code']} lies where no tile belongs ({u['zone']} at "
                           f"{u['table_xy'][0]:.0f}, {u['table_xy'][1]:.0f} mm); it is left out.", u.get("position")))
    return out


def _places(counter) -> str:
    return ", ".join(f"{place} x{n}" if n > 1 else place for place, n in counter.items())
