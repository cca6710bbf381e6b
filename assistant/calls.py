"""Legal actions with reasons, the beginner check, and claim priority, for every rule system
(``shared/rules/call-legality.md``).

* :func:`legal_actions` lists every action the seat could physically make with its tiles at this
  moment — legal or not — each with ``legal`` and, when illegal, the §6 ``code`` and ``message``
  (plus ``warnings`` such as PAO_WARNING on a legal discard), so a beginner sees why not.
* :func:`check_action` judges one action a player attempts and returns a :class:`Verdict`.
* :func:`resolve_claims` settles all claims on one discard or kong tile by the rule system's priority
  (§3) and tells each loser why (LOST_PRIORITY, LOST_TO_REAL_TILES, LOST_TO_NEARER).

Actions are small immutable values (:class:`Action`); nothing here changes the state. Whether a win
has a yaku or reaches the minimum is asked in one place, :func:`~assistant.table.win_value_check`,
which uses the scorer when it is installed and otherwise says the value was not checked.

>>> from assistant.table import TableState
>>> s = TableState.from_json({"variant": "sanma", "turn": 0, "phase": "claim_window", "last_tile": "6p",
...     "seats": [{"hand": "19m123456789p12s", "discards": ["6p"]},
...               {"hand": "45p111z222z333z7z9s"}, {"hand": "1m9m1p1s9s1234567z7z"}]})
>>> [(a.kind, a.legal, a.code) for a in legal_actions(s, 1)]
[('chow', False, 'NO_CHI'), ('pass', True, None)]

Hidden hands. For a seat whose concealed tiles are (partly) face down (``bk``, a camera's view of another
player) nothing that needs the whole hand can be certain. Its face-down tiles may be any tile not all in
sight elsewhere, so an action is listed and judged *legal* when it is possible — every rule that needs no
hand still applies (too late, not from the previous player, riichi, last discard, kan limit …) — and
carries a HAND_NOT_KNOWN warning saying what could not be checked (that it holds the tiles, that a
riichi leaves it ready, that a tile wins for it). A discard or riichi of one of its face-down tiles is
listed with the tile ``bk``. Kongs are listed for the kinds it is known to hold; any other is judged
when attempted (:func:`check_action`).

>>> h = TableState.from_json({"variant": "sanma", "turn": 0, "phase": "claim_window", "last_tile": "6p",
...     "seats": [{"hand": "19m123456789p12s", "discards": ["6p"]}, {"hand": "bk" * 13}, {"hand": "bk" * 13}]})
>>> # no kong: East holds the third 6p, so only two are out of sight
>>> [(a.describe(), a.legal, [w.code for w in a.warnings]) for a in legal_actions(h, 2)][2:]
[('chow 6p with 7p 8p -> {678p@2}', False, []), ('pong 6p with 6p 6p -> [666p@2]', True, ['HAND_NOT_KNOWN']), \
('ron 6p', True, ['HAND_NOT_KNOWN']), ('pass', True, [])]
>>> [w.message for w in legal_actions(h, 2)[3].warnings]
["West's hand is not known (13 tiles face down), so whether it holds 66p can't be checked."]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace

from .analysis import decompositions, shanten, waits
from .errors import TileError
from .furiten import ron_blocker, winning_readings
from .hand import Hand, Meld, make_meld
from .table import (
    NORTH,
    Notice,
    TableState,
    kinds_text,
    meld_text,
    notice,
    win_value_check,
)
from .tiles import BACK, JOKER, Tile, format_tiles, kind_code, parse_tiles

__all__ = [
    "KINDS", "Action", "ClaimResolution", "Verdict", "attempt", "check_action", "legal_actions",
    "resolve_claims", "robbing_block", "win_value_check",
]

KINDS = (
    "discard", "chow", "pong", "open_kong", "closed_kong", "added_kong", "ron", "tsumo", "riichi", "kita",
    "sink_fei", "swap_fei", "nine_terminals", "pass",
)
CLAIM_KINDS = ("chow", "pong", "open_kong", "ron")
OWN_TURN_KINDS = ("discard", "tsumo", "closed_kong", "added_kong", "riichi", "kita", "sink_fei", "swap_fei",
                  "nine_terminals")
WINDOWS = ("claim_window", "kong_window")

# Rule facts that are not (yet) fields of RuleSystem, by rule-system name; a new rule system adds a line.

DRAGONS = (31, 32, 33)
WINDS = (27, 28, 29, 30)

_VERBS = {
    "discard": "discard", "chow": "chow", "pong": "pong", "open_kong": "kong",
    "closed_kong": "declare a concealed kong",
    "added_kong": "add a tile to a shown pong", "ron": "win on a discard", "tsumo": "declare a self-draw win",
    "riichi": "declare riichi", "kita": "set a North aside", "sink_fei": "sink a Fei", "swap_fei": "swap a Fei back",
    "nine_terminals": "declare nine terminals", "pass": "pass",
}
_NAMES = {
    "chow": "chow", "pong": "pong", "open_kong": "kong", "closed_kong": "concealed kong", "added_kong": "added kong",
    "ron": "win on a discard", "tsumo": "self-draw win", "riichi": "riichi", "kita": "kita (setting a North aside)",
    "sink_fei": "sinking of a Fei", "swap_fei": "Fei swap", "nine_terminals": "nine-terminals draw",
    "discard": "discard", "pass": "pass",
}


@dataclass(frozen=True)
class Action:
    """A move: ``kind`` (:data:`KINDS`), the ``seat`` making it, the ``tile`` taken / thrown / declared,
    the ``tiles`` from the seat's concealed hand that go with it, the ``meld`` it shows, and ``target``
    = (owner seat, meld index) of the shown set it changes (added kong, Fei swap).

    Returned by :func:`legal_actions` with ``legal`` and, when illegal, the §6 ``code`` and
    ``message``; ``warnings`` carry notes that do not forbid the move (PAO_WARNING, VALUE_UNCHECKED).
    To ask about a move, build one with :func:`attempt` and pass it to :func:`check_action`.
    """

    kind: str
    seat: int | None = None
    tile: Tile | None = None
    tiles: tuple[Tile, ...] = ()
    meld: Meld | None = None
    target: tuple[int, int] | None = None
    legal: bool = True
    code: str | None = None
    message: str = ""
    warnings: tuple[Notice, ...] = ()

    @property
    def verdict(self) -> Verdict:
        return Verdict(self.legal, self.code, self.message, self.warnings, self)

    def describe(self) -> str:
        """Short text: 'pong 5p with 5p5p', 'discard 9s', 'swap_fei 6p into seat 1 set 0'."""
        text = self.kind
        if self.tile is not None:
            text += f" {self.tile.code}"
        if self.tiles and self.kind in ("chow", "pong", "open_kong", "closed_kong"):
            text += " with " + " ".join(t.code for t in self.tiles)
        if self.meld is not None:
            text += f" -> {self.meld.format()}"
        return text

    def as_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind, "seat": self.seat, "tile": self.tile.code if self.tile else None,
            "tiles": [t.code for t in self.tiles], "meld": self.meld.format() if self.meld else None,
            "target": list(self.target) if self.target else None, "legal": self.legal, "code": self.code,
            "message": self.message, "warnings": [w.as_dict() for w in self.warnings],
        }


@dataclass(frozen=True)
class Verdict:
    """The beginner check of one action: ``legal``, the ``code`` and ``message`` when it is not, the
    ``warnings`` either way, and the fully specified ``action`` that was judged."""

    legal: bool
    code: str | None = None
    message: str = ""
    warnings: tuple[Notice, ...] = ()
    action: Action | None = None


@dataclass(frozen=True)
class ClaimResolution:
    """The outcome of all claims on one tile: ``winners`` (nearest to the discarder first; two only
    for a double ron) and ``losers``, each with ``legal`` False and the code and message saying why."""

    winners: tuple[Action, ...]
    losers: tuple[Action, ...]


def attempt(kind: str, tile: str | Tile | None = None, tiles: str = "", seat: int | None = None,
            target: tuple[int, int] | None = None) -> Action:
    """Build an attempted action from tile codes: ``attempt("pong", "5p")``, ``attempt("chow", "6p", "45p")``."""
    if kind not in KINDS:
        raise ValueError(f"action.kind: {kind!r} is not an action; choose one of {', '.join(KINDS)}")
    t = Tile.from_code(tile) if isinstance(tile, str) else tile
    return Action(kind, seat, t, tuple(parse_tiles(tiles)), target=target)


# ---------------------------------------------------------------------------------------------
# Public questions


def legal_actions(state: TableState, seat: int) -> list[Action]:
    """Every action ``seat`` can physically make now, legal or not, each with its verdict.

    Claim and kong windows: chows (in every rule system, so a sanma or korean-3p player sees why
    not), pongs, kongs, a pong promoted with the discard, the win, and pass. Own turn: each distinct
    discard, self-draw, kongs, kita, riichi (one per discard that leaves the hand ready), sinking or
    swapping a Fei, nine terminals. Sets with two Fei (never legal) are left out; :func:`check_action`
    explains them when attempted.
    """
    seat = state.check_seat(seat)
    return [_judge(state, a) for a in _physical_options(state, seat)]


def check_action(state: TableState, seat: int, action: Action) -> Verdict:
    """Judge one attempted action; unspecified tiles are chosen as the seat's best way to make it."""
    seat = state.check_seat(seat)
    if action.kind not in KINDS:
        raise ValueError(f"action.kind: {action.kind!r} is not an action; choose one of {', '.join(KINDS)}")
    if action.seat is not None and action.seat != seat:
        raise ValueError(f"action.seat: {action.seat} differs from the seat asked about ({seat})")
    _check_tiles_in_set(state, action)
    return _resolve_attempt(state, seat, action).verdict


def resolve_claims(state: TableState, claims: Iterable[Action]) -> ClaimResolution:
    """Resolve every claim on the open discard (or kong tile) by the rule system's priority (§3).

    Illegal claims lose with their own reason; of two claims by one seat only the higher is kept.
    Among the legal ones the highest call wins (win > pong =
    kong > chow; three-kaki win > kong > pong > chow). Several wins: sanma's ``multi_ron`` (double ron
    by default, or head-bump), elsewhere ``multi_win`` (nearest by default); the nearest winner in turn
    order from the discarder is listed first. Three-kaki pong against pong: real tiles beat a Fei, then
    the nearer claimant.
    """
    if state.phase not in WINDOWS:
        raise ValueError(f"phase: {state.phase}; claims are resolved in a claim or kong window")
    judged: dict[int, Action] = {}
    losers: list[Action] = []
    for i, c in enumerate(claims):
        if not isinstance(c, Action):
            raise ValueError(f"claims[{i}]: expected an Action, got {type(c).__name__}")
        if c.seat is None:
            raise ValueError(f"claims[{i}].seat: missing (which seat calls?)")
        state.check_seat(c.seat, f"claims[{i}].seat")
        if c.kind == "pass":
            continue
        if c.kind not in CLAIM_KINDS + ("added_kong",):
            raise ValueError(f"claims[{i}].kind: {c.kind!r} is not a claim on a discard")
        _check_tiles_in_set(state, c)
        a = _resolve_attempt(state, c.seat, c)
        if not a.legal:
            losers.append(a)
            continue
        kept = judged.get(c.seat)
        if kept is None or _rank(state, a.kind) > _rank(state, kept.kind):
            judged[c.seat] = a
    if not judged:
        return ClaimResolution((), tuple(losers))
    disc = state.turn
    ordered = [judged[seat] for seat in sorted(judged, key=lambda seat: state.distance(disc, seat))]
    top = max(_rank(state, a.kind) for a in ordered)
    tops = [a for a in ordered if _rank(state, a.kind) == top]
    if tops[0].kind == "ron":
        winners = tops if _multi_win(state) == "all" else tops[:1]
    else:  # three-kaki F6: real tiles beat a Fei, then the nearer claimant (``tops`` is in turn order)
        winners = sorted(tops, key=lambda a: a.meld.jokers if a.meld else 0)[:1]
    first = winners[0]
    assert state.last_tile is not None and first.seat is not None
    tile = kind_code(state.last_tile.kind)
    for a in ordered:
        if a in winners:
            continue
        fields = dict(other=state.seat_name(first.seat), tile=tile,
                      their_call=_call_word(state, first.kind), your_call=_call_word(state, a.kind))
        if _rank(state, a.kind) < top:
            n = notice("LOST_PRIORITY", **fields)
        elif a.kind == "pong" and a.meld and first.meld and a.meld.jokers > first.meld.jokers:
            n = notice("LOST_TO_REAL_TILES", other=state.seat_name(first.seat))
        else:
            n = notice("LOST_TO_NEARER", other=fields["other"], tile=tile, their_call=fields["their_call"],
                       discarder=state.seat_name(disc))
        losers.append(replace(a, legal=False, code=n.code, message=n.message))
    return ClaimResolution(tuple(winners), tuple(losers))


def robbing_block(state: TableState, hand: Hand, tile: Tile) -> Notice | None:
    """The rule-system reason (if any) why ``hand`` may not rob the open kong window's ``tile``,
    before furiten and value: which declarations can be robbed at all, by which hands, and korean-3p's
    chow-only rule. ``hand`` is a 13-tile hand; it need not be one of the table's (the K6 "pair only"
    case cannot occur at a real table, because the kong holds every copy of its tile). A hand with
    face-down tiles is blocked only by rules that need no hand (its shape cannot be known)."""
    v = state.variant
    decl = state.declaration
    if hand.hidden:  # face-down tiles: the hand's shape cannot be known, so it is taken as possible
        reads, kokushi = [], True
    else:
        reads = decompositions(hand, v, list(hand.concealed) + [tile])
        kokushi = any(d.form == "thirteen_orphans" for d in reads)
    if decl == "kita":
        rob = state.option("rob_kita", "none")
        if rob == "none" or (rob == "kokushi" and not kokushi):
            return notice("NO_NORTH_RON")
        return None
    if decl == "closed_kong":
        if "kokushi_rob_ankan" in v.options:
            if not state.option("kokushi_rob_ankan"):
                return notice("ROB_CONCEALED_NEVER")
            if not kokushi:
                return notice("ROB_CONCEALED_KONG", hand="kokushi musou")
        elif "rob_concealed_kong" in v.options:
            rule = state.option("rob_concealed_kong")
            if rule == "none":
                return notice("ROB_CONCEALED_NEVER")
            if rule == "thirteen_orphans" and not kokushi:
                return notice("ROB_CONCEALED_KONG", hand="Thirteen Orphans")
        elif "rob_concealed" in v.options:
            if not state.option("rob_concealed"):
                return notice("ROB_CONCEALED_NEVER")
        else:
            return notice("ROB_CONCEALED_NEVER")
    if "rob_for_chow_only" in v.rule_flags and not hand.hidden:
        in_chow = any(p.meld is None and p.type == "chow" and tile.kind in p.kinds for d in reads for p in d.sets)
        if not in_chow:
            return notice("ROB_KONG_CHOW_ONLY")
    return None


# ---------------------------------------------------------------------------------------------
# Physical options


def _count(hand: Hand, kind: int) -> int:
    return sum(1 for t in hand.concealed if t.kind == kind)


def _jokers(hand: Hand) -> int:
    return sum(1 for t in hand.concealed if t.kind == JOKER)


def _take(hand: Hand, kind: int, n: int) -> tuple[Tile, ...] | None:
    """``n`` concealed tiles of ``kind``, plain fives before red ones; None if the hand has fewer."""
    found = sorted((t for t in hand.concealed if t.kind == kind), key=lambda t: t.red)
    return tuple(found[:n]) if len(found) >= n else None


def _distinct(tiles: Iterable[Tile]) -> list[Tile]:
    return sorted(set(tiles), key=lambda t: (t.kind, not t.red))


class _Holding:
    """The tiles a seat can take from its concealed hand: its known tiles (plain fives before red ones)
    and, for a seat with face-down tiles, one ``bk`` for each further tile of a kind that is not all in
    sight elsewhere on the table (a plain copy stands for it while one is out of sight, else a red one)."""

    def __init__(self, state: TableState, seat: int) -> None:
        self.state = state
        self.hand = state.seats[seat].hand
        self.backs = self.hand.hidden
        self._free: Counter[tuple[int, bool]] | None = None

    def free(self, kind: int, red: bool) -> int:
        """Copies of the tile (kind, red five or not) that are nowhere in sight on the table."""
        if self._free is None:
            st = self.state
            v = st.variant.with_options(dict(st.options)) if st.options else st.variant
            free: Counter[tuple[int, bool]] = Counter()
            for k, n in v.copies.items():
                reds = v.red_fives.get(k, 0)
                free[(k, False)] += n - reds
                free[(k, True)] += reds
            seen = list(st.dora_indicators)
            for o in st.seats:
                seen.extend(o.hand.all_tiles())
                seen.extend(d.tile for d in o.discards if d.called_by is None)
            for t in seen:
                if t.kind != BACK:
                    free[(t.kind, t.red)] -= 1
            self._free = free
        return self._free[(kind, red)]

    def take(self, *needs: tuple[int, int]) -> tuple[Tile, ...] | None:
        """``n`` tiles of each ``(kind, n)`` in ``needs``: known ones first, then face-down ones; None if
        the hand cannot hold them."""
        backs = self.backs
        used: Counter[int] = Counter()
        filled: Counter[tuple[int, bool]] = Counter()
        out: list[Tile] = []
        for kind, n in needs:
            known = sorted((t for t in self.hand.concealed if t.kind == kind), key=lambda t: t.red)[used[kind]:]
            got = known[:n]
            used[kind] += len(got)
            out.extend(got)
            for _ in range(n - len(got)):
                red = next((r for r in (False, True) if self.free(kind, r) - filled[(kind, r)] > 0), None)
                if backs == 0 or red is None:
                    return None
                filled[(kind, red)] += 1
                backs -= 1
                out.append(Tile(kind, red))
        return tuple(out)


def _can_hold(state: TableState, seat: int, tiles: Iterable[Tile]) -> bool:
    """The seat holds these tiles (by kind), or may hold them among its face-down tiles."""
    hand = state.seats[seat].hand
    if not hand.hidden:
        return _holds(hand, tiles)
    need = Counter(t.kind for t in tiles)
    return _Holding(state, seat).take(*need.items()) is not None


def _physical_options(state: TableState, seat: int) -> list[Action]:
    ph = state.phase
    if ph == "claim_window" and seat != state.turn:
        return _claim_options(state, seat)
    if ph == "kong_window" and seat != state.turn:
        return _rob_options(state, seat)
    if ph == "own_turn" and seat == state.turn:
        return _own_turn_options(state, seat)
    if ph == "turn_start" and seat == state.turn and "kong_before_draw" in state.variant.rule_flags:
        return _closed_kong_options(state, seat)
    return []


def _claim_options(state: TableState, seat: int) -> list[Action]:
    v = state.variant
    t = state.last_tile
    assert t is not None
    hand = state.seats[seat].hand
    hold = _Holding(state, seat)
    src = state.seats_back(seat, state.turn)
    jk = _jokers(hand) if v.has_jokers else 0
    out: list[Action] = []
    if t.kind == JOKER:
        if hand.hidden or winning_readings(state, seat, t):
            out.append(Action("ron", seat, t))
        return out + [Action("pass", seat)]
    seen: set[tuple] = set()
    for ka, kb in v.chow_shapes(t.kind):
        for fei_a, fei_b in ((False, False), (True, False), (False, True)):
            if (fei_a or fei_b) and not jk:
                continue
            got = hold.take(*[(k, 1) for k, fei in ((ka, fei_a), (kb, fei_b)) if not fei])
            if got is None:
                continue
            real = iter(got)
            pa = Tile(JOKER) if fei_a else next(real)
            pb = Tile(JOKER) if fei_b else next(real)
            meld = make_meld([t, pa, pb], [t, Tile(ka), Tile(kb)], source=src)
            key = (meld.tiles, meld.stands_for)
            if key not in seen:
                seen.add(key)
                out.append(Action("chow", seat, t, (pa, pb), meld))
    same = _count(hand, t.kind)
    pair = hold.take((t.kind, 2))
    if pair:
        out.append(Action("pong", seat, t, pair, make_meld((t,) + pair, source=src)))
    if jk and same >= 1:
        mixed = (_take(hand, t.kind, 1)[0], Tile(JOKER))  # type: ignore[index]
        out.append(Action("pong", seat, t, mixed, make_meld((t,) + mixed, (t, t, t), source=src)))
    three = hold.take((t.kind, 3))
    if three:
        out.append(Action("open_kong", seat, t, three, make_meld((t,) + three, source=src)))
    elif jk and pair:
        tiles = pair + (Tile(JOKER),)
        out.append(Action("open_kong", seat, t, tiles, make_meld((t,) + tiles, (t,) * 4, source=src)))
    for idx, m in enumerate(hand.melds):
        if m.type == "pong" and m.is_open and m.kinds[0] == t.kind:
            kong = make_meld(m.tiles + (t,), m.stands_for + (Tile(t.kind),), added=True, source=m.source)
            out.append(Action("added_kong", seat, t, (), kong, (seat, idx)))
    if hand.hidden or winning_readings(state, seat, t):
        out.append(Action("ron", seat, t))
    return out + [Action("pass", seat)]


def _rob_options(state: TableState, seat: int) -> list[Action]:
    t = state.last_tile
    assert t is not None
    hand = state.seats[seat].hand
    out: list[Action] = []
    if state.declaration == "bonus":
        if sum(1 for b in hand.bonus if b.is_bonus) == 7:
            out.append(Action("ron", seat, t))
    elif hand.hidden or winning_readings(state, seat, t):
        out.append(Action("ron", seat, t))
    return out + [Action("pass", seat)]


def _closed_kong_options(state: TableState, seat: int) -> list[Action]:
    v = state.variant
    hand = state.seats[seat].hand
    hold = _Holding(state, seat)
    out: list[Action] = []
    jk = _jokers(hand) if v.has_jokers else 0
    for k in sorted({t.kind for t in hand.concealed if t.is_playing}):
        four = hold.take((k, 4))
        if four:
            out.append(Action("closed_kong", seat, Tile(k), four, make_meld(four, concealed=True)))
        elif jk and _count(hand, k) == 3:
            tiles = _take(hand, k, 3) + (Tile(JOKER),)  # type: ignore[operator]
            out.append(Action("closed_kong", seat, Tile(k), tiles,
                              make_meld(tiles, (Tile(k),) * 4, concealed=True)))
    return out


def _own_turn_options(state: TableState, seat: int) -> list[Action]:
    v = state.variant
    s = state.seats[seat]
    hand = s.hand
    hold = _Holding(state, seat)
    jk = _jokers(hand) if v.has_jokers else 0
    out: list[Action] = [Action("discard", seat, t) for t in _distinct(hand.concealed) if t.kind != JOKER]
    if state.drawn_tile is not None and (hand.hidden or decompositions(hand, v)):
        out.append(Action("tsumo", seat, state.drawn_tile))
    out.extend(_closed_kong_options(state, seat))
    for idx, m in enumerate(hand.melds):
        if m.type != "pong" or not m.is_open:
            continue
        k = m.kinds[0]
        real = hold.take((k, 1))
        add = real[0] if real else (Tile(JOKER) if jk else None)
        if add is not None:
            kong = make_meld(m.tiles + (add,), m.stands_for + (Tile(k),), added=True, source=m.source)
            out.append(Action("added_kong", seat, add, (add,), kong, (seat, idx)))
    if v.can_kita and hold.take((NORTH, 1)):
        out.append(Action("kita", seat, Tile(NORTH), (Tile(NORTH),)))
    if v.has_riichi and not s.in_riichi:
        out.extend(_riichi_options(state, seat))
    if v.can_sink_fei and (jk or (hand.hidden and hold.take((JOKER, 1)))):
        out.append(Action("sink_fei", seat, Tile(JOKER), (Tile(JOKER),)))
    if v.can_swap_fei:
        for owner, o in enumerate(state.seats):
            for idx, m in enumerate(o.hand.melds):
                for pos, (pt, st) in enumerate(zip(m.tiles, m.stands_for, strict=True)):
                    real = hold.take((st.kind, 1)) if pt.kind == JOKER else None
                    if real:
                        tiles = m.tiles[:pos] + real + m.tiles[pos + 1:]
                        new = make_meld(tiles, m.stands_for, concealed=m.concealed, added=m.added, source=m.source)
                        out.append(Action("swap_fei", seat, real[0], real, new, (owner, idx)))
    if "nine_terminals" in v.abortive_draws and s.first_turn and state.drawn_from == "wall" \
            and _orphan_kinds(state, hand) + _orphan_kinds_unseen(state, seat) >= 9:
        out.append(Action("nine_terminals", seat))
    return out


def _orphan_kinds(state: TableState, hand: Hand) -> int:
    orphans = set(state.variant.thirteen_orphans_kinds)
    return len({t.kind for t in hand.concealed} & orphans)


def _orphan_kinds_unseen(state: TableState, seat: int) -> int:
    """Terminal and honour kinds the seat may hold among its face-down tiles besides those it is known to
    hold (0 for a known hand)."""
    hold = _Holding(state, seat)
    if not hold.backs:
        return 0
    known = {t.kind for t in hold.hand.concealed}
    could = [k for k in state.variant.thirteen_orphans_kinds if k not in known and hold.take((k, 1))]
    return min(hold.backs, len(could))


def _shanten_after(state: TableState, seat: int, tile: Tile) -> int:
    hand = state.seats[seat].hand
    rest = list(hand.concealed)
    rest.remove(tile)
    return shanten(Hand(tuple(rest), hand.melds), state.variant).minimum


def _riichi_options(state: TableState, seat: int) -> list[Action]:
    s = state.seats[seat]
    if not s.is_closed:
        return [Action("riichi", seat)]
    if s.hidden:  # whether a discard leaves the hand ready cannot be known: any discard may be the riichi tile
        return [Action("riichi", seat, t) for t in _distinct(s.hand.concealed)]
    ready = [Action("riichi", seat, t) for t in _distinct(s.hand.concealed) if _shanten_after(state, seat, t) == 0]
    return ready or [Action("riichi", seat)]


# ---------------------------------------------------------------------------------------------
# Judging


def _judge(state: TableState, a: Action) -> Action:
    block, warnings = _JUDGES[a.kind](state, a)
    if block is not None:
        return replace(a, legal=False, code=block.code, message=block.message, warnings=warnings)
    if a.seat is not None and state.seats[a.seat].hidden and all(w.code != "HAND_NOT_KNOWN" for w in warnings):
        what = _unknown_part(state, a)
        if what:
            warnings = warnings + (notice("HAND_NOT_KNOWN", **state.hidden_words(a.seat), what=what),)
    return replace(a, legal=True, code=None, message="", warnings=warnings)


def _unknown_part(state: TableState, a: Action) -> str:
    """What a legal action of a seat with face-down tiles rests on that cannot be checked ('' if nothing)."""
    assert a.seat is not None
    known = state.seats[a.seat].hand.known_concealed
    if a.kind == "riichi":
        return "whether the hand is ready after this discard"
    if a.kind == "nine_terminals" and _orphan_kinds(state, state.seats[a.seat].hand) < 9:
        return "whether it holds nine different terminals and honours"
    if a.kind == "discard" and a.tile is not None and a.tile.kind == BACK:
        return "which of its face-down tiles it throws"
    needs = a.tiles or ((a.tile,) if a.kind == "discard" and a.tile is not None else ())
    if needs and not _holds(Hand(known), needs):
        return f"whether it holds {format_tiles(needs)}"
    if a.kind == "closed_kong" and state.seats[a.seat].in_riichi:
        return "whether the kan keeps its waits"
    return ""


Judgement = tuple[Notice | None, tuple[Notice, ...]]


def _name(state: TableState, seat: int) -> str:
    return state.seat_name(seat)


def _riichi_family(state: TableState) -> bool:
    return state.variant.has_riichi


def _claim_pre(state: TableState, a: Action) -> Notice | None:
    """Too late, or a thrown Fei (a set of Fei only is explained first)."""
    t = state.last_tile
    assert t is not None
    if state.next_drawn:
        who = state.turn if state.phase == "kong_window" else state.next_seat(state.turn)
        return notice("CLAIM_TOO_LATE", next=_name(state, who), tile=kind_code(t.kind))
    if t.kind == JOKER:
        if a.kind != "ron" and a.tiles and all(x.kind == JOKER for x in a.tiles):
            return notice("FEI_NEEDS_REAL_TILE")
        return notice("FEI_THROWN", owner=_name(state, state.turn))
    return None


def _fei_in_shown_set(state: TableState, meld: Meld | None) -> Notice | None:
    if meld is None or not meld.jokers:
        return None
    if meld.jokers == len(meld.tiles):
        return notice("FEI_NEEDS_REAL_TILE")
    rules = state.variant.jokers
    if meld.is_kong or rules is None:
        return notice("FEI_IN_KONG")
    if meld.jokers > rules.max_in_shown_set:
        return notice("FEI_SHOWN_SET_LIMIT")
    return None


def _no_discard_left(state: TableState, a: Action) -> Notice | None:
    """Where a called set's tiles may not be discarded in the same turn (three-kaki), a chow or pong that
    would leave only such tiles in the hand cannot be made: the player could not end the turn (Decision:
    the rules are silent; refusing the call is how the same case is handled under kuikae elsewhere)."""
    m, seat = a.meld, a.seat
    if (m is None or seat is None or m.type not in ("chow", "pong") or state.last_tile is None
            or "called_set_no_discard" not in state.variant.rule_flags):
        return None
    hand = state.seats[seat].hand
    if any(t.kind == BACK for t in hand.concealed):
        return None  # a hidden hand: what is left cannot be known
    rest = list(hand.concealed)
    used = list(m.tiles)
    if state.last_tile in used:
        used.remove(state.last_tile)
    for t in used:
        if t in rest:
            rest.remove(t)
    if rest and all(t.kind in m.kinds for t in rest):
        return notice("CALL_LEAVES_NO_DISCARD", set=meld_text(m), ranks=kinds_text(sorted(set(m.kinds))))
    return None


def _replacement_block(state: TableState, verb: str) -> Notice | None:
    if not state.replacement_available:
        return notice("NO_REPLACEMENT", action=verb)
    return None


def _kan_word(state: TableState) -> str:
    return "declare a kan" if _riichi_family(state) else "declare a kong"


def _kan_limit(state: TableState) -> Notice | None:
    limit = state.variant.kong_limit
    if limit is not None and state.kongs_made >= limit:
        return notice("KAN_LIMIT")
    return None


def _judge_chow(state: TableState, a: Action) -> Judgement:
    v = state.variant
    if not v.can_chow:
        return notice("NO_CHI" if _riichi_family(state) else "NO_CHOW_ON_DISCARD"), ()
    pre = _claim_pre(state, a)
    if pre:
        return pre, ()
    if state.is_last_discard:
        return notice("LAST_DISCARD"), ()
    assert a.seat is not None
    if a.seat != state.next_seat(state.turn):
        return notice("CHOW_NOT_FROM_PREV", prev=_name(state, state.prev_seat(a.seat))), ()
    return _fei_in_shown_set(state, a.meld) or _no_discard_left(state, a), ()


def _judge_pong(state: TableState, a: Action) -> Judgement:
    pre = _claim_pre(state, a)
    if pre:
        return pre, ()
    if state.is_last_discard:
        return notice("LAST_DISCARD"), ()
    assert a.seat is not None
    if state.seats[a.seat].in_riichi:
        return notice("RIICHI_NO_CALLS"), ()
    return _fei_in_shown_set(state, a.meld) or _no_discard_left(state, a), ()


def _judge_open_kong(state: TableState, a: Action) -> Judgement:
    block, _ = _judge_pong(state, replace(a, meld=None))
    if block:
        return block, ()
    return (_fei_in_shown_set(state, a.meld) or _kan_limit(state)
            or _replacement_block(state, _kan_word(state))), ()


def _after_call(state: TableState) -> Notice | None:
    """Kongs from the hand need the own turn proper: holding a drawn tile (call-legality.md, Terms)."""
    if state.phase == "own_turn" and state.drawn_tile is None:
        return notice("KONG_NEEDS_DRAW")
    return None


def _judge_added_kong(state: TableState, a: Action) -> Judgement:
    if state.phase in WINDOWS:  # a discard offered for a shown pong
        return (_claim_pre(state, a) or notice("PROMOTE_WITH_DISCARD")), ()
    return (_fei_in_shown_set(state, a.meld) or _after_call(state) or _kan_limit(state)
            or _replacement_block(state, _kan_word(state))), ()


def _keeps_waits(state: TableState, seat: int, kind: int) -> bool:
    """A kan after riichi keeps the waits and the hand's reading (sanma.md §5 R5)."""
    v = state.variant
    hand = state.seats[seat].hand
    before = list(hand.concealed)
    assert state.drawn_tile is not None
    before.remove(state.drawn_tile)
    old = waits(Hand(tuple(before), hand.melds), v)
    four = [t for t in hand.concealed if t.kind == kind]
    kong = make_meld(four, concealed=True)
    new = waits(Hand(tuple(t for t in hand.concealed if t.kind != kind), hand.melds + (kong,)), v)
    if {w.tile.kind for w in old} != {w.tile.kind for w in new}:
        return False
    return all(any(p.meld is None and p.type == "pong" and p.kinds == (kind,) * 3 for p in d.sets)
               for w in old for d in w.decompositions)


def _judge_closed_kong(state: TableState, a: Action) -> Judgement:
    assert a.seat is not None and a.tile is not None
    fei = _fei_in_shown_set(state, a.meld) or _after_call(state)
    if fei:
        return fei, ()
    s = state.seats[a.seat]
    if s.in_riichi:
        if state.drawn_tile is None or state.drawn_tile.kind not in (a.tile.kind, BACK):
            return notice("RIICHI_FIXED_HAND"), ()
        if not s.hidden and not _keeps_waits(state, a.seat, a.tile.kind):
            return notice("KAN_CHANGES_WAIT"), ()
    return (_kan_limit(state) or _replacement_block(state, _kan_word(state))), ()


def _value_judgement(state: TableState, seat: int, tile: Tile, **flags: bool) -> Judgement:
    value = win_value_check(state, seat, tile, **flags)
    if value.blocks:
        return value.notice, ()
    return None, ((value.notice,) if value.notice else ())


def _judge_ron(state: TableState, a: Action) -> Judgement:
    assert a.seat is not None
    t = state.last_tile
    assert t is not None
    pre = _claim_pre(state, a)
    if pre:
        return pre, ()
    if state.phase == "kong_window":
        if state.declaration == "bonus":
            if not state.option("flower_rob", False):
                return notice("NOT_AT_THIS_TABLE", what="Robbing the eighth flower"), ()
            return None, ()
        rob = robbing_block(state, state.seats[a.seat].hand, t)
        if rob:
            return rob, ()
    blocker = ron_blocker(state, a.seat, t)
    if blocker:
        return blocker, ()
    return _value_judgement(state, a.seat, t, tsumo=False,
                            chankan=state.phase == "kong_window" and state.declaration != "kita")


def _judge_tsumo(state: TableState, a: Action) -> Judgement:
    assert a.seat is not None and a.tile is not None
    return _value_judgement(state, a.seat, a.tile, tsumo=True, in_hand=True)


def _judge_kita(state: TableState, a: Action) -> Judgement:
    assert a.seat is not None
    if state.seats[a.seat].in_riichi and (state.drawn_tile is None or state.drawn_tile.kind not in (NORTH, BACK)):
        return notice("KITA_AFTER_RIICHI"), ()
    if state.drawn_tile is None and not state.option("kita_after_pon", False):
        return notice("KITA_NEEDS_DRAW"), ()
    return _replacement_block(state, "declare kita"), ()


def _judge_riichi(state: TableState, a: Action) -> Judgement:
    assert a.seat is not None
    s = state.seats[a.seat]
    if s.in_riichi:
        return notice("ALREADY_RIICHI"), ()
    if not s.is_closed:
        return notice("RIICHI_OPEN_HAND"), ()
    if s.hidden:  # face-down tiles: whether the hand is ready cannot be known
        away = 0
    elif a.tile is None:
        away = min(_shanten_after(state, a.seat, t) for t in _distinct(s.hand.concealed))
    else:
        away = _shanten_after(state, a.seat, a.tile)
    if away > 0:
        return notice("RIICHI_NOT_TENPAI", shanten=away), ()
    need = state.option("riichi_min_points", 1000)
    if need and s.points < need:
        return notice("RIICHI_POINTS", points=f"{s.points:,}"), ()
    if state.live_wall < state.option("riichi_min_wall", 3):
        return notice("RIICHI_WALL", n=state.live_wall), ()
    return None, _discard_warnings(state, a.seat, a.tile)


def _judge_sink_fei(state: TableState, a: Action) -> Judgement:
    return _replacement_block(state, "sink a Fei"), ()


def _judge_swap_fei(state: TableState, a: Action) -> Judgement:
    assert a.seat is not None and a.target is not None
    owner, idx = a.target
    if owner != a.seat and not state.option("swap_from_others", False):
        return notice("NOT_AT_THIS_TABLE", what="Swapping a Fei out of another player's set"), ()
    if state.drawn_tile is None or (owner == a.seat and idx in state.sets_made_this_turn):
        return notice("FEI_SWAP_TOO_SOON"), ()
    return None, ()


def _judge_nine_terminals(state: TableState, a: Action) -> Judgement:
    assert a.seat is not None
    if not state.seats[a.seat].first_turn or state.drawn_from != "wall":
        return notice("NINE_TERMINALS_NOT_NOW"), ()
    n = _orphan_kinds(state, state.seats[a.seat].hand)
    if n + _orphan_kinds_unseen(state, a.seat) < 9:
        return notice("NOT_NINE_TERMINALS", n=n), ()
    return None, ()


def _judge_discard(state: TableState, a: Action) -> Judgement:
    assert a.seat is not None and a.tile is not None
    s = state.seats[a.seat]
    if s.in_riichi and state.drawn_tile is not None and a.tile is not state.drawn_tile \
            and state.drawn_tile.kind != BACK:  # a face-down drawn tile may be the one thrown
        return notice("RIICHI_FIXED_HAND"), ()
    for idx in state.sets_made_this_turn:
        m = s.hand.melds[idx]
        if m.type == "pong" and state.option("kuikae") == "forbidden" and a.tile.kind == m.kinds[0]:
            return notice("KUIKAE", tile=kind_code(a.tile.kind)), ()
        if ("called_set_no_discard" in state.variant.rule_flags and m.type in ("chow", "pong")
                and a.tile.kind in m.kinds):
            ranks = sorted(set(m.kinds))
            return notice("CALLED_SET_TILE", set=meld_text(m), ranks=kinds_text(ranks)), ()
    return None, _discard_warnings(state, a.seat, a.tile)


def _judge_pass(state: TableState, a: Action) -> Judgement:
    return None, ()


_JUDGES = {
    "discard": _judge_discard, "chow": _judge_chow, "pong": _judge_pong, "open_kong": _judge_open_kong,
    "closed_kong": _judge_closed_kong, "added_kong": _judge_added_kong, "ron": _judge_ron, "tsumo": _judge_tsumo,
    "riichi": _judge_riichi, "kita": _judge_kita, "sink_fei": _judge_sink_fei, "swap_fei": _judge_swap_fei,
    "nine_terminals": _judge_nine_terminals, "pass": _judge_pass,
}


def _discard_warnings(state: TableState, seat: int, tile: Tile | None) -> tuple[Notice, ...]:
    """PAO_WARNING (sanma) / THIRD_DRAGON_WARNING (hong-kong, three-kaki) for throwing ``tile``."""
    style = state.variant.liability_warning
    if tile is None or style is None:
        return ()
    out: list[Notice] = []
    for other, o in enumerate(state.seats):
        if other == seat:
            continue
        sets = {m.kinds[0] for m in o.hand.melds if m.type in ("pong", "kong")}
        dragons = sets & set(DRAGONS)
        winds = sets & set(WINDS)
        third_dragon = len(dragons) == 2 and tile.kind in DRAGONS and tile.kind not in dragons
        fourth_wind = len(winds) == 3 and tile.kind in WINDS and tile.kind not in winds
        player = state.seat_name(other)
        code = kind_code(tile.kind)
        if style == "pao":
            pao = state.option("pao", ())
            cases = () if pao in ("none", None) else tuple(pao)
            if third_dragon and "daisangen" in cases:
                out.append(notice("PAO_WARNING", player=player, sets="two dragon sets", tile=code,
                                  yakuman="daisangen"))
            if fourth_wind and "daisuushii" in cases:
                out.append(notice("PAO_WARNING", player=player, sets="three wind sets", tile=code,
                                  yakuman="daisuushii"))
        elif third_dragon:
            note = ""
            if style == "bao":
                note = ("If someone else throws the winning tile, you and that player pay 1 portion each."
                        if state.option("bao_split", "split") == "split"
                        else "You pay all of it even if someone else throws the winning tile.")
            out.append(notice("THIRD_DRAGON_WARNING", state.variant, player=player, tile=code,
                              third_party_note=note))
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# Attempts


def _in_rules(state: TableState, kind: str) -> bool:
    v = state.variant
    if kind in ("discard", "pass"):
        return True
    if kind == "nine_terminals":
        return v.has_riichi
    return kind in v.calls


def _check_tiles_in_set(state: TableState, action: Action) -> None:
    v = state.variant
    for name, tiles in (("action.tile", (action.tile,) if action.tile else ()), ("action.tiles", action.tiles)):
        for t in tiles:
            if t.kind not in v.copies or (t.red and not v.red_fives.get(t.kind)):
                raise TileError(t.code, 0, f"{name}: {t.code} is not in the {v.name} tile set")


def _same_kinds(a: Iterable[Tile], b: Iterable[Tile]) -> bool:
    return Counter(t.kind for t in a) == Counter(t.kind for t in b)


def _holds(hand: Hand, tiles: Iterable[Tile]) -> bool:
    have = Counter(t.kind for t in hand.concealed)
    need = Counter(t.kind for t in tiles)
    return all(have[k] >= n for k, n in need.items())


def _resolve_attempt(state: TableState, seat: int, att: Action) -> Action:
    """The fully specified, judged version of an attempted action."""
    kind = att.kind
    if kind == "pass":
        return Action("pass", seat)
    if not _in_rules(state, kind) and kind != "chow":
        n = notice("NOT_IN_RULES", action=_NAMES[kind], variant=state.variant.title)
        return replace(att, seat=seat, legal=False, code=n.code, message=n.message)
    if kind in CLAIM_KINDS and state.phase in WINDOWS and att.tile is not None and state.last_tile is not None \
            and att.tile.kind != state.last_tile.kind:
        raise ValueError(f"action.tile: {att.tile.code} is not the tile open to claims ({state.last_tile.code})")
    options = [a for a in _physical_options(state, seat) if a.kind == kind]
    if att.tile is not None:
        options = [a for a in options if a.tile is not None and a.tile.kind == att.tile.kind]
        exact = [a for a in options if a.tile is att.tile]
        options = exact or options
    if att.tiles:
        options = [a for a in options if _same_kinds(a.tiles, att.tiles)]
    if att.target is not None:
        options = [a for a in options if a.target == tuple(att.target)]
    if options:
        judged = [_judge(state, a) for a in options]
        return next((a for a in judged if a.legal), judged[0])
    built = _construct(state, seat, att)
    if built is not None:
        return _judge(state, built)
    n = _unavailable(state, seat, att)
    return replace(att, seat=seat, legal=False, code=n.code, message=n.message)


def _construct(state: TableState, seat: int, att: Action) -> Action | None:
    """An explicitly described action the listing leaves out (two-Fei sets, a riichi discard that does
    not leave the hand ready, a kong with Fei; for a seat with face-down tiles, a discard or a kong of
    tiles it may hold among them), when the seat holds the tiles; else None."""
    hand = state.seats[seat].hand
    kind = att.kind
    own_turn = state.phase == "own_turn" and seat == state.turn
    if kind == "riichi" and own_turn and att.tile is not None:
        return Action("riichi", seat, att.tile) if _can_hold(state, seat, (att.tile,)) else None
    if hand.hidden and kind == "discard" and own_turn and att.tile is not None:
        return Action("discard", seat, att.tile) if _can_hold(state, seat, (att.tile,)) else None
    if hand.hidden and kind == "closed_kong" and not att.tiles and att.tile is not None and att.tile.is_playing \
            and seat == state.turn and state.phase in ("own_turn", "turn_start"):
        four = _Holding(state, seat).take((att.tile.kind, 4))
        return None if four is None else Action(kind, seat, Tile(att.tile.kind), four, make_meld(four, concealed=True))
    if not att.tiles or not _can_hold(state, seat, att.tiles):
        return None
    if kind in ("chow", "pong", "open_kong") and state.phase == "claim_window" and seat != state.turn:
        t = state.last_tile
        assert t is not None
        if t.kind == JOKER:
            return Action(kind, seat, t, att.tiles)
        real = [x.kind for x in att.tiles if x.kind != JOKER]
        src = state.seats_back(seat, state.turn)
        if kind == "chow":
            meld = _chow_from(state, t, att.tiles, src)
        else:
            size = 2 if kind == "pong" else 3
            if len(att.tiles) != size or any(k != t.kind for k in real):
                raise ValueError(f"action.tiles: a {kind} on {t.code} takes {size} tiles of {t.code} (or Fei)")
            meld = make_meld((t,) + att.tiles, (t,) * (size + 1), source=src)
        return Action(kind, seat, t, att.tiles, meld)
    if kind == "closed_kong" and seat == state.turn and state.phase in ("own_turn", "turn_start"):
        kinds = {x.kind for x in att.tiles if x.kind != JOKER}
        if len(att.tiles) != 4 or len(kinds) != 1:
            raise ValueError("action.tiles: a concealed kong takes four tiles of one kind")
        k = kinds.pop()
        return Action(kind, seat, Tile(k), att.tiles, make_meld(att.tiles, (Tile(k),) * 4, concealed=True))
    return None


def _chow_from(state: TableState, t: Tile, tiles: tuple[Tile, ...], source: int) -> Meld:
    """The chow shown by claiming ``t`` with ``tiles`` from the hand (a Fei fills a missing place)."""
    real = [x for x in tiles if x.kind != JOKER]
    fei = [x for x in tiles if x.kind == JOKER]
    need = {t.kind} | {x.kind for x in real}
    if len(tiles) == 2 and len(need) == 1 + len(real) and t.suit in state.variant.chow_suits:
        for start in range(t.kind - 2, t.kind + 1):
            run = set(range(start, start + 3))
            if start // 9 != t.kind // 9 or (start + 2) // 9 != t.kind // 9 or not need <= run:
                continue
            missing = sorted(run - need)
            if len(missing) == len(fei):
                return make_meld((t, *real, *fei), (t, *real, *(Tile(k) for k in missing)), source=source)
    raise ValueError(f"action.tiles: {format_tiles(tiles)} and {t.code} do not make a chow")


def _unavailable(state: TableState, seat: int, att: Action) -> Notice:
    """Why an attempted action is not among the seat's physical options."""
    kind = att.kind
    v = state.variant
    s = state.seats[seat]
    verb = _VERBS[kind]
    if kind == "chow" and not v.can_chow:
        return notice("NO_CHI" if _riichi_family(state) else "NO_CHOW_ON_DISCARD")
    if kind in CLAIM_KINDS:
        if state.phase not in WINDOWS:
            return notice("NO_CLAIMABLE_TILE")
        if seat == state.turn:
            return notice("OWN_DISCARD")
        if state.phase == "kong_window" and kind != "ron":
            return notice("ROB_WIN_ONLY")
        pre = _claim_pre(state, att)
        if pre:
            return pre
        assert state.last_tile is not None
        if kind == "ron":
            return notice("NOT_A_WIN", tile=kind_code(state.last_tile.kind))
        return notice("TILES_NOT_IN_HAND", tiles=format_tiles(att.tiles) if att.tiles else "the tiles", action=verb)
    own_turn = state.phase == "own_turn" and seat == state.turn
    early_kong = (kind == "closed_kong" and state.phase == "turn_start" and seat == state.turn
                  and "kong_before_draw" in v.rule_flags)
    if kind == "added_kong" and state.phase in WINDOWS and seat != state.turn:
        code = kind_code(state.last_tile.kind)  # type: ignore[union-attr]
        return notice("TILES_NOT_IN_HAND", tiles=f"a shown pong of {code}", action=f"add this {code} to it")
    if not (own_turn or early_kong):
        return notice("NOT_YOUR_TURN", action=verb)
    if kind == "tsumo":
        what = kind_code(state.drawn_tile.kind) if state.drawn_tile is not None else "The tile you called"
        return notice("NOT_A_WIN", tile=what)
    if kind == "riichi":
        return notice("ALREADY_RIICHI") if s.in_riichi else notice("RIICHI_OPEN_HAND")
    if kind == "nine_terminals":
        block, _ = _judge_nine_terminals(state, Action(kind, seat))
        return block or notice("NINE_TERMINALS_NOT_NOW")
    if kind == "sink_fei" and any(m.jokers for m in s.hand.melds):
        return notice("SINK_FROM_HAND")
    what = {"sink_fei": "a Fei in your hand", "kita": "a North (4z)", "swap_fei": "the real tile a Fei stands for"}
    tiles = what.get(kind) or (format_tiles(att.tiles) if att.tiles else
                               (att.tile.code if att.tile is not None else "the tiles"))
    return notice("TILES_NOT_IN_HAND", tiles=tiles, action=verb)


# ---------------------------------------------------------------------------------------------
# Priority


def _rank(state: TableState, kind: str) -> int:
    if kind == "ron":
        return 3
    if kind == "open_kong":
        return 2 if "kong_beats_pong" in state.variant.rule_flags else 1
    if kind == "pong":
        return 1
    return 0


def _multi_win(state: TableState) -> str:
    """'all' when every winner on one discard wins (sanma double ron, ``multi_win: both``), else 'nearest'."""
    if "multi_ron" in state.variant.options:
        return "all" if state.option("multi_ron") == "double" else "nearest"
    if "multi_win" in state.variant.options:
        return "all" if state.option("multi_win") == "both" else "nearest"
    return "nearest"


def _call_word(state: TableState, kind: str) -> str:
    if _riichi_family(state):
        return {"ron": "ron", "pong": "pon", "open_kong": "kan", "chow": "chi"}.get(kind, kind)
    return {"ron": "win", "pong": "pong", "open_kong": "kong", "chow": "chow"}.get(kind, kind)
