"""The deal's doubtful tiles: a deal is not all-or-nothing.

A tile of the deal read unsurely (:func:`doubts_of_deal`: in the camera player's hand, in a bonus area, the
dora indicator; its reading less likely than :data:`DOUBT_BELOW`, or an alternative at least
:data:`DOUBT_RATIO` as likely) is dealt as read and kept as a :class:`Doubt` with the readings it may have
(its classifier's top 3). Later evidence settles it; where it is settled otherwise than the deal took it, the
inferrer rewrites the deal (:func:`.corrections.log_with_deal_tile`) and the engine replays the hand
(:attr:`.inferrer.EventInferrer.settled`, with why):

* ``frames``: each followed frame adds the probabilities of the tile's readings there
  (:func:`frame_evidence`: the part's tile most likely to be the doubtful one); a reading that has gathered
  :data:`SETTLE_MARGIN` more than the one taken is taken. Until then a frame that reads the tile as one of its
  other readings is followed with the reading taken (:func:`with_doubts_kept`): one frame does not change
  the deal;
* ``discard`` / ``shown``: where nothing explains a frame as read, one of its other readings newly shows on the
  table (:func:`newly_shown`: its discard, a meld) and the deal with it lets the engine explain the frame;
* ``copies`` / ``game``: the engine refuses what a frame shows (a fifth copy of the reading taken:
  :func:`copies_rule_out`; a call, a win or a discard the hand lacks) and the deal with one of the doubt's other
  readings lets it play the frame. A reading the engine refuses so is ruled out.

A doubt closes when its tile has left the part (discarded, called into a meld).

A camera hand read **one tile short** at the deal (a blank white dragon missed on pale cloth) is dealt with
that tile face down (:data:`UNREAD`: the engine holds it as ``bk``, the camera's view leaves it out:
:func:`with_unread_tile`) and kept as a doubt with no reading yet. It is settled ``shown`` when a frame reads
the hand with one tile more than followed (the tile newly seen), or ``discard`` when the engine has used it up
for a discard or a call of the camera player's (the tile that left the hand): the deal is rewritten and the
hand replayed, as for any doubt.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

from assistant.table import tile_problems
from assistant.tiles import Tile

from ..observation import TableObservation
from .alternatives import ALTERNATIVE_FLOOR
from .tile_codes import is_bonus, plain_code, sorted_codes
from .views import GameContext, TableView, public_tiles

#: a tile of the deal read with less probability than this is doubtful
DOUBT_BELOW = 0.5
#: ... and so is one with an alternative reading at least this fraction as likely
DOUBT_RATIO = 1 / 3
#: how much more evidence (probabilities summed over the frames) another reading must gather than the reading
#: taken before the deal takes it
SETTLE_MARGIN = 0.5
#: the parts of the deal whose tiles may be doubtful
PARTS = ("hand", "bonus", "dora")
#: the reconstruction's problems that copies of a kind make
COPY_PROBLEMS = frozenset({"too_many_copies", "too_many_red"})


#: the reading of a tile of the camera player's deal that no frame read yet (face down to the engine)
UNREAD = "bk"


@dataclass
class Doubt:
    """A tile of the deal read unsurely: the seat whose part it is in (engine seat; -1 for the dora
    indicator), the part (hand, bonus, dora), the reading the followed deal holds (``taken``) and the evidence
    for each reading it may have (probabilities summed over the frames)."""

    seat: int
    part: str
    taken: str
    evidence: dict[str, float] = field(default_factory=dict)
    #: readings the engine or the copies in the set refused
    ruled_out: set[str] = field(default_factory=set)
    #: the tile left the part (discarded, melded): nothing more settles it
    closed: bool = False

    @property
    def unread(self) -> bool:
        """The tile was never read: dealt face down (:data:`UNREAD`)."""
        return self.taken == UNREAD

    def readings(self) -> list[str]:
        """The other readings the tile may have, likeliest first."""
        return sorted((c for c in self.evidence if c != self.taken and c not in self.ruled_out),
                      key=lambda c: (-self.evidence[c], c))

    def weigh(self, found: dict[str, float]) -> None:
        """Add a frame's readings of the tile to the evidence."""
        for code, q in found.items():
            self.evidence[code] = self.evidence.get(code, 0.0) + q

    def best(self) -> str | None:
        """The other reading the evidence has come to favour (by :data:`SETTLE_MARGIN`), else None."""
        other = self.readings()
        if other and self.evidence[other[0]] - self.evidence.get(self.taken, 0.0) >= SETTLE_MARGIN - 1e-9:
            return other[0]
        return None


def fits(code: str, part: str, variant: Any) -> bool:
    """Whether a tile read ``code`` can lie in ``part``: a kind of the rule system's set; a bonus tile (or a
    sunk Fei) in a bonus area, no bonus tile elsewhere."""
    from ..reconstruct import in_set

    if code in ("bk", "none") or not in_set(code, variant):
        return False
    return is_bonus(code) or code == "jk" if part == "bonus" else not is_bonus(code)


def readings_of(assignment: dict, part: str, variant: Any) -> dict[str, float]:
    """A tile's readings that can lie in ``part``, with their probabilities (its classifier's top 3; the
    reading alone, sure, where it gave none). The reading itself is always among them."""
    code = str(assignment.get("code"))
    top = assignment.get("top3") or [[code, assignment.get("confidence", 1.0)]]
    found = {str(c): float(q) for c, q in top
             if (q >= ALTERNATIVE_FLOOR or str(c) == code) and fits(str(c), part, variant)}
    if code not in found and fits(code, part, variant):
        found[code] = float(assignment.get("confidence", 0.0))
    return found


def part_tiles(obs: TableObservation, seat: int, part: str, game: GameContext) -> list[dict]:
    """The assignments of the observation's tiles in ``part`` of ``seat`` (the dora indicator: the first)."""
    if part == "dora":
        return [a for a in obs.assignments if a.get("part") == "dora" and a.get("at") == 0]
    position = game.order[seat]
    return [a for a in obs.assignments if a.get("part") == part and a.get("position") == position]


def part_codes(view: TableView, doubt: Doubt) -> tuple[str, ...]:
    """The tiles ``view`` shows in the doubt's part."""
    if doubt.part == "dora":
        return view.dora[:1]
    seat = view.seats[doubt.seat]
    return seat.hand if doubt.part == "hand" else seat.bonus


def _doubtful(found: dict[str, float], code: str) -> bool:
    """A tile read ``code`` with readings ``found`` is doubtful: it has another reading, and its own is unlikely
    or another is close to it."""
    others = [q for c, q in found.items() if c != code]
    own = found.get(code, 0.0)
    return bool(others) and (own < DOUBT_BELOW or max(others) >= DOUBT_RATIO * own)


def doubts_of_deal(obs: TableObservation, game: GameContext) -> list[Doubt]:
    """The doubtful tiles of a dealt table: the camera player's hand, every bonus area, the dora indicator."""
    parts = [(game.camera, "hand")] + [(i, "bonus") for i in range(game.players)] + [(-1, "dora")]
    out = []
    for seat, part in parts:
        for a in part_tiles(obs, seat, part, game):
            found = readings_of(a, part, game.variant)
            code = str(a.get("code"))
            if _doubtful(found, code):
                out.append(Doubt(seat, part, code, found))
    return out


def frame_evidence(doubt: Doubt, obs: TableObservation, followed: TableView,
                   game: GameContext) -> dict[str, float] | None:
    """The readings a frame gives the doubtful tile (None where none of its tiles can be it): where the frame
    reads fewer of the reading taken than the followed part holds, the tile read as one of the doubt's other
    readings most likely to be the one taken; else the tile read as the reading taken least surely."""
    tiles = [(str(a.get("code")), readings_of(a, doubt.part, game.variant))
             for a in part_tiles(obs, doubt.seat, doubt.part, game)]
    held = part_codes(followed, doubt).count(doubt.taken)
    if sum(code == doubt.taken for code, _ in tiles) < held:
        others = [r for code, r in tiles if code != doubt.taken and code in doubt.evidence]
        return max(others, key=lambda r: r.get(doubt.taken, 0.0), default=None)
    same = [r for code, r in tiles if code == doubt.taken]
    return min(same, key=lambda r: r.get(doubt.taken, 0.0), default=None)


def with_doubts_kept(followed: TableView, observed: TableView, doubts: list[Doubt],
                     game: GameContext) -> TableView | None:
    """The target with each doubtful tile the frame reads as one of its other readings (one more of it than
    the followed part holds) read as the reading taken, or None where no doubt reads otherwise."""
    view = observed
    for d in doubts:
        have, now = Counter(part_codes(followed, d)), Counter(part_codes(view, d))
        other = next((c for c in sorted(d.evidence, key=lambda c: -d.evidence[c])
                      if c != d.taken and now[c] > have[c]), None)
        if other is not None:
            view = _with_part_tile(view, d, other)
    return None if view is observed else view


def _with_part_tile(view: TableView, doubt: Doubt, code: str) -> TableView:
    """``view`` with one ``code`` of the doubt's part read as the reading taken."""
    if doubt.part == "dora":
        dora = list(view.dora)
        dora[dora.index(code)] = doubt.taken
        return replace(view, dora=tuple(dora))
    seats = list(view.seats)
    seat = seats[doubt.seat]
    if doubt.part == "hand":
        hand = list(seat.hand)
        hand.remove(code)
        right = doubt.taken if seat.right == code else seat.right
        seats[doubt.seat] = replace(seat, hand=sorted_codes(hand + [doubt.taken]), right=right)
    else:
        bonus = list(seat.bonus)
        bonus[bonus.index(code)] = doubt.taken
        seats[doubt.seat] = replace(seat, bonus=tuple(bonus))
    return replace(view, seats=tuple(seats))


def newly_shown(followed: TableView, observed: TableView, game: GameContext) -> Counter[str]:
    """The tiles newly where a tile of the camera player's hand may go: its hand, its discard row (Hong Kong:
    the centre pool), its melds."""
    def own(view: TableView) -> Counter[str]:
        seat = view.seats[game.camera]
        return Counter(seat.hand) + Counter(view.centre if game.centre else seat.discards) + \
            Counter(c for m in seat.melds for c in m.codes)

    return own(observed) - own(followed)


def discarded_as(followed: TableView, observed: TableView, game: GameContext, code: str) -> bool:
    """The camera player's discard row (Hong Kong: the centre pool) newly shows ``code``."""
    if game.centre:
        return (Counter(observed.centre) - Counter(followed.centre))[code] > 0
    cam = game.camera
    return (Counter(observed.seats[cam].discards) - Counter(followed.seats[cam].discards))[code] > 0


def copies_rule_out(state: Any, was: str, now: str, variant: Any) -> bool:
    """The engine's ``state`` (holding ``now`` for a doubtful tile) would hold more copies of ``was`` than the
    set has, had the tile been ``was``: the table shows every copy of it elsewhere."""
    tiles: list[Tile] = list(state.dora_indicators)
    for s in state.seats:
        tiles += s.hand.all_tiles()
        tiles += [d.tile for d in s.discards if d.called_by is None]
    swap = Tile.from_code(now)
    if swap not in tiles:
        return False
    tiles.remove(swap)
    tiles.append(Tile.from_code(was))
    return any(p.code in (was, plain_code(was)) for p in tile_problems(variant, tiles) if p.kind != "not_in_set")


def shows_every_copy(observed: TableView, code: str, game: GameContext) -> bool:
    """The table and the camera player's hand show more copies of ``code``'s kind (of the red five ``code``)
    than the set has: a concealed kong counts four."""
    plain = plain_code(code)
    seen = public_tiles(Counter(observed.seats[game.camera].hand), observed)
    kongs = sum(1 for v in observed.seats for m in v.melds if m.concealed and m.codes == (plain,))
    kind = Tile.from_code(plain).kind
    if code != plain and seen[code] > game.variant.red_fives.get(kind, 0):
        return True
    return sum(q for c, q in seen.items() if plain_code(c) == plain) + 3 * kongs > game.variant.copies.get(kind, 4)


def with_unread_tile(observed: TableView, game: GameContext) -> TableView | None:
    """A dealt table whose camera hand (no melds, every tile face up) shows one tile fewer than the rule
    system deals, with that tile dealt face down (:data:`UNREAD`); None for any other table."""
    seat = observed.seats[game.camera]
    if seat.melds or seat.state != "faces" or UNREAD in seat.hand or \
            len(seat.hand) != game.variant.hand_size - 1:
        return None
    seats = list(observed.seats)
    seats[game.camera] = replace(seat, hand=seat.hand + (UNREAD,))
    return replace(observed, seats=tuple(seats))


def unread_doubt(game: GameContext) -> Doubt:
    """The doubt of the camera hand's tile dealt unread: no reading yet."""
    return Doubt(game.camera, "hand", UNREAD)


def unread_left(state: Any, seat: int) -> bool:
    """The engine still holds the seat's unread tile face down."""
    return state.seats[seat].hand.hidden > 0


def played_by(events: list, start: int, seat: int) -> list[str]:
    """The tiles the seat discarded or called with since the deal at ``start`` (each kind once, in order):
    where an unread tile of its hand went."""
    out: list[str] = []
    for e in events[start + 1:]:
        if getattr(e, "seat", None) != seat or e.type in ("draw", "replacement_draw"):
            continue
        tiles = [getattr(e, name) for name in e._tile_fields] + \
            [t for name in e._tiles_fields for t in (getattr(e, name) or ())]
        for t in tiles:
            code = getattr(t, "code", None)
            if code and code != UNREAD and code not in out:
                out.append(code)
    return out
