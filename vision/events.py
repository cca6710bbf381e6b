"""The game's events from a stream of stable table observations: :class:`EventInferrer`.

Feed it the successive *stable* observations of one hand (:class:`~vision.observation.TableObservation` or its
dict); it answers with the events (:mod:`assistant.play.events` classes, dealer-relative seats) that lead from
the last table it accepted to the new one:

* the first full observation (a dealt table: no discards, no melds) -> :class:`Deal` (hidden hands as 13 ``bk``,
  bonus tiles set aside at the deal after ``|``, the dora indicators);
* a new discard -> ``Draw(seat, "bk")`` (the camera player's drawn tile is known: hand after = hand before +
  drawn - discarded) + ``Discard`` (``riichi`` when it lies sideways and the seat had not declared riichi);
* a discard taken into a new meld -> ``Chow`` / ``Pong`` / ``OpenKong`` in place of the next draw (the claimant
  from the sideways tile's source); a pong grown into a kong -> ``AddedKong``; a new concealed kong ->
  ``ClosedKong``; a North set aside -> ``Kita``; a new bonus tile -> ``BonusTile`` (then the replacement draw);
  a Fei in the bonus area -> ``SinkFei``; a Fei in a meld replaced by its tile -> ``SwapFei``; a new dora
  indicator -> ``NewDora`` (right after the kong that turned it);
* hidden hands laid face up: the hand is over -> a ``Reveal(seat, tiles, drawn)`` for each (winners first;
  ``drawn``: a tsumo winner's face-down draw, the tile set apart at the right), then ``Tsumo`` (the turn seat's
  14 tiles win), ``Ron`` (13 tiles the open tile completes; the camera player's own win when no revealed hand
  wins and its hand does, as when three-kaki losers show their hands) or ``ExhaustiveDraw(tenpai)`` (the ready
  hands shown, and the camera player's when ready);
* :meth:`EventInferrer.finish` (the hand is over, the table is being cleared) -> what the table cannot show:
  the camera player's own Tsumo (its hand is always face up), else ``ExhaustiveDraw`` (nobody showed a ready
  hand; the camera player listed when ready). A ron shows: a lone winner takes the discard into its hand.

The other players' hand sizes are not trusted (a standing hand may be out of sight): their draws are inferred
from what they do next.

Several moves between two observations (a frame missed) are put in turn order: a small breadth-first search
over the moves the rules allow (one function per kind of move) finds the shortest sequence that turns the
last accepted table into the new one. An impossible change (a discard vanished without a meld, a row or meld
that changed, a fifth copy, a hand a tile short, a tile kind the rule system lacks, nothing in turn order
explains it) becomes a problem in plain words (:attr:`EventInferrer.problems`); nothing is inferred from that
observation, and the next consistent one resumes from the last accepted table.

A tile of the camera player's hand read wrongly so far is re-read when the table shows what it is (the user's
correction, or its discard): :func:`reread` finds the reading that explains the change, the hand's log is
corrected (:attr:`EventInferrer.rereads`) and :class:`TableGame` replays it.

``mahjong-assistant eval-video`` (:mod:`evaluation.video`) measures it on generated videos of whole hands
(:mod:`datasets.hand_video`).
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from assistant.play import (
    AddedKong,
    BonusTile,
    Chow,
    ClosedKong,
    Deal,
    Discard,
    Draw,
    Event,
    ExhaustiveDraw,
    Kita,
    NewDora,
    OpenKong,
    Pong,
    ReplacementDraw,
    Ron,
    SinkFei,
    SwapFei,
    Tsumo,
)
from assistant.tiles import Tile, format_tiles, parse_tiles, sort_key

from .observation import TableObservation, mostly_backs, tops_only

try:  # the engine's Reveal event
    from assistant.play.events import Reveal  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - depends on the engine version
    @dataclass(frozen=True)
    class Reveal(Event):
        """STAND-IN for ``assistant.play.events.Reveal`` on an engine without it: ``seat`` lays its concealed
        ``tiles`` face up; ``drawn``: which of them it drew face down."""

        type: ClassVar[str] = "reveal"
        _tiles_fields: ClassVar[tuple[str, ...]] = ("tiles",)
        _tile_fields: ClassVar[tuple[str, ...]] = ("drawn",)
        seat: int
        tiles: tuple[Tile, ...]
        drawn: Tile | None = None

SEAT_WINDS = ("East", "South", "West", "North")
BONUS_SUITS = "fgah"


def hand_text(codes: Sequence[str], bonus: Sequence[str] = ()) -> str:
    """Canonical hand notation of tile codes (sorted; jokers, then backs, last) and a bonus area after ``|``."""
    text = format_tiles(parse_tiles(" ".join(codes))) if codes else ""
    if bonus:
        text += " | " + format_tiles(parse_tiles(" ".join(bonus)))
    return text


def _plain(code: str) -> str:
    return "5" + code[1] if code[0] == "0" else code


def _is_bonus(code: str) -> bool:
    return code[1] in BONUS_SUITS


def _sorted(codes) -> tuple[str, ...]:
    return tuple(sorted(codes, key=lambda c: sort_key(Tile.from_code(c))))


def _minus(codes: Sequence[str], take: Sequence[str]) -> tuple[str, ...] | None:
    """``codes`` without ``take`` (exact codes), or None when one is missing."""
    rest = list(codes)
    for c in take:
        if c not in rest:
            return None
        rest.remove(c)
    return tuple(rest)


# --------------------------------------------------------------------------- the table as the camera knows it


@dataclass(frozen=True)
class _Meld:
    type: str                      # chow, pong, kong
    tiles: tuple[str, ...]         # as shown, left to right from the owner (bk for backs)
    sideways: int | None
    source: int | None             # @k: seats back in turn order
    added: str | None
    concealed: bool
    stands: tuple[str, ...]

    @property
    def base(self) -> _Meld:
        """The pong an added kong grew from."""
        return replace(self, type="pong", added=None) if self.added else self


@dataclass(frozen=True)
class _Seat:
    hand: tuple[str, ...] = ()     # the camera's concealed tiles (sorted); a revealed hand's tiles
    revealed: bool = False
    melds: tuple[_Meld, ...] = ()
    discards: tuple[str, ...] = ()
    sideways: int | None = None    # index of the sideways tile in the row
    riichi: bool = False           # riichi declared
    owed_sideways: bool = False    # the riichi tile was called: the next discard lies sideways
    bonus: tuple[str, ...] = ()
    norths: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Table:
    """The last accepted table plus whose move it is: ``phase`` draw (``turn`` draws next), own (``turn``
    holds its extra tile), window (``turn`` discarded ``last``), owed (``turn`` owes a replacement after
    declaring ``last``) or over."""

    seats: tuple[_Seat, ...]
    dora: tuple[str, ...] = ()
    centre: tuple[str, ...] = ()   # Hong Kong's pool, sorted
    turn: int = 0
    phase: str = "draw"
    last: str | None = None
    kongs: int = 0

    def seat(self, i: int, **changes: Any) -> _Table:
        seats = list(self.seats)
        seats[i] = replace(seats[i], **changes)
        return replace(self, seats=tuple(seats))


@dataclass(frozen=True)
class _View:
    hand: tuple[str, ...]
    state: str                     # faces, backs, mixed, unseen
    melds: tuple[_Meld, ...]
    discards: tuple[str, ...]
    sideways: int | None
    bonus: tuple[str, ...]
    norths: tuple[str, ...]
    right: str | None = None       # the rightmost hand tile as seen (a freshly drawn tile sits there)


@dataclass(frozen=True)
class _Target:
    seats: tuple[_View, ...]
    dora: tuple[str, ...]
    centre: tuple[str, ...]


@dataclass(frozen=True)
class _Ctx:
    variant: Any
    players: int
    camera: int                    # engine seat of the camera player
    order: tuple[int, ...]         # positions in turn order from the dealer (index = engine seat)
    hk: bool
    kan_dora: bool
    jokers: bool
    sanma: bool

    def next(self, seat: int) -> int:
        return (seat + 1) % self.players

    def back(self, claimant: int, discarder: int) -> int:
        """@k of a tile ``claimant`` took from ``discarder``."""
        return (claimant - discarder) % self.players

    def who(self, seat: int) -> str:
        return f"{SEAT_WINDS[seat]} (position {self.order[seat]})"


def _target(obs: TableObservation, ctx: _Ctx) -> _Target:
    views = []
    for pos in ctx.order:
        s = obs.seat(pos)
        melds = tuple(_Meld(m.type, tuple(m.tiles), m.sideways, m.source, m.added, m.concealed,
                            tuple(m.stands_for or m.tiles)) for m in s.melds)
        hand = tuple(s.hand)
        if pos != ctx.order[ctx.camera] and tops_only(hand, len(s.melds)):
            hand = ("bk",) * len(hand)          # a hidden hand's tops read as faces
            s = replace(s, hand_state="backs")
        state = s.hand_state if s.hand_state in ("faces", "backs", "mixed") else (
            "unseen" if not hand else "backs" if all(c == "bk" for c in hand) else "faces" if "bk" not in hand
            else "mixed")
        views.append(_View(_sorted(hand) if "bk" not in hand else hand, state, melds, tuple(s.discards), s.riichi,
                           tuple(s.bonus), tuple(s.norths), hand[-1] if hand else None))
    return _Target(tuple(views), tuple(obs.dora_indicators), _sorted(obs.centre_discards))


# --------------------------------------------------------------------------- moves: one function per kind


Move = Callable[[_Table, _Target, _Ctx], Iterator[tuple[tuple[Event, ...], _Table]]]


def _next_meld(t: _Table, g: _Target, seat: int) -> _Meld | None:
    have, want = t.seats[seat].melds, g.seats[seat].melds
    return want[len(have)] if len(want) > len(have) else None


def _take(t: _Table, ctx: _Ctx, seat: int, codes: Sequence[str]) -> _Table | None:
    """The table with ``codes`` gone from the camera's hand (hidden hands are not tracked)."""
    if seat != ctx.camera:
        return t
    rest = _minus(t.seats[seat].hand, codes)
    return None if rest is None else t.seat(seat, hand=rest)


def _give(t: _Table, ctx: _Ctx, seat: int, code: str) -> _Table:
    if seat != ctx.camera:
        return t
    return t.seat(seat, hand=_sorted(t.seats[seat].hand + (code,)))


def _camera_needs(t: _Table, g: _Target, ctx: _Ctx) -> list[str]:
    """Tiles the camera player may have drawn: what its hand gained, what it throws or shows later."""
    s, v = t.seats[ctx.camera], g.seats[ctx.camera]
    need = set((Counter(v.hand) - Counter(s.hand)).elements())
    need.update(v.discards[len(s.discards):] if v.discards[:len(s.discards)] == s.discards else ())
    need.update((Counter(g.centre) - Counter(t.centre)).elements())
    for w, have in zip(g.seats, t.seats, strict=True):
        for m in w.melds[len(have.melds):]:
            need.update(m.tiles)
        for m, h in zip(w.melds, have.melds, strict=False):
            if m != h:
                need.update(m.tiles + ((m.added,) if m.added else ()))
    need.update(v.norths[len(s.norths):])
    need.update(c for c in v.bonus[len(s.bonus):] if c == "jk")
    return [c for c in _sorted(need - {"bk"}) if not _is_bonus(c)]


def _drawer(t: _Table, ctx: _Ctx) -> int | None:
    """Who takes the next tile from the wall: the turn seat at its turn start, the next seat after a discard."""
    if t.phase == "draw":
        return t.turn
    if t.phase == "window":
        return ctx.next(t.turn)
    return None


def _draws(t: _Table, g: _Target, ctx: _Ctx):
    seat = _drawer(t, ctx)
    if seat is None:
        return
    for code in (_camera_needs(t, g, ctx) if seat == ctx.camera else ["bk"]):
        nt = replace(_give(t, ctx, seat, code), turn=seat, phase="own", last=None)
        yield (Draw(seat, code),), nt


def _replacements(t: _Table, g: _Target, ctx: _Ctx):
    if t.phase != "owed":
        return
    seat = t.turn
    for code in (_camera_needs(t, g, ctx) if seat == ctx.camera else ["bk"]):
        yield (ReplacementDraw(seat, code),), replace(_give(t, ctx, seat, code), phase="own", last=None)


def _bonus_draws(t: _Table, g: _Target, ctx: _Ctx):
    seat = t.turn if t.phase == "owed" else _drawer(t, ctx)
    if seat is None:
        return
    have, want = t.seats[seat].bonus, g.seats[seat].bonus
    if len(want) > len(have) and want[:len(have)] == have and _is_bonus(want[len(have)]):
        code = want[len(have)]
        nt = replace(t.seat(seat, bonus=have + (code,)), turn=seat, phase="owed", last=None)
        yield (BonusTile(seat, code),), nt


def _discard_candidates(t: _Table, g: _Target, ctx: _Ctx, seat: int) -> list[str]:
    s, v = t.seats[seat], g.seats[seat]
    out = set()
    if ctx.hk:
        out.update((Counter(g.centre) - Counter(t.centre)).elements())
    elif len(v.discards) > len(s.discards) and v.discards[:len(s.discards)] == s.discards:
        out.add(v.discards[len(s.discards)])
    for other in range(ctx.players):       # a discard claimed before the camera saw it
        m = _next_meld(t, g, other) if other != seat else None
        if m is not None and not m.concealed and m.sideways is not None and m.source == ctx.back(other, seat):
            out.add(m.tiles[m.sideways])
    for other in _shown(t, g, ctx):         # ... or taken by a ron winner
        if other != seat and _size(g, other) == 14:
            out.update(g.seats[other].hand)
    if seat != ctx.camera:
        out.update((Counter(g.seats[ctx.camera].hand) - Counter(t.seats[ctx.camera].hand)).elements())
    if seat == ctx.camera:
        out &= set(s.hand)
    return [c for c in _sorted(out) if c not in ("jk", "bk") and not _is_bonus(c)]


def _discards(t: _Table, g: _Target, ctx: _Ctx):
    if t.phase != "own":
        return
    seat = t.turn
    s, v = t.seats[seat], g.seats[seat]
    for code in _discard_candidates(t, g, ctx, seat):
        nt = _take(t, ctx, seat, [code])
        if ctx.hk:
            nt = replace(nt, centre=_sorted(t.centre + (code,)))
            yield (Discard(seat, code),), replace(nt, phase="window", last=code)
            continue
        idx = len(s.discards)
        side = s.owed_sideways or (v.sideways == idx and v.discards[idx:idx + 1] == (code,))
        riichi = side and not s.riichi and not s.owed_sideways
        nt = nt.seat(seat, discards=s.discards + (code,), sideways=idx if side else s.sideways,
                     riichi=s.riichi or riichi, owed_sideways=s.owed_sideways and not side)
        yield (Discard(seat, code, riichi=riichi),), replace(nt, phase="window", last=code)


_CLAIMS = {"chow": Chow, "pong": Pong, "kong": OpenKong}


def _claims(t: _Table, g: _Target, ctx: _Ctx):
    if t.phase != "window" or t.last is None:
        return
    discarder = t.turn
    for k in range(1, ctx.players):
        seat = (discarder + k) % ctx.players
        m = _next_meld(t, g, seat)
        if m is None or m.concealed or m.sideways is None or m.source != ctx.back(seat, discarder):
            continue
        if m.tiles[m.sideways] != t.last:
            continue
        shown = m.base
        used = [c for i, c in enumerate(shown.tiles) if i != shown.sideways]
        nt = _take(t, ctx, seat, used)
        if nt is None:
            continue
        d = t.seats[discarder]
        if ctx.hk:
            nt = replace(nt, centre=_minus(t.centre, [t.last]))
        else:
            row = d.discards[:-1]
            was_side = d.sideways == len(row)
            nt = nt.seat(discarder, discards=row, sideways=None if was_side else d.sideways,
                         owed_sideways=d.owed_sideways or was_side)
        nt = nt.seat(seat, melds=nt.seats[seat].melds + (shown,))
        cls = _CLAIMS[shown.type]
        event = cls(seat, tuple(sorted((Tile.from_code(c) for c in used), key=sort_key)), _notation(shown))
        if cls is OpenKong:
            yield (event,), replace(nt, turn=seat, phase="owed", last=None, kongs=t.kongs + 1)
        else:
            yield (event,), replace(nt, turn=seat, phase="own", last=None)


def _closed_kongs(t: _Table, g: _Target, ctx: _Ctx):
    if t.phase != "own":
        return
    seat = t.turn
    m = _next_meld(t, g, seat)
    if m is None or not m.concealed:
        return
    face = _plain(next(c for c in m.tiles if c != "bk"))
    used: tuple[Tile, ...] = ()
    nt = t
    if seat == ctx.camera:
        codes = [c for c in t.seats[seat].hand if _plain(c) == face]
        if len(codes) != 4:
            return
        nt = _take(t, ctx, seat, codes)
        used = tuple(sorted((Tile.from_code(c) for c in codes), key=sort_key))
    nt = nt.seat(seat, melds=t.seats[seat].melds + (m,))
    yield (ClosedKong(seat, face, used),), replace(nt, phase="owed", last=face, kongs=t.kongs + 1)


def _added_kongs(t: _Table, g: _Target, ctx: _Ctx):
    if t.phase != "own":
        return
    seat = t.turn
    for i, (have, want) in enumerate(zip(t.seats[seat].melds, g.seats[seat].melds, strict=False)):
        if have.added is None and want.added is not None and want.base == have:
            nt = _take(t, ctx, seat, [want.added])
            if nt is None:
                continue
            melds = list(nt.seats[seat].melds)
            melds[i] = want
            nt = nt.seat(seat, melds=tuple(melds))
            yield (AddedKong(seat, want.added),), replace(nt, phase="owed", last=want.added, kongs=t.kongs + 1)


def _kitas(t: _Table, g: _Target, ctx: _Ctx):
    if t.phase != "own" or not ctx.sanma:
        return
    seat = t.turn
    have, want = t.seats[seat].norths, g.seats[seat].norths
    if len(want) > len(have):
        nt = _take(t, ctx, seat, ["4z"])
        if nt is not None:
            yield (Kita(seat),), replace(nt.seat(seat, norths=have + ("4z",)), phase="owed", last="4z")


def _sink_feis(t: _Table, g: _Target, ctx: _Ctx):
    if t.phase != "own" or not ctx.jokers:
        return
    seat = t.turn
    have, want = t.seats[seat].bonus, g.seats[seat].bonus
    if len(want) > len(have) and want[:len(have)] == have and want[len(have)] == "jk":
        nt = _take(t, ctx, seat, ["jk"])
        if nt is not None:
            yield (SinkFei(seat),), replace(nt.seat(seat, bonus=have + ("jk",)), phase="owed", last=None)


def _swapped(have: _Meld, want: _Meld) -> int | None:
    """The index where ``want`` shows a real tile in place of ``have``'s Fei (all else equal), else None."""
    if len(have.tiles) != len(want.tiles) or (have.type, have.sideways, have.source, have.added) != \
            (want.type, want.sideways, want.source, want.added):
        return None
    diff = [i for i, (a, b) in enumerate(zip(have.tiles, want.tiles, strict=True)) if a != b]
    if len(diff) == 1 and have.tiles[diff[0]] == "jk" and want.tiles[diff[0]] not in ("jk", "bk"):
        return diff[0]
    return None


def _swap_feis(t: _Table, g: _Target, ctx: _Ctx):
    if t.phase != "own" or not ctx.jokers:
        return
    seat = t.turn
    owners = range(ctx.players) if ctx.variant.options.get("swap_from_others", False) else (seat,)
    for owner in owners:
        for i, (have, want) in enumerate(zip(t.seats[owner].melds, g.seats[owner].melds, strict=False)):
            j = _swapped(have, want)
            if j is None:
                continue
            code = want.tiles[j]
            nt = _take(t, ctx, seat, [code])
            if nt is None:
                continue
            nt = _give(nt, ctx, seat, "jk")
            melds = list(nt.seats[owner].melds)
            melds[i] = want
            yield (SwapFei(seat, code, owner, i),), nt.seat(owner, melds=tuple(melds))


def _new_dora(t: _Table, g: _Target, ctx: _Ctx):
    """A kan dora indicator: only after a kong (one per kong)."""
    if ctx.kan_dora and len(g.dora) > len(t.dora) and g.dora[:len(t.dora)] == t.dora and len(t.dora) < 1 + t.kongs:
        code = g.dora[len(t.dora)]
        yield (NewDora(code),), replace(t, dora=t.dora + (code,))


def _complete(hand: Sequence[str], melds: Sequence[_Meld], variant) -> bool:
    """The concealed tiles ``hand`` with ``melds`` form a winning hand (shape only: yaku and minimums are
    the scorer's)."""
    from assistant.analysis import is_complete
    from assistant.hand import Hand

    try:
        tiles = tuple(Tile.from_code(c) for c in hand)
        return is_complete(Hand(tiles, tuple(_engine_meld(m) for m in melds)), variant)
    except (ValueError, StopIteration):
        return False


def _tenpai(hand: Sequence[str], melds: Sequence[_Meld], variant) -> bool:
    """Ready at an exhaustive draw (as :func:`assistant.play.is_tenpai` counts it: a wait with live tiles)."""
    from assistant.analysis import waits
    from assistant.hand import Hand

    if len(hand) + 3 * len(melds) != 13:
        return False
    try:
        tiles = tuple(Tile.from_code(c) for c in hand)
        return any(w.live > 0 for w in waits(Hand(tiles, tuple(_engine_meld(m) for m in melds)), variant))
    except (ValueError, StopIteration):
        return False


def _shown(t: _Table, g: _Target, ctx: _Ctx) -> list[int]:
    """Hidden seats whose hand now lies face up."""
    return [s for s in range(ctx.players) if s != ctx.camera and not t.seats[s].revealed
            and g.seats[s].state == "faces" and g.seats[s].hand]


def _size(g: _Target, seat: int) -> int:
    return len(g.seats[seat].hand) + 3 * len(g.seats[seat].melds)


def _robbed(t: _Table, g: _Target) -> int | None:
    """The index of the turn seat's kong whose added tile (the open tile) left it: a robbing winner took it."""
    if t.phase != "owed" or not t.last:
        return None
    for i, (have, want) in enumerate(zip(t.seats[t.turn].melds, g.seats[t.turn].melds, strict=False)):
        if have.added == t.last and want == have.base:
            return i
    return None


def _open_tile_taken(t: _Table, g: _Target, ctx: _Ctx) -> bool:
    """The open tile left its place without a meld (the discard its row or Hong Kong's pool, an added tile
    its kong): a lone ron winner took it."""
    if t.phase == "owed":
        return _robbed(t, g) is not None
    if t.phase != "window" or not t.last:
        return False
    if ctx.hk:
        return list((Counter(t.centre) - Counter(g.centre)).elements()) == [t.last]
    row = t.seats[t.turn].discards
    return bool(row) and g.seats[t.turn].discards == row[:-1]


def _without_open_tile(t: _Table, g: _Target, ctx: _Ctx) -> _Table:
    d = t.turn
    if t.phase == "owed":
        i = _robbed(t, g)
        melds = list(t.seats[d].melds)
        melds[i] = melds[i].base
        return t.seat(d, melds=tuple(melds))
    if ctx.hk:
        return replace(t, centre=_minus(t.centre, [t.last]))
    return t.seat(d, discards=t.seats[d].discards[:-1])


def _tsumo_end(t, g, ctx, shown):
    """The seat holding 14 tiles shows a winning hand (or the camera player, whose hand is always seen, wins
    and the others show theirs: three-kaki)."""
    if t.phase != "own" or any(_size(g, s) != (14 if s == t.turn else 13) for s in shown):
        return None
    x, mine = t.turn, t.seats[ctx.camera]
    if x in shown and _complete(g.seats[x].hand, g.seats[x].melds, ctx.variant):
        return [x], Tsumo(x), t
    if x == ctx.camera and shown and _complete(mine.hand, mine.melds, ctx.variant):
        return [], Tsumo(x), t
    return None


def _ron_taken_end(t, g, ctx, shown):
    """A lone winner took the open discard into its hand (14 tiles shown: 13 + the tile)."""
    if not _open_tile_taken(t, g, ctx):
        return None
    last, mine = t.last, t.seats[ctx.camera]
    nt = _without_open_tile(t, g, ctx)
    if g.seats[ctx.camera].hand == _sorted(mine.hand + (last,)) and _complete(mine.hand + (last,), mine.melds,
                                                                              ctx.variant):
        if all(_size(g, s) == 13 for s in shown):
            return [], Ron((ctx.camera,)), nt.seat(ctx.camera, hand=_sorted(mine.hand + (last,)))
        return None
    winners = [s for s in shown if _size(g, s) == 14 and last in g.seats[s].hand
               and _complete(g.seats[s].hand, g.seats[s].melds, ctx.variant)]
    if len(winners) != 1 or any(_size(g, s) != 13 for s in shown if s not in winners):
        return None
    return winners, Ron((winners[0],)), nt


def _ron_left_end(t, g, ctx, shown):
    """Several winners on one discard (it stays where it lies), or robbing a kong, kita or flower."""
    if t.phase not in ("window", "owed") or not t.last or any(_size(g, s) != 13 for s in shown):
        return None
    winners = sorted((s for s in shown if s != t.turn and _complete(g.seats[s].hand + (t.last,), g.seats[s].melds,
                                                                    ctx.variant)), key=lambda s: ctx.back(s, t.turn))
    if len(winners) >= (1 if t.phase == "owed" else 2):
        return winners, Ron(tuple(winners)), t
    return None


def _draw_end(t, g, ctx, shown):
    """No win: the ready hands are shown at an exhaustive draw (the camera player's counted when ready)."""
    if t.phase not in ("window", "draw", "owed") or not shown or any(_size(g, s) != 13 for s in shown):
        return None
    mine = t.seats[ctx.camera]
    ready = (ctx.camera,) if _tenpai(mine.hand, mine.melds, ctx.variant) else ()
    return [], ExhaustiveDraw(tuple(shown) + ready), t


#: how a hand can end on the table, tried in order
ENDINGS = (_tsumo_end, _ron_taken_end, _ron_left_end, _draw_end)


def _endings(t: _Table, g: _Target, ctx: _Ctx):
    """The hand is over: hidden hands laid face up (:data:`ENDINGS`), or the camera player took the open
    discard into its hand. Reveals: winners first, then the other hands in seat order."""
    if t.phase == "over":
        return
    shown = _shown(t, g, ctx)
    if not shown and not _open_tile_taken(t, g, ctx):
        return
    for end in ENDINGS:
        found = end(t, g, ctx, shown)
        if found is not None:
            break
    else:
        return
    winners, event, nt = found
    events: list[Event] = []
    for s in winners + [s for s in shown if s not in winners]:
        hand = g.seats[s].hand
        if isinstance(event, Ron) and _size(g, s) == 14:
            hand = _minus(hand, [t.last])      # the ron tile it took is not a concealed tile
        drawn = g.seats[s].right if isinstance(event, Tsumo) and s == t.turn else None
        events.append(Reveal(s, hand_text(hand), drawn))
        nt = nt.seat(s, hand=g.seats[s].hand, revealed=True)
    yield tuple(events) + (event,), replace(nt, phase="over")


#: every kind of move, in the order ties between equally short explanations are broken
MOVES: tuple[Move, ...] = (_new_dora, _claims, _endings, _bonus_draws, _draws, _replacements, _closed_kongs,
                           _added_kongs, _kitas, _sink_feis, _swap_feis, _discards)


# --------------------------------------------------------------------------- matching and search


def _grows(have: _Meld, want: _Meld) -> bool:
    return have == want or want.base == have or _swapped(have, want) is not None


def _consistent(t: _Table, g: _Target, ctx: _Ctx) -> bool:
    """Nothing in ``t`` that the target rules out (a search branch worth going on with)."""
    for i, (s, v) in enumerate(zip(t.seats, g.seats, strict=True)):
        r, want = s.discards, v.discards
        open_tile = t.phase == "window" and t.turn == i and r
        if want[:len(r)] != r and not (open_tile and want[:len(r) - 1] == r[:-1]):
            return False
        if len(s.melds) > len(v.melds) or not all(_grows(a, b) or (t.phase == "owed" and a.added == t.last
                                                                     and a.base == b)
                                                  for a, b in zip(s.melds, v.melds, strict=False)):
            return False
        if v.bonus[:len(s.bonus)] != s.bonus or v.norths[:len(s.norths)] != s.norths:
            return False
        if len(s.hand) > 14:
            return False
    if g.dora[:len(t.dora)] != t.dora:
        return False
    extra = Counter(t.centre) - Counter(g.centre)
    return not extra or (t.phase == "window" and list(extra.elements()) == [t.last])


def _matches(t: _Table, g: _Target, ctx: _Ctx) -> bool:
    for i, (s, v) in enumerate(zip(t.seats, g.seats, strict=True)):
        if (s.discards, s.melds, s.bonus, s.norths) != (v.discards, v.melds, v.bonus, v.norths):
            return False
        if not ctx.hk and s.sideways != v.sideways:
            return False
        if i == ctx.camera:
            if s.hand != v.hand:
                return False
        elif v.state == "faces" and (not s.revealed or s.hand != v.hand):
            return False
    return t.dora == g.dora and t.centre == g.centre


def _pending(t: _Table, g: _Target) -> int:
    n = len(g.dora) - len(t.dora) + abs(len(g.centre) - len(t.centre))
    for s, v in zip(t.seats, g.seats, strict=True):
        n += abs(len(v.discards) - len(s.discards)) + len(v.melds) - len(s.melds) + len(v.bonus) - len(s.bonus)
        n += len(v.norths) - len(s.norths) + sum(a != b for a, b in zip(s.melds, v.melds, strict=False))
        n += v.state == "faces"
    return n


def _drawn_last(path, g: _Target, ctx: _Ctx) -> int:
    """0 when the camera player's latest draw in ``path`` is the tile seen apart at the right end of its
    hand (or it drew nothing), else 1: which of two draws came last when both arrive together."""
    drawn = [e.tile.code for events, _ in path for e in events
             if isinstance(e, (Draw, ReplacementDraw)) and e.seat == ctx.camera]
    return 0 if not drawn or drawn[-1] == g.seats[ctx.camera].right else 1


def _taken_last(path, g: _Target, ctx: _Ctx) -> int:
    """0 when a lone ron winner's taken discard is the tile seen apart at the right end of its hand, else 1:
    which tile was thrown when the discard and the win arrive together."""
    events = [e for step, _ in path for e in step]
    if not events or not isinstance(events[-1], Ron) or len(events[-1].seats) != 1:
        return 0
    thrown = [e.tile.code for e in events if isinstance(e, Discard)]
    return 0 if not thrown or thrown[-1] == g.seats[events[-1].seats[0]].right else 1


#: tie-breaks between equally short explanations, in order (then the order moves were tried)
PREFERENCES: tuple[Callable, ...] = (_drawn_last, _taken_last)


def _public(codes: Counter, t: _Table | _Target) -> Counter:
    for v in t.seats:
        codes.update(v.discards)
        codes.update(v.bonus)
        codes.update(v.norths)
        for m in v.melds:
            codes.update(m.tiles)
    codes.update(t.centre)
    return codes


def reread(t: _Table, g: _Target, ctx: _Ctx, max_nodes: int = 20000
           ) -> tuple[_Table, tuple[str, str], list] | None:
    """When nothing explains a change: is one tile of the camera player's hand read wrongly so far? A tile
    of the tracked hand that the observation lacks is taken for one of the codes that newly show (in the
    hand, or in a discard row, meld or bonus area where it may have gone), and the change explained again.
    Returns (the corrected table, (read before, read now), the path of :func:`explain`) or None."""
    cam = ctx.camera
    old, new = Counter(t.seats[cam].hand), Counter(g.seats[cam].hand)
    gone = sorted(set((old - new).elements()))
    if not gone or "bk" in new or sum((old - new).values()) > 3:
        return None
    shown = (new - old) + (_public(Counter(), g) - _public(Counter(), t))
    candidates = sorted(c for c in shown if c != "bk")
    for was in gone:
        for now in candidates:
            if now == was:
                continue
            hand = list(t.seats[cam].hand)
            hand.remove(was)
            fixed = t.seat(cam, hand=_sorted(hand + [now]))
            path = explain(fixed, g, ctx, max_nodes)
            if path is not None:
                return fixed, (was, now), path
    return None


def explain(t: _Table, g: _Target, ctx: _Ctx, max_nodes: int = 20000) -> list[tuple[tuple[Event, ...], _Table]] | None:
    """The shortest sequence of moves from ``t`` to a table that shows ``g`` (breadth first, moves tried in
    :data:`MOVES` order, ties broken by :data:`PREFERENCES`): [(events, table after)], [] when nothing
    changed, None when nothing explains it."""
    if _matches(t, g, ctx):
        return []
    depth = 4 + 3 * _pending(t, g)
    queue: deque = deque([(t, ())])
    seen = {t}
    found: list = []
    while queue and len(seen) < max_nodes:
        table, path = queue.popleft()
        if len(path) >= depth or table.phase == "over" or (found and len(path) >= len(found[0])):
            continue
        for move in MOVES:
            for events, nxt in move(table, g, ctx):
                step = path + ((events, nxt),)
                if _matches(nxt, g, ctx):
                    found.append(step)      # every shortest explanation, even of the same table
                elif nxt not in seen and _consistent(nxt, g, ctx):
                    seen.add(nxt)
                    queue.append((nxt, step))
    if not found:
        return None
    return list(min(found, key=lambda p: tuple(pref(p, g, ctx) for pref in PREFERENCES)))


# --------------------------------------------------------------------------- checks: plain-words problems

#: observation problems that do not stop a frame from being followed (the page still shows them): a tile
#: lying where no tile belongs was left out of the table
ADVISORY = frozenset({"unplaced"})

def _blocking(p, obs: TableObservation, ctx: _Ctx) -> bool:
    """Whether observation problem ``p`` stops the frame from being followed."""
    if p.kind in ADVISORY:
        return False
    if p.kind == "hand_size" and p.position is not None and p.position != ctx.order[ctx.camera]:
        s = obs.seat(p.position)
        return s is None or not tops_only(s.hand, len(s.melds))   # tops of a hidden hand: not counted
    return True


Check = Callable[[_Table, _Target, _Ctx], list[str]]


def _check_rows(t: _Table, g: _Target, ctx: _Ctx) -> list[str]:
    out = []
    for i, (s, v) in enumerate(zip(t.seats, g.seats, strict=True)):
        r, want = s.discards, v.discards
        if want[:len(r)] == r:
            continue
        if r and want[:len(r) - 1] == r[:-1] and want[len(r) - 1:len(r)] != r[-1:]:
            gone = r[-1]
            if not _claimed(t, g, ctx, gone, i) and not _won_with(t, g, ctx, gone):
                out.append(f"The {gone} that {ctx.who(i)} discarded vanished from the discard row, but no new meld "
                           "shows it.")
            continue
        out.append(f"{ctx.who(i)}'s discard row changed: it showed {' '.join(r) or 'nothing'} and now shows "
                   f"{' '.join(want) or 'nothing'}; discards are only added at the end (or the last one called).")
    return out


def _claimed(t: _Table, g: _Target, ctx: _Ctx, tile: str, discarder: int | None = None) -> bool:
    """A new meld shows ``tile`` as its claimed (sideways) tile (from ``discarder`` when given)."""
    return any(m.sideways is not None and m.tiles[m.sideways] == tile
               and (discarder is None or m.source == ctx.back(j, discarder))
               for j, w in enumerate(g.seats) for m in w.melds[len(t.seats[j].melds):])


def _won_with(t: _Table, g: _Target, ctx: _Ctx, tile: str) -> bool:
    """A winner may have taken ``tile`` into its hand: a hand newly face up holds it, or the camera player's
    hand gained it."""
    cam = ctx.camera
    if (Counter(g.seats[cam].hand) - Counter(t.seats[cam].hand))[tile]:
        return True
    return any(tile in g.seats[s].hand for s in _shown(t, g, ctx))


def _check_centre(t: _Table, g: _Target, ctx: _Ctx) -> list[str]:
    gone = Counter(t.centre) - Counter(g.centre)
    return [f"A {c} vanished from the centre discards, but no new meld shows it." for c in gone.elements()
            if not _claimed(t, g, ctx, c) and not _won_with(t, g, ctx, c)]


def _check_melds(t: _Table, g: _Target, ctx: _Ctx) -> list[str]:
    out = []
    for i, (s, v) in enumerate(zip(t.seats, g.seats, strict=True)):
        if len(v.melds) < len(s.melds):
            out.append(f"{ctx.who(i)} showed {len(s.melds)} meld(s) and now shows {len(v.melds)}; a shown meld "
                       "never leaves the table.")
            continue
        for a, b in zip(s.melds, v.melds, strict=False):
            if not _grows(a, b) and not (a.added and a.base == b and _won_with(t, g, ctx, a.added)):
                out.append(f"{ctx.who(i)}'s meld {' '.join(a.tiles)} now reads {' '.join(b.tiles)}; a shown meld "
                           "only grows into a kong or gets its Fei swapped.")
    return out


def _check_areas(t: _Table, g: _Target, ctx: _Ctx) -> list[str]:
    out = []
    for i, (s, v) in enumerate(zip(t.seats, g.seats, strict=True)):
        for name, have, want in (("bonus tiles", s.bonus, v.bonus), ("Norths", s.norths, v.norths)):
            if want[:len(have)] != have:
                out.append(f"{ctx.who(i)}'s {name} were {' '.join(have)} and are now {' '.join(want) or 'none'}; "
                           "tiles set aside stay there.")
    if g.dora[:len(t.dora)] != t.dora:
        out.append(f"The dora indicators were {' '.join(t.dora)} and are now {' '.join(g.dora) or 'none'}; "
                   "indicators stay turned over.")
    return out


def _check_camera(t: _Table | None, g: _Target, ctx: _Ctx) -> list[str]:
    v = g.seats[ctx.camera]
    if v.state in ("backs", "mixed") or "bk" in v.hand:
        return [f"The camera player's hand ({ctx.who(ctx.camera)}) is not seen face up."]
    size = len(v.hand) + 3 * len(v.melds)
    if size not in (13, 14):
        short = "short" if size < 13 else "too many"
        return [f"The camera player's hand counts {size} tiles ({len(v.hand)} in hand, {len(v.melds)} meld(s)): "
                f"{abs(13 - size) if size < 13 else size - 14} tile(s) {short}; a tile is missed or misplaced."]
    return []


def _check_hidden(t: _Table | None, g: _Target, ctx: _Ctx) -> list[str]:
    """A hidden hand partly face up is being laid down (wait for the rest); a few faces among mostly backs
    are the tops of standing tiles read as faces, which change nothing (the hand stays hidden)."""
    return [f"{ctx.who(i)}'s hand is seen partly face up." for i, v in enumerate(g.seats)
            if i != ctx.camera and v.state == "mixed" and not mostly_backs(v.hand)]


#: checks of a new observation against the last accepted table
CHECKS: tuple[Check, ...] = (_check_camera, _check_hidden, _check_rows, _check_centre, _check_melds, _check_areas)


# --------------------------------------------------------------------------- the inferrer


@dataclass
class EventProblem:
    frame: int
    kind: str
    message: str

    def to_json(self) -> dict:
        return {"frame": self.frame, "kind": self.kind, "message": self.message}


@dataclass
class EventInferrer:
    """Events of one hand from successive stable observations (see the module docstring).

    ``camera``: the camera player's table position; ``dealer``: the dealer's (East's) position; ``positions``:
    the occupied positions (default: the first observation's seats). Seats of the events are dealer-relative."""

    variant: Any
    players: int | None = None
    camera: int = 0
    dealer: int = 0
    positions: Sequence[int] | None = None
    max_nodes: int = 20000
    #: the table options the game is played with (the settings page's), given to each deal
    options: dict[str, Any] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    problems: list[EventProblem] = field(default_factory=list)
    frames: int = 0
    #: (frame, read before, read now): tiles of the camera player's hand whose earlier reading was corrected
    #: (a user's correction, or the tile read otherwise when it moved); :attr:`events` is rewritten for each
    rereads: list[tuple[int, str, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        from assistant.variants import get_variant

        v = get_variant(self.variant) if isinstance(self.variant, str) else self.variant
        self.variant = v
        self.players = self.players or v.players
        self._ctx: _Ctx | None = None
        self._table: _Table | None = None

    @property
    def over(self) -> bool:
        return self._table is not None and self._table.phase == "over"

    @property
    def camera_seat(self) -> int | None:
        """The engine seat (dealer-relative) of the camera's player, once the seating is known."""
        return self._ctx.camera if self._ctx is not None else None

    def _context(self, obs: TableObservation) -> _Ctx:
        if self._ctx is None:
            ring = sorted(self.positions if self.positions is not None else (s.position for s in obs.seats))
            k = ring.index(self.dealer)
            order = tuple(ring[k:] + ring[:k])
            v = self.variant
            self._ctx = _Ctx(v, len(order), order.index(self.camera), order, v.name == "hong-kong",
                             "riichi" in v.calls, bool(v.has_jokers), "kita" in v.calls)
        return self._ctx

    def _problem(self, kind: str, message: str) -> list[Event]:
        self.problems.append(EventProblem(self.frames, kind, message))
        return []

    def feed(self, observation: TableObservation | dict) -> list[Event]:
        """The events that lead to ``observation`` from the last accepted table (empty when nothing changed
        or when the observation is impossible: see :attr:`problems`)."""
        obs = TableObservation.from_dict(observation) if isinstance(observation, dict) else observation
        self.frames += 1
        ctx = self._context(obs)
        if sorted(s.position for s in obs.seats) != sorted(ctx.order):
            return self._problem("seats", f"The observation shows positions {sorted(s.position for s in obs.seats)}, "
                                          f"not the players' {sorted(ctx.order)}.")
        reported = obs.problems or _check_observation(obs, self.variant)
        reported = [p for p in reported if _blocking(p, obs, ctx)]
        if reported:
            return self._problem("observation", " ".join(p.message for p in reported))
        g = _target(obs, ctx)
        if self._table is None or (self.over and _fresh(g)):
            return self._deal(g, ctx)
        if self.over:
            return []
        found = [m for check in CHECKS for m in check(self._table, g, ctx)]
        if found:
            return self._problem("impossible", " ".join(found))
        path = explain(self._table, g, ctx, self.max_nodes)
        if path is None:
            fixed = reread(self._table, g, ctx, self.max_nodes)
            if fixed is None:
                return self._problem("unexplained", f"No moves in turn order explain what changed "
                                                    f"({_describe(self._table, g, ctx)}); the frame is skipped.")
            table, (was, now), path = fixed
            if not self._rewrite(ctx.camera, was, now):
                return self._problem("unexplained", f"Your {was} seems to be a {now}, but no draw or deal in "
                                                    "the log brought it into the hand; the frame is skipped.")
            self._table = table
        new = [e for events, _ in path for e in events]
        if path:
            self._table = path[-1][1]
        self.events += new
        return new

    def _rewrite(self, seat: int, was: str, now: str) -> bool:
        """The camera player's ``was`` was ``now`` all along: the event that brought it into the hand (its
        latest draw of ``was``, else the deal) is corrected and :attr:`rereads` records it; False (nothing
        changed) when no such event exists."""
        for k in range(len(self.events) - 1, -1, -1):
            ev = self.events[k]
            if ev.type in ("draw", "replacement_draw") and ev.seat == seat and ev.tile.code == was:
                self.events[k] = replace(ev, tile=Tile.from_code(now))
                break
            if ev.type == "deal":
                main, _, bonus = ev.hands[seat].partition("|")
                codes = [t.code for t in parse_tiles(main)]
                if was not in codes:
                    return False
                codes[codes.index(was)] = now
                hands = list(ev.hands)
                hands[seat] = hand_text(codes, [t.code for t in parse_tiles(bonus)] if bonus.strip() else ())
                self.events[k] = replace(ev, hands=tuple(hands))
                break
        else:
            return False
        self.rereads.append((self.frames, was, now))
        return True

    def _deal(self, g: _Target, ctx: _Ctx) -> list[Event]:
        if not _fresh(g):
            return self._problem("no_deal", "The table already shows discards or melds: waiting for a new deal.")
        found = _check_camera(None, g, ctx) + _check_hidden(None, g, ctx)
        if found:
            return self._problem("impossible", " ".join(found))
        cam = g.seats[ctx.camera]
        hand = cam.hand[:13]     # a 14th tile is the dealer's first draw, inferred below
        hands = tuple(hand_text(hand if i == ctx.camera else ["bk"] * 13, v.bonus) for i, v in enumerate(g.seats))
        deal = Deal(self.variant.name, hands, dora_indicators=" ".join(g.dora), options=dict(self.options))
        seats = tuple(_Seat(hand=_sorted(hand) if i == ctx.camera else (), bonus=v.bonus, norths=v.norths)
                      for i, v in enumerate(g.seats))
        self._table = _Table(seats, g.dora)
        self.events.append(deal)
        out: list[Event] = [deal]
        path = explain(self._table, g, ctx, self.max_nodes) or []
        for events, table in path:
            out += events
            self.events += events
            self._table = table
        return out

    def finish(self) -> list[Event]:
        """The hand is over (the table is being cleared): the camera player's own tsumo, which its always-open
        hand cannot show, else an exhaustive draw with the camera player listed when its hand is ready (ready
        hands laid face up and wins are inferred when the table shows them; a ron winner takes the tile)."""
        t = self._table
        if t is None or t.phase == "over":
            return []
        ctx = self._ctx
        cam = ctx.camera
        s = t.seats[cam]
        v = self.variant
        if t.phase == "own" and t.turn == cam and _complete(s.hand, s.melds, v):
            end: Event = Tsumo(cam)
        else:
            end = ExhaustiveDraw((cam,) if _tenpai(s.hand, s.melds, v) else ())
        self._table = replace(t, phase="over")
        self.events.append(end)
        return [end]

    def log(self) -> list[dict]:
        return [e.to_json() for e in self.events]


def _check_observation(obs: TableObservation, variant) -> list:
    """The reconstruction's own checks (copies, tile kinds, hand sizes ...) for an observation that comes
    without them."""
    from .reconstruct import check

    return check(obs, variant)


def _fresh(g: _Target) -> bool:
    return not g.centre and all(not v.discards and not v.melds for v in g.seats)


def _notation(m: _Meld) -> str:
    from assistant.hand import make_meld

    tiles = [Tile.from_code(c) for c in m.tiles]
    stands = [Tile.from_code(c) for c in m.stands] if len(m.stands) == len(m.tiles) else None
    return make_meld(tiles, stands, source=m.source).format()


def _engine_meld(m: _Meld):
    from assistant.hand import make_meld

    if m.concealed:
        face = _plain(next(c for c in m.tiles if c != "bk"))
        return make_meld([Tile.from_code(face)] * 4, concealed=True)
    tiles = [Tile.from_code(c) for c in m.tiles]
    stands = [Tile.from_code(c) for c in m.stands] if len(m.stands) == len(m.tiles) else list(tiles)
    if m.added:
        tiles.append(Tile.from_code(m.added))
        stands.append(Tile.from_code(_plain(m.added)))
    return make_meld(tiles, stands, added=bool(m.added), source=m.source)


def _describe(t: _Table, g: _Target, ctx: _Ctx) -> str:
    """What changed, in the words of :func:`vision.live.describe_change`."""
    def as_dict(seats, hands, dora, centre) -> dict:
        return {"seats": [{"position": ctx.order[i], "discards": list(s.discards), "hand": list(hands[i]),
                           "melds": [{"notation": "", "tiles": list(m.tiles)} for m in s.melds],
                           "bonus": list(s.bonus), "norths": list(s.norths)} for i, s in enumerate(seats)],
                "dora_indicators": list(dora), "centre_discards": list(centre)}
    try:
        from .observation import describe_change

        before = as_dict(t.seats, [s.hand for s in t.seats], t.dora, t.centre)
        after = as_dict(g.seats, [v.hand if i == ctx.camera else () for i, v in enumerate(g.seats)], g.dora, g.centre)
        return describe_change(before, after) or "nothing readable"
    except Exception:   # the words are a courtesy; never let them hide the problem
        return "the table changed"


def compare_logs(inferred: Sequence[Event], expected: Sequence[Event]) -> tuple[int, str]:
    """(expected events matched in order, the first difference in words or "")."""
    import json
    from difflib import SequenceMatcher

    sm = SequenceMatcher(None, list(inferred), list(expected), autojunk=False)
    matched = sum(b.size for b in sm.get_matching_blocks())
    first = ""
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op != "equal":
            got = ", ".join(json.dumps(e.to_json()) for e in inferred[i1:i2][:2]) or "nothing"
            want = ", ".join(json.dumps(e.to_json()) for e in expected[j1:j2][:2]) or "nothing"
            first = f"at event {j1}: inferred {got}; the script has {want}"
            break
    return matched, first


class TableGame:
    """The engine's view of the hand a camera watches: stable observations -> inferred events -> the play state.

    ``feed`` returns the table state JSON (``assistant.table`` schema, hidden hands as ``bk``) after applying
    the events inferred from the observation; an event the engine refuses is reported in :attr:`problems`
    and the last good state is kept (nothing recorded is lost)."""

    def __init__(self, variant: str, camera: int = 0, dealer: int = 0, positions: Sequence[int] | None = None,
                 options: dict[str, Any] | None = None) -> None:
        self.variant = variant
        self.inferrer = EventInferrer(variant, camera=camera, dealer=dealer, positions=positions,
                                      options=dict(options or {}))
        self.state = None            # the PlayState after the last applied event
        self.problems: list[str] = []
        self.last_events: list[Event] = []
        self.start = None            # the state before last_events
        # at a win: {seat, tile, tsumo, discarder} and the state just before it (what the page scores)
        self.win: dict | None = None
        self._before_win = None
        self.hand: list[Event] = []          # the events applied in the hand now followed, its deal first
        self.earlier_hands: list[list[Event]] = []  # hands followed before it, oldest first

    def hand_logs(self) -> list:
        """Every hand followed so far as :class:`assistant.play.HandLog` (the current one last; a hand whose
        deal the camera did not see is left out)."""
        from assistant.play import HandLog

        return [HandLog(self.variant, list(h)) for h in self.earlier_hands + [self.hand]
                if h and isinstance(h[0], Deal)]

    def feed(self, observation: TableObservation | dict) -> dict | None:
        from assistant.play import IllegalEvent, apply

        before, rereads = len(self.inferrer.problems), len(self.inferrer.rereads)
        events = self.inferrer.feed(observation)
        self.problems = [p.message for p in self.inferrer.problems[before:]]
        if len(self.inferrer.rereads) > rereads:
            # an earlier reading of the camera player's hand was corrected: the hand is replayed from its deal
            events = list(self.inferrer.events)
            self.state, self.win, self._before_win = None, None, None
            self.hand = []
            self.problems += [f"Your {was} is read as {now} now: the hand is replayed with it."
                              for _, was, now in self.inferrer.rereads[rereads:]]
        applied = []
        self.start = self.state          # the state the applied events start from (their words need it)
        for ev in events:
            if isinstance(ev, Deal):
                self.state, self.win, self._before_win = None, None, None
                if self.hand and isinstance(self.hand[0], Deal):
                    self.earlier_hands.append(self.hand)
                self.hand = []
            if ev.type in ("ron", "tsumo") and self.state is not None and self.win is None:
                self.win, self._before_win = self._win_of(ev), self.state
            try:
                self.state = apply(self.state, ev)
            except IllegalEvent as e:
                self.problems.append(f"The engine refused the inferred {ev.type} ({e}); the table state is kept.")
                break
            applied.append(ev)
            self.hand.append(ev)
        self.last_events = applied
        return self.state_json()

    def describe(self, limit: int = 3) -> str:
        """The last applied events in players' words ("West drew a tile"; the camera player's own draws named),
        at most the last ``limit`` of them."""
        from assistant.play import apply
        from assistant.play.words import describe_event

        parts, state = [], self.start
        for ev in self.last_events:
            parts.append(describe_event(ev, state, self.inferrer.camera_seat))
            try:
                state = apply(state, ev)
            except ValueError:
                break
        return "; ".join(parts[-limit:])

    def _win_of(self, ev: Event) -> dict:
        st = self.state
        if ev.type == "ron":
            return {"seat": int(ev.seats[0]), "tile": st.last_tile.code, "tsumo": False, "discarder": int(st.turn)}
        return {"seat": int(ev.seat), "tile": st.drawn_tile.code, "tsumo": True, "discarder": None}

    def state_json(self) -> dict | None:
        """The table state JSON; after a win, the table as it was at the winning moment (:attr:`win`
        scores it: the winning discard still open, or the drawn tile in hand)."""
        state = self._before_win if self.win is not None else self.state
        if state is None:
            return None
        data = state.to_json()
        data.pop("play", None)    # the in-hand bookkeeping is the engine's, not the table schema's
        return data


__all__ = ["CHECKS", "MOVES", "EventInferrer", "EventProblem", "Reveal", "TableGame", "explain", "hand_text", "reread"]
