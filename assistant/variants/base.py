"""The rule-system definition type: everything the analysis needs to know about a variant, as data."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Literal

from ..tiles import JOKER, SUIT_BASE, kind_code, parse_tiles

# Call names used in ``RuleSystem.calls`` and by the legal-action checks.
CALLS = (
    "chow", "pong", "open_kong", "closed_kong", "added_kong", "ron", "tsumo",
    "riichi", "kita", "sink_fei", "swap_fei", "nine_terminals",
)
SPECIAL_HANDS = ("seven_pairs", "thirteen_orphans")
KONG_CALLS = ("open_kong", "closed_kong", "added_kong")
# How a hand of play can end (``assistant.play.state.ENDINGS``) and why it can be aborted:
ENDINGS = ("win", "exhaustive_draw", "abortive_draw", "false_win")
ABORTIVE_DRAWS = ("nine_terminals", "four_kans")
NORTH = 30
# Small rule facts that differ between rule systems (read by the legality checks):
RULE_FLAGS = (
    "kong_before_draw",  # a concealed kong may be declared at the start of the turn, before drawing (HK §3.1)
    "rob_for_chow_only",  # a kong may be robbed only to complete a chow (korean-3p §5)
    "called_set_no_discard",  # after a chow/pong, no discard of a tile of that set this turn (3 Kaki C4)
    "kong_beats_pong",  # claim priority win > kong > pong > chow (3 Kaki C3)
    "bonus_replacement_is_rinshan",  # a win on a kita / bonus / sunk-Fei replacement counts as a replacement win
    "earthly_hand_on_dealer_discard",  # the earthly hand is a win on the dealer's first discard (HK §5.3)
)


def copies_of(spec: str, copies: int) -> dict[int, int]:
    """``copies_of("19m1-9p", 4)``-style helper: each listed tile kind with ``copies`` copies."""
    return {t.kind: copies for t in parse_tiles(spec)}


@dataclass(frozen=True)
class JokerRules:
    """How jokers may stand in sets (three-kaki F2-F5)."""

    max_in_chow: int = 1
    max_in_pong: int = 2
    max_in_pair: int = 2
    in_kong: bool = False
    max_in_shown_set: int = 1


_OPTION_CACHE: dict[tuple[int, str], RuleSystem] = {}


@dataclass(frozen=True, eq=False)
class RuleSystem:
    """One rule system as data. A new variant is a new instance registered in ``variants``.

    ``copies`` maps every tile kind of the set (playing tiles, bonus tiles, jokers) to its number of
    copies; ``red_fives`` says how many of those copies of a 5 are red. ``special_hands`` lists the
    non-standard complete shapes allowed by default; ``options`` holds every table option with its
    default (the ``[opt]`` values of the rules files).

    What a rule system allows is asked through its *capabilities* (properties derived from the data:
    ``calls``, ``copies``, ``hand_size``, ``discards_to_centre``), never by testing its name:

    >>> from assistant.variants import variant_names, get_variant
    >>> for v in map(get_variant, variant_names()):
    ...     print(f"{v.name:10} {v.hand_sizes} melds<={v.max_melds} chow={v.can_chow:d} pong={v.can_pong:d} "
    ...           f"kong={v.can_kong:d} kita={v.can_kita:d} fei={v.can_sink_fei:d}{v.can_swap_fei:d} "
    ...           f"riichi={v.has_riichi:d} dora={v.has_dora_indicators:d} kongs<={v.kong_limit} "
    ...           f"rows={v.keeps_discard_rows:d} aborts={v.abortive_draws}")
    sanma      (13, 14) melds<=4 chow=0 pong=1 kong=1 kita=1 fei=00 riichi=1 dora=1 kongs<=4 rows=1 \
aborts=('nine_terminals', 'four_kans')
    korean-3p  (13, 14) melds<=4 chow=0 pong=1 kong=1 kita=0 fei=00 riichi=0 dora=0 kongs<=None rows=1 aborts=()
    hong-kong  (13, 14) melds<=4 chow=1 pong=1 kong=1 kita=0 fei=00 riichi=0 dora=0 kongs<=None rows=0 aborts=()
    three-kaki (13, 14) melds<=4 chow=1 pong=1 kong=1 kita=0 fei=11 riichi=0 dora=0 kongs<=None rows=1 aborts=()
    """

    name: str
    title: str
    players: int
    copies: Mapping[int, int]
    red_fives: Mapping[int, int] = field(default_factory=dict)
    hand_size: int = 13
    calls: frozenset[str] = frozenset()
    special_hands: frozenset[str] = frozenset()
    dead_wall: int = 0
    # discards go face up to the centre of the table, one unordered pool (hong-kong.md §3: "discard one tile
    # face up to the centre"); otherwise each player keeps an ordered row of discards in front of them
    discards_to_centre: bool = False
    jokers: JokerRules | None = None
    seat_winds: tuple[int, ...] = (27, 28, 29)
    min_value: int = 0
    value_unit: str = "han"
    rules_file: str = ""
    scoring: str = ""  # module with ``score(ctx) -> ScoreResult`` for this rule system
    rule_flags: frozenset[str] = frozenset()  # see RULE_FLAGS
    liability_warning: str | None = None  # which liability the beginner check warns about: pao | bao | trap
    options: Mapping[str, object] = field(default_factory=dict)
    # option -> value -> changes to the definition's fields, for options that change the tile set or
    # the allowed shapes (e.g. korean-3p special_hands=seven_pairs adds seven pairs)
    structural_options: Mapping[str, Mapping[Any, Mapping[str, Any]]] = field(default_factory=dict)
    # option -> the values a table may choose (the [opt] alternatives of the rules file), first = default
    option_choices: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    # option -> its schema where the default's type alone does not say it (see option_schema)
    option_schemas: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "copies", MappingProxyType(dict(self.copies)))
        object.__setattr__(self, "red_fives", MappingProxyType(dict(self.red_fives)))
        object.__setattr__(self, "options", MappingProxyType(dict(self.options)))
        object.__setattr__(self, "structural_options", MappingProxyType(dict(self.structural_options)))
        object.__setattr__(self, "option_choices", MappingProxyType(dict(self.option_choices)))
        for key, choices in self.option_choices.items():
            value = self.options.get(key)
            values = value if isinstance(value, list) else [value]
            if key not in self.options or any(v not in choices for v in values):
                raise ValueError(f"{self.name}: option {key} value {value!r} not among {choices}")
        object.__setattr__(self, "special_hands", frozenset(self.special_hands))
        unknown = set(self.calls) - set(CALLS)
        if unknown:
            raise ValueError(f"{self.name}: unknown calls {sorted(unknown)}")
        unknown = set(self.rule_flags) - set(RULE_FLAGS)
        if unknown:
            raise ValueError(f"{self.name}: unknown rule flags {sorted(unknown)}")
        unknown = set(self.special_hands) - set(SPECIAL_HANDS)
        if unknown:
            raise ValueError(f"{self.name}: unknown special hands {sorted(unknown)}")

    # --- derived facts -------------------------------------------------------------------
    @property
    def total_tiles(self) -> int:
        return sum(self.copies.values())

    @property
    def playing_kinds(self) -> tuple[int, ...]:
        """Kinds that form sets (suited tiles and honours), in id order."""
        return tuple(sorted(k for k in self.copies if k < 34))

    @property
    def bonus_kinds(self) -> tuple[int, ...]:
        return tuple(sorted(k for k in self.copies if 34 <= k < 50))

    @property
    def has_jokers(self) -> bool:
        return self.copies.get(JOKER, 0) > 0

    def has_kind(self, kind: int) -> bool:
        return kind in self.copies or kind == 51

    @property
    def chow_suits(self) -> tuple[str, ...]:
        """Suits with all nine ranks in the set: the only places chows can form."""
        return tuple(
            s for s in "mps" if all(SUIT_BASE[s] + r in self.copies for r in range(9))
        )

    @property
    def thirteen_orphans_kinds(self) -> tuple[int, ...]:
        """Terminal and honour kinds in the set (thirteen orphans needs one of each)."""
        return tuple(k for k in self.playing_kinds if k >= 27 or k % 9 in (0, 8))

    # --- capabilities: what the rules allow, as the rest of the program asks it ---------------
    @property
    def full_hand_size(self) -> int:
        """Tiles a hand holds on its own turn, after the draw (``hand_size`` + 1), melds counting 3 each."""
        return self.hand_size + 1

    @property
    def hand_sizes(self) -> tuple[int, int]:
        """The sizes a hand can have (melds counting 3 each): waiting (``hand_size``) and about to discard
        (``full_hand_size``)."""
        return (self.hand_size, self.full_hand_size)

    def hand_stage(self, tile_count: int) -> Literal["waiting", "discarding"] | None:
        """What a hand of ``tile_count`` tiles (melds counting 3 each) is doing: ``"waiting"`` between its
        turns (ask for its waits), ``"discarding"`` on its turn after the draw (ask for discard advice),
        None for a size no hand has.

        >>> from assistant.variants import SANMA
        >>> [SANMA.hand_stage(n) for n in (12, 13, 14, 15)]
        [None, 'waiting', 'discarding', None]
        """
        if tile_count == self.hand_size:
            return "waiting"
        if tile_count == self.full_hand_size:
            return "discarding"
        return None

    @property
    def max_melds(self) -> int:
        """The most sets a hand can show: each takes three of its ``hand_size`` tiles (one tile is the wait)."""
        return self.hand_size // 3

    @property
    def can_chow(self) -> bool:
        """A chow may be claimed from the previous player's discard (pung-only rule systems have no chow)."""
        return "chow" in self.calls

    @property
    def can_pong(self) -> bool:
        """A pong may be claimed from any discard."""
        return "pong" in self.calls

    @property
    def can_kong(self) -> bool:
        """Kongs may be made (from a discard, concealed or added to a pong)."""
        return any(c in self.calls for c in KONG_CALLS)

    @property
    def can_kita(self) -> bool:
        """A North may be set aside into the bonus area for a replacement tile (kita): a 4z there is a
        set-aside North, not a misplaced tile."""
        return "kita" in self.calls

    @property
    def can_sink_fei(self) -> bool:
        """A Fei (joker) may be sunk into the bonus area for a replacement tile."""
        return "sink_fei" in self.calls

    @property
    def can_swap_fei(self) -> bool:
        """A Fei standing in a shown set may be swapped for the real tile it stands for."""
        return "swap_fei" in self.calls

    @property
    def sets_aside(self) -> tuple[int, ...]:
        """Tile kinds that may lie in a bonus area: the set's bonus tiles, a set-aside North (kita), a sunk
        Fei, in id order."""
        extra = ((NORTH,) if self.can_kita else ()) + ((JOKER,) if self.can_sink_fei else ())
        return tuple(sorted(self.bonus_kinds + extra))

    @property
    def has_riichi(self) -> bool:
        """Riichi may be declared (a sideways discard); the riichi family also needs a yaku to win."""
        return "riichi" in self.calls

    @property
    def has_dora_indicators(self) -> bool:
        """Dora indicators lie face up on the dead wall: one from the deal and a new one with each kan (the
        riichi family's; the other rule systems' walls show no face-up tile)."""
        return self.has_riichi

    @property
    def kong_limit(self) -> int | None:
        """The most kongs (kans) the whole table may make in one hand, or None where only the wall limits
        them: the riichi family allows four (a fifth kan is refused; four by several players abort)."""
        return 4 if self.has_riichi and self.can_kong else None

    def riichi_refusal(self, *, claimed_sets: bool) -> str | None:
        """Why a seat cannot be in riichi: ``"no_riichi"`` (the rules have none), ``"open_hand"`` (it shows a
        set claimed from a discard: riichi needs a closed hand; concealed kongs keep it closed), else None.

        >>> from assistant.variants import SANMA, HONG_KONG
        >>> SANMA.riichi_refusal(claimed_sets=False), SANMA.riichi_refusal(claimed_sets=True)
        (None, 'open_hand')
        >>> HONG_KONG.riichi_refusal(claimed_sets=False)
        'no_riichi'
        """
        if not self.has_riichi:
            return "no_riichi"
        return "open_hand" if claimed_sets else None

    @property
    def keeps_discard_rows(self) -> bool:
        """Each player keeps an ordered row of discards (the order and a sideways riichi tile can be read);
        False where discards go to one unordered pool in the centre (``discards_to_centre``)."""
        return not self.discards_to_centre

    @property
    def abortive_draws(self) -> tuple[str, ...]:
        """Why a hand may be aborted (:data:`ABORTIVE_DRAWS`): nine terminals where it is a call, four kans
        where the table's kongs are limited (``kong_limit``)."""
        return tuple(r for r in ABORTIVE_DRAWS if (r == "nine_terminals" and r in self.calls)
                     or (r == "four_kans" and self.kong_limit is not None))

    @property
    def endings(self) -> tuple[str, ...]:
        """How a hand may end (:data:`ENDINGS`): a win, an exhaustive draw, an abortive draw where the rules
        have one (``abortive_draws``), a false win.

        >>> from assistant.variants import SANMA, HONG_KONG
        >>> SANMA.endings
        ('win', 'exhaustive_draw', 'abortive_draw', 'false_win')
        >>> HONG_KONG.endings
        ('win', 'exhaustive_draw', 'false_win')
        """
        return tuple(e for e in ENDINGS if e != "abortive_draw" or self.abortive_draws)

    def chow_shapes(self, kind: int) -> tuple[tuple[int, int], ...]:
        """The pairs of kinds that make a chow with ``kind`` (lowest first: ``kind`` at the top, middle,
        bottom of the run), within this set's ``chow_suits``; empty for honours, bonus tiles and suits
        without all nine ranks. Says what shapes exist, not whether one may be claimed (``can_chow``):
        concealed chows count in every rule system.

        >>> from assistant.variants import SANMA, THREE_KAKI
        >>> SANMA.chow_shapes(10), SANMA.chow_shapes(1), THREE_KAKI.chow_shapes(22), SANMA.chow_shapes(27)
        (((9, 11), (11, 12)), (), (), ())
        >>> [(a, b) for a, b in SANMA.chow_shapes(13)]
        [(11, 12), (12, 14), (14, 15)]
        """
        suit = next((s for s in self.chow_suits if SUIT_BASE[s] <= kind < SUIT_BASE[s] + 9), None)
        if suit is None:
            return ()
        rank = kind - SUIT_BASE[suit]
        return tuple((kind + a, kind + b) for a, b in ((-2, -1), (-1, 1), (1, 2)) if 0 <= rank + a and rank + b <= 8)

    def with_options(self, overrides: Mapping[str, Any]) -> RuleSystem:
        """This rule system with table options changed (unknown keys raise ValueError).

        Options listed in ``structural_options`` also change the tile set or allowed shapes. The same
        overrides give the same (cached) instance, so analysis caches keyed by rule system keep working.
        """
        if not overrides:
            return self
        unknown = [k for k in overrides if k not in self.options]
        if unknown:
            raise ValueError(f"unknown option(s) for {self.name}: {', '.join(unknown)}")
        for key, value in overrides.items():
            self.check_option(key, value)
        key = (id(self), json.dumps(dict(overrides), sort_keys=True, default=str))
        cached = _OPTION_CACHE.get(key)
        if cached is not None:
            return cached
        changes: dict[str, Any] = {"options": {**self.options, **overrides}}
        for opt, value in overrides.items():
            effects = self.structural_options.get(opt, {})
            values = value if isinstance(value, (list, tuple)) else [value]  # e.g. a list of special hands
            for v in values:
                if isinstance(v, (str, int, float, bool)) and v in effects:
                    changes.update(effects[v])
        variant = replace(self, **changes)
        _OPTION_CACHE[key] = variant
        return variant

    def option_schema(self, key: str) -> dict[str, Any]:
        """What option ``key`` accepts, as data (the settings page's menus and every edge's check read it):
        ``{"type": "choice", "choices": [...]}`` (the rules file's alternatives; a list of them where the
        default is a list), ``bool``, ``int`` with ``min``/``max``, ``object`` with the same keys as the default
        and whole-number values, or ``list`` of short words."""
        if key in self.option_schemas:
            return dict(self.option_schemas[key])
        default = self.options[key]
        choices = self.option_choices.get(key)
        if choices is not None:
            return {"type": "choice", "choices": list(choices), "list": isinstance(default, list)}
        if isinstance(default, bool):
            return {"type": "bool"}
        if isinstance(default, int):
            return {"type": "int", "min": 0, "max": max(1000, 100 * abs(default))}
        if isinstance(default, float):
            return {"type": "number", "min": 0.0, "max": max(1000.0, 100 * abs(default))}
        if isinstance(default, Mapping):
            return {"type": "object", "keys": sorted(default), "min": 0, "max": 1_000_000}
        if isinstance(default, (list, tuple, frozenset, set)):
            return {"type": "list", "max_items": 32}
        return {"type": "str", "max_len": 40}

    def check_option(self, key: str, value: Any) -> None:
        """ValueError naming the option and what it accepts when ``value`` does not fit its schema."""
        sch = self.option_schema(key)
        kind = sch["type"]

        def bad(what: str) -> ValueError:
            got = json.dumps(value, default=str)[:80]
            return ValueError(f"option '{key}' of {self.name} must be {what}; got {got}")

        if kind == "choice":
            values = value if isinstance(value, list) else [value]  # a table-defined list of choices
            if not values or len(values) > 32 or \
                    any(isinstance(v, (list, dict)) or v not in sch["choices"] for v in values):
                raise bad("one of " + ", ".join(json.dumps(c) for c in sch["choices"]))
            if any(isinstance(v, bool) != isinstance(c, bool) for v in values for c in sch["choices"] if v == c):
                raise bad("one of " + ", ".join(json.dumps(c) for c in sch["choices"]))
        elif kind == "bool":
            if not isinstance(value, bool):
                raise bad("true or false")
        elif kind in ("int", "number"):
            ok = isinstance(value, int) if kind == "int" else isinstance(value, (int, float))
            if isinstance(value, bool) or not ok or not sch["min"] <= value <= sch["max"]:
                raise bad(f"a whole number from {sch['min']} to {sch['max']}" if kind == "int"
                          else f"a number from {sch['min']} to {sch['max']}")
        elif kind == "object":
            keys = sch["keys"]
            if not isinstance(value, Mapping) or sorted(value) != keys or any(
                    isinstance(v, bool) or not isinstance(v, int) or not sch["min"] <= v <= sch["max"]
                    for v in value.values()):
                raise bad("an object {" + ", ".join(f'"{k}": whole number 0-{sch["max"]}' for k in keys) + "}")
        elif kind == "list":
            items, alone = sch.get("items"), sch.get("or", [])
            if isinstance(value, str) and value in alone:
                return
            what = f"a list of {', '.join(items)}" if items else f"a list of at most {sch.get('max_items', 32)} names"
            if alone:
                what += " or " + " / ".join(json.dumps(a) for a in alone)
            if not isinstance(value, (list, tuple)) or len(value) > sch.get("max_items", 32) or any(
                    not isinstance(v, str) or not v or len(v) > 40 or (items and v not in items) for v in value):
                raise bad(what)
        elif not isinstance(value, str) or len(value) > sch["max_len"]:
            raise bad(f"a word of at most {sch['max_len']} characters")

    def allows(self, special: str) -> bool:
        return special in self.special_hands

    def describe(self) -> str:
        kinds = " ".join(kind_code(k) for k in sorted(self.copies))
        return f"{self.title}: {self.players} players, {self.total_tiles} tiles ({kinds})"
