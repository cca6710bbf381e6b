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

The engine is the only keeper of the rules: the state followed is :class:`assistant.play.PlayState`, and
every event is one :func:`assistant.play.apply` accepted. Vision only proposes: one function per kind of move
(:data:`MOVES`) offers the candidate events that the difference between what the state shows the camera
(:func:`_seen`: called discards gone from their rows, hidden hands as backs ...) and the new observation
suggests, and the engine judges each (whose turn, what a call must contain, copies left, whether a hand wins).
Several moves between two observations (a frame missed) are put in turn order: a small breadth-first search
over the accepted candidates finds the shortest sequence that leads to a state showing the new table. An
impossible change (a discard vanished without a meld, a row or meld that changed, a fifth copy, a hand a tile
short, a tile kind the rule system lacks, nothing in turn order explains it) becomes a problem in plain words
(:attr:`EventInferrer.problems`); nothing is inferred from that observation, and the next consistent one
resumes from the last accepted state.

One bad tile does not stop the hand: a discard, meld, tile set aside or dora indicator already followed keeps
its followed reading when a later frame reads it as another tile (:func:`_settled`), and an observation problem
confined to a part of a seat (a tile that cannot lie in a bonus area, a fifth copy in a row ...) leaves that
part as the state shows it while the rest of the frame is followed (:func:`_patched`); the problem is still
reported. A followed discard read as the same other tile for :data:`DISPUTE_FRAMES` frames in a row (a user's
correction, a better view) takes that reading: its event is rewritten and the engine replays the hand
(:attr:`EventInferrer.corrected`).

A tile of the camera player's hand read wrongly so far is re-read when the table shows what it is (the user's
correction, or its discard): the event that brought it in is corrected, the engine replays the hand, the
change is explained again (:attr:`EventInferrer.rereads`) and :class:`TableGame` follows the replayed hand.

``mahjong-assistant eval-video`` (:mod:`evaluation.video`) measures it on generated videos of whole hands
(:mod:`datasets.hand_video`).
"""

from __future__ import annotations

import math
from collections import Counter, deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

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
    PlayState,
    Pong,
    ReplacementDraw,
    Reveal,
    Ron,
    SinkFei,
    SwapFei,
    Tsumo,
)
from assistant.tiles import Tile, format_tiles, parse_tiles, sort_key

from .observation import TableObservation, mostly_backs, tops_only

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


# --------------------------------------------------------------------------- what the camera sees


@dataclass(frozen=True)
class _Key:
    """A meld as the table shows it, in a form the engine's melds and the camera's read melds share: kind,
    concealed, the physical tiles (sorted; an added kong's tile among them), the added tile, ``@k``."""

    type: str
    concealed: bool
    codes: tuple[str, ...]
    added: str | None = None
    source: int | None = None

    @property
    def base(self) -> _Key:
        """The pong an added kong grew from."""
        if self.added is None:
            return self
        return _Key("pong", False, _minus(self.codes, [self.added]) or (), None, self.source)

    @property
    def text(self) -> str:
        return " ".join(self.codes)


def _key_of(m: Any) -> _Key:
    """The key of an engine meld (:class:`assistant.hand.Meld`)."""
    if m.concealed:
        return _Key("kong", True, (_plain(m.stands_for[0].code),))
    return _Key(m.type, False, _sorted(t.code for t in m.tiles), m.tiles[-1].code if m.added else None, m.source)


@dataclass(frozen=True)
class _Meld:
    """A meld as read from the table (the observation's): the tiles as shown left to right from the owner."""

    type: str                      # chow, pong, kong
    tiles: tuple[str, ...]         # bk for backs
    sideways: int | None
    source: int | None             # @k: seats back in turn order
    added: str | None
    concealed: bool
    stands: tuple[str, ...]

    @property
    def base(self) -> _Meld:
        """The pong an added kong grew from."""
        return replace(self, type="pong", added=None) if self.added else self

    @property
    def key(self) -> _Key:
        if self.concealed:
            faces = [c for c in self.tiles if c != "bk"]
            return _Key("kong", True, (_plain(faces[0]) if faces else "bk",))
        codes = self.tiles + ((self.added,) if self.added else ())
        return _Key(self.type, False, _sorted(codes), self.added, self.source)


@dataclass(frozen=True)
class _View:
    hand: tuple[str, ...]          # sorted faces, or backs
    state: str                     # faces, backs, mixed, unseen
    melds: tuple[_Key, ...]
    discards: tuple[str, ...]
    sideways: int | None
    bonus: tuple[str, ...]
    norths: tuple[str, ...]
    right: str | None = None       # the rightmost hand tile as seen (a freshly drawn tile sits there)
    shown: tuple[_Meld, ...] = ()  # the melds as read (an observation's view only)


@dataclass(frozen=True)
class _Target:
    """What a table shows the camera: an observation's (:func:`_target`) or an engine state's (:func:`_seen`)."""

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
        seat = obs.seat(pos)
        assert seat is not None    # the inferrer checked the positions
        s = seat
        melds = tuple(_Meld(m.type, tuple(m.tiles), m.sideways, m.source, m.added, m.concealed,
                            tuple(m.stands_for or m.tiles)) for m in s.melds)
        hand = tuple(s.hand)
        if pos != ctx.order[ctx.camera] and tops_only(hand, len(s.melds)):
            hand = ("bk",) * len(hand)          # a hidden hand's tops read as faces
            s = replace(s, hand_state="backs")
        state = s.hand_state if s.hand_state in ("faces", "backs", "mixed") else (
            "unseen" if not hand else "backs" if all(c == "bk" for c in hand) else "faces" if "bk" not in hand
            else "mixed")
        views.append(_View(_sorted(hand) if "bk" not in hand else hand, state, tuple(m.key for m in melds),
                           tuple(s.discards), s.riichi, tuple(s.bonus), tuple(s.norths), hand[-1] if hand else None,
                           melds))
    return _Target(tuple(views), tuple(obs.dora_indicators), _sorted(obs.centre_discards))


def _seen(st: PlayState, ctx: _Ctx) -> _Target:
    """What the engine's table state looks like to the camera: called discards gone from their rows (or the
    centre pool), the tile after a called riichi tile lying sideways, hidden hands as backs, Norths apart from
    the other tiles set aside."""
    views: list[_View] = []
    centre: list[str] = []
    for i, s in enumerate(st.seats):
        hand = tuple(t.code for t in s.hand.concealed)
        shown = i == ctx.camera or "bk" not in hand
        row = [j for j, d in enumerate(s.discards) if d.called_by is None]
        codes = tuple(s.discards[j].tile.code for j in row)
        riichi = next((j for j, d in enumerate(s.discards) if d.riichi), None)
        sideways = None if riichi is None else next((n for n, j in enumerate(row) if j >= riichi), None)
        if ctx.hk:
            centre += codes
            codes, sideways = (), None
        aside = tuple(t.code for t in s.hand.bonus)
        views.append(_View(_sorted(hand) if shown else hand, "faces" if shown and hand else "backs",
                           tuple(_key_of(m) for m in s.hand.melds), codes, sideways,
                           tuple(c for c in aside if c != "4z"), tuple(c for c in aside if c == "4z")))
    return _Target(tuple(views), tuple(t.code for t in st.dora_indicators), _sorted(centre))


def _kept(have: Sequence[str], want: Sequence[str]) -> bool:
    """Every tile set aside in ``have`` is still set aside in ``want`` (tiles set aside stay there)."""
    return not Counter(have) - Counter(want)


def _new_aside(have: Sequence[str], want: Sequence[str]) -> list[str]:
    """The tiles newly set aside in ``want`` (the engine's ``have`` in any order), in the order the table
    shows them (left to right: the order they were set aside), or [] when one set aside is gone."""
    if not _kept(have, want):
        return []
    left = Counter(have)
    out = []
    for c in want:
        if left[c]:
            left[c] -= 1
        else:
            out.append(c)
    return out


def _swapped(have: _Key, want: _Key) -> bool:
    """``want`` shows a real tile in place of one of ``have``'s Fei (all else equal)."""
    if (have.type, have.concealed, have.added, have.source) != (want.type, want.concealed, want.added, want.source):
        return False
    gone, new = Counter(have.codes) - Counter(want.codes), Counter(want.codes) - Counter(have.codes)
    return list(gone.elements()) == ["jk"] and sum(new.values()) == 1 and "bk" not in new


def _grows(have: _Key, want: _Key) -> bool:
    return have == want or want.base == have or _swapped(have, want)


# --------------------------------------------------------------------------- moves: candidate events


#: a kind of move: the candidate events (each a short sequence) it proposes from a state towards a target;
#: the engine judges each (:func:`_play`)
Move = Callable[[PlayState, _Target, _Target, _Ctx], Iterator[tuple[Event, ...]]]


def _next_meld(t: _Target, g: _Target, seat: int) -> _Meld | None:
    have, want = t.seats[seat].melds, g.seats[seat].shown
    return want[len(have)] if len(want) > len(have) else None


def _camera_needs(t: _Target, g: _Target, ctx: _Ctx) -> list[str]:
    """Tiles the camera player may have drawn: what its hand gained, what it throws or shows later."""
    s, v = t.seats[ctx.camera], g.seats[ctx.camera]
    need = set((Counter(v.hand) - Counter(s.hand)).elements())
    need.update(v.discards[len(s.discards):] if v.discards[:len(s.discards)] == s.discards else ())
    need.update((Counter(g.centre) - Counter(t.centre)).elements())
    for w, have in zip(g.seats, t.seats, strict=True):
        for m in w.shown[len(have.melds):]:
            need.update(m.tiles)
        for m, h in zip(w.shown, have.melds, strict=False):
            if m.key != h:
                need.update(m.tiles + ((m.added,) if m.added else ()))
    need.update(v.norths[len(s.norths):])
    need.update(c for c in _new_aside(s.bonus, v.bonus) if c == "jk")
    return [c for c in _sorted(need - {"bk"}) if not _is_bonus(c)]


def _owed(st: PlayState) -> bool:
    return st.owed is not None and st.phase in ("turn_start", "kong_window")


def _drawer(st: PlayState, ctx: _Ctx) -> int | None:
    """Who takes the next tile from the wall: the turn seat at its turn start, the next seat after a discard."""
    if st.phase == "turn_start" and st.owed is None:
        return st.turn
    if st.phase == "claim_window":
        return ctx.next(st.turn)
    return None


def _draws(st, t, g, ctx):
    seat = _drawer(st, ctx)
    if seat is not None:
        for code in (_camera_needs(t, g, ctx) if seat == ctx.camera else ["bk"]):
            yield (Draw(seat, code),)


def _replacements(st, t, g, ctx):
    if _owed(st):
        for code in (_camera_needs(t, g, ctx) if st.turn == ctx.camera else ["bk"]):
            yield (ReplacementDraw(st.turn, code),)


def _bonus_draws(st, t, g, ctx):
    seat = st.turn if _owed(st) else _drawer(st, ctx)
    if seat is None:
        return
    new = _new_aside(t.seats[seat].bonus, g.seats[seat].bonus)
    if new and _is_bonus(new[0]):
        yield (BonusTile(seat, new[0]),)


def _discard_candidates(t: _Target, g: _Target, ctx: _Ctx, seat: int) -> list[str]:
    s, v = t.seats[seat], g.seats[seat]
    out: set[str] = set()
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


def _discards(st, t, g, ctx):
    if st.phase != "own_turn":
        return
    seat = st.turn
    s, v = t.seats[seat], g.seats[seat]
    declared = st.seats[seat].in_riichi
    for code in _discard_candidates(t, g, ctx, seat):
        idx = len(s.discards)
        # a new sideways tile at the row's end, not owed by a called riichi tile, declares riichi
        riichi = not ctx.hk and not declared and s.sideways is None and v.sideways == idx \
            and v.discards[idx:idx + 1] == (code,)
        yield (Discard(seat, code, riichi=riichi),)


_CLAIMS = {"chow": Chow, "pong": Pong, "kong": OpenKong}


def _claims(st, t, g, ctx):
    if st.phase != "claim_window" or st.last_tile is None:
        return
    discarder, last = st.turn, st.last_tile.code
    for k in range(1, ctx.players):
        seat = (discarder + k) % ctx.players
        m = _next_meld(t, g, seat)
        if m is None or m.concealed or m.sideways is None or m.source != ctx.back(seat, discarder):
            continue
        if m.tiles[m.sideways] != last:
            continue
        shown = m.base
        used = [c for i, c in enumerate(shown.tiles) if i != shown.sideways]
        if seat == ctx.camera and _minus(t.seats[seat].hand, used) is None:
            continue
        cls = _CLAIMS[shown.type]
        yield (cls(seat, tuple(sorted((Tile.from_code(c) for c in used), key=sort_key)), _notation(shown)),)


def _closed_kongs(st, t, g, ctx):
    if st.phase != "own_turn":
        return
    seat = st.turn
    m = _next_meld(t, g, seat)
    if m is None or not m.concealed:
        return
    face = m.key.codes[0]
    if face == "bk":
        return
    used: tuple[Tile, ...] = ()
    if seat == ctx.camera:
        codes = [c for c in t.seats[seat].hand if _plain(c) == face]
        if len(codes) != 4:
            return
        used = tuple(sorted((Tile.from_code(c) for c in codes), key=sort_key))
    yield (ClosedKong(seat, face, used),)


def _added_kongs(st, t, g, ctx):
    if st.phase != "own_turn":
        return
    seat = st.turn
    for have, want in zip(t.seats[seat].melds, g.seats[seat].melds, strict=False):
        if have.added is None and want.added is not None and want.base == have:
            yield (AddedKong(seat, want.added),)


def _kitas(st, t, g, ctx):
    if st.phase == "own_turn" and ctx.sanma and len(g.seats[st.turn].norths) > len(t.seats[st.turn].norths):
        yield (Kita(st.turn),)


def _sink_feis(st, t, g, ctx):
    if st.phase != "own_turn" or not ctx.jokers:
        return
    new = _new_aside(t.seats[st.turn].bonus, g.seats[st.turn].bonus)
    if new and new[0] == "jk":
        yield (SinkFei(st.turn),)


def _swap_feis(st, t, g, ctx):
    if st.phase != "own_turn" or not ctx.jokers:
        return
    seat = st.turn
    owners = range(ctx.players) if ctx.variant.options.get("swap_from_others", False) else (seat,)
    for owner in owners:
        for i, (have, want) in enumerate(zip(t.seats[owner].melds, g.seats[owner].melds, strict=False)):
            if _swapped(have, want):
                code = next(iter((Counter(want.codes) - Counter(have.codes)).elements()))
                yield (SwapFei(seat, code, owner, i),)


def _new_dora(st, t, g, ctx):
    """A kan dora indicator (the engine judges whether a kong turned one)."""
    if ctx.kan_dora and len(g.dora) > len(t.dora) and g.dora[:len(t.dora)] == t.dora:
        yield (NewDora(g.dora[len(t.dora)]),)


def _complete(hand: Sequence[str], melds: Sequence[Any], variant) -> bool:
    """The concealed tiles ``hand`` with the engine's ``melds`` form a winning hand (shape only: yaku and
    minimums are the scorer's, which judges the win)."""
    from assistant.analysis import is_complete
    from assistant.hand import Hand

    try:
        return is_complete(Hand(tuple(Tile.from_code(c) for c in hand), tuple(melds)), variant)
    except (ValueError, StopIteration):
        return False


def _shown(t: _Target, g: _Target, ctx: _Ctx) -> list[int]:
    """Hidden seats whose hand now lies face up."""
    return [s for s in range(ctx.players) if s != ctx.camera and t.seats[s].state != "faces"
            and g.seats[s].state == "faces" and g.seats[s].hand]


def _size(g: _Target, seat: int) -> int:
    return len(g.seats[seat].hand) + 3 * len(g.seats[seat].melds)


def _robbed(st: PlayState, t: _Target, g: _Target) -> bool:
    """The turn seat's added kong lost its added tile (the open tile): a robbing winner took it."""
    if st.phase != "kong_window" or st.declaration != "added_kong" or st.last_tile is None:
        return False
    return any(have.added == st.last_tile.code and want == have.base
               for have, want in zip(t.seats[st.turn].melds, g.seats[st.turn].melds, strict=False))


def _open_tile_taken(st: PlayState, t: _Target, g: _Target, ctx: _Ctx) -> bool:
    """The open tile left its place without a meld (the discard its row or Hong Kong's pool, an added tile
    its kong): a lone ron winner took it."""
    if st.phase == "kong_window":
        return _robbed(st, t, g)
    if st.phase != "claim_window" or st.last_tile is None:
        return False
    if ctx.hk:
        return list((Counter(t.centre) - Counter(g.centre)).elements()) == [st.last_tile.code]
    row = t.seats[st.turn].discards
    return bool(row) and g.seats[st.turn].discards == row[:-1]


def _melds(st: PlayState, seat: int) -> tuple:
    return st.seats[seat].hand.melds


def _tsumo_end(st, t, g, ctx, shown):
    """The seat holding 14 tiles shows a winning hand (or the camera player, whose hand is always seen, wins
    and the others show theirs: three-kaki)."""
    if st.phase != "own_turn" or any(_size(g, s) != (14 if s == st.turn else 13) for s in shown):
        return None
    x = st.turn
    if x in shown and _complete(g.seats[x].hand, _melds(st, x), ctx.variant):
        return [x], Tsumo(x)
    if x == ctx.camera and shown and _complete(t.seats[x].hand, _melds(st, x), ctx.variant):
        return [], Tsumo(x)
    return None


def _ron_taken_end(st, t, g, ctx, shown):
    """A lone winner took the open discard into its hand (14 tiles shown: 13 + the tile)."""
    if not _open_tile_taken(st, t, g, ctx):
        return None
    last, cam = st.last_tile.code, ctx.camera
    mine = t.seats[cam].hand
    if g.seats[cam].hand == _sorted(mine + (last,)) and _complete(mine + (last,), _melds(st, cam), ctx.variant):
        return ([], Ron((cam,))) if all(_size(g, s) == 13 for s in shown) else None
    winners = [s for s in shown if _size(g, s) == 14 and last in g.seats[s].hand
               and _complete(g.seats[s].hand, _melds(st, s), ctx.variant)]
    if len(winners) != 1 or any(_size(g, s) != 13 for s in shown if s not in winners):
        return None
    return winners, Ron((winners[0],))


def _ron_left_end(st, t, g, ctx, shown):
    """Several winners on one discard (it stays where it lies), or robbing a kong, kita or flower."""
    if st.phase not in ("claim_window", "kong_window") or st.last_tile is None \
            or any(_size(g, s) != 13 for s in shown):
        return None
    last = st.last_tile.code
    winners = sorted((s for s in shown if s != st.turn and _complete(g.seats[s].hand + (last,), _melds(st, s),
                                                                     ctx.variant)),
                     key=lambda s: ctx.back(s, st.turn))
    if len(winners) >= (1 if st.phase == "kong_window" else 2):
        return winners, Ron(tuple(winners))
    return None


def _draw_end(st, t, g, ctx, shown):
    """No win: the ready hands are shown at an exhaustive draw (the camera player's counted when ready)."""
    if st.phase not in ("claim_window", "turn_start") or not shown or any(_size(g, s) != 13 for s in shown):
        return None
    ready = (ctx.camera,) if _ready(st, ctx.camera) else ()
    return [], ExhaustiveDraw(tuple(shown) + ready)


def _ready(st: PlayState, seat: int) -> bool:
    from assistant.play import is_tenpai

    try:
        return is_tenpai(st, seat)
    except ValueError:
        return False


#: how a hand can end on the table, tried in order
ENDINGS = (_tsumo_end, _ron_taken_end, _ron_left_end, _draw_end)


def _endings(st, t, g, ctx):
    """The hand is over: hidden hands laid face up (:data:`ENDINGS`), or the camera player took the open
    discard into its hand. Reveals: winners first, then the other hands in seat order."""
    shown = _shown(t, g, ctx)
    if not shown and not _open_tile_taken(st, t, g, ctx):
        return
    for end in ENDINGS:
        found = end(st, t, g, ctx, shown)
        if found is None:
            continue
        winners, event = found
        events: list[Event] = []
        for s in winners + [s for s in shown if s not in winners]:
            hand = g.seats[s].hand
            if isinstance(event, Ron) and _size(g, s) == 14:
                hand = _minus(hand, [st.last_tile.code]) or ()   # the ron tile it took is not a concealed tile
            drawn = g.seats[s].right if isinstance(event, Tsumo) and s == st.turn else None
            events.append(Reveal(s, hand_text(hand), drawn))
        yield tuple(events) + (event,)


#: every kind of move, in the order ties between equally short explanations are broken
MOVES: tuple[Move, ...] = (_new_dora, _claims, _endings, _bonus_draws, _draws, _replacements, _closed_kongs,
                           _added_kongs, _kitas, _sink_feis, _swap_feis, _discards)


# --------------------------------------------------------------------------- the engine judges, the search matches


def _play(st: PlayState | None, events: Sequence[Event]) -> tuple[PlayState, ...] | None:
    """The states after each of ``events`` as the engine plays them, or None when it refuses one. The camera
    does not count the wall: an exhaustive draw the table shows is judged with the wall taken as empty."""
    from assistant.play import IllegalEvent, apply

    out = []
    try:
        for ev in events:
            if isinstance(ev, ExhaustiveDraw) and st is not None:
                st = replace(st, live_wall=0)
            st = apply(st, ev)
            out.append(st)
    except (IllegalEvent, ValueError):
        return None
    return tuple(out)


def _consistent(st: PlayState, t: _Target, g: _Target, ctx: _Ctx) -> bool:
    """Nothing in the state's view ``t`` that the target rules out (a search branch worth going on with)."""
    for i, (s, v) in enumerate(zip(t.seats, g.seats, strict=True)):
        r, want = s.discards, v.discards
        open_tile = st.phase == "claim_window" and st.turn == i and r
        if want[:len(r)] != r and not (open_tile and want[:len(r) - 1] == r[:-1]):
            return False
        robbed = st.last_tile.code if st.phase == "kong_window" and st.last_tile is not None else None
        if len(s.melds) > len(v.melds) or not all(
                _grows(a, b) or (robbed is not None and a.added == robbed and a.base == b)
                for a, b in zip(s.melds, v.melds, strict=False)):
            return False
        if not _kept(s.bonus, v.bonus) or not _kept(s.norths, v.norths):
            return False
    if g.dora[:len(t.dora)] != t.dora:
        return False
    extra = Counter(t.centre) - Counter(g.centre)
    return not extra or (st.phase == "claim_window" and st.last_tile is not None
                         and list(extra.elements()) == [st.last_tile.code])


def _matches(st: PlayState, t: _Target, g: _Target, ctx: _Ctx) -> bool:
    """The state shows what the target shows. A hand that is over matches once its hands are laid down as
    the target shows them; the winning tile may have left its place (a lone ron winner took it)."""
    over = st.over
    for i, (s, v) in enumerate(zip(t.seats, g.seats, strict=True)):
        rows_ok = s.discards == v.discards or (over and s.discards[:-1] == v.discards)
        melds_ok = s.melds == v.melds or (over and len(s.melds) == len(v.melds) and all(
            a == b or a.base == b for a, b in zip(s.melds, v.melds, strict=True)))
        if not (rows_ok and melds_ok and (_sorted(s.bonus), s.norths) == (_sorted(v.bonus), v.norths)):
            return False
        if not ctx.hk and s.sideways != v.sideways and not over:
            return False
        if i == ctx.camera:
            if s.hand != v.hand and not over:
                return False
        elif v.state == "faces" and s.state != "faces":
            return False
    extra = Counter(t.centre) - Counter(g.centre)
    return t.dora == g.dora and (t.centre == g.centre or (over and sum(extra.values()) == 1
                                                          and Counter(g.centre) - Counter(t.centre) == Counter()))


def _pending(t: _Target, g: _Target) -> int:
    n = len(g.dora) - len(t.dora) + abs(len(g.centre) - len(t.centre))
    for s, v in zip(t.seats, g.seats, strict=True):
        n += abs(len(v.discards) - len(s.discards)) + len(v.melds) - len(s.melds) + len(v.bonus) - len(s.bonus)
        n += len(v.norths) - len(s.norths) + sum(a != b for a, b in zip(s.melds, v.melds, strict=False))
        n += v.state == "faces" and s.state != "faces"
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


def _public(codes: Counter, t: _Target) -> Counter:
    for v in t.seats:
        codes.update(v.discards)
        codes.update(v.bonus)
        codes.update(v.norths)
        for m in v.melds:
            codes.update(m.codes)
    codes.update(t.centre)
    return codes


def explain(st: PlayState, g: _Target, ctx: _Ctx, max_nodes: int = 3000
            ) -> list[tuple[tuple[Event, ...], tuple[PlayState, ...]]] | None:
    """The shortest sequence of moves the engine accepts from ``st`` to a state that shows ``g`` (breadth
    first, moves tried in :data:`MOVES` order, ties broken by :data:`PREFERENCES`): [(events, the state after
    each)],
    [] when nothing changed, None when nothing explains it. ``max_nodes`` bounds the states judged."""
    t0 = _seen(st, ctx)
    if _matches(st, t0, g, ctx):
        return []
    depth = 4 + 3 * _pending(t0, g)
    queue: deque = deque([(st, t0, ())])
    seen = {st}
    found: list = []
    judged = 0
    while queue and judged < max_nodes:
        state, view, path = queue.popleft()
        if len(path) >= depth or state.over or (found and len(path) >= len(found[0])):
            continue
        for move in MOVES:
            for events in move(state, view, g, ctx):
                judged += 1
                states = _play(state, events)
                if states is None:
                    continue
                nxt = states[-1]
                step = path + ((events, states),)
                nview = _seen(nxt, ctx)
                if _matches(nxt, nview, g, ctx):
                    found.append(step)      # every shortest explanation, even of the same table
                elif nxt not in seen and _consistent(nxt, nview, g, ctx):
                    seen.add(nxt)
                    queue.append((nxt, nview, step))
    if not found:
        return None
    return list(min(found, key=lambda p: tuple(pref(p, g, ctx) for pref in PREFERENCES)))


# --------------------------------------------------------------------------- one bad tile does not stop the hand


def _row_disputes(t: _Target, g: _Target, ctx: _Ctx) -> set[tuple[int, int, str]]:
    """(seat, place in its row, the tile read there now) where a seat's followed row, not shorter, is read with
    exactly one tile otherwise before its latest discard (more than one: a tile missed or a row misplaced,
    which shifts the rest, not a misreading)."""
    if ctx.hk:
        return set()
    out = set()
    for i, (s, v) in enumerate(zip(t.seats, g.seats, strict=True)):
        differ = [(j, b) for j, (a, b) in enumerate(zip(s.discards, v.discards, strict=False)) if a != b]
        # the latest discard read otherwise may have been called and another thrown: not a misreading
        if len(differ) == 1 and differ[0][1] != "bk" and differ[0][0] < len(s.discards) - 1 \
                and len(v.discards) >= len(s.discards):
            out.add((i, *differ[0]))
    return out


def _with_discard(events: Sequence[Event], start: int, state: PlayState, seat: int, place: int,
                  now: str) -> list[Event] | None:
    """``events`` (the hand's deal at ``start``) with the discard at ``place`` of ``seat``'s visible row (in
    ``state``, the state after them) read as ``now``, or None when no discard event is found for it."""
    row = [k for k, d in enumerate(state.seats[seat].discards) if d.called_by is None]
    if place >= len(row):
        return None
    nth = row[place]            # the seat's nth discard of the hand
    seen = -1
    out = list(events)
    for k in range(start, len(out)):
        ev = out[k]
        if isinstance(ev, Discard) and ev.seat == seat:
            seen += 1
            if seen == nth:
                out[k] = replace(ev, tile=Tile.from_code(now))
                return out
    return None


#: the least probability of a classifier's alternative reading that the follower tries
ALTERNATIVE_FLOOR = 0.05
#: alternative readings tried for one frame at most (likeliest first)
ALTERNATIVES_TRIED = 8
#: an alternative at least a third as likely as the reading (log ratio below this) is tried before the camera
#: player's hand is re-read (a doubtful discard of a tile read surely while it was in the hand), a less likely
#: one after
ALTERNATIVE_CLOSE = math.log(3.0)


def _alternative_targets(obs: TableObservation, t: _Target, g: _Target, ctx: _Ctx
                         ) -> list[tuple[float, _Target, tuple[int, str, str, str]]]:
    """The target with one newly seen tile (a new discard, a tile new in the camera player's hand, a new dora
    indicator or centre discard) read as one of its classifier's top-3 alternatives (probability at least
    :data:`ALTERNATIVE_FLOOR`, a kind the rule system has): [(how much less likely: log ratio, target, (seat,
    part, read, now))], likeliest first. The engine then judges which reading the game allows (a discard
    comes out of the known hand, copies left in the set ...)."""
    from .reconstruct import in_set

    out = []
    for a in obs.assignments:
        top, code, part, pos = a.get("top3") or [], str(a.get("code")), str(a.get("part")), a.get("position")
        if not top or part not in ("discard", "hand", "dora", "centre"):
            continue
        i = ctx.order.index(pos) if pos in ctx.order else None
        read_p = next((q for c, q in top if c == code), a.get("confidence", 1.0))
        for alt, q in top:
            if alt == code or q < ALTERNATIVE_FLOOR or alt in ("bk", "none") or not in_set(alt, ctx.variant) \
                    or _is_bonus(alt):
                continue
            new: _Target | None = None
            if part == "discard" and i is not None:
                s, v, at = t.seats[i], g.seats[i], a.get("at")
                if isinstance(at, int) and len(s.discards) <= at < len(v.discards) and v.discards[at] == code:
                    seats = list(g.seats)
                    seats[i] = replace(v, discards=v.discards[:at] + (alt,) + v.discards[at + 1:])
                    new = replace(g, seats=tuple(seats))
            elif part == "hand" and i == ctx.camera:
                s, v = t.seats[i], g.seats[i]
                if (Counter(v.hand) - Counter(s.hand))[code]:
                    hand = list(v.hand)
                    hand.remove(code)
                    seats = list(g.seats)
                    seats[i] = replace(v, hand=_sorted(hand + [alt]), right=alt if v.right == code else v.right)
                    new = replace(g, seats=tuple(seats))
            elif part == "dora":
                at = a.get("at")
                if isinstance(at, int) and len(t.dora) <= at < len(g.dora) and g.dora[at] == code:
                    new = replace(g, dora=g.dora[:at] + (alt,) + g.dora[at + 1:])
            elif part == "centre" and (Counter(g.centre) - Counter(t.centre))[code]:
                centre = list(g.centre)
                centre.remove(code)
                new = replace(g, centre=_sorted(centre + [alt]))
            if new is not None:
                cost = math.log(max(read_p, 1e-6) / max(q, 1e-6))
                out.append((cost, new, (-1 if i is None else i, part, code, alt)))
    out.sort(key=lambda o: o[0])
    return out[:ALTERNATIVES_TRIED]


#: a seat's meld area must show at least this many tiles more than its followed melds for a call to be taken
#: from the discard it took when the new meld itself cannot be read (a far tile is often missed too)
CALL_TILES_SEEN = 2
#: the least top-3 probability of a kind a new meld's tiles read for it to be tried as the tile a call took
#: when that discard was never seen
MELD_CALL_FLOOR = 0.02
#: a table with no discards after a played one is the next deal when, in two frames in a row, the camera
#: player's hand shows at least this many tiles it did not hold (one frame that misses every row is no deal)
NEW_DEAL_TILES = 4


def _call_targets(obs: TableObservation, st: PlayState, t: _Target, g: _Target, ctx: _Ctx
                  ) -> list[tuple[_Target, tuple[int, str, str, str]]]:
    """When the discard just followed vanished (from its row, or the centre pool) and no readable meld shows
    it, but a seat's meld area shows new tiles that make no meld (a far pong misread, one of its tiles
    missed): the melds that call could have made of that discard (pong, chow where the rules have it, an open
    kong when four tiles show), best fitting the new tiles' top-3 readings first, as targets: [(target, (seat,
    "call", the tiles as read, the meld))]. The engine judges which call is legal."""
    from .reconstruct import in_set

    d = st.turn
    gone: str | None = None
    unmoved = g.seats[d].discards == t.seats[d].discards and (not ctx.hk or Counter(g.centre) == Counter(t.centre))
    if st.phase == "claim_window" and st.last_tile is not None and unmoved:
        d = ctx.next(d)     # nobody took the discard: the next seat drew and threw a tile called at once
        if g.seats[d].discards != t.seats[d].discards:
            return []
    elif st.phase == "claim_window" and st.last_tile is not None:
        gone = st.last_tile.code
        if ctx.hk:
            if Counter(t.centre) - Counter(g.centre) != Counter([gone]):
                return []
        elif g.seats[d].discards != t.seats[d].discards[:-1]:
            return []
    elif st.phase in ("turn_start", "own_turn"):
        # the seat to move discarded unseen and the tile was called at once: which tile, the new meld's
        # readings say (pongs and kongs of them; the moves add the draw and the discard)
        if g.seats[d].discards != t.seats[d].discards or (ctx.hk and Counter(g.centre) != Counter(t.centre)):
            return []
    else:
        return []
    out = []
    for j in range(ctx.players):
        if j == d or len(g.seats[j].shown) > len(t.seats[j].melds) or len(g.seats[j].melds) > len(t.seats[j].melds):
            continue   # a meld read there: the checks and the moves judge it
        raw = [a for a in obs.assignments if a.get("part") == "meld" and a.get("position") == ctx.order[j]]
        fresh = len(raw) - sum(len(k.codes) for k in t.seats[j].melds)
        if fresh < CALL_TILES_SEEN:
            continue
        # the tiles of the melds not yet followed (all of them where the groups are cut otherwise)
        raw = [a for a in raw if isinstance(a.get("at"), (list, tuple)) and a["at"]
               and a["at"][0] >= len(t.seats[j].melds)] or raw
        probs = [{str(c): float(q) for c, q in (a.get("top3") or [[a.get("code"), 1.0]])} for a in raw]
        if gone is None:     # the kinds the new tiles' readings favour
            seen: Counter[str] = Counter()
            for p in probs:
                seen.update({c: q for c, q in p.items() if q >= MELD_CALL_FLOOR and c not in ("bk", "none", "jk")
                             and not _is_bonus(c) and in_set(c, ctx.variant)})
            taken = [c for c, _ in seen.most_common(3)]
        else:
            taken = [gone]
        # (kind, the claimed tile first): pongs, a chow from the left where the rules have them, kongs
        shapes: list[tuple[str, tuple[str, ...]]] = [("pong", (c,) * 3) for c in taken]
        if gone is not None and "chow" in ctx.variant.calls and j == ctx.next(d) and gone[1] in "mps":
            n = int(_plain(gone)[0])
            shapes += [("chow", (gone, *(f"{k}{gone[1]}" for k in range(lo, lo + 3) if k != n)))
                       for lo in (n - 2, n - 1, n) if 1 <= lo and lo + 2 <= 9]
        if fresh >= 4:
            shapes += [("kong", (c,) * 4) for c in taken]
        read = " ".join(str(a.get("code")) for a in raw)

        def fit(codes: tuple[str, ...], probs=probs) -> float:
            return sum(max(p.get(c, 0.0) for c in set(codes)) for p in probs)

        for kind, codes in sorted(shapes, key=lambda x: -fit(x[1])):
            meld = _Meld(kind, codes, 0, ctx.back(j, d), None, False, codes)
            seats = list(g.seats)
            seats[j] = replace(g.seats[j], melds=t.seats[j].melds + (meld.key,), shown=g.seats[j].shown + (meld,))
            out.append((replace(g, seats=tuple(seats)), (j, "call", read, " ".join(_sorted(codes)))))
    return out


def _claimed_instead(events: Sequence[Event], t: _Target, g: _Target, ctx: _Ctx) -> tuple[int, str, str] | None:
    """When the latest event is a discard and a new meld claims another tile from its seat where it lay: the
    call shows what the discard was (read wrongly). Returns (the discard's index in ``events``, read, now)."""
    if not events or not isinstance(events[-1], Discard):
        return None
    ev = events[-1]
    d, was = ev.seat, ev.tile.code
    if ctx.hk:
        if Counter(t.centre) - Counter(g.centre) != Counter([was]):
            return None
    else:
        r = t.seats[d].discards
        if not r or r[-1] != was or g.seats[d].discards != r[:-1]:
            return None
    for j, w in enumerate(g.seats):
        for m in w.shown[len(t.seats[j].melds):]:
            if m.sideways is not None and not m.concealed and m.source == ctx.back(j, d):
                now = m.tiles[m.sideways]
                return (len(events) - 1, was, now) if now != was else None
    return None


#: frames in a row a followed discard must be read as the same other tile before the log takes that reading
#: (a user's correction, or a better view): fewer is one frame's misreading, which the followed reading outlasts
DISPUTE_FRAMES = 3


def _missed_at(have: Sequence[str], want: Sequence[str]) -> int | None:
    """The place of the one followed discard that row ``want`` lacks, the rest in order (new discards may
    follow): a tile the detector missed (white dragons on pale cloth above all); None when the row does not
    read so. Not the latest followed discard: that one may have been called."""
    n = len(have)
    if n < 2 or len(want) < n - 1 or list(want[:n]) == list(have) or list(want[:n - 1]) == list(have[:n - 1]):
        return None      # ... or the row reads as the latest discard gone (two alike before it: 9p 9p)
    for i in range(n - 1):
        if list(want[:i]) == list(have[:i]) and list(want[i:n - 1]) == list(have[i + 1:]):
            return i
    return None


def _inserted(v: _View, place: int, code: str) -> _View:
    """The view with ``code`` put back into its discard row at ``place`` (the sideways tile's index kept on
    its tile)."""
    side = v.sideways + 1 if v.sideways is not None and v.sideways >= place else v.sideways
    return replace(v, discards=v.discards[:place] + (code,) + v.discards[place:], sideways=side)


def _settled(t: _Target, g: _Target, ctx: _Ctx, unseen: dict[tuple[int, int], str] | None = None) -> _Target:
    """The target with readings the followed state already accepted kept: a discard (and which one lies
    sideways), a meld, a tile set aside or a dora indicator already followed that the new frame reads otherwise
    keeps its followed reading (the camera player's hand is re-read instead: :meth:`EventInferrer._reread`)."""
    seats = []
    for i, (s, v) in enumerate(zip(t.seats, g.seats, strict=True)):
        for (seat, place), code in sorted((unseen or {}).items()):   # discards followed though never seen
            if seat == i and place < len(s.discards) and v.discards[place:place + 1] != (code,) \
                    and v.discards[:place] == s.discards[:place]:
                v = _inserted(v, place, code)
        missed = _missed_at(s.discards, v.discards)
        if missed is not None:    # a followed discard missed by the detector (a blank white dragon): kept
            v = _inserted(v, missed, s.discards[missed])
        changes: dict[str, Any] = {}
        n = min(len(s.discards), len(v.discards))
        if v.discards[:n] != s.discards[:n]:
            changes["discards"] = s.discards[:n] + v.discards[n:]
        if not ctx.hk and v.sideways != s.sideways and (v.sideways is None or v.sideways < len(s.discards)):
            changes["sideways"] = s.sideways   # which tile of the followed row lies sideways is settled too
        melds = list(v.melds)
        for j, (a, b) in enumerate(zip(s.melds, v.melds, strict=False)):
            if not _grows(a, b) and a.type == b.type and len(a.codes) == len(b.codes):
                melds[j] = a
        if melds != list(v.melds):
            changes["melds"] = tuple(melds)
        if not _kept(s.bonus, v.bonus) and len(v.bonus) >= len(s.bonus):
            changes["bonus"] = _sorted(s.bonus) + tuple(v.bonus[len(s.bonus):])
        seats.append(replace(v, **changes) if changes else v)
    dora = g.dora
    n = min(len(t.dora), len(dora))
    if dora[:n] != t.dora[:n]:
        dora = t.dora[:n] + dora[n:]
    return replace(g, seats=tuple(seats), dora=dora)


#: observation problems the frame can be followed around: the part of the seat they are in is left as the
#: followed state shows it (pending) while the rest of the frame is followed
_PART_OF = {"bad_discard": "discards", "riichi": "sideways", "norths": "aside", "bad_source": "melds",
            "bad_meld": None, "too_many_copies": None, "not_in_set": None, "too_many_red": None}


def _patched(t: _Target, g: _Target, problems: Sequence, ctx: _Ctx) -> _Target | None:
    """The target with the parts that ``problems`` touch taken from the followed state (``t``), so that the
    rest of the frame can be followed (a copy too many is left out where it newly shows outside the camera
    player's hand); None when a problem touches only what cannot be left pending (the camera player's hand,
    no place)."""
    seats = list(g.seats)
    dora = g.dora
    for p in problems:
        tiles = set(getattr(p, "tiles", []) or [])
        if p.kind not in _PART_OF:
            return None
        if p.position is not None:
            i = ctx.order.index(p.position) if p.position in ctx.order else None
            if i is None:
                return None
            aside = tiles and tiles <= set(g.seats[i].bonus + g.seats[i].norths)
            where = [(i, _PART_OF[p.kind] or ("aside" if aside else "melds"))]
        else:   # a tile kind or a copy count: every part where the tile newly shows
            plain = {_plain(c) for c in tiles}

            def new(have, want, plain=plain) -> bool:
                return any(_plain(c) in plain for c in (Counter(want) - Counter(have)).elements())

            where = []
            for i, (s, v) in enumerate(zip(t.seats, g.seats, strict=True)):
                if new(s.discards, v.discards):
                    where.append((i, "discards"))
                if new([c for m in s.melds for c in m.codes], [c for m in v.melds for c in m.codes]):
                    where.append((i, "melds"))
                if new(s.bonus + s.norths, v.bonus + v.norths):
                    where.append((i, "aside"))
            if new(t.dora, g.dora):
                dora = t.dora
            if not where and dora == g.dora:
                return None
        for i, part in where:
            s, v = t.seats[i], seats[i]
            if part == "discards":
                seats[i] = replace(v, discards=s.discards, sideways=s.sideways)
            elif part == "sideways":
                seats[i] = replace(v, sideways=s.sideways)
            elif part == "melds":   # tiles set aside that a bad group took in stay set aside
                kept: dict[str, Any] = {} if _kept(s.bonus, v.bonus) and _kept(s.norths, v.norths) else \
                    {"bonus": s.bonus, "norths": s.norths}
                seats[i] = replace(v, melds=s.melds, shown=v.shown[:len(s.melds)], **kept)
            else:
                seats[i] = replace(v, bonus=s.bonus, norths=s.norths)
    return replace(g, seats=tuple(seats), dora=dora)


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


#: a check of a new observation ``g`` against what the followed state shows (``t``: :func:`_seen`)
Check = Callable[[_Target, _Target, _Ctx], list[str]]


def _check_rows(t: _Target, g: _Target, ctx: _Ctx) -> list[str]:
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


def _claimed(t: _Target, g: _Target, ctx: _Ctx, tile: str, discarder: int | None = None) -> bool:
    """A new meld shows ``tile`` as its claimed (sideways) tile (from ``discarder`` when given)."""
    return any(m.sideways is not None and m.tiles[m.sideways] == tile
               and (discarder is None or m.source == ctx.back(j, discarder))
               for j, w in enumerate(g.seats) for m in w.shown[len(t.seats[j].melds):])


def _won_with(t: _Target, g: _Target, ctx: _Ctx, tile: str) -> bool:
    """A winner may have taken ``tile`` into its hand: a hand newly face up holds it, or the camera player's
    hand gained it."""
    cam = ctx.camera
    if (Counter(g.seats[cam].hand) - Counter(t.seats[cam].hand))[tile]:
        return True
    return any(tile in g.seats[s].hand for s in _shown(t, g, ctx))


def _check_centre(t: _Target, g: _Target, ctx: _Ctx) -> list[str]:
    gone = Counter(t.centre) - Counter(g.centre)
    return [f"A {c} vanished from the centre discards, but no new meld shows it." for c in gone.elements()
            if not _claimed(t, g, ctx, c) and not _won_with(t, g, ctx, c)]


def _check_melds(t: _Target, g: _Target, ctx: _Ctx) -> list[str]:
    out = []
    for i, (s, v) in enumerate(zip(t.seats, g.seats, strict=True)):
        if len(v.melds) < len(s.melds):
            out.append(f"{ctx.who(i)} showed {len(s.melds)} meld(s) and now shows {len(v.melds)}; a shown meld "
                       "never leaves the table.")
            continue
        for a, b in zip(s.melds, v.melds, strict=False):
            if not _grows(a, b) and not (a.added and a.base == b and _won_with(t, g, ctx, a.added)):
                out.append(f"{ctx.who(i)}'s meld {a.text} now reads {b.text}; a shown meld "
                           "only grows into a kong or gets its Fei swapped.")
    return out


def _check_areas(t: _Target, g: _Target, ctx: _Ctx) -> list[str]:
    out = []
    for i, (s, v) in enumerate(zip(t.seats, g.seats, strict=True)):
        for name, have, want in (("bonus tiles", s.bonus, v.bonus), ("Norths", s.norths, v.norths)):
            if not _kept(have, want):
                out.append(f"{ctx.who(i)}'s {name} were {' '.join(have)} and are now {' '.join(want) or 'none'}; "
                           "tiles set aside stay there.")
    if g.dora[:len(t.dora)] != t.dora:
        out.append(f"The dora indicators were {' '.join(t.dora)} and are now {' '.join(g.dora) or 'none'}; "
                   "indicators stay turned over.")
    return out


def _check_camera(t: _Target | None, g: _Target, ctx: _Ctx) -> list[str]:
    v = g.seats[ctx.camera]
    if v.state in ("backs", "mixed") or "bk" in v.hand:
        return [f"The camera player's hand ({ctx.who(ctx.camera)}) is not seen face up."]
    size = len(v.hand) + 3 * len(v.melds)
    if size not in (13, 14):
        short = "short" if size < 13 else "too many"
        return [f"The camera player's hand counts {size} tiles ({len(v.hand)} in hand, {len(v.melds)} meld(s)): "
                f"{abs(13 - size) if size < 13 else size - 14} tile(s) {short}; a tile is missed or misplaced."]
    return []


def _check_hidden(t: _Target | None, g: _Target, ctx: _Ctx) -> list[str]:
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
    the occupied positions (default: the first observation's seats). Seats of the events are dealer-relative.
    The engine (:func:`assistant.play.apply`) plays every inferred event: :attr:`state` is its state after
    the last one and :attr:`states` the state after each of :attr:`events`."""

    variant: Any
    players: int | None = None
    camera: int = 0
    dealer: int = 0
    positions: Sequence[int] | None = None
    #: how many candidate moves the engine judges at most to explain one observation
    max_nodes: int = 3000
    #: the table options the game is played with (the settings page's), given to each deal
    options: dict[str, Any] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    states: list[PlayState] = field(default_factory=list)
    problems: list[EventProblem] = field(default_factory=list)
    frames: int = 0
    #: (frame, read before, read now): tiles of the camera player's hand whose earlier reading was corrected
    #: (a user's correction, or the tile read otherwise when it moved); :attr:`events` is rewritten for each
    rereads: list[tuple[int, str, str]] = field(default_factory=list)
    #: (frame, seat, read before, read now): followed discards of any seat read otherwise for
    #: :data:`DISPUTE_FRAMES` frames in a row, whose discard event was rewritten (the hand replayed with it)
    corrected: list[tuple[int, int, str, str]] = field(default_factory=list)
    #: (frame, seat, part, read, now): newly seen tiles the follower took as a top-3 alternative because only
    #: that reading let the engine explain the frame (part: discard, hand, dora, centre; a discard out of the
    #: known hand ...), followed discards read as the tile a call then took (part "called": the log is
    #: rewritten and the engine replays the hand), new melds that read as no meld taken as the call the
    #: discard they took allows (part "call": read, the meld), a riichi taken back because its seat called
    #: (part "no riichi": the log is rewritten and replayed) and the camera player's discards never seen (part
    #: "unseen": read "", the tile its hand lost)
    readings: list[tuple[int, int, str, str, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        from assistant.variants import get_variant

        v = get_variant(self.variant) if isinstance(self.variant, str) else self.variant
        self.variant = v
        self.players = self.players or v.players
        self._ctx: _Ctx | None = None
        self._disputes: dict[tuple[int, int], tuple[str, int]] = {}
        self._refused: set[tuple[int, int, str]] = set()
        self._unseen: dict[tuple[int, int], str] = {}   # (seat, row place) -> a followed discard never seen
        self._next_deal: _Target | None = None   # a dealt table seen while a played hand was followed

    @property
    def state(self) -> PlayState | None:
        """The engine's state after the last inferred event (None before the deal)."""
        return self.states[-1] if self.states else None

    @property
    def over(self) -> bool:
        return self.state is not None and self.state.over

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

    def _extend(self, path) -> list[Event]:
        new = []
        for events, states in path:
            new += events
            self.events += events
            self.states += states
        return new

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
        g = _target(obs, ctx)
        st = self.state
        if reported and st is not None and st.over:
            return self._problem("observation", " ".join(p.message for p in reported))
        if st is None and reported:   # a dealt table with a bad tile: the deal without the parts it touches
            blank = _Target(tuple(_View((), "unseen", (), (), None, (), ()) for _ in g.seats), (), ())
            patched = _patched(blank, g, reported, ctx)
            self._problem("observation", " ".join(p.message for p in reported)
                          + ("" if patched is None else " Those parts are left out; the rest is followed."))
            if patched is None:
                return []
            return self._deal(patched, ctx)
        if st is None or (st.over and _fresh(g)):
            return self._deal(g, ctx)
        dealt = _fresh(g) and any(s.discards or s.hand.melds for s in st.seats) and \
            len(g.seats[ctx.camera].hand) in (ctx.variant.hand_size, ctx.variant.hand_size + 1) and \
            _changed_by(_seen(st, ctx).seats[ctx.camera].hand, g.seats[ctx.camera].hand) >= NEW_DEAL_TILES
        first, self._next_deal = self._next_deal, (g if dealt else None)
        if dealt and first is None:
            return self._problem("next_deal", "The table looks newly dealt: the hand is taken as ended if the next "
                                              "frame shows that too.")
        if dealt and first is not None:
            # a dealt table after a played one, in two frames in a row, the camera player's hand another: the
            # hand ended unseen (an exhaustive draw, or the camera player's tsumo, which its always-open hand
            # cannot show) and the next one was dealt as the first of them shows, then played on to the second
            # (one frame that misses every row, or misreads the hand, is no deal)
            self._next_deal = None
            ended = self.finish()
            if self.state is None or not self.state.over:
                return ended
            out = ended + self._deal(first, ctx)
            if self.state is not None and not self.state.over and first != g:
                out += self._extend(explain(self.state, g, ctx, self.max_nodes) or [])
            return out
        if st.over:
            return []
        seen = _seen(st, ctx)
        if reported:   # follow the rest of the frame; the parts with problems wait (pending)
            patched = _patched(seen, g, reported, ctx)
            self._problem("observation", " ".join(p.message for p in reported)
                          + ("" if patched is None else " Those parts are left as they were; the rest is followed."))
            if patched is None:
                return []
            g = patched
        if self._correct_rows(st, seen, g, ctx):
            st = self.state
            assert st is not None
            seen = _seen(st, ctx)
        g = _settled(seen, g, ctx, self._unseen)
        if self._called_discard(seen, g, ctx):
            st = self.state
            assert st is not None
            seen = _seen(st, ctx)
        found = [m for check in CHECKS for m in check(seen, g, ctx)]
        path = None
        if found:   # a discard taken by a call whose meld cannot be read: the call the discard allows
            path = self._call(obs, st, seen, g, ctx)
            if path is None:
                return self._problem("impossible", " ".join(found))
        if path is None:
            path = explain(st, g, ctx, self.max_nodes)
        alternatives = _alternative_targets(obs, seen, g, ctx) if path is None else []
        if path is None:       # a newly seen tile read doubtfully: its close alternatives first
            path = self._alternative(st, alternatives, ctx, 0.0, ALTERNATIVE_CLOSE)
        if path is None:
            fixed = self._reread(seen, g, ctx)
            if fixed is not None:
                (was, now), events, states, path = fixed
                self.events, self.states = events, states
                self.rereads.append((self.frames, was, now))
        if path is None:
            path = self._alternative(st, alternatives, ctx, ALTERNATIVE_CLOSE, math.inf)
        if path is None:   # a call whose meld cannot be read, its discard never followed
            path = self._call(obs, st, seen, g, ctx)
        if path is None:
            path = self._unseen_discard(st, seen, g, ctx)
        if path is None:
            return self._problem("unexplained", f"No moves in turn order explain what changed "
                                                f"({_describe(seen, g, ctx)}); the frame is skipped.")
        return self._extend(path)

    def _alternative(self, st: PlayState, alternatives, ctx: _Ctx, low: float, high: float):
        """The first of the newly seen tiles' alternative readings (:func:`_alternative_targets`, likeliest
        first) less likely than the reading by a log ratio in [``low``, ``high``) that lets the engine explain
        the frame: its path, or None."""
        budget = max(200, self.max_nodes // 4)
        for cost, target, (seat, part, was, now) in alternatives:
            if not low <= cost < high:
                continue
            path = explain(st, target, ctx, budget)
            if path is not None:
                self.readings.append((self.frames, seat, part, was, now))
                return path
        return None

    def _call(self, obs: TableObservation, st: PlayState, t: _Target, g: _Target, ctx: _Ctx):
        """The first call of :func:`_call_targets` that passes the checks and that the engine explains: its
        path (recorded in :attr:`readings`), or None."""
        budget = max(200, self.max_nodes // 4)
        for target, (seat, part, was, now) in _call_targets(obs, st, t, g, ctx):
            if any(m for check in CHECKS for m in check(t, target, ctx)):
                continue
            path = explain(st, target, ctx, budget)
            if path is None and st.seats[seat].in_riichi:
                path = self._unriichi(seat, target, ctx, budget)
            if path is not None:
                self.readings.append((self.frames, seat, part, was, now))
                return path
        return None

    def _unseen_discard(self, st: PlayState, t: _Target, g: _Target, ctx: _Ctx):
        """The camera player's hand lost a tile that shows nowhere new while its row shows nothing new: its
        discard was missed by the detector (a blank white dragon on pale cloth). The first such tile the engine
        explains as discarded is followed (recorded in :attr:`readings`, part "unseen"), and kept in the row in
        later frames that miss it too: the path, or None. Not in Hong Kong: its discards lie in one pool,
        where a tile kept though unseen could no longer be told from one called later."""
        cam = ctx.camera
        s, v = t.seats[cam], g.seats[cam]
        if ctx.hk or v.state != "faces" or "bk" in v.hand or v.discards != s.discards:
            return None
        shown = _public(Counter(), g) - _public(Counter(), t)
        budget = max(200, self.max_nodes // 4)
        for code in sorted(set((Counter(s.hand) - Counter(v.hand)).elements())):
            if shown[code]:
                continue
            seats = list(g.seats)
            seats[cam] = replace(v, discards=v.discards + (code,))
            path = explain(st, replace(g, seats=tuple(seats)), ctx, budget)
            if path is not None:
                self._unseen[(cam, len(s.discards))] = code
                self.readings.append((self.frames, cam, "unseen", "", code))
                return path
        return None

    def _unriichi(self, seat: int, target: _Target, ctx: _Ctx, budget: int):
        """A seat followed as in riichi calls a discard, which a player in riichi never does: the tile read
        lying sideways in its row was a misread (a far tile boxed on the wrong axis). Its riichi is taken back,
        the engine replays the hand, and the call is explained again: the path (the log rewritten, recorded in
        :attr:`readings` as part "no riichi"), or None (nothing changed)."""
        start = _hand_start(self.events)
        events = [replace(e, riichi=False) if isinstance(e, Discard) and e.seat == seat and e.riichi and i >= start
                  else e for i, e in enumerate(self.events)]
        states = _play(None, events[start:])
        if states is None:
            return None
        seats = list(target.seats)
        seats[seat] = replace(seats[seat], sideways=None)
        path = explain(states[-1], replace(target, seats=tuple(seats)), ctx, budget)
        if path is None:
            return None
        row = target.seats[seat].discards
        self.events, self.states = events, self.states[:start] + list(states)
        self.readings.append((self.frames, seat, "no riichi", " ".join(row), " ".join(row)))
        return path

    def _called_discard(self, t: _Target, g: _Target, ctx: _Ctx) -> bool:
        """A call shows the discard it took as another tile than the one followed (:func:`_claimed_instead`):
        the discard event takes the called tile and the engine replays the hand (refused: nothing changes).
        True when the log was rewritten."""
        found = _claimed_instead(self.events, t, g, ctx)
        if found is None:
            return False
        k, was, now = found
        start = _hand_start(self.events)
        events = list(self.events)
        thrown = events[k]
        assert isinstance(thrown, Discard)
        events[k] = replace(thrown, tile=Tile.from_code(now))
        states = _play(None, events[start:])
        if states is None:
            return False
        self.events, self.states = events, self.states[:start] + list(states)
        self.readings.append((self.frames, thrown.seat, "called", was, now))
        return True

    def _correct_rows(self, st: PlayState, t: _Target, g: _Target, ctx: _Ctx) -> bool:
        """A followed discard read as the same other tile for :data:`DISPUTE_FRAMES` frames in a row takes
        that reading: its discard event is rewritten and the engine replays the hand (refused: the followed
        reading stays). True when the log was rewritten."""
        now = _row_disputes(t, g, ctx)
        disputes = {}
        for seat, place, code in now:
            was, count = self._disputes.get((seat, place), (code, 0))
            disputes[(seat, place)] = (code, count + 1 if was == code else 1)
        self._disputes = disputes
        for (seat, place), (code, count) in sorted(disputes.items()):
            if count < DISPUTE_FRAMES or (seat, place, code) in self._refused:
                continue
            start = _hand_start(self.events)
            events = _with_discard(self.events, start, st, seat, place, code)
            states = _play(None, events[start:]) if events is not None else None
            if events is None or states is None:
                self._refused.add((seat, place, code))     # the engine refuses that reading: not tried again
                continue
            was = t.seats[seat].discards[place]
            self.events, self.states = events, self.states[:start] + list(states)
            self.corrected.append((self.frames, seat, was, code))
            del self._disputes[(seat, place)]
            return True
        return False

    def _reread(self, t: _Target, g: _Target, ctx: _Ctx):
        """When nothing explains a change: is one tile of the camera player's hand read wrongly so far? A tile
        of the followed hand that the observation lacks is taken for one of the codes that newly show (in the
        hand, or in a discard row, meld or bonus area where it may have gone): the event that brought it in
        (its latest draw, else the deal) is corrected, the engine replays the hand, and the change is
        explained again. Returns ((read before, read now), the corrected events, their states, the path) or
        None."""
        cam = ctx.camera
        old, new = Counter(t.seats[cam].hand), Counter(g.seats[cam].hand)
        gone = sorted(set((old - new).elements()))
        if not gone or "bk" in new or sum((old - new).values()) > 3:
            return None
        shown = (new - old) + (_public(Counter(), g) - _public(Counter(), t))
        candidates = sorted(c for c in shown if c != "bk")
        budget = max(200, self.max_nodes // 4)
        for was in gone:
            for now in candidates:
                if now == was:
                    continue
                events = _rewritten(self.events, cam, was, now)
                states = _play(None, events) if events is not None else None
                if states is None:
                    continue
                path = explain(states[-1], g, ctx, budget)
                if path is not None:
                    return (was, now), events, list(states), path
        return None

    def _deal(self, g: _Target, ctx: _Ctx) -> list[Event]:
        if not _fresh(g):
            return self._problem("no_deal", "The table already shows discards or melds: waiting for a new deal.")
        self._disputes, self._refused, self._unseen = {}, set(), {}   # places in the rows of the hand before
        found = _check_camera(None, g, ctx) + _check_hidden(None, g, ctx)
        if len(g.dora) > 1:   # no kong before the deal: one of them is a misread (a standing hand's top)
            found.append(f"A dealt table shows one dora indicator, not {len(g.dora)} ({' '.join(g.dora)}): waiting "
                         "for a frame that shows one.")
        if found:
            return self._problem("impossible", " ".join(found))
        cam = g.seats[ctx.camera]
        hand = cam.hand[:13]     # a 14th tile is the dealer's first draw, inferred below
        hands = tuple(hand_text(hand if i == ctx.camera else ["bk"] * 13, v.bonus) for i, v in enumerate(g.seats))
        deal = Deal(self.variant.name, hands, dora_indicators=" ".join(g.dora),  # type: ignore[arg-type]
                    options=dict(self.options))  # type: ignore[arg-type]  # the event parses both
        states = _play(None, [deal])
        if states is None:
            from assistant.play import IllegalEvent, apply

            try:
                apply(None, deal)
            except (IllegalEvent, ValueError) as e:
                return self._problem("impossible", f"The dealt table cannot be: {e}")
            return self._problem("impossible", "The dealt table cannot be.")
        out = self._extend([((deal,), states)])
        return out + self._extend(explain(states[-1], g, ctx, self.max_nodes) or [])

    def finish(self) -> list[Event]:
        """The hand is over (the table is being cleared): the camera player's own tsumo, which its always-open
        hand cannot show, else an exhaustive draw with the camera player listed when its hand is ready (ready
        hands laid face up and wins are inferred when the table shows them; a ron winner takes the tile)."""
        st, ctx = self.state, self._ctx
        if st is None or st.over or ctx is None:
            return []
        cam = ctx.camera
        hand = _seen(st, ctx).seats[cam].hand
        if st.phase == "own_turn" and st.turn == cam and _complete(hand, _melds(st, cam), self.variant):
            end: Event = Tsumo(cam)
        else:
            end = ExhaustiveDraw((cam,) if _ready(st, cam) else ())
        states = _play(st, [end])
        if states is None:
            return self._problem("unexplained", f"The hand cannot end as {end.type.replace('_', ' ')} now.")
        return self._extend([((end,), states)])

    def log(self) -> list[dict]:
        return [e.to_json() for e in self.events]


def _hand_start(events: Sequence[Event]) -> int:
    """The index of the current hand's deal in ``events`` (a rewritten event replays the hand from there)."""
    return max(i for i, e in enumerate(events) if isinstance(e, Deal))


def _rewritten(events: Sequence[Event], seat: int, was: str, now: str) -> list[Event] | None:
    """``events`` with the camera player's ``was`` read as ``now`` where it came into the hand (its latest
    draw of ``was``, else the deal), or None when no event brought it in."""
    out = list(events)
    for k in range(len(out) - 1, -1, -1):
        ev: Any = out[k]
        if isinstance(ev, (Draw, ReplacementDraw)) and ev.seat == seat and ev.tile.code == was:
            out[k] = replace(ev, tile=Tile.from_code(now))
            return out
        if isinstance(ev, Deal):
            main, _, bonus = ev.hands[seat].partition("|")
            codes = [t.code for t in parse_tiles(main)]
            if was not in codes:
                return None
            codes[codes.index(was)] = now
            hands = list(ev.hands)
            hands[seat] = hand_text(codes, [t.code for t in parse_tiles(bonus)] if bonus.strip() else ())
            out[k] = replace(ev, hands=tuple(hands))
            return out
    return None


def _check_observation(obs: TableObservation, variant) -> list:
    """The reconstruction's own checks (copies, tile kinds, hand sizes ...) for an observation that comes
    without them."""
    from .reconstruct import check

    return check(obs, variant)


def _changed_by(was: Sequence[str], now: Sequence[str]) -> int:
    """How many tiles of ``now`` were not in ``was``."""
    return sum((Counter(now) - Counter(was)).values())


def _fresh(g: _Target) -> bool:
    return not g.centre and all(not v.discards and not v.melds for v in g.seats)


def _notation(m: _Meld) -> str:
    from assistant.hand import make_meld

    tiles = [Tile.from_code(c) for c in m.tiles]
    stands = [Tile.from_code(c) for c in m.stands] if len(m.stands) == len(m.tiles) else None
    return make_meld(tiles, stands, source=m.source).format()


def _describe(t: _Target, g: _Target, ctx: _Ctx) -> str:
    """What changed, in the words of :func:`vision.live.describe_change`."""
    def as_dict(seats, hands, dora, centre) -> dict:
        return {"seats": [{"position": ctx.order[i], "discards": list(s.discards), "hand": list(hands[i]),
                           "melds": [{"notation": "", "tiles": list(m.codes)} for m in s.melds],
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

    ``feed`` returns the table state JSON (``assistant.table`` schema, hidden hands as ``bk``) after the events
    inferred from the observation, as the engine played them (the inferrer's states: every inferred event is
    one the engine accepted); what could not be followed is in :attr:`problems`."""

    def __init__(self, variant: str, camera: int = 0, dealer: int = 0, positions: Sequence[int] | None = None,
                 options: dict[str, Any] | None = None) -> None:
        self.variant = variant
        self.inferrer = EventInferrer(variant, camera=camera, dealer=dealer, positions=positions,
                                      options=dict(options or {}))
        self.state: PlayState | None = None      # the PlayState after the last applied event
        self.problems: list[str] = []
        self.last_events: list[Event] = []
        self.start: PlayState | None = None      # the state before last_events
        # at a win: {seat, tile, tsumo, discarder} and the state just before it (what the page scores)
        self.win: dict | None = None
        self._before_win: PlayState | None = None
        self._states: list[PlayState] = []   # the state after each of last_events
        self.hand: list[Event] = []          # the events of the hand now followed, its deal first
        self.earlier_hands: list[list[Event]] = []  # hands followed before it, oldest first

    def hand_logs(self) -> list:
        """Every hand followed so far as :class:`assistant.play.HandLog` (the current one last; a hand whose
        deal the camera did not see is left out)."""
        from assistant.play import HandLog

        return [HandLog(self.variant, list(h)) for h in self.earlier_hands + [self.hand]
                if h and isinstance(h[0], Deal)]

    def feed(self, observation: TableObservation | dict) -> dict | None:
        inf = self.inferrer
        before, rereads, corrected = len(inf.problems), len(inf.rereads), len(inf.corrected)
        readings = len(inf.readings)
        events = inf.feed(observation)
        self.problems = [p.message for p in inf.problems[before:]]
        states = inf.states[len(inf.states) - len(events):]
        new_readings = inf.readings[readings:]
        for _, seat, part, was, now in new_readings:
            if part == "call":
                self.problems.append(f"{SEAT_WINDS[seat]}'s new meld reads {was}, which is no meld: it is taken as "
                                     f"{now}, made with the discard it took.")
            elif part == "no riichi":
                self.problems.append(f"{SEAT_WINDS[seat]} called a tile, which a player in riichi cannot: the tile "
                                     f"read lying sideways in {SEAT_WINDS[seat]}'s row was no riichi, and the hand "
                                     "is replayed.")
            elif part == "unseen":
                self.problems.append(f"Your {now} left your hand but is not seen among the discards: it is taken "
                                     "as discarded (the camera missed it).")
            elif part != "called" and seat >= 0:
                self.problems.append(f"{SEAT_WINDS[seat]}'s {part} read as {was} is taken as {now}, its next best "
                                     "reading: only that one fits the game.")
        called = [r for r in new_readings if r[2] in ("called", "no riichi")]
        if len(inf.rereads) > rereads or len(inf.corrected) > corrected or called:
            # an earlier reading was corrected (the camera player's hand, a discard): the engine replayed the
            # hand, which is followed again from its deal
            k = _hand_start(inf.events)
            events, states = inf.events[k:], inf.states[k:]
            self.state, self.win, self._before_win = None, None, None
            self.hand = []
            self.problems += [f"Your {was} is read as {now} now: the hand is replayed with it."
                              for _, was, now in inf.rereads[rereads:]]
            self.problems += [f"{SEAT_WINDS[seat]}'s discard {was} is read as {now} now: the hand is replayed "
                              "with it." for _, seat, was, now in inf.corrected[corrected:]]
            self.problems += [f"{SEAT_WINDS[seat]}'s discard {was} is read as {now}, the tile the call took: the "
                              "hand is replayed with it." for _, seat, part, was, now in called if part == "called"]
        self.start = self.state
        for ev, st in zip(events, states, strict=True):
            if isinstance(ev, Deal):
                self.state, self.win, self._before_win = None, None, None
                if self.hand and isinstance(self.hand[0], Deal):
                    self.earlier_hands.append(self.hand)
                self.hand = []
            if ev.type in ("ron", "tsumo") and self.state is not None and self.win is None:
                self.win, self._before_win = self._win_of(ev), self.state
            self.state = st
            self.hand.append(ev)
        self.last_events = list(events)
        self._states = list(states)
        return self.state_json()

    def describe(self, limit: int = 3) -> str:
        """The last applied events in players' words ("West drew a tile"; the camera player's own draws named),
        at most the last ``limit`` of them."""
        from assistant.play.words import describe_event

        befores = [self.start] + self._states[:-1]
        parts = [describe_event(ev, st, self.inferrer.camera_seat) for ev, st in zip(self.last_events, befores,
                                                                                   strict=False)]
        return "; ".join(parts[-limit:])

    def _win_of(self, ev: Any) -> dict:
        st: Any = self.state
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


__all__ = ["CHECKS", "MOVES", "EventInferrer", "EventProblem", "TableGame", "explain", "hand_text"]
