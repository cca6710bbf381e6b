"""Korean/Japanese three-player "vanilla" (shared/rules/korean-3p.md)."""

from .base import RuleSystem, copies_of

KOREAN_3P = RuleSystem(
    name="korean-3p",
    title="Korean/Japanese three-player",
    players=3,
    copies={**copies_of("123456789m123456789p19s123567z", 4), **copies_of("1234f", 1)},
    calls=frozenset({"pong", "open_kong", "closed_kong", "added_kong", "ron", "tsumo"}),
    special_hands=frozenset(),  # seven pairs only with k3p.special_hands
    dead_wall=0,
    seat_winds=(27, 28, 29),
    min_value=3,
    value_unit="points",
    rules_file="korean-3p.md",
    scoring="assistant.scoring.korean_3p",
    rule_flags=frozenset({'rob_for_chow_only'}),
    structural_options={"special_hands": {"seven_pairs": {"special_hands": frozenset({"seven_pairs"})}}},
    option_choices={
        "dead_wall": (0, 14),
        "direction": ("anticlockwise", "clockwise"),
        "special_hands": ("none", "seven_pairs"),
        "multi_win": ("nearest", "both"),
        "sacred_discard": ("per_tile", "all_waits", "off"),
        "flower_value": (1, 0),
        "draw_dealer": ("stays", "passes"),
    },
    options={
        "dead_wall": 0,
        "direction": "anticlockwise",
        "special_hands": "none",
        "rob_concealed": True,
        "multi_win": "nearest",
        "sacred_discard": "per_tile",
        "tsumo_counts_to_minimum": True,
        "min_points": 3,
        "limit": 20,
        "false_win_penalty": 20,
        "flower_value": 1,
        "draw_dealer": "stays",
        "rounds": 2,
    },
)
