"""Sanma points and payments (``shared/rules/sanma.md`` §8, §9.1, §9.2, §9.6).

Base points from han and fu with the limit table (:data:`LIMITS`) and the kazoe / kiriage options;
payments for ron and tsumo with tsumo loss (or the split option), each payment rounded up to 100;
honba, riichi sticks and pao (liability) as separate :class:`~assistant.scoring.base.Payment` rows.

>>> hand_value(1, 30, 0).base, hand_value(5, 30, 0).limit, hand_value(14, 40, 0).limit
(240, 'mangan', 'yakuman')
>>> [(p.payer, p.amount) for p in win_payments(seat=1, base=240, tsumo=True, discarder=None)]
[(0, 500), (2, 300)]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..base import Payment

PLAYERS = 3
SEAT_NAMES = ("East", "South", "West")
YAKUMAN_BASE = 8000
MANGAN_BASE = 2000

#: (lowest han, limit name, base points), highest first
LIMITS: tuple[tuple[int, str, int], ...] = (
    (13, "yakuman", 8000),
    (11, "sanbaiman", 6000),
    (8, "baiman", 4000),
    (6, "haneman", 3000),
    (5, "mangan", 2000),
)
#: han/fu pairs that pay mangan with ``sanma.kiriage`` on
KIRIAGE: frozenset[tuple[int, int]] = frozenset({(4, 30), (3, 60)})
MULTIPLE_NAMES = {1: "yakuman", 2: "double yakuman", 3: "triple yakuman", 4: "quadruple yakuman",
                  5: "quintuple yakuman", 6: "sextuple yakuman"}


def round_up_100(x: int | float) -> int:
    """Round a payment up to the next 100."""
    return int(-(-x // 100) * 100)


def yakuman_name(times: int) -> str:
    return MULTIPLE_NAMES.get(times, f"{times}x yakuman")


@dataclass(frozen=True)
class HandValue:
    """Han, fu, yakuman multiple, base points and the limit reached (None below mangan)."""

    han: int
    fu: int
    yakuman: int
    base: int
    limit: str | None
    kazoe: bool = False


def hand_value(han: int, fu: int, yakuman: int, *, kazoe: str = "yakuman", kiriage: bool = False) -> HandValue:
    """Base points of a hand: ``fu × 2^(han+2)`` below the limits, else the limit table.

    ``yakuman`` is the sum of yakuman multiples (0 for an ordinary hand); ``kazoe`` is
    ``sanma.kazoe`` ("yakuman": 13+ han pays a yakuman; "sanbaiman": capped at sanbaiman).
    """
    if kazoe not in ("yakuman", "sanbaiman"):
        raise ValueError(f"sanma.kazoe must be 'yakuman' or 'sanbaiman', not {kazoe!r}")
    if yakuman:
        return HandValue(han, fu, yakuman, YAKUMAN_BASE * yakuman, yakuman_name(yakuman))
    if han >= 13:
        if kazoe == "yakuman":
            return HandValue(han, fu, 0, YAKUMAN_BASE, "yakuman", kazoe=True)
        return HandValue(han, fu, 0, 6000, "sanbaiman", kazoe=True)
    for low, name, base in LIMITS:
        if han >= low:
            return HandValue(han, fu, 0, base, name)
    base = fu * 2 ** (han + 2)
    if base > MANGAN_BASE or (kiriage and (han, fu) in KIRIAGE):
        return HandValue(han, fu, 0, MANGAN_BASE, "mangan")
    return HandValue(han, fu, 0, base, None)


def ron_amount(base: int, dealer: bool) -> int:
    """What the discarder pays: 6 × base for a dealer winner, 4 × base otherwise, rounded up."""
    return round_up_100((6 if dealer else 4) * base)


def tsumo_shares(seat: int, base: int, mode: str = "loss") -> dict[int, int]:
    """Who pays what on a tsumo by ``seat``: four-player shares (dealer 2 × base, non-dealer 1 × base,
    everyone 2 × base to a dealer winner), each rounded up to 100. With ``mode="loss"`` the absent North's
    share is paid by nobody; with ``"split"`` it is halved between the two payers, each half rounded up."""
    if mode not in ("loss", "split"):
        raise ValueError(f"sanma.tsumo_mode must be 'loss' or 'split', not {mode!r}")
    dealer_win = seat == 0
    shares = {}
    for payer in range(PLAYERS):
        if payer == seat:
            continue
        shares[payer] = round_up_100((2 if dealer_win or payer == 0 else 1) * base)
    if mode == "split":
        north_share = round_up_100((2 if dealer_win else 1) * base)
        half = round_up_100(north_share / 2)
        shares = {p: a + half for p, a in shares.items()}
    return shares


def win_payments(
    seat: int,
    base: int,
    tsumo: bool,
    discarder: int | None,
    *,
    mode: str = "loss",
    honba: int = 0,
    honba_values: Mapping[str, int] | None = None,
    sticks: int = 0,
    liable: int | None = None,
) -> list[Payment]:
    """All payments of one win.

    ``honba_values`` is ``sanma.honba`` (``{"ron": 1000, "tsumo_each": 500}`` by default). With a
    ``liable`` (pao) seat: on a tsumo the liable player pays the whole hand as if it were a ron, honba
    included (at the ron rate); on a ron by someone else the discarder and the liable player pay half
    each and the discarder pays the honba.
    """
    hv = dict(honba_values or {"ron": 1000, "tsumo_each": 500})
    if set(hv) != {"ron", "tsumo_each"}:
        raise ValueError(f"sanma.honba must have the keys 'ron' and 'tsumo_each', not {sorted(hv)}")
    out: list[Payment] = []
    dealer = seat == 0
    if liable is not None and liable != discarder:
        ron = ron_amount(base, dealer)
        if tsumo:
            out.append(Payment(liable, seat, ron, "win (pao: liable pays all)"))
            if honba:
                out.append(Payment(liable, seat, honba * hv["ron"], "honba"))
        else:
            assert discarder is not None
            half = ron // 2
            out.append(Payment(discarder, seat, ron - half, "win (pao: discarder's half)"))
            out.append(Payment(liable, seat, half, "win (pao: liable's half)"))
            if honba:
                out.append(Payment(discarder, seat, honba * hv["ron"], "honba"))
    elif tsumo:
        shares = tsumo_shares(seat, base, mode)
        for payer, amount in shares.items():
            out.append(Payment(payer, seat, amount, "win" if mode == "loss" else "win (tsumo split)"))
        if honba:
            for payer in shares:
                out.append(Payment(payer, seat, honba * hv["tsumo_each"], "honba"))
    else:
        assert discarder is not None
        out.append(Payment(discarder, seat, ron_amount(base, dealer), "win"))
        if honba:
            out.append(Payment(discarder, seat, honba * hv["ron"], "honba"))
    if sticks:
        out.append(Payment(None, seat, 1000 * sticks, "riichi sticks"))
    return out


def hand_points(seat: int, base: int, tsumo: bool, mode: str = "loss") -> int:
    """What the winner collects for the hand alone (no honba, no sticks, no pao split)."""
    if tsumo:
        return sum(tsumo_shares(seat, base, mode).values())
    return ron_amount(base, seat == 0)
