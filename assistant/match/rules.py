"""Match rules of each rule system, as data plus small named pieces.

Players are numbered ``0 .. n-1`` in initial seat order (player 0 is the first dealer, East of the
first hand) and keep that number all match. Seats are relative to the current dealer
(0 = East/dealer, 1 = South, 2 = West, 3 = North), as in :mod:`assistant.scoring.base`.

>>> rules_for("sanma").rotation, rules_for("three-kaki").rotation
('pass', 'winner')
>>> seat_of(player=2, dealer=1, players=3), player_at(seat=0, dealer=1, players=3)
(1, 1)
>>> p = Position(dealer=2, round_index=0, honba=1)
>>> hand_label(rules_for("sanma"), p)
'East 3, 1 honba'
>>> noten_payments({0, 1}, 3)
[(2, 0, 1000), (2, 1, 1000)]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ..variants import get_variant

WIND_NAMES = ("East", "South", "West", "North")
RIICHI_STICK = 1000
#: Sanma noten payments: 2,000 in all, split between the noten payers and the tenpai receivers (§9.4).
NOTEN_TOTAL = 2000
#: A mangan self-draw with tsumo loss (nagashi mangan, reversed-mangan chombo): dealer pays / others pay.
MANGAN_TSUMO = {"dealer_receives_each": 4000, "from_dealer": 4000, "from_other": 2000}
#: Sanma fixed chombo (``sanma.chombo = fixed``): the offender loses this, nobody receives it.
FIXED_CHOMBO = 20000
#: Hong Kong payout ladders (hong-kong.md §7): multiplier of ``hk.unit`` for 0..13 faan.
HK_LADDERS: Mapping[str, tuple[int, ...]] = MappingProxyType({
    "half": (1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384),
    "full": (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192),
    "simplified": (1, 1, 1, 1, 2, 2, 2, 4, 4, 4, 8, 8, 8, 8),
})


@dataclass(frozen=True)
class MatchRules:
    """How a match of one rule system flows (who deals, rounds, sticks, penalties).

    ``rotation``: ``pass`` (the deal passes to the next player unless the dealer keeps it) or
    ``winner`` (3 Kaki: the winner deals next). ``rounds``: ``winds`` (round wind advances when the
    deal returns to the first dealer), ``passes`` (korean-3p: passes of the deal, no round wind) or
    ``hands`` (3 Kaki: a number of hands, or open-ended). ``false_win``: ``replay`` (hand void, same
    dealer), ``new_hand`` (hand void, dealer per ``false_win_dealer``) or ``dead_hand`` (the
    offender's hand is dead and the hand goes on). ``multi_win`` names the option and the value that
    let several players win on one discard. ``extra_options`` are match options the rule system's
    definition does not hold; ``choices`` and ``minimums`` constrain option values.
    """

    variant: str
    rotation: str
    rounds: str
    riichi: bool = False
    abortive_reasons: tuple[str, ...] = ()
    noten_payments: bool = False
    false_win: str = "replay"
    multi_win: tuple[str, str] | None = None
    instant_payouts: bool = False
    unit: str = "points"
    extra_options: Mapping[str, Any] = field(default_factory=dict)
    choices: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    minimums: Mapping[str, int] = field(default_factory=dict)

    @property
    def players(self) -> int:
        return get_variant(self.variant).players


_DEALER = ("stays", "passes")
RULES: dict[str, MatchRules] = {
    "sanma": MatchRules(
        variant="sanma", rotation="pass", rounds="winds", riichi=True,
        abortive_reasons=("nine_terminals", "four_kans"), noten_payments=True, false_win="replay",
        multi_win=("multi_ron", "double"), unit="points",
        choices={
            "length": ("hanchan", "east"), "bust": ("below_zero", "at_or_below_zero", "off"),
            "final_rounding": ("exact", "integer"), "chombo": ("reversed_mangan", "fixed"),
            "leftover_sticks": ("first", "lost"), "multi_ron": ("double", "head_bump"),
            "tsumo_mode": ("loss", "split"),
        },
        minimums={"uma": 0, "start_points": 1, "return_points": 1, "riichi_min_points": 0},
    ),
    "hong-kong": MatchRules(
        variant="hong-kong", rotation="pass", rounds="winds", false_win="new_hand", unit="portions",
        extra_options={"rounds": 4, "start_points": 0},
        choices={
            "draw_dealer": _DEALER, "false_win_dealer": ("passes", "stays"),
            "false_win": ("3_portions_at_cap", "1_portion_at_cap"), "ladder": tuple(HK_LADDERS),
            "payment": ("full", "half"),
        },
        minimums={"rounds": 1, "unit": 1, "cap": 0, "start_points": 0},
    ),
    "korean-3p": MatchRules(
        variant="korean-3p", rotation="pass", rounds="passes", false_win="dead_hand",
        multi_win=("multi_win", "both"), unit="points",
        extra_options={"start_points": 0},
        choices={"draw_dealer": _DEALER, "multi_win": ("nearest", "both")},
        minimums={"rounds": 1, "false_win_penalty": 0, "start_points": 0},
    ),
    "three-kaki": MatchRules(
        variant="three-kaki", rotation="winner", rounds="hands", false_win="replay",
        multi_win=("multi_win", "both"), instant_payouts=True, unit="points",
        extra_options={"hands": 0, "start_points": 0},
        choices={"draw_dealer": _DEALER, "multi_win": ("nearest", "both")},
        minimums={"hands": 0, "false_win": 0, "start_points": 0},
    ),
}


def rules_for(variant: str) -> MatchRules:
    """The match rules of a rule system (ValueError for one without match rules)."""
    name = get_variant(variant).name
    try:
        return RULES[name]
    except KeyError:
        raise ValueError(f"no match rules are defined for rule system {name!r}") from None


def match_options(variant: str, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Every option of a match: the rule system's defaults, the match-only options, then ``overrides``.

    Each override must name a known option and have the default's type (and an allowed value).

    >>> match_options("sanma", {"uma": 20})["uma"]
    20
    >>> match_options("sanma", {"length": "short"})
    Traceback (most recent call last):
    ...
    ValueError: option 'length' of sanma must be one of hanchan, east, not 'short'
    """
    rules = rules_for(variant)
    defaults = {**get_variant(variant).options, **rules.extra_options}
    out = dict(defaults)
    for key, value in (overrides or {}).items():
        if key not in defaults:
            raise ValueError(f"unknown option {_shown(key)} for {rules.variant}; known: {', '.join(sorted(defaults))}")
        out[key] = _check_option(rules, key, value, defaults[key])
    return out


MAX_OPTION = 10**9  # no table option (points, uma, hands, payments) comes near this


def _shown(value: Any) -> str:
    """``repr(value)`` for a message, at most 40 characters (a number of 400 digits is not repeated back)."""
    text = "a huge number" if isinstance(value, int) and abs(value) >= 10**30 else repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _check_option(rules: MatchRules, key: str, value: Any, default: Any) -> Any:
    where = f"option {key!r} of {rules.variant}"
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise ValueError(f"{where} must be true or false, not {_shown(value)}")
    elif isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{where} must be a whole number, not {_shown(value)}")
        if key in rules.minimums and value < rules.minimums[key]:
            raise ValueError(f"{where} must be at least {rules.minimums[key]}, not {_shown(value)}")
        if abs(value) > MAX_OPTION:
            raise ValueError(f"{where} must be at most {MAX_OPTION:,} either way, not {_shown(value)}")
    elif isinstance(default, str):
        if not isinstance(value, str):
            raise ValueError(f"{where} must be a word, not {_shown(value)}")
    elif isinstance(default, Mapping):
        if not isinstance(value, Mapping) or set(value) != set(default):
            raise ValueError(f"{where} must be an object with the keys {', '.join(sorted(default))}, "
                             f"not {_shown(value)}")
        for k, v in value.items():
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= MAX_OPTION:
                raise ValueError(f"{where}: {k!r} must be a whole number from 0 to {MAX_OPTION:,}, not {_shown(v)}")
        value = dict(value)
    elif isinstance(default, tuple | list):
        if not isinstance(value, tuple | list):
            raise ValueError(f"{where} must be a list, not {_shown(value)}")
        if any(isinstance(v, int | float) and not isinstance(v, bool) and not abs(v) <= MAX_OPTION for v in value):
            raise ValueError(f"{where}: each number must be at most {MAX_OPTION:,} either way, not {_shown(value)}")
        value = tuple(value)
    if key in rules.choices and value not in rules.choices[key]:
        allowed = ", ".join(str(c) for c in rules.choices[key])
        raise ValueError(f"{where} must be one of {allowed}, not {_shown(value)}")
    return value


# --- seats ----------------------------------------------------------------------------------------


def seat_of(player: int, dealer: int, players: int) -> int:
    """The seat (0 = East/dealer) of ``player`` when ``dealer`` deals."""
    return (player - dealer) % players


def player_at(seat: int, dealer: int, players: int) -> int:
    """The player sitting at ``seat`` when ``dealer`` deals."""
    return (dealer + seat) % players


def nearest_first(discarder: int, winners: Iterable[int], players: int) -> list[int]:
    """Winners in turn order from the discarder (next player first): the first is the 'nearest'.

    >>> nearest_first(1, [0, 2], 3)
    [2, 0]
    """
    return sorted(winners, key=lambda w: (w - discarder) % players)


def several_winners_allowed(rules: MatchRules, options: Mapping[str, Any]) -> bool:
    """True when several players may win on one discard (sanma double ron, ``multi_win = both``)."""
    return rules.multi_win is not None and options.get(rules.multi_win[0]) == rules.multi_win[1]


def round_wind_kind(rules: MatchRules, round_index: int) -> int:
    """The round wind's tile kind for scoring (27 = East). Korean-3p has none (East is passed) and
    3 Kaki's is always East."""
    return 27 + round_index % 4 if rules.rounds == "winds" else 27


# --- where the match stands ----------------------------------------------------------------------


@dataclass(frozen=True)
class Position:
    """Where the deal stands: the dealer (player number), the round (wind index for ``winds``, pass
    index for ``passes``), honba (sanma), the dealer's repeats in a row and the hands completed
    (wins and draws; a replayed hand does not count)."""

    dealer: int = 0
    round_index: int = 0
    honba: int = 0
    repeat: int = 0
    hands: int = 0


@dataclass(frozen=True)
class Outcome:
    """How a hand ended: ``win`` (``winners`` nearest first), ``draw`` (``tenpai`` players),
    ``abortive`` or ``false_win``. Players by number."""

    kind: str
    winners: tuple[int, ...] = ()
    tenpai: tuple[int, ...] = ()


def hand_label(rules: MatchRules, pos: Position) -> str:
    """The hand's name on the score sheet, e.g. ``East 2, 1 honba`` or ``Pass 1, deal 3``.

    >>> hand_label(rules_for("hong-kong"), Position(dealer=3, round_index=1, repeat=2))
    'South 4, repeat 2'
    >>> hand_label(rules_for("three-kaki"), Position(dealer=1, hands=6))
    'Hand 7'
    """
    if rules.rounds == "winds":
        text = f"{WIND_NAMES[pos.round_index % 4]} {pos.dealer + 1}"
    elif rules.rounds == "passes":
        text = f"Pass {pos.round_index + 1}, deal {pos.dealer + 1}"
    else:
        return f"Hand {pos.hands + 1}"
    if rules.riichi:
        return text + (f", {pos.honba} honba" if pos.honba else "")
    return text + (f", repeat {pos.repeat}" if pos.repeat else "")


def dealer_keeps(rules: MatchRules, options: Mapping[str, Any], pos: Position, outcome: Outcome) -> bool:
    """Renchan: does the dealer deal the next hand again?"""
    if outcome.kind == "win":
        return pos.dealer in outcome.winners
    if outcome.kind == "abortive":
        return True
    if outcome.kind == "draw":
        if rules.noten_payments:  # sanma: the dealer keeps when tenpai
            return pos.dealer in outcome.tenpai
        return options["draw_dealer"] == "stays"
    if outcome.kind == "false_win":
        return rules.false_win != "new_hand" or options.get("false_win_dealer") == "stays"
    raise ValueError(f"unknown hand outcome {outcome.kind!r}")


def advance(rules: MatchRules, options: Mapping[str, Any], pos: Position, outcome: Outcome) -> Position:
    """The position of the next hand after ``outcome``.

    Replayed hands (chombo, 3 Kaki false win, Hong Kong false win with ``false_win_dealer = stays``)
    keep the position as it was. Otherwise: 3 Kaki — the (nearest) winner deals; a draw keeps or passes
    the deal per ``draw_dealer``. Others — the dealer keeps on a renchan, else the deal passes to the
    next player and, when it comes back to player 0, the round advances. Sanma honba: +1 on a dealer
    win and on every draw, 0 after a non-dealer win.

    >>> r = rules_for("sanma"); o = match_options("sanma")
    >>> advance(r, o, Position(dealer=2, honba=1), Outcome("win", winners=(0,)))
    Position(dealer=0, round_index=1, honba=0, repeat=0, hands=1)
    >>> advance(r, o, Position(dealer=0, honba=1), Outcome("draw", tenpai=(0, 1)))
    Position(dealer=0, round_index=0, honba=2, repeat=1, hands=1)
    """
    n = rules.players
    if outcome.kind == "false_win" and dealer_keeps(rules, options, pos, outcome):
        return pos
    if rules.rotation == "winner" and outcome.kind == "win":
        dealer = outcome.winners[0]
    elif dealer_keeps(rules, options, pos, outcome):
        dealer = pos.dealer
    else:
        dealer = (pos.dealer + 1) % n
    round_index = pos.round_index
    if rules.rounds != "hands" and dealer != pos.dealer and dealer == 0:
        round_index += 1
    honba = pos.honba
    if rules.riichi:
        if outcome.kind == "win":
            honba = pos.honba + 1 if pos.dealer in outcome.winners else 0
        elif outcome.kind in ("draw", "abortive"):
            honba = pos.honba + 1
    counted = outcome.kind in ("win", "draw", "abortive")
    return Position(
        dealer=dealer,
        round_index=round_index,
        honba=honba,
        repeat=pos.repeat + 1 if dealer == pos.dealer else 0,
        hands=pos.hands + (1 if counted else 0),
    )


def end_reason(
    rules: MatchRules, options: Mapping[str, Any], before: Position, after: Position, outcome: Outcome,
    points: Sequence[int],
) -> str | None:
    """Why the match ends after this hand, or None when it goes on.

    Sanma (sanma.md §11.5): bust; in the scheduled last hand ("all last") the match ends when the deal
    passes and someone has the return points, else play extends into the next round wind; with
    ``agariyame`` a dealer who wins or is tenpai there and is then sole first with the return points
    ends it; in the extension the first hand after which someone has the return points ends it, and
    it ends at the latest when the deal would leave that round's third dealer. Hong Kong: after
    ``rounds`` rounds. Korean-3p: after ``rounds`` passes of the deal. 3 Kaki: after ``hands`` hands
    (0 = open-ended: only ``match_end`` ends it).
    """
    n = rules.players
    if rules.variant == "sanma":
        bust = options["bust"]
        low = min(points)
        if (bust == "below_zero" and low < 0) or (bust == "at_or_below_zero" and low <= 0):
            return "bust"
        if outcome.kind == "false_win":
            return None
        last = 0 if options["length"] == "east" else 1
        target = options["return_points"]
        renchan = after.dealer == before.dealer
        if before.round_index > last:  # the extension round
            if max(points) >= target:
                return f"extension: someone reached {target:,}"
            if after.round_index > before.round_index:
                return "end of the extension round"
            return None
        if before.round_index == last and before.dealer == n - 1:  # all last
            if renchan:
                d = before.dealer
                by_result = (outcome.kind == "win" and d in outcome.winners) or (
                    outcome.kind == "draw" and d in outcome.tenpai
                )
                sole_first = all(points[d] > p for i, p in enumerate(points) if i != d)
                if options["agariyame"] and by_result and sole_first and points[d] >= target:
                    return "all-last stop (agariyame)"
                return None
            if max(points) >= target:
                return "last hand played"
        return None
    if rules.rounds in ("winds", "passes"):
        if after.round_index >= options["rounds"]:
            return f"{options['rounds']} {'rounds' if rules.rounds == 'winds' else 'passes of the deal'} played"
        return None
    hands = options["hands"]
    if hands and after.hands >= hands:
        return f"{hands} hands played"
    return None


# --- payments (seats) -----------------------------------------------------------------------------


def noten_payments(tenpai: set[int] | frozenset[int], players: int) -> list[tuple[int, int, int]]:
    """Sanma noten payments ``(payer, receiver, amount)`` at an exhaustive draw (§9.4): 2,000 in all;
    none when nobody or everybody is tenpai."""
    noten = [s for s in range(players) if s not in tenpai]
    if not tenpai or not noten:
        return []
    each = NOTEN_TOTAL // (len(noten) * len(tenpai))
    return [(p, r, each) for p in noten for r in sorted(tenpai)]


def mangan_tsumo(seat: int, players: int) -> list[tuple[int, int, int]]:
    """A mangan self-draw with tsumo loss for ``seat`` (nagashi mangan): ``(payer, receiver, amount)``.

    >>> mangan_tsumo(1, 3)
    [(0, 1, 4000), (2, 1, 2000)]
    """
    if seat == 0:
        return [(s, 0, MANGAN_TSUMO["dealer_receives_each"]) for s in range(1, players)]
    return [
        (s, seat, MANGAN_TSUMO["from_dealer"] if s == 0 else MANGAN_TSUMO["from_other"])
        for s in range(players) if s != seat
    ]


def honba_payments(options: Mapping[str, Any], honba: int, winner: int, discarder: int | None,
                   players: int) -> list[tuple[int, int, int]]:
    """Sanma honba bonus for a win entered by hand: ``honba × ron`` from the discarder, or
    ``honba × tsumo_each`` from each other player on a self-draw."""
    if not honba:
        return []
    values = options["honba"]
    if discarder is not None:
        return [(discarder, winner, honba * values["ron"])]
    return [(s, winner, honba * values["tsumo_each"]) for s in range(players) if s != winner]


def false_win_payments(rules: MatchRules, options: Mapping[str, Any], offender: int
                       ) -> list[tuple[int, int | None, int]]:
    """The penalty of a false win / chombo by seat ``offender``: ``(payer, receiver, amount)``
    (receiver None = nobody).

    Sanma §9.7: reversed mangan (non-dealer 4,000 to the dealer and 2,000 to the other; dealer 4,000
    to each) or ``fixed`` −20,000. Hong Kong §8: 3 portions (or 1) at the cap to each other player.
    Korean-3p §8: ``false_win_penalty`` to each opponent. 3 Kaki §8.4: ``false_win`` to each opponent.

    >>> false_win_payments(rules_for("hong-kong"), match_options("hong-kong"), 2)
    [(2, 0, 1152), (2, 1, 1152), (2, 3, 1152)]
    """
    n = rules.players
    others = [s for s in range(n) if s != offender]
    if rules.variant == "sanma":
        if options["chombo"] == "fixed":
            return [(offender, None, FIXED_CHOMBO)]
        # reversed mangan: the offender pays what a mangan self-draw of theirs would have collected
        return [(offender, payer, amount) for payer, _, amount in mangan_tsumo(offender, n)]
    if rules.variant == "hong-kong":
        cap = options["cap"]
        ladder = HK_LADDERS[options["ladder"]]
        portion = options["unit"] * ladder[min(cap, len(ladder) - 1)]
        k = 3 if options["false_win"] == "3_portions_at_cap" else 1
        return [(offender, s, k * portion) for s in others]
    key = "false_win_penalty" if rules.variant == "korean-3p" else "false_win"
    return [(offender, s, options[key]) for s in others if options[key]]


__all__ = [
    "FIXED_CHOMBO", "HK_LADDERS", "MANGAN_TSUMO", "MatchRules", "NOTEN_TOTAL", "Outcome", "Position", "RIICHI_STICK",
    "RULES", "WIND_NAMES", "advance", "dealer_keeps", "end_reason", "false_win_payments", "hand_label",
    "honba_payments", "mangan_tsumo", "match_options", "nearest_first", "noten_payments", "player_at",
    "round_wind_kind", "rules_for", "seat_of", "several_winners_allowed",
]
