"""Shared types of the scoring layer: what a win looks like (input) and what it is worth (output).

Seats are integers ``0 .. players-1`` relative to the current dealer: 0 = East (dealer), 1 = South,
2 = West, 3 = North (four players only). Turn order is 0 -> 1 -> 2 (-> 3) -> 0. A meld's ``@k`` source
means "k seats back" from its owner, so the tile came from seat ``(owner - k) % players``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..hand import Hand, Meld
from ..tiles import Tile
from ..variants import RuleSystem


@dataclass(frozen=True)
class PlayerShown:
    """What another player shows at settlement (three-kaki square-up, extra Fei; HK/sanma nothing).

    ``fei`` = Fei the player holds in hand and reveals, ``sunk_fei`` = Fei sunk into the bonus area
    (also listed in ``bonus`` as ``jk`` is NOT required: keep them only here), ``melds`` = shown sets and
    concealed kongs, ``bonus`` = bonus tiles (flowers, seasons, animals, faces), ``hidden_honour_pongs``
    = honour pongs revealed from hand for the square-up.
    """

    melds: tuple[Meld, ...] = ()
    bonus: tuple[Tile, ...] = ()
    fei: int = 0
    sunk_fei: int = 0
    hidden_honour_pongs: tuple[int, ...] = ()


@dataclass(frozen=True)
class WinContext:
    """Everything a scorer needs about one win. The hand's ``concealed`` tiles include the winning tile.

    Flags not used by a rule system are ignored by it. ``options`` override the variant's defaults
    (``variant.options``) by key, e.g. ``{"honba": {"ron": 200, "tsumo_each": 100}}`` or ``{"ladder": "full"}``.
    """

    variant: RuleSystem
    hand: Hand
    win_tile: Tile
    tsumo: bool
    seat: int = 0
    discarder: int | None = None  # seat that discarded (ron) or whose kong was robbed (chankan)
    round_wind: int = 27  # tile kind of the round wind (27 = East)
    dora_indicators: tuple[Tile, ...] = ()
    ura_indicators: tuple[Tile, ...] = ()
    kita: int = 0  # sanma: Norths set aside by the winner
    riichi: bool = False
    double_riichi: bool = False
    ippatsu: bool = False
    rinshan: bool = False  # win on a replacement tile (kong; sanma: kita too; kaki: bonus/sunk-Fei too)
    after_two_kongs: bool = False  # win on the replacement after two consecutive kongs
    chankan: bool = False  # robbing a kong
    haitei: bool = False  # self-draw of the last live tile
    houtei: bool = False  # win on the last discard
    tenhou: bool = False  # dealer complete on the initial deal
    chiihou: bool = False  # non-dealer: first-draw win (riichi/kaki) / HK earthly hand (win on dealer's first discard)
    honba: int = 0
    riichi_sticks: int = 0  # sticks on the table, the winner's own included
    fei_sunk: int = 0  # three-kaki: Fei the winner has sunk
    others: Mapping[int, PlayerShown] = field(default_factory=dict)  # three-kaki settlement
    liable: int | None = None  # explicit liability (pao/bao) seat, when not derivable from meld sources
    options: Mapping[str, Any] = field(default_factory=dict)

    def option(self, key: str) -> Any:
        """A table option: the override if given, else the variant's default."""
        if key in self.options:
            return self.options[key]
        return self.variant.options[key]

    @property
    def players(self) -> int:
        return self.variant.players

    @property
    def dealer(self) -> bool:
        return self.seat == 0

    @property
    def seat_wind(self) -> int:
        return 27 + self.seat

    def source_seat(self, meld: Meld) -> int | None:
        """The seat a claimed meld's tile came from (None if unknown or concealed)."""
        if meld.source is None or meld.concealed:
            return None
        return (self.seat - meld.source) % self.players


@dataclass(frozen=True)
class ScoreItem:
    """One scoring item: a yaku (han), a fu source, a faan/fan criterion or a point item."""

    name: str
    value: int
    unit: str  # "han", "fu", "faan", "fan", "points", "yakuman", "limit"
    note: str = ""

    def as_dict(self) -> dict:
        d = {"name": self.name, "value": self.value, "unit": self.unit}
        if self.note:
            d["note"] = self.note
        return d


@dataclass(frozen=True)
class Payment:
    """``payer`` pays ``amount`` to ``receiver`` (seats), for ``reason`` (win, honba, sticks, extra Fei…)."""

    payer: int | None  # None = the table (riichi sticks on the table)
    receiver: int
    amount: int | float  # a float only where a rule pays half units (Hong Kong `half` model, low ladder)
    reason: str = "win"

    def as_dict(self) -> dict:
        return {"payer": self.payer, "receiver": self.receiver, "amount": self.amount, "reason": self.reason}


def net_changes(payments, players: int) -> list[int | float]:
    """Each seat's net change from a list of :class:`Payment` (sticks from the table: receiver only)."""
    out: list[int | float] = [0] * players
    for p in payments:
        out[p.receiver] += p.amount
        if p.payer is not None:
            out[p.payer] -= p.amount
    return out


@dataclass
class ScoreResult:
    """The full scoring of a win.

    ``legal`` is False when the hand cannot win as declared (no yaku, below the minimum, not complete);
    ``verdict`` then says why in plain words, e.g. "cannot win: 2 below the minimum of 3 faan".
    ``reading`` names the decomposition (and joker assignment) used: the one that pays most.
    """

    legal: bool
    verdict: str
    items: list[ScoreItem] = field(default_factory=list)
    fu: int | None = None
    fu_breakdown: list[ScoreItem] = field(default_factory=list)
    total: int = 0  # han / faan / fan / points, after limits
    unit: str = ""
    limit: str | None = None  # e.g. "mangan", "yakuman", "limit", "cap"
    payments: list[Payment] = field(default_factory=list)
    reading: str = ""
    explanation: str = ""
    extra: dict[str, Any] = field(default_factory=dict)  # variant-specific figures (base points, portion…)

    def net(self, players: int) -> list[int | float]:
        """Net change per seat from the payments (table sticks count for the receiver only)."""
        return net_changes(self.payments, players)

    def as_dict(self) -> dict:
        return {
            "legal": self.legal,
            "verdict": self.verdict,
            "items": [i.as_dict() for i in self.items],
            "fu": self.fu,
            "fu_breakdown": [i.as_dict() for i in self.fu_breakdown],
            "total": self.total,
            "unit": self.unit,
            "limit": self.limit,
            "payments": [p.as_dict() for p in self.payments],
            "reading": self.reading,
            "explanation": self.explanation,
            **({"extra": self.extra} if self.extra else {}),
        }
