"""The table state that every legality question reads, and the beginner-check vocabulary.

One value, :class:`TableState`, describes a table at one moment: the rule system and its table options,
the seats (dealer-relative: 0 = East/dealer, 1 = South, 2 = West, 3 = North at a four-player table),
whose turn it is and the *phase* of that turn, the tile open to claims (a discard, or the tile of a
kong that may be robbed) and who made it, and for every seat its :class:`~assistant.hand.Hand`
(concealed tiles, melds in call order, bonus area), its ordered discard row (:class:`Discard`: which
tiles were called away, which was the riichi tile), the winning tiles it let pass, its points and its
first-go-around flag. The state is a frozen dataclass of immutable values; it is checked when built,
so a :class:`TableState` that exists is consistent. Questions about it (:mod:`assistant.calls`,
:mod:`assistant.furiten`) never change it: like a chess position, it is read, not mutated.

Phases (``phase``):

* ``turn_start`` — seat ``turn`` is about to draw (every hand holds 13 tiles).
* ``own_turn`` — seat ``turn`` holds 14 tiles: it drew (``drawn_tile``, ``drawn_from``) or it just
  claimed a discard (``drawn_tile`` is null; ``sets_made_this_turn`` names the set it made).
* ``claim_window`` — seat ``turn`` discarded ``last_tile``; the others may claim it until the next
  player draws (``next_drawn``: that has happened, every claim is too late).
* ``kong_window`` — seat ``turn`` made ``declaration`` (``added_kong``, ``closed_kong``; sanma
  ``kita``; hong-kong ``bonus``: the eighth flower) with ``last_tile``; only a win may take it, until
  the owner draws the replacement (``next_drawn``). The declared kong is already among the owner's melds.

JSON (:meth:`TableState.from_json` / :meth:`TableState.to_json`); tiles use the notation of
``shared/rules/README.md`` §2, hands the hand notation (melds in call order, ``|`` bonus area: flowers
and other bonus tiles, sanma's set-aside Norths, three-kaki's sunk Fei). Only ``variant`` and ``seats``
(each with a ``hand``) are required. Defaults: ``turn`` 0, ``phase`` own_turn, ``live_wall`` 40,
``replacement_tiles`` null, ``round_wind`` 1z, ``points`` 0; every other field empty, null, false or 0::

    {
      "variant": "sanma",                     # sanma | korean-3p | hong-kong | three-kaki
      "options": {"kuikae": "allowed"},       # table options overriding the rule system's defaults
      "turn": 1,                              # seat whose turn it is (the discarder in a window)
      "phase": "claim_window",                # turn_start | own_turn | claim_window | kong_window
      "last_tile": "6p",                      # the discard / kong tile open to claims, else null
      "declaration": null,                    # kong_window: added_kong | closed_kong | kita | bonus
      "next_drawn": false,                    # window closed by the next draw (or the replacement draw)
      "drawn_tile": null,                     # own_turn: the tile just drawn (null after a claim; bk: unseen)
      "drawn_from": null,                     # wall | kong_replacement | bonus_replacement
      "sets_made_this_turn": [],              # own_turn: indices into the turn seat's melds
      "live_wall": 40,                        # tiles that can still be drawn normally (3 Kaki: above the reserve)
      "replacement_tiles": null,              # replacement tiles left; null = topped up from the live wall
      "round_wind": "1z",
      "dora_indicators": "3z",
      "honba": 0, "riichi_sticks": 0,
      "seats": [                              # one per seat, East (dealer) first
        {"name": "Ann",                       # optional; messages use it, else the seat wind
         "hand": "111m 234p 678p 34s 99s | 4z",  # bk: a concealed tile seen face down
         "discards": ["1z", {"tile": "6p", "called_by": 2}, {"tile": "9s", "riichi": true}],
         "points": 35000,
         "passed_since_discard": "3p",        # winning tiles let pass since this seat's last discard
         "passed_since_riichi": "",           # ... and since its riichi
         "first_turn": false}                 # first go-around, no call yet (nine terminals, tenhou)
      ]
    }

>>> s = TableState.from_json({"variant": "sanma", "turn": 0, "phase": "claim_window", "last_tile": "6p",
...     "seats": [{"hand": "19m123456789p12s", "discards": ["6p"]},
...               {"hand": "45p111z222z333z77z"}, {"hand": "1m9m1p1s9s1234567z7z"}]})
>>> s.seat_name(s.next_seat(0)), s.last_tile.code, s.discarder
('South', '6p', 0)
>>> TableState.from_json(s.to_json()) == s
True

Unknown tiles. A camera cannot see the other players' concealed tiles: a ``bk`` in a seat's hand is one
tile seen face down (``"hand": "bkbkbkbkbkbkbkbkbkbkbkbkbk"``; known and unknown tiles may mix). It counts
towards the hand size, never towards the copies of a kind, and is not a visible tile; ``drawn_tile`` may
be ``bk`` (an unseen draw). Nothing else may be face down: discards, melds (a concealed kong is written
``(5555p)``), bonus areas, indicators and passed tiles name their tiles. A seat whose hand holds ``bk``
is *hidden* (:attr:`SeatState.hidden`): questions that need the whole hand (scoring, waits, tenpai)
either treat it as unknown (:mod:`assistant.calls`, :mod:`assistant.furiten`) or raise
:class:`HandNotKnown` naming the seat.

>>> h = TableState.from_json({"variant": "sanma", "phase": "turn_start",
...     "seats": [{"hand": "19m123456789p12s"}, {"hand": "bk" * 13}, {"hand": "1z1z1z bkbkbkbkbkbkbkbkbkbk"}]})
>>> [s.hidden for s in h.seats], h.hidden_seats, h.seats[2].hand.format()
([0, 13, 10], (1, 2), '111z bkbkbkbkbkbkbkbkbkbk')
>>> TableState.from_json(h.to_json()) == h
True
"""

from __future__ import annotations

import importlib.util
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from .errors import TileError
from .hand import Hand, Meld, parse_hand, validate_hand
from .tiles import BACK, JOKER, Tile, format_tiles, kind_code, parse_tiles, sort_key
from .variants import RuleSystem, get_variant

PHASES = ("turn_start", "own_turn", "claim_window", "kong_window")
DECLARATIONS = ("added_kong", "closed_kong", "kita", "bonus")
DRAW_SOURCES = ("wall", "kong_replacement", "bonus_replacement")
SEAT_NAMES = ("East", "South", "West", "North")
NORTH = 30

# Rule systems where a win on a replacement for a bonus tile (sanma: a kita; 3 Kaki: a bonus tile or a
# sunk Fei) counts like a win on a kong replacement (sanma.md §4.2, three-kaki.md §6).


class StateError(ValueError):
    """A table state that cannot exist or cannot be read; ``field`` names the offending field
    (``seats[1].hand``, ``last_tile``, ``options.kuikae`` ...)."""

    def __init__(self, field: str, reason: str) -> None:
        self.field = field
        self.reason = reason
        super().__init__(f"{field}: {reason}")


class HandNotKnown(ValueError):
    """A question that needs every concealed tile of ``seat`` (scoring, waits, tenpai), asked while
    ``hidden`` of them are face down (``bk``)."""

    def __init__(self, seat: int, name: str, hidden: int, what: str = "this") -> None:
        self.seat = seat
        self.hidden = hidden
        super().__init__(f"seat {seat} ({name}): its concealed hand is not known ({_tiles_word(hidden)} face down), "
                         f"so {what} cannot be worked out; the seat must reveal its tiles first")


def _tiles_word(n: int) -> str:
    return f"{n} tile" if n == 1 else f"{n} tiles"


# ---------------------------------------------------------------------------------------------
# Beginner-check vocabulary (call-legality.md §6): codes and message templates


@dataclass(frozen=True)
class Notice:
    """One beginner-check result: a stable ``code`` and the plain-words ``message``."""

    code: str
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


MESSAGES: Mapping[str, str | Mapping[str, str]] = MappingProxyType({
    # --- call-legality.md §6, verbatim -------------------------------------------------------
    "NO_CHI": "There is no chi in three-player riichi. Sequences must come from tiles you draw yourself.",
    "NO_CHOW_ON_DISCARD": "You can't take a discard to make a chow here — only the tile that completes your "
                          "whole hand.",
    "CHOW_NOT_FROM_PREV": "You can only chow a tile thrown by the player just before you ({prev}).",
    "CLAIM_TOO_LATE": "Too late — {next} has drawn, so that {tile} can no longer be taken.",
    "LOST_PRIORITY": "{other} also wanted this {tile} to {their_call}; a {their_call} beats a {your_call}.",
    "LOST_TO_REAL_TILES": "{other} called pong with two real tiles; real tiles beat a Fei.",
    "FURITEN_OWN_DISCARD": "You can't ron: {wait} would complete your hand and you threw a {wait} earlier. "
                           "You can still win by drawing any winning tile yourself.",
    "FURITEN_TEMPORARY": "You let a winning {tile} go since your last discard. Ron is possible again after your "
                         "next discard; tsumo is fine now.",
    "FURITEN_RIICHI": "After riichi you let a winning {tile} go, so for the rest of this hand you can only win "
                      "by tsumo.",
    "SACRED_DISCARD": "You threw a {tile} earlier, so you can't win on anyone's {tile}. Your other waits still "
                      "work, and so does drawing it yourself.",
    "SACRED_DISCARD_ALL_WAITS": "You threw a {wait} earlier, and this table counts all your waits: no winning "
                                "on discards until you change your wait.",
    "NO_YAKU": "Your hand is complete but has no yaku. Dora, red fives and Norths set aside don't count. A "
               "closed hand could win by tsumo or riichi; an open one needs e.g. a dragon pon or tanyao.",
    "BELOW_MINIMUM": "This win is worth {n} {unit}; the table needs {min}. {excluded_note}",
    "KUIKAE": "You just called pon on {tile}; you can't throw another {tile} in the same turn.",
    "CALLED_SET_TILE": "You just made {set}. Keep its tiles this turn — no {ranks} discard until your next turn.",
    "CALL_LEAVES_NO_DISCARD": "After {set} every tile left in your hand would be a {ranks}, which you may not "
                              "discard this turn — so this call cannot be made.",
    "RIICHI_OPEN_HAND": "Riichi needs a closed hand; your pon/open kan means you can't declare it.",
    "RIICHI_NOT_TENPAI": "Riichi needs a ready hand after your discard; you are {shanten} tile(s) away.",
    "RIICHI_POINTS": "Riichi costs a 1,000-point stick and you have {points}.",
    "RIICHI_WALL": "Too few tiles left ({n}); you wouldn't get another draw.",
    "KITA_AFTER_RIICHI": "After riichi you may only set aside a North you just drew.",
    "KAN_CHANGES_WAIT": "This kan would change your waits, which isn't allowed after riichi.",
    "PROMOTE_WITH_DISCARD": "A discard can't turn your shown pong into a kong; only a fourth tile you draw "
                            "yourself can.",
    "ROB_KONG_CHOW_ONLY": "Here you may rob a kong only when that tile completes a chow in your winning hand.",
    "LAST_DISCARD": "That was the last discard; only a win can take it.",
    "NO_REPLACEMENT": "No replacement tile is left, so you can't {action} now.",
    "FEI_SHOWN_SET_LIMIT": "A set you show may hold only one Fei.",
    "FEI_NEEDS_REAL_TILE": "Every set needs at least one real tile.",
    "FEI_IN_KONG": "A Fei can never be part of a kong.",
    "FEI_THROWN": "A thrown Fei is sunk: nobody can take it. {owner} draws a replacement and discards again.",
    "FEI_SWAP_TOO_SOON": "You can swap the Fei back on a later turn, after you draw.",
    "NO_NORTH_RON": "A North set aside can't be won on at this table.",
    "THIRD_DRAGON_WARNING": MappingProxyType({
        "three-kaki": "Careful: {player} shows two dragon sets. If they take this {tile}, for a third set or to "
                      "win, you pay their whole win this hand (both shares).",
        "hong-kong": "Careful: {player} shows two dragon sets. If this {tile} gives them a third and they win "
                     "with Great Dragons, you pay for their win: all of it if they self-draw or win on your "
                     "discard. {third_party_note}",
    }),
    "PAO_WARNING": "Careful: {player} shows {sets}. If they pon or kan this {tile} and win with {yakuman}, you "
                   "are liable (pao): you pay the whole win if they tsumo or ron you, and half of it if they ron "
                   "another player.",
    # --- additions (not in §6; proposed for it) -------------------------------------------------
    "LOST_TO_NEARER": "{other} also wanted this {tile} to {their_call} and sits nearer to {discarder} in turn "
                      "order, so {other} takes it.",
    "VALUE_UNCHECKED": "Whether this win {requirement} was not checked: no {variant} scorer is installed.",
    "NOT_A_WIN": "{tile} doesn't complete your hand, so there is no win to declare.",
    "NOT_IN_RULES": "There is no {action} in {variant}.",
    "NOT_AT_THIS_TABLE": "{what} isn't allowed at this table.",
    "NOT_YOUR_TURN": "You can {action} only on your own turn, while you hold 14 tiles.",
    "NO_CLAIMABLE_TILE": "No discard is open to claims right now.",
    "OWN_DISCARD": "You can't claim your own discard.",
    "ROB_WIN_ONLY": "Only a win can take the tile of a declared kong; no pon, chow or kong.",
    "ROB_CONCEALED_KONG": "Only a {hand} hand may rob a concealed kong.",
    "ROB_CONCEALED_NEVER": "A concealed kong can't be robbed at this table.",
    "TILES_NOT_IN_HAND": "You don't hold {tiles}, so you can't {action}.",
    "SINK_FROM_HAND": "Only a Fei in your hand can be sunk; one in a shown set must be swapped back first.",
    "RIICHI_NO_CALLS": "After riichi you can't call pon or kan; only a win can take a discard.",
    "RIICHI_FIXED_HAND": "After riichi your hand is fixed: throw the tile you drew unless you win with it, set it "
                         "aside as kita, or make a kan with it that keeps your waits.",
    "ALREADY_RIICHI": "You have already declared riichi.",
    "KAN_LIMIT": "Four kans have been made this hand; a fifth is not allowed.",
    "KITA_NEEDS_DRAW": "You can set a North aside only after drawing a tile, not right after a call.",
    "KONG_NEEDS_DRAW": "You can declare a kong from your hand only after drawing a tile, not right after a call.",
    "NINE_TERMINALS_NOT_NOW": "Nine terminals can be declared only on your first draw, before anyone has called.",
    "NOT_NINE_TERMINALS": "You hold {n} different terminal and honour kinds; nine terminals needs 9.",
    # --- unknown (face-down) tiles --------------------------------------------------------------
    "HAND_NOT_KNOWN": "{player}'s hand is not known ({hidden} face down), so {what} can't be checked.",
    "REVEAL_FIRST": "{player}'s hand is not known ({hidden} face down): reveal the hand first, then {action}.",
})


def notice(code: str, rules: RuleSystem | None = None, **fields: object) -> Notice:
    """Fill the message template of ``code`` (the rule system's own wording where §6 has one per variant).

    >>> notice("CLAIM_TOO_LATE", next="South", tile="6p").message
    'Too late — South has drawn, so that 6p can no longer be taken.'
    """
    template = MESSAGES[code]
    if not isinstance(template, str):
        if rules is None or rules.name not in template:
            raise ValueError(f"{code} has no wording for rule system {rules.name if rules else None!r}")
        template = template[rules.name]
    return Notice(code, template.format(**fields).strip())


# ---------------------------------------------------------------------------------------------
# Seats


@dataclass(frozen=True)
class Discard:
    """One tile of a seat's discard row: ``called_by`` = the seat that claimed it (it then lies in that
    seat's meld), ``riichi`` = the tile turned sideways to declare riichi."""

    tile: Tile
    called_by: int | None = None
    riichi: bool = False

    def to_json(self) -> str | dict[str, Any]:
        if self.called_by is None and not self.riichi:
            return self.tile.code
        out: dict[str, Any] = {"tile": self.tile.code}
        if self.called_by is not None:
            out["called_by"] = self.called_by
        if self.riichi:
            out["riichi"] = True
        return out


def _canonical_hand(hand: Hand) -> Hand:
    concealed = tuple(sorted(hand.concealed, key=sort_key))
    return Hand(concealed, tuple(hand.melds), tuple(sorted(hand.bonus, key=sort_key)), None,
                tuple(range(len(concealed))))


@dataclass(frozen=True)
class SeatState:
    """One seat: its hand (concealed tiles kept in canonical order, melds in call order, bonus area),
    its discard row, points, the winning tiles it let pass since its last discard and since its riichi,
    and ``first_turn`` (still in its first go-around with no call made by anyone)."""

    hand: Hand
    discards: tuple[Discard, ...] = ()
    points: int = 0
    passed_since_discard: tuple[Tile, ...] = ()
    passed_since_riichi: tuple[Tile, ...] = ()
    first_turn: bool = False
    name: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "hand", _canonical_hand(self.hand))
        object.__setattr__(self, "discards", tuple(self.discards))
        object.__setattr__(self, "passed_since_discard", tuple(self.passed_since_discard))
        object.__setattr__(self, "passed_since_riichi", tuple(self.passed_since_riichi))

    @property
    def riichi_turn(self) -> int | None:
        """Index in the discard row of the riichi tile (the turn riichi was declared), or None."""
        return next((i for i, d in enumerate(self.discards) if d.riichi), None)

    @property
    def in_riichi(self) -> bool:
        return self.riichi_turn is not None

    @property
    def is_closed(self) -> bool:
        """No set claimed from a discard (concealed kongs keep a hand closed)."""
        return all(m.concealed for m in self.hand.melds)

    @property
    def hidden(self) -> int:
        """How many of the seat's concealed tiles are face down (``bk``, unknown)."""
        return self.hand.hidden

    @property
    def discard_kinds(self) -> frozenset[int]:
        """Kinds this seat has discarded this hand, including discards others called away."""
        return frozenset(d.tile.kind for d in self.discards)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.name:
            out["name"] = self.name
        out["hand"] = self.hand.format()
        out["discards"] = [d.to_json() for d in self.discards]
        out["points"] = self.points
        out["passed_since_discard"] = "".join(t.code for t in self.passed_since_discard)
        out["passed_since_riichi"] = "".join(t.code for t in self.passed_since_riichi)
        out["first_turn"] = self.first_turn
        return out


# ---------------------------------------------------------------------------------------------
# The table


@dataclass(frozen=True)
class TableState:
    """The whole table at one moment (see the module docstring for phases and the JSON form).

    Construction validates everything and raises :class:`StateError` (a ValueError) naming the field.
    """

    variant: RuleSystem
    seats: tuple[SeatState, ...]
    turn: int = 0
    phase: str = "own_turn"
    last_tile: Tile | None = None
    declaration: str | None = None
    next_drawn: bool = False
    drawn_tile: Tile | None = None
    drawn_from: str | None = None
    sets_made_this_turn: tuple[int, ...] = ()
    live_wall: int = 40
    replacement_tiles: int | None = None
    round_wind: int = 27
    dora_indicators: tuple[Tile, ...] = ()
    honba: int = 0
    riichi_sticks: int = 0
    options: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if isinstance(self.variant, str):
            object.__setattr__(self, "variant", _variant(self.variant))
        object.__setattr__(self, "seats", tuple(self.seats))
        object.__setattr__(self, "sets_made_this_turn", tuple(self.sets_made_this_turn))
        object.__setattr__(self, "dora_indicators", tuple(self.dora_indicators))
        object.__setattr__(self, "options", MappingProxyType(dict(self.options)))
        self._validate()

    def __hash__(self) -> int:
        return hash((self.variant.name, self.seats, self.turn, self.phase, self.last_tile))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TableState):
            return NotImplemented
        return all(
            getattr(self, f) == getattr(other, f)
            for f in ("seats", "turn", "phase", "last_tile", "declaration", "next_drawn", "drawn_tile",
                      "drawn_from", "sets_made_this_turn", "live_wall", "replacement_tiles", "round_wind",
                      "dora_indicators", "honba", "riichi_sticks")
        ) and self.variant.name == other.variant.name and dict(self.options) == dict(other.options)

    # --- options and seats ---------------------------------------------------------------------
    def option(self, key: str, default: Any = None) -> Any:
        """A table option: this table's override, else the rule system's default, else ``default``."""
        if key in self.options:
            return self.options[key]
        return self.variant.options.get(key, default)

    @property
    def players(self) -> int:
        return self.variant.players

    def check_seat(self, seat: object, what: str = "seat") -> int:
        """Return ``seat`` if it is a seat of this table, else raise ValueError naming ``what``."""
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.players:
            names = ", ".join(f"{i} {SEAT_NAMES[i]}" for i in range(self.players))
            raise ValueError(f"{what}: {seat!r} is not a seat at this {self.variant.name} table ({names})")
        return seat

    def seat_name(self, seat: int) -> str:
        """The player's name if known, else the seat wind (East = dealer)."""
        return self.seats[seat].name or SEAT_NAMES[seat]

    def next_seat(self, seat: int) -> int:
        return (seat + 1) % self.players

    def prev_seat(self, seat: int) -> int:
        return (seat - 1) % self.players

    def seats_back(self, claimer: int, source: int) -> int:
        """How many seats back ``source`` sits from ``claimer`` (the ``@k`` of a claimed meld)."""
        return (claimer - source) % self.players

    def distance(self, discarder: int, seat: int) -> int:
        """Steps forward in turn order from ``discarder`` to ``seat`` (next player = 1)."""
        return (seat - discarder) % self.players

    # --- derived facts ---------------------------------------------------------------------------
    @property
    def discarder(self) -> int | None:
        """The seat that made ``last_tile`` (the discarder, or the kong's owner), in a window."""
        return self.turn if self.phase in ("claim_window", "kong_window") else None

    @property
    def is_last_discard(self) -> bool:
        """The open discard was made after the last live tile was drawn (houtei)."""
        return self.phase == "claim_window" and self.live_wall == 0

    @property
    def replacement_available(self) -> bool:
        """A kong, kita or sunk Fei could still be replaced (call-legality §2, 'no replacement')."""
        return self.live_wall > 0 and (self.replacement_tiles is None or self.replacement_tiles > 0)

    @property
    def hidden_seats(self) -> tuple[int, ...]:
        """Seats whose hands hold face-down (``bk``) tiles."""
        return tuple(i for i, s in enumerate(self.seats) if s.hidden)

    def check_known(self, seat: int, what: str = "this") -> None:
        """Raise :class:`HandNotKnown` if ``seat``'s hand holds face-down tiles; ``what`` names the question."""
        hidden = self.seats[seat].hidden
        if hidden:
            raise HandNotKnown(seat, self.seat_name(seat), hidden, what)

    def hidden_words(self, seat: int) -> dict[str, str]:
        """The ``player`` and ``hidden`` fields of the HAND_NOT_KNOWN / REVEAL_FIRST messages."""
        return {"player": self.seat_name(seat), "hidden": _tiles_word(self.seats[seat].hidden)}

    @property
    def kongs_made(self) -> int:
        """Kongs declared at the table this hand (set-aside Norths are not kongs)."""
        return sum(1 for s in self.seats for m in s.hand.melds if m.is_kong)

    def visible_tiles(self, seat: int) -> list[Tile]:
        """Tiles ``seat`` can see besides its own concealed tiles and melds: every uncalled discard, the
        other seats' melds, every bonus area (its own included) and the dora indicators."""
        out: list[Tile] = list(self.dora_indicators)
        for i, s in enumerate(self.seats):
            out.extend(d.tile for d in s.discards if d.called_by is None)
            out.extend(s.hand.bonus)
            if i != seat:
                for m in s.hand.melds:
                    out.extend(m.tiles)
        return [t for t in out if t.kind != BACK]

    # --- JSON -------------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """The JSON object of the module docstring (tiles as codes, hands in hand notation)."""
        return {
            "variant": self.variant.name,
            "options": _jsonable(dict(self.options)),
            "turn": self.turn,
            "phase": self.phase,
            "last_tile": self.last_tile.code if self.last_tile else None,
            "declaration": self.declaration,
            "next_drawn": self.next_drawn,
            "drawn_tile": self.drawn_tile.code if self.drawn_tile else None,
            "drawn_from": self.drawn_from,
            "sets_made_this_turn": list(self.sets_made_this_turn),
            "live_wall": self.live_wall,
            "replacement_tiles": self.replacement_tiles,
            "round_wind": kind_code(self.round_wind),
            "dora_indicators": "".join(t.code for t in self.dora_indicators),
            "honba": self.honba,
            "riichi_sticks": self.riichi_sticks,
            "seats": [s.to_json() for s in self.seats],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TableState:
        """Read and validate the JSON object; StateError (a ValueError) names the bad field."""
        if not isinstance(data, Mapping):
            raise StateError("state", f"expected a JSON object, got {type(data).__name__}")
        _no_unknown(data, _TOP_FIELDS, "state")
        if "variant" not in data:
            raise StateError("variant", "missing (sanma, korean-3p, hong-kong or three-kaki)")
        variant = _variant(data["variant"])
        raw_seats = data.get("seats")
        if not isinstance(raw_seats, list):
            raise StateError("seats", "expected a list with one object per seat, East (dealer) first")
        if len(raw_seats) != variant.players:
            raise StateError("seats", f"a {variant.name} table has {variant.players} seats; got {len(raw_seats)}")
        seats = tuple(_seat_from_json(s, i, variant) for i, s in enumerate(raw_seats))
        options = data.get("options", {}) or {}
        if not isinstance(options, Mapping):
            raise StateError("options", "expected an object of table options")
        return cls(
            variant=variant,
            seats=seats,
            turn=_int(data.get("turn", 0), "turn"),
            phase=_str(data.get("phase", "own_turn"), "phase"),
            last_tile=_opt_tile(data.get("last_tile"), "last_tile", variant),
            declaration=_opt_str(data.get("declaration"), "declaration"),
            next_drawn=_bool(data.get("next_drawn", False), "next_drawn"),
            drawn_tile=_opt_tile(data.get("drawn_tile"), "drawn_tile", variant, face_down=True),
            drawn_from=_opt_str(data.get("drawn_from"), "drawn_from"),
            sets_made_this_turn=tuple(_int(v, f"sets_made_this_turn[{i}]")
                                      for i, v in enumerate(_list(data.get("sets_made_this_turn", []),
                                                                  "sets_made_this_turn"))),
            live_wall=_int(data.get("live_wall", 40), "live_wall"),
            replacement_tiles=(None if data.get("replacement_tiles") is None
                               else _int(data["replacement_tiles"], "replacement_tiles")),
            round_wind=_tile(data.get("round_wind", "1z"), "round_wind", variant).kind,
            dora_indicators=tuple(_tiles(data.get("dora_indicators", ""), "dora_indicators", variant)),
            honba=_int(data.get("honba", 0), "honba"),
            riichi_sticks=_int(data.get("riichi_sticks", 0), "riichi_sticks"),
            options=dict(options),
        )

    # --- validation -------------------------------------------------------------------------------
    def _validate(self) -> None:
        v = self.variant
        n = v.players
        if len(self.seats) != n:
            raise StateError("seats", f"a {v.name} table has {n} seats; got {len(self.seats)}")
        for key in self.options:
            if key not in v.options:
                raise StateError(f"options.{key}", f"not a table option of {v.name} "
                                                   f"(known: {', '.join(sorted(v.options))})")
        for name in ("turn", "live_wall", "honba", "riichi_sticks"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise StateError(name, f"expected a whole number >= 0, got {value!r}")
        if self.replacement_tiles is not None and (not isinstance(self.replacement_tiles, int)
                                                   or self.replacement_tiles < 0):
            raise StateError("replacement_tiles", f"expected null or a whole number >= 0, got "
                                                  f"{self.replacement_tiles!r}")
        if self.turn >= n:
            raise StateError("turn", f"{self.turn} is not a seat of a {n}-player table (0-{n - 1})")
        if self.phase not in PHASES:
            raise StateError("phase", f"{self.phase!r}; expected one of {', '.join(PHASES)}")
        if not 27 <= self.round_wind <= 30 or self.round_wind not in v.copies:
            raise StateError("round_wind", f"{kind_code(self.round_wind)} is not a wind of the {v.name} set")
        for i, t in enumerate(self.dora_indicators):
            _in_set(t, f"dora_indicators[{i}]", v, playing=True)
        for i, seat in enumerate(self.seats):
            self._validate_seat(i, seat)
        self._validate_phase()
        self._validate_copies()

    def _validate_seat(self, i: int, seat: SeatState) -> None:
        v = self.variant
        where = f"seats[{i}]"
        if not isinstance(seat, SeatState):
            raise StateError(where, f"expected a SeatState, got {type(seat).__name__}")
        size = v.full_hand_size if (self.phase == "own_turn" and i == self.turn) else v.hand_size
        try:
            validate_hand(seat.hand, v, sizes=(size,), hidden=True)
        except TileError as e:
            raise StateError(f"{where}.hand", str(e)) from None
        for t in seat.hand.bonus:
            if t.kind == NORTH and not v.can_kita:
                raise StateError(f"{where}.hand", f"a 4z in the bonus area is a set-aside North, which {v.name} "
                                                  "does not have")
            if t.kind == JOKER and not v.can_sink_fei:
                raise StateError(f"{where}.hand", f"a jk in the bonus area is a sunk Fei, which {v.name} "
                                                  "does not have")
        for m in seat.hand.melds:
            if m.source is not None and not 1 <= m.source < self.players:
                raise StateError(f"{where}.hand", f"{m.format()}: @{m.source} does not exist at a "
                                                  f"{self.players}-player table (1-{self.players - 1})")
        riichis = 0
        for j, d in enumerate(seat.discards):
            f = f"{where}.discards[{j}]"
            if not isinstance(d, Discard):
                raise StateError(f, f"expected a Discard, got {type(d).__name__}")
            if d.tile.kind == JOKER:
                _in_set(d.tile, f, v)
                just_thrown = self.phase == "claim_window" and i == self.turn and j == len(seat.discards) - 1
                if not just_thrown:
                    raise StateError(f, "a Fei is not kept in the discard row: a thrown Fei is sunk into the "
                                        "bonus area (three-kaki F8)")
            else:
                _in_set(d.tile, f, v, playing=True)
            if d.called_by is not None:
                if isinstance(d.called_by, bool) or not isinstance(d.called_by, int) \
                        or not 0 <= d.called_by < self.players or d.called_by == i:
                    raise StateError(f"{f}.called_by", f"{d.called_by!r} must be another seat of this table")
            if d.riichi:
                riichis += 1
                if not v.has_riichi:
                    raise StateError(f"{f}.riichi", f"there is no riichi in {v.name}")
        if riichis > 1:
            raise StateError(f"{where}.discards", "only one discard can be the riichi tile")
        if riichis and v.riichi_refusal(claimed_sets=not seat.is_closed) == "open_hand":
            raise StateError(f"{where}.discards", "a seat in riichi cannot have claimed sets")
        for name in ("passed_since_discard", "passed_since_riichi"):
            for j, t in enumerate(getattr(seat, name)):
                _in_set(t, f"{where}.{name}[{j}]", v, playing=True)
        if seat.passed_since_riichi and not seat.in_riichi:
            raise StateError(f"{where}.passed_since_riichi", "this seat has not declared riichi")
        if isinstance(seat.points, bool) or not isinstance(seat.points, int):
            raise StateError(f"{where}.points", f"expected a whole number, got {seat.points!r}")
        if seat.first_turn and (seat.discards or any(m.is_open for m in seat.hand.melds)):
            raise StateError(f"{where}.first_turn", "a seat that has discarded or called is past its first turn")

    def _validate_phase(self) -> None:
        v = self.variant
        turn_seat = self.seats[self.turn]
        window = self.phase in ("claim_window", "kong_window")
        if self.phase == "own_turn":
            if self.drawn_tile is not None:
                if self.drawn_tile not in turn_seat.hand.concealed:
                    raise StateError("drawn_tile", f"{self.drawn_tile.code} is not among seat {self.turn}'s "
                                                   "concealed tiles")
                if self.drawn_from not in DRAW_SOURCES:
                    raise StateError("drawn_from", f"{self.drawn_from!r}; expected one of {', '.join(DRAW_SOURCES)}")
            elif self.drawn_from is not None:
                raise StateError("drawn_from", "give it only with drawn_tile (null after a claim)")
            melds = turn_seat.hand.melds
            if len(set(self.sets_made_this_turn)) != len(self.sets_made_this_turn) or any(
                    isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < len(melds)
                    for k in self.sets_made_this_turn):
                raise StateError("sets_made_this_turn", f"indices into seat {self.turn}'s {len(melds)} melds, "
                                                        f"each once; got {list(self.sets_made_this_turn)}")
        else:
            for name in ("drawn_tile", "drawn_from"):
                if getattr(self, name) is not None:
                    raise StateError(name, f"only in the own_turn phase (this is {self.phase})")
            if self.sets_made_this_turn:
                raise StateError("sets_made_this_turn", f"only in the own_turn phase (this is {self.phase})")
        if not window:
            for name in ("last_tile", "declaration"):
                if getattr(self, name) is not None:
                    raise StateError(name, f"only in a claim or kong window (this is {self.phase})")
            if self.next_drawn:
                raise StateError("next_drawn", f"only in a claim or kong window (this is {self.phase})")
            return
        if self.last_tile is None:
            raise StateError("last_tile", f"the {self.phase} needs the tile open to claims")
        if self.phase == "claim_window":
            if self.declaration is not None:
                raise StateError("declaration", "only in a kong window")
            last = turn_seat.discards[-1] if turn_seat.discards else None
            if last is None or last.tile != self.last_tile or last.called_by is not None:
                raise StateError("last_tile", f"{self.last_tile.code} must be the last, uncalled tile of seat "
                                              f"{self.turn}'s discards")
            return
        allowed = [d for d in DECLARATIONS
                   if (d in v.calls) or (d == "bonus" and "flower_rob" in v.options)]
        if self.declaration not in allowed:
            raise StateError("declaration", f"{self.declaration!r}; in {v.name} a kong window follows one of "
                                            f"{', '.join(allowed)}")
        k = self.last_tile.kind
        hand = turn_seat.hand
        if self.declaration in ("added_kong", "closed_kong"):
            want_added = self.declaration == "added_kong"
            if not any(m.is_kong and m.kinds[0] == k and m.added == want_added
                       and m.concealed == (not want_added) for m in hand.melds):
                shape = f"[{kind_code(k)[0] * 4}{kind_code(k)[1]}+]" if want_added else \
                    f"({kind_code(k)[0] * 4}{kind_code(k)[1]})"
                raise StateError("last_tile", f"seat {self.turn} must show the declared kong {shape}")
        elif self.declaration == "kita":
            if k != NORTH or NORTH not in [t.kind for t in hand.bonus]:
                raise StateError("last_tile", f"a kita window is on a 4z set aside in seat {self.turn}'s bonus area")
        elif not self.last_tile.is_bonus or self.last_tile not in hand.bonus:
            raise StateError("last_tile", f"a bonus window is on the bonus tile seat {self.turn} just laid out")

    def _validate_copies(self) -> None:
        tiles: list[Tile] = list(self.dora_indicators)
        for s in self.seats:
            tiles.extend(s.hand.all_tiles())
            tiles.extend(d.tile for d in s.discards if d.called_by is None)
        where = "hands, melds, bonus areas, uncalled discards and dora indicators"
        for p in tile_problems(self.variant, tiles):
            place = f" ({where})" if p.kind == "too_many_copies" else ""
            raise StateError("seats", p.message if p.kind == "not_in_set" else
                             f"{p.count} copies of {p.code} on the table{place}; the {self.variant.name} set "
                             f"has {p.cap}")


@dataclass(frozen=True)
class TileProblem:
    """One thing wrong with the tiles seen on a table: ``kind`` not_in_set (a kind, or a red five, the set
    lacks), too_many_copies or too_many_red; ``code`` the tile (a plain code for copies); ``count`` seen,
    ``cap`` the set's copies."""

    kind: str
    code: str
    count: int
    cap: int

    @property
    def message(self) -> str:
        if self.kind == "not_in_set":
            return f"{self.code} is not in the tile set"
        return f"{self.count} copies of {self.code}; the set has {self.cap}"


def tile_problems(variant: RuleSystem, tiles: Iterable[Tile]) -> list[TileProblem]:
    """What is wrong with these tiles seen together on one table in ``variant`` (never raises): kinds and red
    fives the set lacks, more copies of a kind (red fives counted with their kind) or more red fives than
    the set has. Face-down tiles are not counted. The engine's state validation and the camera's
    reconstruction both judge a table with it."""
    counts: Counter[int] = Counter()
    reds: Counter[int] = Counter()
    out: list[TileProblem] = []
    lacking: set[str] = set()
    for t in tiles:
        if t.kind == BACK:
            continue
        if t.kind not in variant.copies or (t.red and variant.red_fives.get(t.kind, 0) == 0):
            if t.code not in lacking:
                lacking.add(t.code)
                out.append(TileProblem("not_in_set", t.code, 1, 0))
            continue
        counts[t.kind] += 1
        if t.red:
            reds[t.kind] += 1
    for kind, c in sorted(counts.items()):
        if c > variant.copies.get(kind, 0):
            out.append(TileProblem("too_many_copies", kind_code(kind), c, variant.copies.get(kind, 0)))
    for kind, c in sorted(reds.items()):
        if c > variant.red_fives.get(kind, 0):
            out.append(TileProblem("too_many_red", Tile(kind, True).code, c, variant.red_fives.get(kind, 0)))
    return out


# ---------------------------------------------------------------------------------------------
# JSON helpers

_TOP_FIELDS = frozenset({
    "variant", "options", "turn", "phase", "last_tile", "declaration", "next_drawn", "drawn_tile", "drawn_from",
    "sets_made_this_turn", "live_wall", "replacement_tiles", "round_wind", "dora_indicators", "honba",
    "riichi_sticks", "seats",
})
_SEAT_FIELDS = frozenset({"name", "hand", "discards", "points", "passed_since_discard", "passed_since_riichi",
                          "first_turn"})
_DISCARD_FIELDS = frozenset({"tile", "called_by", "riichi"})


def _variant(name: object) -> RuleSystem:
    if isinstance(name, RuleSystem):
        return name
    if not isinstance(name, str):
        raise StateError("variant", f"expected a rule-system name, got {name!r}")
    try:
        return get_variant(name)
    except ValueError as e:
        raise StateError("variant", str(e)) from None


def _no_unknown(data: Mapping[str, Any], known: frozenset[str], where: str) -> None:
    extra = sorted(set(data) - known)
    if extra:
        raise StateError(f"{where}.{extra[0]}" if where != "state" else extra[0],
                         f"unknown field (known: {', '.join(sorted(known))})")


def _int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise StateError(name, f"expected a whole number, got {value!r}")
    return value


def _bool(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise StateError(name, f"expected true or false, got {value!r}")
    return value


def _str(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise StateError(name, f"expected a string, got {value!r}")
    return value


def _opt_str(value: object, name: str) -> str | None:
    return None if value is None else _str(value, name)


def _list(value: object, name: str) -> list[Any]:
    if not isinstance(value, list):
        raise StateError(name, f"expected a list, got {value!r}")
    return value


def _in_set(t: Tile, name: str, variant: RuleSystem, playing: bool = False) -> None:
    if t.kind == BACK:
        raise StateError(name, "bk (a tile seen face down) can only stand in a concealed hand or as the drawn tile; "
                               "name the tile here")
    if t.kind not in variant.copies or (t.red and variant.red_fives.get(t.kind, 0) == 0):
        raise StateError(name, f"{t.code} is not in the {variant.name} tile set")
    if playing and not t.is_playing:
        raise StateError(name, f"{t.code} is not a suited or honour tile")


def _tiles(value: object, name: str, variant: RuleSystem) -> list[Tile]:
    if isinstance(value, list):
        value = "".join(_str(x, f"{name}[{i}]") for i, x in enumerate(value))
    text = _str(value, name)
    try:
        tiles = parse_tiles(text)
    except TileError as e:
        raise StateError(name, str(e)) from None
    for i, t in enumerate(tiles):
        _in_set(t, name if len(tiles) == 1 else f"{name}[{i}]", variant)
    return tiles


def _tile(value: object, name: str, variant: RuleSystem, face_down: bool = False) -> Tile:
    if face_down and value == "bk":
        return Tile(BACK)
    tiles = _tiles(value, name, variant)
    if len(tiles) != 1:
        raise StateError(name, f"expected exactly one tile, got {value!r}")
    return tiles[0]


def _opt_tile(value: object, name: str, variant: RuleSystem, face_down: bool = False) -> Tile | None:
    """One tile code or null; ``face_down``: ``bk`` (an unseen tile) is allowed too."""
    return None if value is None else _tile(value, name, variant, face_down)


def _seat_from_json(data: object, i: int, variant: RuleSystem) -> SeatState:
    where = f"seats[{i}]"
    if not isinstance(data, Mapping):
        raise StateError(where, "expected an object with at least a 'hand'")
    _no_unknown(data, _SEAT_FIELDS, where)
    if "hand" not in data:
        raise StateError(f"{where}.hand", "missing (hand notation, e.g. '123p456p 55p [777z@1] | 4z')")
    try:
        hand = parse_hand(_str(data["hand"], f"{where}.hand"))
    except TileError as e:
        raise StateError(f"{where}.hand", str(e)) from None
    discards: list[Discard] = []
    for j, d in enumerate(_list(data.get("discards", []), f"{where}.discards")):
        f = f"{where}.discards[{j}]"
        if isinstance(d, str):
            discards.append(Discard(_tile(d, f, variant)))
            continue
        if not isinstance(d, Mapping):
            raise StateError(f, "expected a tile code or an object {tile, called_by, riichi}")
        _no_unknown(d, _DISCARD_FIELDS, f)
        if "tile" not in d:
            raise StateError(f"{f}.tile", "missing")
        called = d.get("called_by")
        discards.append(Discard(_tile(d["tile"], f"{f}.tile", variant),
                                None if called is None else _int(called, f"{f}.called_by"),
                                _bool(d.get("riichi", False), f"{f}.riichi")))
    name = data.get("name", "")
    return SeatState(
        hand=hand,
        discards=tuple(discards),
        points=_int(data.get("points", 0), f"{where}.points"),
        passed_since_discard=tuple(_tiles(data.get("passed_since_discard", ""), f"{where}.passed_since_discard",
                                          variant)),
        passed_since_riichi=tuple(_tiles(data.get("passed_since_riichi", ""), f"{where}.passed_since_riichi",
                                         variant)),
        first_turn=_bool(data.get("first_turn", False), f"{where}.first_turn"),
        name=_str(name, f"{where}.name"),
    )


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [_jsonable(v) for v in value]
    return value


# ---------------------------------------------------------------------------------------------
# Win value: the one place that asks the scorer


@dataclass(frozen=True)
class WinValue:
    """What the scorer says about a win: ``status`` ok / no_yaku / below_minimum / unknown (no scorer),
    the §6 ``notice`` when the win is not worth enough (or VALUE_UNCHECKED), and the ``result``."""

    status: str
    notice: Notice | None = None
    result: Any = None

    @property
    def blocks(self) -> bool:
        """The win cannot be declared for its value (no yaku / below the minimum)."""
        return self.status in ("no_yaku", "below_minimum")


def _scorer(variant: RuleSystem) -> Callable[[Any], Any] | None:
    """``assistant.scoring.score`` when the rule system's scorer module can be imported, else None."""
    name = variant.scoring
    if not name:
        return None
    try:
        if importlib.util.find_spec(name) is None:
            return None
        from . import scoring
    except ImportError:
        return None
    return scoring.score


def minimum_value(state: TableState) -> int:
    """The table's minimum hand value (korean-3p points, hong-kong faan, three-kaki fan)."""
    for key in ("min_points", "min"):
        if key in state.variant.options:
            return int(state.option(key))
    return state.variant.min_value


def _needs_yaku(variant: RuleSystem) -> bool:
    """Riichi-family rule systems need a yaku instead of a minimum value."""
    return variant.has_riichi


def win_context(state: TableState, seat: int, tile: Tile, *, tsumo: bool, chankan: bool = False,
                in_hand: bool = False, hypothetical: bool = False) -> Any:
    """The scorer's :class:`~assistant.scoring.WinContext` for ``seat`` winning on ``tile``.

    ``in_hand``: the tile is already among the concealed tiles (a self-draw on the own turn); else it
    is added. ``hypothetical``: a "what if" for wait labels (no discarder, no turn-specific flags).
    Set-aside Norths and sunk Fei stay in the bonus area and are also given as ``kita`` / ``fei_sunk``.
    Raises :class:`HandNotKnown` when the seat's hand holds face-down tiles.
    """
    from .scoring import PlayerShown, WinContext

    v = state.variant
    state.check_known(seat, "the value of its win")
    s = state.seats[seat]
    concealed = s.hand.concealed if in_hand else s.hand.concealed + (tile,)
    hand = Hand(tuple(concealed), s.hand.melds, s.hand.bonus, tile, tuple(range(len(concealed))))
    discarder = None if tsumo or hypothetical else state.discarder
    if not tsumo and discarder is None:
        discarder = state.next_seat(seat)  # a "what if" ron: any other seat
    live = not hypothetical
    replacement = live and tsumo and state.drawn_from in ("kong_replacement", "bonus_replacement")
    rinshan = replacement and (state.drawn_from == "kong_replacement" or "bonus_replacement_is_rinshan" in v.rule_flags)
    first = live and s.first_turn and not s.discards and not s.hand.melds
    if "earthly_hand_on_dealer_discard" in v.rule_flags:
        tenhou = first and tsumo and seat == 0
        chiihou = (live and not tsumo and not chankan and discarder == 0 and len(state.seats[0].discards) == 1
                   and all(o.first_turn for i, o in enumerate(state.seats) if i != 0)
                   and not any(o.hand.melds for o in state.seats))
    else:
        tenhou = first and tsumo and seat == 0 and state.drawn_from == "wall"
        chiihou = first and tsumo and seat != 0 and state.drawn_from == "wall"
    others = {}
    if v.has_jokers:
        for i, o in enumerate(state.seats):
            if i != seat:
                others[i] = PlayerShown(melds=o.hand.melds, bonus=tuple(t for t in o.hand.bonus if t.kind != JOKER),
                                        sunk_fei=sum(1 for t in o.hand.bonus if t.kind == JOKER))
    return WinContext(
        variant=v, hand=hand, win_tile=tile, tsumo=tsumo, seat=seat, discarder=discarder,
        round_wind=state.round_wind, dora_indicators=state.dora_indicators,
        kita=sum(1 for t in s.hand.bonus if t.kind == NORTH) if v.can_kita else 0,
        riichi=s.in_riichi, rinshan=rinshan, chankan=chankan,
        haitei=live and tsumo and state.live_wall == 0 and state.drawn_from == "wall",
        houtei=live and not tsumo and not chankan and state.is_last_discard,
        tenhou=tenhou, chiihou=chiihou, honba=state.honba, riichi_sticks=state.riichi_sticks,
        fei_sunk=sum(1 for t in s.hand.bonus if t.kind == JOKER), others=others, options=dict(state.options),
    )


def win_value_check(state: TableState, seat: int, tile: Tile, *, tsumo: bool, chankan: bool = False,
                    in_hand: bool = False, hypothetical: bool = False) -> WinValue:
    """Does this (complete) win have a yaku / reach the table's minimum?

    Asks ``assistant.scoring.score`` when the rule system's scorer module is importable; otherwise the
    answer is ``unknown`` with a VALUE_UNCHECKED notice, so call legality never depends on scoring. A seat
    whose hand holds face-down tiles gets ``unknown`` with a HAND_NOT_KNOWN notice.
    """
    v = state.variant
    if state.seats[seat].hidden:
        return WinValue("unknown", notice("HAND_NOT_KNOWN", **state.hidden_words(seat),
                                          what="whether it wins and what the win is worth"))
    score = _scorer(v)
    minimum = minimum_value(state)
    if score is None:
        need = "has a yaku" if _needs_yaku(v) else f"reaches the minimum of {minimum} {v.value_unit}"
        return WinValue("unknown", notice("VALUE_UNCHECKED", requirement=need, variant=v.name))
    result = score(win_context(state, seat, tile, tsumo=tsumo, chankan=chankan, in_hand=in_hand,
                               hypothetical=hypothetical))
    if result.legal:
        return WinValue("ok", None, result)
    if _needs_yaku(v):
        return WinValue("no_yaku", notice("NO_YAKU"), result)
    counted = result.extra.get("toward_minimum", result.extra.get("core", result.total))
    unit = v.value_unit[:-1] if counted == 1 and v.value_unit.endswith("s") else v.value_unit
    return WinValue("below_minimum", notice("BELOW_MINIMUM", n=counted, unit=unit, min=minimum,
                                            excluded_note=_excluded_note(state, tsumo, minimum)), result)


def _excluded_note(state: TableState, tsumo: bool, minimum: int) -> str:
    """The {excluded_note} of BELOW_MINIMUM (call-legality §6) for this rule system."""
    name = state.variant.name
    if name == "hong-kong":
        return f"Flowers are added after but don't count toward the {minimum}."
    if name == "korean-3p":
        note = "The 2 for winning and flowers don't count"
        if state.option("tsumo_counts_to_minimum", True) and not tsumo:
            return note + "; a self-draw would add 1."
        return note + "."
    return ""


def replace_seat(state: TableState, seat: int, **changes: Any) -> TableState:
    """A new state with ``seats[seat]`` changed (dataclasses.replace on that seat)."""
    seats = list(state.seats)
    seats[seat] = replace(seats[seat], **changes)
    return replace(state, seats=tuple(seats))


def tiles_text(tiles: Iterable[Tile]) -> str:
    """Canonical compact text of some tiles (``format_tiles``)."""
    return format_tiles(tiles)


def kinds_text(kinds: Sequence[int]) -> str:
    """'4p, 5p or 6p' — tile kinds for a message."""
    codes = [kind_code(k) for k in kinds]
    if len(codes) == 1:
        return codes[0]
    return ", ".join(codes[:-1]) + " or " + codes[-1]


def meld_text(meld: Meld) -> str:
    """'a chow of 456p' / 'a pong of 777z' — a set for a message (what each tile counts as)."""
    return f"a {meld.type} of {format_tiles(meld.stands_for)}"
