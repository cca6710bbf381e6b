"""The table state during play: :class:`PlayState`, a :class:`~assistant.table.TableState` with the
in-hand bookkeeping the table state does not hold yet, and how a hand ended (:class:`HandEnd`).

``PlayState`` *is* a ``TableState`` (a subclass): everything that reads a table state (legal actions,
furiten, wait labels, ``win_context``) reads it unchanged, and building one validates it the same way.
The added fields, all about the hand in progress:

* ``dead_wall`` — tiles never drawn normally (riichi dead wall incl. indicators, 3 Kaki's 7-tile reserve);
  with the live wall and every tile in sight it accounts for the whole set.
* ``owed`` — the turn seat owes a replacement draw: ``kong`` (after a kong) or ``bonus`` (after a bonus
  tile, a kita or a sunk Fei); ``carry_sets`` — the sets made this turn, kept while the replacement is owed.
* ``kong_chain`` — kongs the turn seat made since its last discard (win after two successive kongs).
* ``ippatsu`` / ``double_riichi`` — seats whose ippatsu chance is open / that declared double riichi.
* ``sticks_placed`` — riichi seats whose stick is on the table.
* ``window_passes`` — seats that passed the open tile in this window (the others pass when it closes).
* ``dead`` — korean-3p seats whose hand is dead after a false win.
* ``dealer_player`` — the dealer's player number in the match (from the deal; for the score keeper).
* ``ending`` — how the hand ended (None while it goes on).

JSON: :meth:`PlayState.to_json` is the table state's JSON plus a ``"play"`` object with these fields.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from ..hand import Hand, parse_hand, parse_meld
from ..scoring.base import Payment, PlayerShown, ScoreItem, ScoreResult, WinContext, net_changes
from ..table import StateError, TableState
from ..tiles import BACK, JOKER, Tile, format_tiles, kind_code, parse_tiles

OWED = ("kong", "bonus")
ENDINGS = ("win", "exhaustive_draw", "abortive_draw", "false_win")


class IllegalEvent(ValueError):
    """An event that cannot happen now. ``code`` is the §6 beginner-check code of
    :func:`assistant.calls.check_action` where the event is a player's action (the ``message`` is then
    its plain-words text: NO_CHI, CHOW_NOT_FROM_PREV, FURITEN_OWN_DISCARD, KUIKAE, LAST_DISCARD,
    NO_REPLACEMENT, TILES_NOT_IN_HAND, NOT_YOUR_TURN, NOT_A_WIN …), else one of the state machine's own:
    NO_HAND, HAND_OVER, HAND_IN_PROGRESS, BAD_DEAL, BAD_EVENT, NO_SUCH_SEAT, WRONG_PHASE, NOT_YOUR_DRAW,
    WALL_EMPTY, WALL_NOT_EMPTY, REPLACEMENT_OWED, NO_REPLACEMENT_OWED, BONUS_TILE, NOT_A_BONUS_TILE,
    NOT_IN_SET, WRONG_TILES, MELD_MISMATCH, DEAD_HAND, ALREADY_PASSED, STICK_PLACED, NOT_IN_RIICHI,
    FOUR_KANS, NO_ABORT, NOT_TENPAI, NO_NEW_DORA, KONG_BEFORE_DRAW, FEI_DISCARD, IMPOSSIBLE (the event
    would make a table that cannot exist, e.g. a fifth copy of a tile); for face-down tiles REVEAL_FIRST
    (a win, or an exhaustive draw without a tenpai list, while a hand that counts still holds ``bk``),
    BAD_REVEAL (a reveal that does not fit the hand or the table) and FACE_DOWN (``bk`` where a tile must
    be named). Replayed logs add ``index``."""

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        self.message = message
        super().__init__(message)

    def __repr__(self) -> str:
        return f"IllegalEvent({self.code!r}, {self.message!r})"


# ---------------------------------------------------------------------------------------------
# How a hand ended


@dataclass(frozen=True)
class WinRecord:
    """One winner: seat, winning tile, self-draw or not, the discarder (or the robbed kong's owner),
    the scorer's input (``context``) and its answer (``result``)."""

    seat: int
    tile: Tile
    tsumo: bool
    discarder: int | None
    context: WinContext
    result: ScoreResult

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "tile": self.tile.code, "tsumo": self.tsumo, "discarder": self.discarder,
                "context": context_to_json(self.context), "result": self.result.as_dict()}

    @classmethod
    def from_json(cls, data: Mapping[str, Any], state: TableState) -> WinRecord:
        return cls(int(data["seat"]), Tile.from_code(data["tile"]), bool(data["tsumo"]), data.get("discarder"),
                   context_from_json(data["context"], state), result_from_json(data["result"]))


@dataclass(frozen=True)
class HandEnd:
    """How a hand ended: ``kind`` (:data:`ENDINGS`), the winners (nearest to the discarder first),
    the discarder, the tenpai and nagashi seats of an exhaustive draw, the ``reason`` of an abortive
    draw, the ``seat`` of a false win or nine-terminals declaration, and every payment it made."""

    kind: str
    wins: tuple[WinRecord, ...] = ()
    discarder: int | None = None
    tenpai: tuple[int, ...] = ()
    nagashi: tuple[int, ...] = ()
    reason: str = ""
    seat: int | None = None
    payments: tuple[Payment, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "wins": [w.to_json() for w in self.wins], "discarder": self.discarder,
                "tenpai": list(self.tenpai), "nagashi": list(self.nagashi), "reason": self.reason,
                "seat": self.seat, "payments": [p.as_dict() for p in self.payments]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any], state: TableState) -> HandEnd:
        return cls(
            kind=data["kind"], wins=tuple(WinRecord.from_json(w, state) for w in data.get("wins", [])),
            discarder=data.get("discarder"), tenpai=tuple(data.get("tenpai", [])),
            nagashi=tuple(data.get("nagashi", [])), reason=data.get("reason", ""), seat=data.get("seat"),
            payments=tuple(_payment(p) for p in data.get("payments", [])),
        )

    def net(self, players: int) -> list[int | float]:
        """Each seat's change from this ending's payments (sticks from the table count for the receiver)."""
        return net_changes(self.payments, players)


def _payment(d: Mapping[str, Any]) -> Payment:
    return Payment(d["payer"], d["receiver"], d["amount"], d.get("reason", "win"))


def hand_notation(hand: Hand, win_tile: Tile | None = None) -> str:
    """Hand notation that reads back as the same hand, the winning tile (one copy of it among the
    concealed tiles) marked ``*``: ``111m234678p3499s 5s* | 4z``."""
    rest = list(hand.concealed)
    if win_tile is not None:
        rest.remove(next(t for t in rest if t == win_tile))
    parts = [format_tiles([t for t in rest if t.kind not in (JOKER, BACK)])]
    parts += ["jk"] * sum(1 for t in rest if t.kind == JOKER)
    parts.append("bk" * sum(1 for t in rest if t.kind == BACK))
    if win_tile is not None:
        parts.append(f"{win_tile.code}*")
    parts += [m.format() for m in hand.melds]
    text = " ".join(p for p in parts if p)
    if hand.bonus:
        text += " | " + format_tiles(hand.bonus)
    return text


_CONTEXT_FLAGS = ("tsumo", "riichi", "double_riichi", "ippatsu", "rinshan", "after_two_kongs", "chankan", "haitei",
                  "houtei", "tenhou", "chiihou")
_CONTEXT_INTS = ("seat", "kita", "honba", "riichi_sticks", "fei_sunk")


def context_to_json(ctx: WinContext) -> dict[str, Any]:
    """A scorer input as JSON (the variant and options are the table's)."""
    out: dict[str, Any] = {"hand": hand_notation(ctx.hand, ctx.win_tile), "win_tile": ctx.win_tile.code,
                           "discarder": ctx.discarder, "round_wind": kind_code(ctx.round_wind),
                           "dora_indicators": "".join(t.code for t in ctx.dora_indicators),
                           "ura_indicators": "".join(t.code for t in ctx.ura_indicators), "liable": ctx.liable}
    for name in _CONTEXT_FLAGS + _CONTEXT_INTS:
        out[name] = getattr(ctx, name)
    out["others"] = {str(seat): {"melds": [m.format() for m in o.melds], "bonus": "".join(t.code for t in o.bonus),
                                 "fei": o.fei, "sunk_fei": o.sunk_fei,
                                 "hidden_honour_pongs": "".join(kind_code(k) for k in o.hidden_honour_pongs)}
                     for seat, o in sorted(ctx.others.items())}
    return out


def context_from_json(data: Mapping[str, Any], state: TableState) -> WinContext:
    hand = parse_hand(data["hand"])
    win = Tile.from_code(data["win_tile"])
    concealed = tuple(hand.concealed)
    others = {int(seat): PlayerShown(
        melds=tuple(parse_meld(m) for m in o.get("melds", [])), bonus=tuple(parse_tiles(o.get("bonus", ""))),
        fei=o.get("fei", 0), sunk_fei=o.get("sunk_fei", 0),
        hidden_honour_pongs=tuple(t.kind for t in parse_tiles(o.get("hidden_honour_pongs", ""))))
        for seat, o in data.get("others", {}).items()}
    kw: dict[str, Any] = {name: data[name] for name in _CONTEXT_FLAGS + _CONTEXT_INTS if name in data}
    return WinContext(
        variant=state.variant, hand=Hand(concealed, hand.melds, hand.bonus, win, tuple(range(len(concealed)))),
        win_tile=win, discarder=data.get("discarder"), round_wind=Tile.from_code(data["round_wind"]).kind,
        dora_indicators=tuple(parse_tiles(data.get("dora_indicators", ""))),
        ura_indicators=tuple(parse_tiles(data.get("ura_indicators", ""))), others=others,
        liable=data.get("liable"), options=dict(state.options), **kw,
    )


def result_from_json(d: Mapping[str, Any]) -> ScoreResult:
    """A :class:`~assistant.scoring.base.ScoreResult` from its ``as_dict`` form."""
    def items(key: str) -> list[ScoreItem]:
        return [ScoreItem(i["name"], i["value"], i["unit"], i.get("note", "")) for i in d.get(key, [])]
    return ScoreResult(
        legal=d["legal"], verdict=d["verdict"], items=items("items"), fu=d.get("fu"),
        fu_breakdown=items("fu_breakdown"), total=d.get("total", 0), unit=d.get("unit", ""), limit=d.get("limit"),
        payments=[_payment(p) for p in d.get("payments", [])], reading=d.get("reading", ""),
        explanation=d.get("explanation", ""), extra=dict(d.get("extra", {})),
    )


# ---------------------------------------------------------------------------------------------
# The state


_PLAY_FIELDS = ("dead_wall", "owed", "carry_sets", "kong_chain", "ippatsu", "double_riichi", "sticks_placed",
                "window_passes", "dead", "dealer_player", "ending")
_SEAT_TUPLES = ("ippatsu", "double_riichi", "sticks_placed", "window_passes", "dead")


@dataclass(frozen=True, eq=False)
class PlayState(TableState):
    """A table state in play (see the module docstring for the added fields).

    >>> from assistant.play import Deal, apply
    >>> s = apply(None, Deal("sanma", ("111m234p678p34s99s", "1p9p1s9s1z2z3z4z5z2p8p2s8s",
    ...                                 "1p9p1s9s1z2z3z6z7z3p7p3s7s"), dora_indicators="5z"))
    >>> s.phase, s.turn, s.live_wall, s.dead_wall, [x.first_turn for x in s.seats]
    ('turn_start', 0, 55, 14, [True, True, True])
    """

    dead_wall: int = 0
    owed: str | None = None
    carry_sets: tuple[int, ...] = ()
    kong_chain: int = 0
    ippatsu: tuple[int, ...] = ()
    double_riichi: tuple[int, ...] = ()
    sticks_placed: tuple[int, ...] = ()
    window_passes: tuple[int, ...] = ()
    dead: tuple[int, ...] = ()
    dealer_player: int | None = None
    ending: HandEnd | None = None

    def __post_init__(self) -> None:
        for name in _SEAT_TUPLES + ("carry_sets",):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        super().__post_init__()
        self._validate_play()

    def _validate_play(self) -> None:
        n = self.players
        for name in ("dead_wall", "kong_chain"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise StateError(f"play.{name}", f"expected a whole number >= 0, got {value!r}")
        for name in _SEAT_TUPLES:
            value = getattr(self, name)
            if any(isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < n for s in value) \
                    or len(set(value)) != len(value):
                raise StateError(f"play.{name}", f"seats of this {n}-player table, each once; got {list(value)}")
        if self.owed not in (None,) + OWED:
            raise StateError("play.owed", f"{self.owed!r}; expected null, kong or bonus")
        if self.owed is not None and self.phase not in ("turn_start", "kong_window"):
            raise StateError("play.owed", f"a replacement is owed only at a turn start or in a kong window, "
                                          f"not in {self.phase}")
        if self.phase == "kong_window" and self.owed is None:
            raise StateError("play.owed", "a kong window's owner owes a replacement draw")
        if self.carry_sets and self.owed is None:
            raise StateError("play.carry_sets", "kept only while a replacement is owed")
        for i in self.ippatsu + self.double_riichi + self.sticks_placed:
            if not self.seats[i].in_riichi:
                raise StateError("play", f"seat {i} has not declared riichi")
        if self.ending is not None and self.ending.kind not in ENDINGS:
            raise StateError("play.ending", f"{self.ending.kind!r}; expected one of {', '.join(ENDINGS)}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TableState):
            return NotImplemented
        if not TableState.__eq__(self, other):
            return False
        mine = play_fields(self)
        theirs = play_fields(other) if isinstance(other, PlayState) else play_fields(PlayState.from_table(other))
        return mine == theirs

    __hash__ = TableState.__hash__

    # --- queries ------------------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        """The hand has ended (a win, a draw, a chombo)."""
        return self.ending is not None

    @property
    def tile_count(self) -> int:
        """Every tile accounted for: hands, melds, bonus areas, uncalled discards, live and dead wall."""
        n = self.live_wall + self.dead_wall
        for s in self.seats:
            n += len(s.hand.all_tiles()) + sum(1 for d in s.discards if d.called_by is None)
        return n

    @property
    def riichi_pending(self) -> int | None:
        """The seat whose riichi declaration discard is open to claims now, else None."""
        if self.phase != "claim_window":
            return None
        last = self.seats[self.turn].discards[-1]
        return self.turn if last.riichi else None

    # --- JSON ----------------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        out = TableState.to_json(self)
        out["play"] = play_fields(self)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PlayState:
        if not isinstance(data, Mapping):
            raise StateError("state", f"expected a JSON object, got {type(data).__name__}")
        base = TableState.from_json({k: v for k, v in data.items() if k != "play"})
        play = data.get("play") or {}
        if not isinstance(play, Mapping):
            raise StateError("play", "expected an object")
        unknown = sorted(set(play) - set(_PLAY_FIELDS))
        if unknown:
            raise StateError(f"play.{unknown[0]}", f"unknown field (known: {', '.join(_PLAY_FIELDS)})")
        kw = {k: (tuple(v) if isinstance(v, list) else v) for k, v in play.items() if k != "ending"}
        state = cls.from_table(base, **kw)
        if play.get("ending"):
            state = replace(state, ending=HandEnd.from_json(play["ending"], state))
        return state

    @classmethod
    def from_table(cls, state: TableState, **play: Any) -> PlayState:
        """A play state from a table state (a camera's, say): the bookkeeping it lacks is inferred —
        the dead wall as the tiles not otherwise accounted for, the replacement owed in a kong window,
        the sticks of riichi seats whose declaration is not open to claims — unless given."""
        if isinstance(state, PlayState) and not play:
            return state
        base = {f.name: getattr(state, f.name) for f in fields(TableState)}
        if isinstance(state, PlayState):
            base.update({name: getattr(state, name) for name in _PLAY_FIELDS})
        else:
            base["dead_wall"] = max(0, _total_tiles(state) - _in_sight(state) - state.live_wall)
            if state.phase == "kong_window":
                base["owed"] = "bonus" if state.declaration in ("kita", "bonus") else "kong"
            pending = state.turn if state.phase == "claim_window" and state.seats[state.turn].discards[-1].riichi \
                else None
            base["sticks_placed"] = tuple(i for i, s in enumerate(state.seats) if s.in_riichi and i != pending)
        base.update(play)
        return cls(**base)


def play_fields(state: PlayState) -> dict[str, Any]:
    """The added fields as JSON values."""
    out: dict[str, Any] = {}
    for name in _PLAY_FIELDS:
        value = getattr(state, name)
        if name == "ending":
            value = None if value is None else json.loads(json.dumps(value.to_json()))
        elif isinstance(value, tuple):
            value = list(value)
        out[name] = value
    return out


def _total_tiles(state: TableState) -> int:
    return state.variant.with_options(dict(state.options)).total_tiles if state.options else state.variant.total_tiles


def _in_sight(state: TableState) -> int:
    return sum(len(s.hand.all_tiles()) + sum(1 for d in s.discards if d.called_by is None) for s in state.seats)


def total_tiles(state: TableState) -> int:
    """The number of tiles in the rule system's set at this table (options that change it applied)."""
    return _total_tiles(state)


__all__ = ["ENDINGS", "OWED", "HandEnd", "IllegalEvent", "PlayState", "WinRecord", "hand_notation", "play_fields",
           "total_tiles"]
