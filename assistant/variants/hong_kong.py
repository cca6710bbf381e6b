"""Hong Kong Old Style, four players (shared/rules/hong-kong.md)."""

from .base import RuleSystem, copies_of

_NO_FLOWERS = copies_of("123456789m123456789p123456789s1234567z", 4)

HONG_KONG = RuleSystem(
    name="hong-kong",
    title="Hong Kong Old Style",
    players=4,
    copies={**copies_of("123456789m123456789p123456789s1234567z", 4), **copies_of("1234f1234g", 1)},
    calls=frozenset({"chow", "pong", "open_kong", "closed_kong", "added_kong", "ron", "tsumo"}),
    special_hands=frozenset({"seven_pairs", "thirteen_orphans"}),
    dead_wall=14,
    seat_winds=(27, 28, 29, 30),
    min_value=3,
    value_unit="faan",
    rules_file="hong-kong.md",
    scoring="assistant.scoring.hong_kong",
    rule_flags=frozenset({'kong_before_draw', 'earthly_hand_on_dealer_discard'}),
    liability_warning="bao",
    structural_options={
        "seven_pairs": {"off": {"special_hands": frozenset({"thirteen_orphans"})}},
        "flowers": {False: {"copies": _NO_FLOWERS}},
    },
    options={
        "flowers": True,
        "dead_wall": 14,
        "rob_concealed_kong": "thirteen_orphans",
        "flower_set_stacks": False,
        "flower_rob": True,
        "eight_flowers": True,
        "common_hand_strict": False,
        "full_flush": 7,
        "seven_pairs": 4,
        "small_winds": 6,
        "limit_hands": "cap",
        "cap": 13,
        "min": 3,
        "ladder": "half",
        "unit": 1,
        "payment": "full",
        "robbed_pays": "as_discarder",
        "false_win": "3_portions_at_cap",
        "bao_split": "split",
        "bao_nine_tile_flush": False,
        "bao_fifth_tile": False,
        "draw_dealer": "stays",
        "false_win_dealer": "passes",
    },
)
