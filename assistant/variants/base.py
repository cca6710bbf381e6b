"""The rule-system definition type: everything the analysis needs to know about a variant, as data."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from ..tiles import JOKER, SUIT_BASE, kind_code, parse_tiles

# Call names used in ``RuleSystem.calls`` and by the legal-action checks.
CALLS = (
    "chow", "pong", "open_kong", "closed_kong", "added_kong", "ron", "tsumo",
    "riichi", "kita", "sink_fei", "swap_fei", "nine_terminals",
)
SPECIAL_HANDS = ("seven_pairs", "thirteen_orphans")
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
