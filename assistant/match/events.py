"""Match events: small immutable values, each with a JSON form (``to_json`` / :func:`event_from_json`).

A match is an append-only log of these events; :mod:`assistant.match.state` folds the log into a
:class:`~assistant.match.state.MatchState`. Players are named by their (fixed) names, never by seat:
seats move from hand to hand, names do not, so an event keeps its meaning when an earlier hand is
edited.

JSON of an event: ``{"type": "<type>", "payload": {...}}`` (:func:`event_from_json` also accepts the
payload fields flattened next to ``type``). The types and their payloads:

=================  ==========================================================================================
``match_created``  ``{"variant": "sanma", "players": ["A", "B", "C"], "options": {"uma": 20}}``
``riichi``         ``{"player": "A"}`` — A puts a 1,000 stick on the table (sanma)
``win``            ``{"discarder": "B" | null, "winners": [CLAIM, ...]}``; a CLAIM is
                   ``{"player": "A", "hand": HAND}`` (scored at fold time) or
                   ``{"player": "A", "payments": [{"from": "B", "to": "A", "amount": 8000, "reason": "win"}]}``
                   (entered by hand: the hand's value only — the match adds honba and table sticks itself)
``draw``           ``{"tenpai": ["A", "B"], "nagashi": []}`` — exhaustive draw
``abortive_draw``  ``{"reason": "nine_terminals" | "four_kans"}`` (sanma)
``payout``         ``{"kind": "concealed_kong", "player": "B", "discarder": null, "payments": null}`` —
                   an instant payout (3 Kaki); ``payments`` (a list as in a claim) overrides the computed one
``false_win``      ``{"player": "C"}`` — false win / chombo, penalised as the rule system says
``undo``           ``{"event": 7}`` — voids event 7 (a correction: undoing an undo restores its target,
                   undoing an edit restores what the edit replaced)
``edit``           ``{"event": 7, "replacement": {"type": "win", "payload": {...}}}`` — event 7 now reads
                   as the replacement; everything after it is recomputed
``match_end``      ``{"reason": "closing time"}`` — ends the match (open-ended matches)
=================  ==========================================================================================

HAND (a scorable hand description) holds ``hand`` (notation, the winning tile marked ``*`` or named in
``win_tile``) and any of the :class:`~assistant.scoring.base.WinContext` fields a player states:
``dora_indicators``, ``ura_indicators`` (tile strings), ``kita``, ``riichi``, ``double_riichi``,
``ippatsu``, ``rinshan``, ``after_two_kongs``, ``chankan``, ``haitei``, ``houtei``, ``tenhou``,
``chiihou``, ``fei_sunk``, ``liable`` (a player name) and ``others`` (3 Kaki settlement: player name ->
``{"melds": ["[111z]"], "bonus": "1f2g", "fei": 0, "sunk_fei": 0, "hidden_honour_pongs": "7z"}``).
Seat, tsumo, discarder, round wind, honba and sticks come from the match.

>>> e = event_from_json({"type": "riichi", "payload": {"player": "A"}})
>>> e, e.to_json()
(Riichi(player='A'), {'type': 'riichi', 'payload': {'player': 'A'}})
>>> event_from_json({"type": "win", "discarder": "B",
...                  "winners": [{"player": "A", "payments": [{"from": "B", "to": "A", "amount": 8000}]}]})
Win(winners=(WinClaim(player='A', hand=None, payments=(PaymentEntry(payer='B', receiver='A', amount=8000, \
reason='win'),)),), discarder='B')
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from ..hand import parse_hand, parse_meld
from ..tiles import parse_tiles

#: Boolean WinContext flags a hand description may set.
HAND_FLAGS = (
    "double_riichi", "ippatsu", "rinshan", "after_two_kongs", "chankan", "haitei", "houtei", "tenhou",
    "chiihou",
)
ABORTIVE_REASONS = ("nine_terminals", "four_kans")


class MatchError(ValueError):
    """An event that cannot be recorded (malformed, or illegal in the current state). Nothing is written."""


# --- small JSON readers with clear messages -------------------------------------------------------


def _json(value: Any) -> str:
    """A value for a message: JSON, at most 60 characters."""
    text = json.dumps(value, default=str) if not isinstance(value, int) or abs(value) < 10**30 else "a huge number"
    return text if len(text) <= 60 else text[:59] + "…"


def _obj(value: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise MatchError(f"{what} must be a JSON object, got {_json(value)}")
    return value


def _only(obj: Mapping[str, Any], allowed: tuple[str, ...], what: str) -> None:
    extra = sorted(set(obj) - set(allowed))
    if extra:
        raise MatchError(f"unknown field {extra[0]!r} in {what}; expected: {', '.join(allowed)}")


def _name(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip() or value != value.strip():
        raise MatchError(f"{what} must be a player name (non-empty, no surrounding spaces), got {_json(value)}")
    return value


def _opt_name(value: Any, what: str) -> str | None:
    return None if value is None else _name(value, what)


def _int(value: Any, what: str, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise MatchError(f"{what} must be a whole number >= {minimum}, got {_json(value)}")
    return value


MAX_AMOUNT = 10_000_000     # no payment of any rule system comes near this
MAX_NAME = 32              # characters of a player's name


def amount_value(value: Any, what: str = "an amount") -> int | float:
    """A payment amount: a whole number >= 1, or a positive decimal where a rule pays half units
    (Hong Kong ``half`` model); a decimal with no fraction becomes a whole number."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0 or value != value:
        raise MatchError(f"{what} must be a positive number, got {_json(value)}")
    if value > MAX_AMOUNT:
        shown = f"{value:,}" if value < 10**30 else _json(value)
        raise MatchError(f"{what} must be at most {MAX_AMOUNT:,} (no hand is worth more), got {shown}")
    if isinstance(value, float):
        if value == float("inf"):
            raise MatchError(f"{what} must be a positive number, got {value}")
        if value.is_integer():
            return int(value)
    return value


def _bool(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise MatchError(f"{what} must be true or false, got {_json(value)}")
    return value


def _str(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise MatchError(f"{what} must be a string, got {_json(value)}")
    return value


def _names(value: Any, what: str) -> tuple[str, ...]:
    if not isinstance(value, list | tuple):
        raise MatchError(f"{what} must be a list of player names, got {_json(value)}")
    out = tuple(_name(v, what) for v in value)
    long = [n for n in out if len(n) > MAX_NAME]
    if long:
        raise MatchError(f"{what}: a player name has at most {MAX_NAME} characters ({long[0][:20]!r}... has "
                         f"{len(long[0])})")
    if len(set(out)) != len(out):
        raise MatchError(f"{what} names a player twice: {', '.join(out)}")
    return out


def _tiles(value: Any, what: str) -> str:
    text = _str(value, what)
    if text.strip():
        parse_tiles(text)  # TileError (a ValueError) names the bad token
    return text


# --- payments -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PaymentEntry:
    """``payer`` pays ``amount`` to ``receiver`` (player names), entered by hand."""

    payer: str
    receiver: str
    amount: int | float
    reason: str = "win"

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"from": self.payer, "to": self.receiver, "amount": self.amount}
        if self.reason != "win":
            d["reason"] = self.reason
        return d

    @classmethod
    def from_json(cls, obj: Any, default_reason: str = "win") -> PaymentEntry:
        o = _obj(obj, "a payment")
        _only(o, ("from", "to", "amount", "reason"), "a payment")
        for key in ("from", "to", "amount"):
            if key not in o:
                raise MatchError(f"a payment needs {key!r}: {json.dumps(o)}")
        payer = _name(o["from"], "payment 'from'")
        receiver = _name(o["to"], "payment 'to'")
        if payer == receiver:
            raise MatchError(f"a payment from {payer} to {payer} is not a payment")
        amount = amount_value(o["amount"], "payment 'amount'")
        return cls(payer, receiver, amount, _str(o.get("reason", default_reason), "payment 'reason'"))


def _payments(value: Any, what: str, default_reason: str = "win") -> tuple[PaymentEntry, ...]:
    if not isinstance(value, list | tuple):
        raise MatchError(f"{what} must be a list of payments, got {_json(value)}")
    return tuple(PaymentEntry.from_json(p, default_reason) for p in value)


# --- hand descriptions --------------------------------------------------------------------------


@dataclass(frozen=True)
class ShownSpec:
    """What another player shows at a 3 Kaki settlement (see :class:`~assistant.scoring.base.PlayerShown`)."""

    melds: tuple[str, ...] = ()
    bonus: str = ""
    fei: int = 0
    sunk_fei: int = 0
    hidden_honour_pongs: str = ""

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if v != f.default:
                d[f.name] = list(v) if isinstance(v, tuple) else v
        return d

    @classmethod
    def from_json(cls, obj: Any, who: str) -> ShownSpec:
        o = _obj(obj, f"what {who} shows")
        _only(o, tuple(f.name for f in fields(cls)), f"what {who} shows")
        melds = o.get("melds", [])
        if not isinstance(melds, list | tuple):
            raise MatchError(f"{who}'s melds must be a list of melds in notation, e.g. [\"[111z]\"]")
        for m in melds:
            parse_meld(_str(m, f"{who}'s meld"))
        return cls(
            melds=tuple(melds),
            bonus=_tiles(o.get("bonus", ""), f"{who}'s bonus tiles"),
            fei=_int(o.get("fei", 0), f"{who}'s fei"),
            sunk_fei=_int(o.get("sunk_fei", 0), f"{who}'s sunk_fei"),
            hidden_honour_pongs=_tiles(o.get("hidden_honour_pongs", ""), f"{who}'s hidden_honour_pongs"),
        )


@dataclass(frozen=True)
class HandSpec:
    """A winning hand as the players state it; scored with :func:`assistant.scoring.score` at fold time.

    ``riichi`` None means "as recorded": true exactly when the winner declared riichi this hand.
    """

    hand: str
    win_tile: str = ""
    dora_indicators: str = ""
    ura_indicators: str = ""
    kita: int = 0
    riichi: bool | None = None
    double_riichi: bool = False
    ippatsu: bool = False
    rinshan: bool = False
    after_two_kongs: bool = False
    chankan: bool = False
    haitei: bool = False
    houtei: bool = False
    tenhou: bool = False
    chiihou: bool = False
    fei_sunk: int = 0
    liable: str | None = None
    others: tuple[tuple[str, ShownSpec], ...] = ()

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"hand": self.hand}
        for f in fields(self):
            if f.name in ("hand", "others"):
                continue
            v = getattr(self, f.name)
            if v != f.default:
                d[f.name] = v
        if self.others:
            d["others"] = {name: shown.to_json() for name, shown in self.others}
        return d

    @classmethod
    def from_json(cls, obj: Any) -> HandSpec:
        o = _obj(obj, "a hand description")
        _only(o, tuple(f.name for f in fields(cls)), "a hand description")
        if "hand" not in o:
            raise MatchError("a hand description needs 'hand' (the notation, winning tile marked with *)")
        text = _str(o["hand"], "'hand'")
        parsed = parse_hand(text)  # TileError names the bad token
        win_tile = _tiles(o.get("win_tile", ""), "'win_tile'")
        if win_tile.strip() and len(parse_tiles(win_tile)) != 1:
            raise MatchError(f"'win_tile' must be one tile, got {win_tile!r}")
        if parsed.win_tile is None and not win_tile.strip():
            raise MatchError(f"say which tile won: mark it with * in the hand ({text!r}) or give 'win_tile'")
        others_raw = _obj(o.get("others", {}), "'others'")
        kw: dict[str, Any] = {
            "hand": text,
            "win_tile": win_tile,
            "dora_indicators": _tiles(o.get("dora_indicators", ""), "'dora_indicators'"),
            "ura_indicators": _tiles(o.get("ura_indicators", ""), "'ura_indicators'"),
            "kita": _int(o.get("kita", 0), "'kita'"),
            "riichi": None if o.get("riichi") is None else _bool(o["riichi"], "'riichi'"),
            "fei_sunk": _int(o.get("fei_sunk", 0), "'fei_sunk'"),
            "liable": _opt_name(o.get("liable"), "'liable'"),
            "others": tuple(
                (_name(name, "a name in 'others'"), ShownSpec.from_json(v, name)) for name, v in others_raw.items()
            ),
        }
        for flag in HAND_FLAGS:
            kw[flag] = _bool(o.get(flag, False), repr(flag))
        return cls(**kw)


# --- the events ---------------------------------------------------------------------------------


class Event:
    """Base of every event: ``type`` names it in JSON and in the database."""

    type: ClassVar[str] = ""

    def payload(self) -> dict[str, Any]:  # pragma: no cover - every event overrides it
        raise NotImplementedError

    def to_json(self) -> dict[str, Any]:
        """``{"type": ..., "payload": {...}}``."""
        return {"type": self.type, "payload": self.payload()}

    @classmethod
    def from_payload(cls, payload: Mapping[str, Any]) -> Event:  # pragma: no cover - overridden
        raise NotImplementedError

    @property
    def is_correction(self) -> bool:
        return False


@dataclass(frozen=True)
class MatchCreated(Event):
    """The first event of every match: rule system, players in initial seat order (first = first
    dealer, East) and the table options that differ from the defaults."""

    type: ClassVar[str] = "match_created"
    variant: str
    players: tuple[str, ...]
    options: tuple[tuple[str, Any], ...] = ()

    def payload(self) -> dict[str, Any]:
        return {"variant": self.variant, "players": list(self.players), "options": options_dict(self)}

    @classmethod
    def from_payload(cls, p: Mapping[str, Any]) -> MatchCreated:
        _only(p, ("variant", "players", "options"), "match_created")
        if "variant" not in p or "players" not in p:
            raise MatchError("match_created needs 'variant' and 'players'")
        opts = _obj(p.get("options", {}), "'options'")
        return cls(
            variant=_str(p["variant"], "'variant'"),
            players=_names(p["players"], "'players'"),
            options=tuple(sorted((str(k), _freeze(v)) for k, v in opts.items())),
        )


def _freeze(v: Any) -> Any:
    """Lists become tuples so that option values stay immutable; dicts are kept (compared by value)."""
    if isinstance(v, list):
        return tuple(_freeze(x) for x in v)
    if isinstance(v, dict):
        return {k: _freeze(x) for k, x in v.items()}
    return v


def _thaw(v: Any) -> Any:
    if isinstance(v, tuple):
        return [_thaw(x) for x in v]
    if isinstance(v, dict):
        return {k: _thaw(x) for k, x in v.items()}
    return v


@dataclass(frozen=True)
class Riichi(Event):
    """A riichi declaration whose stick is placed: ``player`` pays 1,000 to the table."""

    type: ClassVar[str] = "riichi"
    player: str

    def payload(self) -> dict[str, Any]:
        return {"player": self.player}

    @classmethod
    def from_payload(cls, p: Mapping[str, Any]) -> Riichi:
        _only(p, ("player",), "riichi")
        return cls(_name(p.get("player"), "riichi 'player'"))


@dataclass(frozen=True)
class WinClaim:
    """One winner: either a hand to score (``hand``) or the payments entered by hand (``payments``)."""

    player: str
    hand: HandSpec | None = None
    payments: tuple[PaymentEntry, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"player": self.player}
        if self.hand is not None:
            d["hand"] = self.hand.to_json()
        if self.payments is not None:
            d["payments"] = [p.to_json() for p in self.payments]
        return d

    @classmethod
    def from_json(cls, obj: Any) -> WinClaim:
        o = _obj(obj, "a winner")
        _only(o, ("player", "hand", "payments"), "a winner")
        player = _name(o.get("player"), "winner 'player'")
        if ("hand" in o) == ("payments" in o):
            raise MatchError(f"winner {player}: give either 'hand' (to score) or 'payments' (entered by hand)")
        if "hand" in o:
            return cls(player, hand=HandSpec.from_json(o["hand"]))
        return cls(player, payments=_payments(o["payments"], f"{player}'s payments"))


@dataclass(frozen=True)
class Win(Event):
    """A won hand: one winner, or several on one discard where the rule system allows it.
    ``discarder`` None = self-draw (tsumo)."""

    type: ClassVar[str] = "win"
    winners: tuple[WinClaim, ...]
    discarder: str | None = None

    def payload(self) -> dict[str, Any]:
        return {"discarder": self.discarder, "winners": [w.to_json() for w in self.winners]}

    @classmethod
    def from_payload(cls, p: Mapping[str, Any]) -> Win:
        _only(p, ("discarder", "winners"), "win")
        raw = p.get("winners")
        if not isinstance(raw, list | tuple) or not raw:
            raise MatchError("win needs 'winners': a non-empty list of winners")
        winners = tuple(WinClaim.from_json(w) for w in raw)
        names = [w.player for w in winners]
        if len(set(names)) != len(names):
            raise MatchError(f"win names a winner twice: {', '.join(names)}")
        return cls(winners, _opt_name(p.get("discarder"), "win 'discarder'"))


@dataclass(frozen=True)
class Draw(Event):
    """An exhaustive draw: who was tenpai (sanma noten payments), who made nagashi mangan."""

    type: ClassVar[str] = "draw"
    tenpai: tuple[str, ...] = ()
    nagashi: tuple[str, ...] = ()

    def payload(self) -> dict[str, Any]:
        return {"tenpai": list(self.tenpai), "nagashi": list(self.nagashi)}

    @classmethod
    def from_payload(cls, p: Mapping[str, Any]) -> Draw:
        _only(p, ("tenpai", "nagashi"), "draw")
        return cls(_names(p.get("tenpai", []), "draw 'tenpai'"), _names(p.get("nagashi", []), "draw 'nagashi'"))


@dataclass(frozen=True)
class AbortiveDraw(Event):
    """An aborted hand (sanma: nine terminals, four kans): no payments, the dealer keeps, honba +1."""

    type: ClassVar[str] = "abortive_draw"
    reason: str

    def payload(self) -> dict[str, Any]:
        return {"reason": self.reason}

    @classmethod
    def from_payload(cls, p: Mapping[str, Any]) -> AbortiveDraw:
        _only(p, ("reason",), "abortive_draw")
        reason = _str(p.get("reason"), "abortive_draw 'reason'")
        if reason not in ABORTIVE_REASONS:
            raise MatchError(f"abortive_draw 'reason' must be one of {', '.join(ABORTIVE_REASONS)}, not {reason!r}")
        return cls(reason)


@dataclass(frozen=True)
class Payout(Event):
    """An instant payout inside a hand (3 Kaki kongs, families, bites): computed from ``kind`` by the
    three-kaki scorer, or the ``payments`` given."""

    type: ClassVar[str] = "payout"
    kind: str
    player: str
    discarder: str | None = None
    payments: tuple[PaymentEntry, ...] | None = None

    def payload(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "player": self.player,
            "discarder": self.discarder,
            "payments": None if self.payments is None else [p.to_json() for p in self.payments],
        }

    @classmethod
    def from_payload(cls, p: Mapping[str, Any]) -> Payout:
        _only(p, ("kind", "player", "discarder", "payments"), "payout")
        kind = _str(p.get("kind"), "payout 'kind'")
        payments = p.get("payments")
        return cls(
            kind=kind,
            player=_name(p.get("player"), "payout 'player'"),
            discarder=_opt_name(p.get("discarder"), "payout 'discarder'"),
            payments=None if payments is None else _payments(payments, "payout 'payments'", kind),
        )


@dataclass(frozen=True)
class FalseWin(Event):
    """A false win declaration (chombo) by ``player``, penalised per rule system."""

    type: ClassVar[str] = "false_win"
    player: str

    def payload(self) -> dict[str, Any]:
        return {"player": self.player}

    @classmethod
    def from_payload(cls, p: Mapping[str, Any]) -> FalseWin:
        _only(p, ("player",), "false_win")
        return cls(_name(p.get("player"), "false_win 'player'"))


@dataclass(frozen=True)
class Undo(Event):
    """A correction: event number ``event`` is void from now on (its effects are recomputed away)."""

    type: ClassVar[str] = "undo"
    event: int

    def payload(self) -> dict[str, Any]:
        return {"event": self.event}

    @classmethod
    def from_payload(cls, p: Mapping[str, Any]) -> Undo:
        _only(p, ("event",), "undo")
        return cls(_int(p.get("event"), "undo 'event'", 1))

    @property
    def is_correction(self) -> bool:
        return True


@dataclass(frozen=True)
class Edit(Event):
    """A correction: event number ``event`` now reads as ``replacement``; everything after is recomputed."""

    type: ClassVar[str] = "edit"
    event: int
    replacement: Event

    def payload(self) -> dict[str, Any]:
        return {"event": self.event, "replacement": self.replacement.to_json()}

    @classmethod
    def from_payload(cls, p: Mapping[str, Any]) -> Edit:
        _only(p, ("event", "replacement"), "edit")
        target = _int(p.get("event"), "edit 'event'", 1)
        replacement = event_from_json(p.get("replacement"))
        if replacement.is_correction or isinstance(replacement, MatchCreated):
            raise MatchError(f"an edit cannot replace an event with a {replacement.type} event")
        return cls(target, replacement)

    @property
    def is_correction(self) -> bool:
        return True


@dataclass(frozen=True)
class MatchEnd(Event):
    """The table ends the match (open-ended matches, or stopping early)."""

    type: ClassVar[str] = "match_end"
    reason: str = ""

    def payload(self) -> dict[str, Any]:
        return {"reason": self.reason}

    @classmethod
    def from_payload(cls, p: Mapping[str, Any]) -> MatchEnd:
        _only(p, ("reason",), "match_end")
        return cls(_str(p.get("reason", ""), "match_end 'reason'"))


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (MatchCreated, Riichi, Win, Draw, AbortiveDraw, Payout, FalseWin, Undo, Edit, MatchEnd)
}


def event_from_json(obj: Any) -> Event:
    """Read an event from ``{"type": T, "payload": {...}}`` (or with the payload fields flattened)."""
    o = _obj(obj, "an event")
    kind = o.get("type")
    if not isinstance(kind, str) or kind not in EVENT_TYPES:
        raise MatchError(f"unknown event type {_json(kind)}; choose one of: {', '.join(EVENT_TYPES)}")
    if "payload" in o:
        _only(o, ("type", "payload"), f"a {kind} event")
        payload = _obj(o["payload"], f"the payload of a {kind} event")
    else:
        payload = {k: v for k, v in o.items() if k != "type"}
    return EVENT_TYPES[kind].from_payload(payload)


def event_from_parts(kind: str, payload: Mapping[str, Any]) -> Event:
    """Read an event from its type and payload as stored in the database."""
    return event_from_json({"type": kind, "payload": payload})


def options_dict(event: MatchCreated) -> dict[str, Any]:
    """The options of a ``match_created`` event as plain JSON values."""
    return {k: _thaw(v) for k, v in event.options}


__all__ = [
    "ABORTIVE_REASONS", "AbortiveDraw", "Draw", "EVENT_TYPES", "Edit", "Event", "FalseWin", "HAND_FLAGS",
    "HandSpec", "MatchCreated", "MatchEnd", "MatchError", "PaymentEntry", "Payout", "Riichi", "ShownSpec",
    "Undo", "Win", "WinClaim", "amount_value", "event_from_json", "event_from_parts", "options_dict",
]
