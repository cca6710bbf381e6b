"""Seat views: what a table shows the camera, in one form for an observation and for an engine state.

A :class:`TableView` is the table seen from the camera: per seat (:class:`SeatView`) the hand (faces, or
backs for a hidden hand), the melds (:class:`MeldKey`), the discard row and which tile lies sideways, the tiles
set aside; the dora indicators and Hong Kong's centre pool. :func:`observed_view` makes it of a new
observation, :func:`engine_view` of the state the engine followed (called discards gone from their rows,
hidden hands as backs), so that the two can be compared.

The names throughout :mod:`vision.follow`: ``state`` is the engine's :class:`~assistant.play.PlayState`
followed, ``followed`` what it shows the camera (:func:`engine_view`), ``observed`` what the new observation
shows (:func:`observed_view`: the target the state must come to show), and ``game`` the game's
:class:`GameContext`; in a loop over both views' seats ``s`` is the followed seat and ``v`` the observed one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from assistant.play import PlayState

from ..observation import TableObservation, tops_only
from .tile_codes import SEAT_WINDS, plain_code, sorted_codes, without


@dataclass(frozen=True)
class MeldKey:
    """A meld as the table shows it, in a form the engine's melds and the camera's read melds share: kind,
    concealed, the physical tiles (sorted; an added kong's tile among them), the added tile, ``@k``."""

    type: str
    concealed: bool
    codes: tuple[str, ...]
    added: str | None = None
    source: int | None = None

    @property
    def base(self) -> MeldKey:
        """The pong an added kong grew from."""
        if self.added is None:
            return self
        return MeldKey("pong", False, without(self.codes, [self.added]) or (), None, self.source)

    @property
    def text(self) -> str:
        return " ".join(self.codes)


def engine_meld_key(meld: Any) -> MeldKey:
    """The key of an engine meld (:class:`assistant.hand.Meld`)."""
    if meld.concealed:
        return MeldKey("kong", True, (plain_code(meld.stands_for[0].code),))
    added = meld.tiles[-1].code if meld.added else None
    return MeldKey(meld.type, False, sorted_codes(t.code for t in meld.tiles), added, meld.source)


@dataclass(frozen=True)
class ReadMeld:
    """A meld as read from the table (the observation's): the tiles as shown left to right from the owner."""

    type: str                      # chow, pong, kong
    tiles: tuple[str, ...]         # bk for backs
    sideways: int | None
    source: int | None             # @k: seats back in turn order
    added: str | None
    concealed: bool
    stands: tuple[str, ...]

    @property
    def base(self) -> ReadMeld:
        """The pong an added kong grew from."""
        return replace(self, type="pong", added=None) if self.added else self

    @property
    def key(self) -> MeldKey:
        if self.concealed:
            faces = [c for c in self.tiles if c != "bk"]
            return MeldKey("kong", True, (plain_code(faces[0]) if faces else "bk",))
        codes = self.tiles + ((self.added,) if self.added else ())
        return MeldKey(self.type, False, sorted_codes(codes), self.added, self.source)


def as_claimed(meld: ReadMeld, tile: str, source: int | None) -> ReadMeld:
    """``meld`` as the claim of ``tile`` from ``source`` (@k; None: from whoever) shows it: a meld read with no
    tile sideways and no source (its sideways tile boxed upright) with the first of its tiles that is ``tile``
    taken as the sideways one; any other meld as read."""
    if meld.concealed or meld.sideways is not None or meld.source is not None:
        return meld
    at = next((i for i, c in enumerate(meld.tiles) if c == tile), None)
    return meld if at is None else replace(meld, sideways=at, source=source)


@dataclass(frozen=True)
class SeatView:
    """One seat as the camera sees it (see the module docstring)."""

    hand: tuple[str, ...]          # sorted faces, or backs
    state: str                     # faces, backs, mixed, unseen
    melds: tuple[MeldKey, ...]
    discards: tuple[str, ...]
    sideways: int | None
    bonus: tuple[str, ...]
    norths: tuple[str, ...]
    right: str | None = None       # the rightmost hand tile as seen (a freshly drawn tile sits there)
    shown: tuple[ReadMeld, ...] = ()  # the melds as read (an observation's view only)
    unread: int = 0                # tiles of the camera hand's deal not read yet, left out of ``hand`` (an engine
    #                                state's view only: :mod:`.deal`)
    missed: tuple[str, ...] = ()   # tiles of the camera hand this frame may not show (the detector missed them):
    #                                ``hand`` is the state's but for some of these (an observation's view only:
    #                                :func:`with_missed_tiles`)


@dataclass(frozen=True)
class TableView:
    """What a table shows the camera: an observation's (:func:`observed_view`) or an engine state's
    (:func:`engine_view`)."""

    seats: tuple[SeatView, ...]
    dora: tuple[str, ...]
    centre: tuple[str, ...]


@dataclass
class SearchBudget:
    """The candidate moves the engine may still judge for the frame being followed: every search of one frame (the
    reading, its alternatives, the re-read hand, the calls) draws on it, so that a frame nothing explains costs
    a bounded time instead of each alternative's full search in turn."""

    left: int = 0

    def take(self, wanted: int) -> int:
        """At most ``wanted`` of what is left (0 when spent)."""
        return max(0, min(wanted, self.left))

    def spend(self, nodes: int) -> None:
        self.left = max(0, self.left - nodes)


@dataclass(frozen=True)
class GameContext:
    """What the follower knows of the game for its whole length: the rule system, the seating (engine seats are
    dealer-relative, table positions are the camera's) and the rules' features that change what a table shows."""

    variant: Any
    players: int
    camera: int                    # engine seat of the camera player
    order: tuple[int, ...]         # positions in turn order from the dealer (index = engine seat)
    centre: bool                   # discards go to one pool in the centre, not rows per seat
    dora: bool                     # dora indicators are turned over (and more after a kong)
    jokers: bool                   # jokers are in the set (and may be swapped for)
    kita: bool                     # Norths may be set aside (kita)
    #: what the frame being followed may still search (reset by the inferrer for each frame; unbounded when
    #: the context is used outside it)
    budget: SearchBudget = field(default_factory=lambda: SearchBudget(10 ** 9), compare=False, repr=False)

    def next(self, seat: int) -> int:
        return (seat + 1) % self.players

    def stage(self, view: TableView, seat: int) -> str | None:
        """What the seat's hand on ``view`` is doing by its size (the rule system's ``hand_stage``):
        "waiting" between turns, "discarding" with the tile just drawn or called, None for no hand size."""
        return self.variant.hand_stage(tile_count(view, seat))

    def back(self, claimant: int, discarder: int) -> int:
        """@k of a tile ``claimant`` took from ``discarder``."""
        return (claimant - discarder) % self.players

    def who(self, seat: int) -> str:
        return f"{SEAT_WINDS[seat]} (position {self.order[seat]})"


def observed_view(obs: TableObservation, game: GameContext) -> TableView:
    """What the observation shows the camera (a hidden hand whose standing tops were read as faces: backs)."""
    views = []
    for pos in game.order:
        seat = obs.seat(pos)
        assert seat is not None    # the inferrer checked the positions
        s = seat
        melds = tuple(ReadMeld(m.type, tuple(m.tiles), m.sideways, m.source, m.added, m.concealed,
                               tuple(m.stands_for or m.tiles)) for m in s.melds)
        hand = tuple(s.hand)
        if pos != game.order[game.camera] and tops_only(hand, len(s.melds)):
            hand = ("bk",) * len(hand)          # a hidden hand's tops read as faces
            s = replace(s, hand_state="backs")
        state = s.hand_state if s.hand_state in ("faces", "backs", "mixed") else (
            "unseen" if not hand else "backs" if all(c == "bk" for c in hand) else "faces" if "bk" not in hand
            else "mixed")
        views.append(SeatView(sorted_codes(hand) if "bk" not in hand else hand, state, tuple(m.key for m in melds),
                              tuple(s.discards), s.riichi, tuple(s.bonus), tuple(s.norths),
                              hand[-1] if hand else None, melds))
    return TableView(tuple(views), tuple(obs.dora_indicators), sorted_codes(obs.centre_discards))


def engine_view(state: PlayState, game: GameContext) -> TableView:
    """What the engine's table state looks like to the camera: called discards gone from their rows (or the
    centre pool), the tile after a called riichi tile lying sideways, hidden hands as backs, Norths apart from
    the other tiles set aside; the camera player's hand without a tile of its deal not read yet (``bk``)."""
    views: list[SeatView] = []
    centre: list[str] = []
    for i, s in enumerate(state.seats):
        hand = tuple(t.code for t in s.hand.concealed)
        shown = i == game.camera or "bk" not in hand
        unread = s.hand.hidden if i == game.camera else 0
        if unread:   # a tile of its deal never read (:mod:`.deal`): not seen either
            hand = tuple(c for c in hand if c != "bk")
        row = [j for j, d in enumerate(s.discards) if d.called_by is None]
        codes = tuple(s.discards[j].tile.code for j in row)
        riichi = next((j for j, d in enumerate(s.discards) if d.riichi), None)
        sideways = None if riichi is None else next((n for n, j in enumerate(row) if j >= riichi), None)
        if game.centre:
            centre += codes
            codes, sideways = (), None
        aside = tuple(t.code for t in s.hand.bonus)
        views.append(SeatView(sorted_codes(hand) if shown else hand, "faces" if shown and hand else "backs",
                              tuple(engine_meld_key(m) for m in s.hand.melds), codes, sideways,
                              tuple(c for c in aside if c != "4z"), tuple(c for c in aside if c == "4z"),
                              unread=unread))
    return TableView(tuple(views), tuple(t.code for t in state.dora_indicators), sorted_codes(centre))


def still_aside(have: Sequence[str], want: Sequence[str]) -> bool:
    """Every tile set aside in ``have`` is still set aside in ``want`` (tiles set aside stay there)."""
    return not Counter(have) - Counter(want)


def newly_aside(have: Sequence[str], want: Sequence[str]) -> list[str]:
    """The tiles newly set aside in ``want`` (the engine's ``have`` in any order), in the order the table
    shows them (left to right: the order they were set aside), or [] when one set aside is gone."""
    if not still_aside(have, want):
        return []
    left = Counter(have)
    out = []
    for c in want:
        if left[c]:
            left[c] -= 1
        else:
            out.append(c)
    return out


def fei_swapped(have: MeldKey, want: MeldKey) -> bool:
    """``want`` shows a real tile in place of one of ``have``'s Fei (all else equal)."""
    if (have.type, have.concealed, have.added, have.source) != (want.type, want.concealed, want.added, want.source):
        return False
    gone, new = Counter(have.codes) - Counter(want.codes), Counter(want.codes) - Counter(have.codes)
    return list(gone.elements()) == ["jk"] and sum(new.values()) == 1 and "bk" not in new


def _with_source_of(have: MeldKey, want: MeldKey) -> MeldKey:
    """``want`` (a meld read) with ``have``'s source where it was read without one: no tile of it was seen lying
    sideways (the reconstruction's melds whose sideways tile was boxed upright), so whom it came from is not
    read, and the followed meld says it."""
    if want.source is None and not want.concealed and not have.concealed and have.source is not None:
        return replace(want, source=have.source)
    return want


def shows_meld(have: MeldKey, want: MeldKey) -> bool:
    """The meld read as ``want`` shows the followed meld ``have`` (a source not read is no difference)."""
    return have == _with_source_of(have, want)


def shows_melds(have: Sequence[MeldKey], want: Sequence[MeldKey]) -> bool:
    """:func:`shows_meld` for each of a seat's melds, as many read as followed."""
    return len(have) == len(want) and all(shows_meld(a, b) for a, b in zip(have, want, strict=True))


def meld_grows(have: MeldKey, want: MeldKey) -> bool:
    """``want`` is the meld ``have`` as it may show later: unchanged, grown into a kong, its Fei swapped."""
    want = _with_source_of(have, want)
    return have == want or want.base == have or fei_swapped(have, want)


def newly_face_up(followed: TableView, observed: TableView, game: GameContext) -> list[int]:
    """Hidden seats whose hand now lies face up."""
    return [s for s in range(game.players) if s != game.camera and followed.seats[s].state != "faces"
            and observed.seats[s].state == "faces" and observed.seats[s].hand]


#: tiles of the camera hand a frame may miss and still be followed (the detector's misses in a dense row)
MISSED_TILES = 2


def with_missed_tiles(followed: TableView, observed: TableView, game: GameContext,
                      recent: Counter | None = None) -> TableView | None:
    """``observed`` with the camera hand read a tile or two short taken as the followed hand with those tiles
    unseen in this frame (``missed``: the hand's tiles it does not show), when every tile it shows is the
    followed hand's and one or two tiles more make a hand the rule system holds. A hand of a size the rule
    system holds is taken so too while it still lacks the tiles the frame before missed (``recent``) and shows
    at most one new tile: the detector keeps missing them, and the hand may have drawn or called since. None
    otherwise (a tile misread too, or more missed: the hand waits as it was)."""
    cam = game.camera
    s, v = followed.seats[cam], observed.seats[cam]
    if v.state != "faces" or "bk" in v.hand or s.unread:
        return None
    new = tiles_new_in(s.hand, v.hand)
    lacking = Counter(s.hand) - Counter(v.hand)
    size = tile_count(observed, cam)
    if new > 1:
        return None
    if game.variant.hand_stage(size) is None:   # short: only tiles of the followed hand, none new
        fits = any(game.variant.hand_stage(size + k) is not None for k in range(1, MISSED_TILES + 1))
        may = lacking if fits and not new else Counter()
    else:
        may = recent if recent and not recent - lacking and sum(recent.values()) <= MISSED_TILES else Counter()
    if not may:
        return None
    seats = list(observed.seats)
    seats[cam] = replace(v, missed=tuple(sorted(may.elements())))
    return replace(observed, seats=tuple(seats))


def shows_hand(have: SeatView, want: SeatView) -> bool:
    """The camera hand ``have`` (a state's) shows as ``want`` (an observation's): the same tiles, or, where the
    frame may have missed some (``want.missed``), ``want``'s tiles and at most :data:`MISSED_TILES` of those."""
    if not want.missed:
        return have.hand == want.hand
    extra = Counter(have.hand) - Counter(want.hand)
    return not Counter(want.hand) - Counter(have.hand) and not extra - Counter(want.missed) and \
        sum(extra.values()) <= MISSED_TILES


def tiles_new_in(was: Sequence[str], now: Sequence[str]) -> int:
    """How many tiles of ``now`` were not in ``was``."""
    return sum((Counter(now) - Counter(was)).values())


def tile_count(view: TableView, seat: int) -> int:
    """The seat's tiles in hand and melds, a kong counted as three."""
    return len(view.seats[seat].hand) + 3 * len(view.seats[seat].melds)


def public_tiles(codes: Counter, view: TableView) -> Counter:
    """``codes`` updated with every tile the table shows outside the hands (rows, tiles set aside, melds, the
    centre pool)."""
    for v in view.seats:
        codes.update(v.discards)
        codes.update(v.bonus)
        codes.update(v.norths)
        for m in v.melds:
            codes.update(m.codes)
    codes.update(view.centre)
    return codes


def is_dealt_table(view: TableView) -> bool:
    """No discards and no melds: the table as dealt."""
    return not view.centre and all(not v.discards and not v.melds for v in view.seats)
