"""In-hand events: small immutable values, each with a flat JSON form (``to_json`` / :func:`event_from_json`).

A hand is a list of these events, starting with a :class:`Deal`; :func:`assistant.play.apply` turns a
table state and one event into the next state. Seats are dealer-relative (0 = East/dealer, then turn
order), tiles use the notation of ``shared/rules/README.md`` §2. Constructors accept tile codes as
strings (``Draw(0, "5s")``) and keep :class:`~assistant.tiles.Tile` values.

JSON of an event: ``{"type": T, ...fields}``; fields at their default are left out.

==================  ==========================================================================================
``deal``            ``{"variant": "sanma", "hands": ["111m234p678p34s99s", ...], "dora_indicators": "5z",
                    "live_wall": 55, "dead_wall": 14, "replacement_tiles": null, "round_wind": "1z",
                    "honba": 0, "riichi_sticks": 0, "points": [35000, ...], "names": [...], "dealer": 0,
                    "options": {}}`` — hands East first (13 tiles; bonus tiles cleared at the deal go after
                    ``|``); ``live_wall``/``dead_wall`` default from the rule system
``draw``            ``{"seat": 1, "tile": "5s"}`` — a tile from the live wall (closes an open claim window);
                    ``"tile": "bk"``: a draw nobody else saw (the hand gets a face-down tile)
``replacement_draw`` ``{"seat": 1, "tile": "7p"}`` — after a kong, kita, bonus tile or sunk Fei (``bk`` too)
``discard``         ``{"seat": 1, "tile": "9s", "riichi": true}`` — ``riichi`` declares riichi with it
``chow`` / ``pong`` / ``open_kong``  ``{"seat": 1, "tiles": "46p", "meld": "{456p@1}"}`` — a claim of the
                    open discard: the tiles from the hand (optional: the best are chosen) and the meld
                    shown (optional, checked)
``closed_kong``     ``{"seat": 0, "tile": "5p"}``;  ``added_kong`` ``{"seat": 0, "tile": "5p"}``
``kita``            ``{"seat": 0}`` — a North set aside (sanma)
``bonus``           ``{"seat": 0, "tile": "2f"}`` — a bonus tile drawn (wall or replacement) and set aside; also
                    right after a face-down draw (``bk``): the drawn tile was this bonus tile
``sink_fei``        ``{"seat": 0}``;  ``swap_fei`` ``{"seat": 0, "tile": "7z", "owner": 0, "meld": 1}``
``riichi``          ``{"seat": 0}`` — the riichi stick placed (also placed automatically when the
                    declaration discard passes)
``pass``            ``{"seat": 2}`` — a seat lets the open tile go
``ron``             ``{"seats": [1, 2], "ura_indicators": ""}`` — one or more wins on the open discard, or
                    robbing the tile of a kong window;  ``tsumo`` ``{"seat": 1, "ura_indicators": ""}``
``exhaustive_draw`` ``{"tenpai": [0, 1]}`` — ``tenpai`` optional (computed from the hands)
``abortive_draw``   ``{"reason": "nine_terminals", "seat": 0}`` or ``{"reason": "four_kans"}``
``false_win``       ``{"seat": 2}`` — a false win / chombo
``dora``            ``{"tile": "4p"}`` — a new (kan) dora indicator turned over
``reveal``          ``{"seat": 1, "tiles": "123m456p789s1122z", "drawn": "2z"}`` — the seat shows its concealed
                    tiles (a win, an exhaustive draw): every one of them, naming the face-down (``bk``) ones;
                    ``drawn`` names the drawn tile when it was face down
==================  ==========================================================================================

Unknown tiles: a camera does not see the other players' concealed tiles, so a dealt hand may hold ``bk``
(``"bk" * 13``; known tiles may mix in) and a draw or replacement draw may be ``bk``. A discard, a call,
a kong, a kita … of a tile the seat is not known to hold uses up one of its face-down tiles (the tile is
then known); a ``reveal`` names them all. ``bk`` is refused everywhere else (code FACE_DOWN).

>>> e = event_from_json({"type": "discard", "seat": 1, "tile": "0p", "riichi": True})
>>> e, e.to_json()
(Discard(seat=1, tile=Tile(0p), riichi=True), {'type': 'discard', 'seat': 1, 'tile': '0p', 'riichi': True})
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import MISSING, dataclass, fields
from typing import Any, ClassVar

from ..errors import TileError
from ..tiles import Tile, format_tiles, parse_tiles


class EventError(ValueError):
    """An event that cannot be read (malformed JSON, an unknown type or field, a bad tile code)."""


def _tile(value: Any, what: str) -> Tile:
    if isinstance(value, Tile):
        return value
    if not isinstance(value, str):
        raise EventError(f"{what} must be a tile code, got {json.dumps(value, default=str)}")
    try:
        return Tile.from_code(value)
    except TileError as e:
        raise EventError(f"{what}: {e}") from None


def _opt_tile(value: Any, what: str) -> Tile | None:
    return None if value is None or value == "" else _tile(value, what)


def _tiles(value: Any, what: str) -> tuple[Tile, ...]:
    if isinstance(value, (tuple, list)) and all(isinstance(t, Tile) for t in value):
        return tuple(value)
    if isinstance(value, (tuple, list)):
        value = "".join(str(v) for v in value)
    if not isinstance(value, str):
        raise EventError(f"{what} must be tile codes, got {json.dumps(value, default=str)}")
    try:
        return tuple(parse_tiles(value))
    except TileError as e:
        raise EventError(f"{what}: {e}") from None


def _seat(value: Any, what: str = "seat") -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise EventError(f"{what} must be a seat number (0 = East/dealer), got {json.dumps(value, default=str)}")
    return value


def _opt_int(value: Any, what: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise EventError(f"{what} must be a whole number >= 0, got {json.dumps(value, default=str)}")
    return value


def _codes(tiles: Sequence[Tile]) -> str:
    """Compact codes in the given order: runs of one suit share their letter (``55p1z``)."""
    out: list[str] = []
    for t in tiles:
        code = t.code
        if len(code) == 2 and code[0].isdigit() and out and out[-1][-1] == code[1] and out[-1][-2].isdigit():
            out[-1] = out[-1][:-1] + code
        else:
            out.append(code)
    return "".join(out)


class Event:
    """Base of every in-hand event: ``type`` names it in JSON."""

    type: ClassVar[str] = ""
    #: fields written as tile codes (one tile) / tile strings (several tiles)
    _tile_fields: ClassVar[tuple[str, ...]] = ()
    _tiles_fields: ClassVar[tuple[str, ...]] = ()

    def __post_init__(self) -> None:
        required = {f.name for f in fields(self)  # type: ignore[arg-type]
                    if f.default is MISSING and f.default_factory is MISSING}
        for name in self._tile_fields:
            value = getattr(self, name)
            if name in required and (value is None or value == ""):
                raise EventError(f"{self.type}.{name} must be a tile code such as 5p, got {json.dumps(value)}")
            object.__setattr__(self, name, _opt_tile(value, f"{self.type}.{name}"))
        for name in self._tiles_fields:
            object.__setattr__(self, name, _tiles(getattr(self, name), f"{self.type}.{name}"))
        for f in fields(self):  # type: ignore[arg-type]
            if (f.name == "seat" or f.name == "owner") and (getattr(self, f.name) is not None or f.name in required):
                object.__setattr__(self, f.name, _seat(getattr(self, f.name), f"{self.type}.{f.name}"))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        for f in fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            default = f.default if f.default is not MISSING else (
                f.default_factory() if f.default_factory is not MISSING else MISSING)  # type: ignore[misc]
            if default is not MISSING and value == default and f.name not in self._always:
                continue
            out[f.name] = _to_jsonable(value, f.name in self._tiles_fields)
        return out

    _always: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def from_json(cls, data: Any) -> Event:
        """Read an event from its JSON (``Event.from_json`` reads any type, ``Draw.from_json`` only draws)."""
        event = event_from_json(data)
        if cls is not Event and not isinstance(event, cls):
            raise EventError(f"expected a {cls.type} event, got a {event.type} event")
        return event

    @classmethod
    def from_fields(cls, data: Mapping[str, Any]) -> Event:
        known = {f.name for f in fields(cls)}  # type: ignore[arg-type]
        extra = sorted(set(data) - known)
        if extra:
            raise EventError(f"unknown field {extra[0]!r} in a {cls.type} event; expected: {', '.join(sorted(known))}")
        missing = [f.name for f in fields(cls)  # type: ignore[arg-type]
                   if f.default is MISSING and f.default_factory is MISSING and f.name not in data]
        if missing:
            raise EventError(f"a {cls.type} event needs {missing[0]!r}")
        return cls(**{k: _from_jsonable(v) for k, v in data.items()})


def _to_jsonable(value: Any, many: bool) -> Any:
    if isinstance(value, Tile):
        return value.code
    if isinstance(value, tuple) and value and all(isinstance(t, Tile) for t in value):
        return _codes(value)
    if many and value == ():
        return ""
    if isinstance(value, tuple):
        return [_to_jsonable(v, False) for v in value]
    if isinstance(value, Mapping):
        return {k: _to_jsonable(v, False) for k, v in value.items()}
    return value


def _from_jsonable(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_from_jsonable(v) for v in value)
    return value


# ---------------------------------------------------------------------------------------------
# The deal


@dataclass(frozen=True)
class Deal(Event):
    """A new hand: the rule system, each seat's 13 tiles (East first; bonus tiles cleared during the
    deal written after ``|``), the dora indicator(s), the wall (``live_wall`` tiles that can be drawn
    normally, ``dead_wall`` tiles never drawn normally — defaults from the rule system), the round wind,
    honba and riichi sticks carried in, points, names and ``dealer`` (the dealer's player number in the
    match, for the score keeper) and the table ``options``."""

    type: ClassVar[str] = "deal"
    _tiles_fields: ClassVar[tuple[str, ...]] = ("dora_indicators",)
    _tile_fields: ClassVar[tuple[str, ...]] = ("round_wind",)
    _always: ClassVar[tuple[str, ...]] = ("variant", "hands")
    variant: str
    hands: tuple[str, ...]
    dora_indicators: tuple[Tile, ...] = ()
    live_wall: int | None = None
    dead_wall: int | None = None
    replacement_tiles: int | None = None
    round_wind: Tile = Tile(27)
    honba: int = 0
    riichi_sticks: int = 0
    points: tuple[int, ...] | None = None
    names: tuple[str, ...] | None = None
    dealer: int | None = None
    options: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self) -> None:
        super().__post_init__()
        if not isinstance(self.variant, str):
            object.__setattr__(self, "variant", getattr(self.variant, "name", self.variant))
        if not isinstance(self.variant, str):
            raise EventError(f"deal.variant must be a rule system's name, got {json.dumps(self.variant, default=str)}")
        if isinstance(self.hands, str) or not isinstance(self.hands, (tuple, list)):
            raise EventError("deal.hands must be a list of hands, East (dealer) first")
        object.__setattr__(self, "hands", tuple(self.hands))
        for name in ("live_wall", "dead_wall", "replacement_tiles", "dealer"):
            _opt_int(getattr(self, name), f"deal.{name}")
        for name in ("honba", "riichi_sticks"):
            if _opt_int(getattr(self, name), f"deal.{name}") is None:
                raise EventError(f"deal.{name} must be a whole number >= 0")
        for name, kind, what in (("points", (int, float), "numbers"), ("names", str, "names")):
            value = getattr(self, name)
            if value is not None:
                if not isinstance(value, (tuple, list)) or not all(
                        isinstance(v, kind) and not isinstance(v, bool) for v in value):
                    raise EventError(f"deal.{name} must be a list of {what}, one per seat, got "
                                     f"{json.dumps(value, default=str)[:60]}")
                object.__setattr__(self, name, tuple(value))
        opts = self.options
        if isinstance(opts, Mapping):
            opts = tuple(sorted((str(k), _freeze(v)) for k, v in opts.items()))
        object.__setattr__(self, "options", tuple(opts))

    @property
    def options_dict(self) -> dict[str, Any]:
        return {k: _thaw(v) for k, v in self.options}

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        if self.options:
            out["options"] = self.options_dict
        return out


def _freeze(v: Any) -> Any:
    if isinstance(v, list):
        return tuple(_freeze(x) for x in v)
    return v


def _thaw(v: Any) -> Any:
    if isinstance(v, tuple):
        return [_thaw(x) for x in v]
    return v


# ---------------------------------------------------------------------------------------------
# Drawing and discarding


@dataclass(frozen=True)
class Draw(Event):
    """``seat`` draws ``tile`` from the live wall (after the previous discard, this closes its window)."""

    type: ClassVar[str] = "draw"
    _tile_fields: ClassVar[tuple[str, ...]] = ("tile",)
    seat: int
    tile: Tile


@dataclass(frozen=True)
class ReplacementDraw(Event):
    """``seat`` draws its replacement ``tile`` (after a kong, a kita, a bonus tile or a sunk Fei)."""

    type: ClassVar[str] = "replacement_draw"
    _tile_fields: ClassVar[tuple[str, ...]] = ("tile",)
    seat: int
    tile: Tile


@dataclass(frozen=True)
class Discard(Event):
    """``seat`` discards ``tile``; ``riichi`` declares riichi with it (sanma)."""

    type: ClassVar[str] = "discard"
    _tile_fields: ClassVar[tuple[str, ...]] = ("tile",)
    seat: int
    tile: Tile
    riichi: bool = False


# ---------------------------------------------------------------------------------------------
# Claims and declarations


@dataclass(frozen=True)
class _Claim(Event):
    """A claim of the open discard: ``tiles`` from the claimant's hand (empty: the best are chosen) and
    the ``meld`` shown, in meld notation with its ``@k`` source (empty: not checked)."""

    _tiles_fields: ClassVar[tuple[str, ...]] = ("tiles",)
    seat: int
    tiles: tuple[Tile, ...] = ()
    meld: str = ""


@dataclass(frozen=True)
class Chow(_Claim):
    """A chow of the open discard (the previous player's, where the rule system has chows)."""

    type: ClassVar[str] = "chow"


@dataclass(frozen=True)
class Pong(_Claim):
    """A pong of the open discard."""

    type: ClassVar[str] = "pong"


@dataclass(frozen=True)
class OpenKong(_Claim):
    """An exposed kong of the open discard; the claimant then owes a replacement draw."""

    type: ClassVar[str] = "open_kong"


@dataclass(frozen=True)
class ClosedKong(Event):
    """``seat`` declares a concealed kong of ``tile`` (``tiles``: the four, optional)."""

    type: ClassVar[str] = "closed_kong"
    _tile_fields: ClassVar[tuple[str, ...]] = ("tile",)
    _tiles_fields: ClassVar[tuple[str, ...]] = ("tiles",)
    seat: int
    tile: Tile
    tiles: tuple[Tile, ...] = ()


@dataclass(frozen=True)
class AddedKong(Event):
    """``seat`` adds ``tile`` from its hand to its shown pong (robbable)."""

    type: ClassVar[str] = "added_kong"
    _tile_fields: ClassVar[tuple[str, ...]] = ("tile",)
    seat: int
    tile: Tile


@dataclass(frozen=True)
class Kita(Event):
    """``seat`` sets a North aside (sanma nukidora) and owes a replacement draw."""

    type: ClassVar[str] = "kita"
    seat: int


@dataclass(frozen=True)
class BonusTile(Event):
    """``seat`` drew the bonus ``tile`` (from the wall, or as its replacement) and sets it aside; it
    then owes a replacement draw. Right after a face-down draw (``bk``) of the seat, that drawn tile is
    the bonus tile (the wall does not move again)."""

    type: ClassVar[str] = "bonus"
    _tile_fields: ClassVar[tuple[str, ...]] = ("tile",)
    seat: int
    tile: Tile


@dataclass(frozen=True)
class SinkFei(Event):
    """``seat`` sinks a Fei from its hand into its bonus area (3 Kaki F8) and owes a replacement draw."""

    type: ClassVar[str] = "sink_fei"
    seat: int


@dataclass(frozen=True)
class SwapFei(Event):
    """``seat`` puts the real ``tile`` into the shown set ``meld`` (an index) of ``owner`` and takes
    that set's Fei into its hand (3 Kaki F7)."""

    type: ClassVar[str] = "swap_fei"
    _tile_fields: ClassVar[tuple[str, ...]] = ("tile",)
    seat: int
    tile: Tile
    owner: int
    meld: int


@dataclass(frozen=True)
class RiichiStick(Event):
    """``seat`` puts its 1,000-point riichi stick on the table (sanma R4)."""

    type: ClassVar[str] = "riichi"
    seat: int


@dataclass(frozen=True)
class Pass(Event):
    """``seat`` lets the open tile (a discard, or the tile of a kong window) go."""

    type: ClassVar[str] = "pass"
    seat: int


@dataclass(frozen=True)
class NewDora(Event):
    """A new dora indicator ``tile`` is turned over (riichi kan dora)."""

    type: ClassVar[str] = "dora"
    _tile_fields: ClassVar[tuple[str, ...]] = ("tile",)
    tile: Tile


# ---------------------------------------------------------------------------------------------
# Ends of the hand


@dataclass(frozen=True)
class Ron(Event):
    """``seats`` win on the open discard, or rob the tile of a kong window. Several seats only where
    the rule system lets several win on one discard. ``ura_indicators``: for a riichi winner."""

    type: ClassVar[str] = "ron"
    _tiles_fields: ClassVar[tuple[str, ...]] = ("ura_indicators",)
    _always: ClassVar[tuple[str, ...]] = ("seats",)
    seats: tuple[int, ...]
    ura_indicators: tuple[Tile, ...] = ()

    def __post_init__(self) -> None:
        super().__post_init__()
        seats = self.seats
        if isinstance(seats, int) and not isinstance(seats, bool):
            seats = (seats,)
        if not isinstance(seats, (tuple, list)) or not seats:
            raise EventError("ron.seats must be a non-empty list of seats")
        seats = tuple(_seat(s, "ron.seats") for s in seats)
        if len(set(seats)) != len(seats):
            raise EventError(f"ron.seats names a seat twice: {list(seats)}")
        object.__setattr__(self, "seats", seats)


@dataclass(frozen=True)
class Tsumo(Event):
    """``seat`` wins on the tile it drew (wall or replacement)."""

    type: ClassVar[str] = "tsumo"
    _tiles_fields: ClassVar[tuple[str, ...]] = ("ura_indicators",)
    seat: int
    ura_indicators: tuple[Tile, ...] = ()


@dataclass(frozen=True)
class ExhaustiveDraw(Event):
    """The wall is exhausted with no win. ``tenpai``: the seats that show a ready hand (None: every
    seat that is ready, as the hands say)."""

    type: ClassVar[str] = "exhaustive_draw"
    tenpai: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.tenpai is not None:
            if not isinstance(self.tenpai, (tuple, list)):
                raise EventError("exhaustive_draw.tenpai must be a list of seats or null")
            object.__setattr__(self, "tenpai", tuple(sorted(_seat(s, "exhaustive_draw.tenpai") for s in self.tenpai)))


ABORTIVE_REASONS = ("nine_terminals", "four_kans")


@dataclass(frozen=True)
class AbortiveDraw(Event):
    """An aborted hand: ``nine_terminals`` (declared by ``seat``) or ``four_kans`` (sanma)."""

    type: ClassVar[str] = "abortive_draw"
    reason: str
    seat: int | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.reason not in ABORTIVE_REASONS:
            raise EventError(f"abortive_draw.reason must be one of {', '.join(ABORTIVE_REASONS)}, "
                             f"not {self.reason!r}")
        if self.seat is not None:
            _seat(self.seat, "abortive_draw.seat")


@dataclass(frozen=True)
class Reveal(Event):
    """``seat`` shows its concealed ``tiles`` (all of them: the known ones and those that were face down);
    ``drawn``: which of them is the tile it drew, when that draw was face down."""

    type: ClassVar[str] = "reveal"
    _tiles_fields: ClassVar[tuple[str, ...]] = ("tiles",)
    _tile_fields: ClassVar[tuple[str, ...]] = ("drawn",)
    _always: ClassVar[tuple[str, ...]] = ("tiles",)
    seat: int
    tiles: tuple[Tile, ...]
    drawn: Tile | None = None


@dataclass(frozen=True)
class FalseWin(Event):
    """``seat`` declared a win it does not have (chombo / false win)."""

    type: ClassVar[str] = "false_win"
    seat: int


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls for cls in (
        Deal, Draw, ReplacementDraw, Discard, Chow, Pong, OpenKong, ClosedKong, AddedKong, Kita, BonusTile,
        SinkFei, SwapFei, RiichiStick, Pass, NewDora, Ron, Tsumo, ExhaustiveDraw, AbortiveDraw, FalseWin, Reveal,
    )
}
#: the ``type`` of each event class, as written in JSON
ENDING_TYPES = ("ron", "tsumo", "exhaustive_draw", "abortive_draw")


def event_from_json(data: Any) -> Event:
    """Read one event from ``{"type": T, ...fields}``; EventError (a ValueError) names what is wrong."""
    if not isinstance(data, Mapping):
        raise EventError(f"an event must be a JSON object, got {json.dumps(data, default=str)}")
    kind = data.get("type")
    if kind not in EVENT_TYPES:
        raise EventError(f"unknown event type {json.dumps(kind, default=str)}; choose one of: "
                         f"{', '.join(EVENT_TYPES)}")
    body = {k: v for k, v in data.items() if k != "type"}
    return EVENT_TYPES[kind].from_fields(body)


def describe(event: Event) -> str:
    """Short text of an event for messages: ``draw 5s by seat 1``."""
    parts = [event.type]
    for f in fields(event):  # type: ignore[arg-type]
        value = getattr(event, f.name)
        if value in (None, (), "", False) or f.name in ("options", "hands"):
            continue
        if isinstance(value, Tile):
            value = value.code
        elif isinstance(value, tuple) and value and isinstance(value[0], Tile):
            value = format_tiles(value)
        parts.append(f"{f.name}={value}")
    return " ".join(parts)


__all__ = [
    "ABORTIVE_REASONS", "AbortiveDraw", "AddedKong", "BonusTile", "Chow", "ClosedKong", "Deal", "Discard", "Draw",
    "EVENT_TYPES", "Event", "EventError", "ExhaustiveDraw", "FalseWin", "Kita", "NewDora", "OpenKong", "Pass", "Pong",
    "ReplacementDraw", "Reveal", "RiichiStick", "Ron", "SinkFei", "SwapFei", "Tsumo", "describe", "event_from_json",
]
