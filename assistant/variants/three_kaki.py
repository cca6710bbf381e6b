"""Malaysian three-player "3 Kaki" with Fei jokers (shared/rules/three-kaki.md)."""

from .base import JokerRules, RuleSystem, copies_of

THREE_KAKI = RuleSystem(
    name="three-kaki",
    title='Malaysian "3 Kaki"',
    players=3,
    copies={
        **copies_of("123456789p1234567z", 4),
        **copies_of("1234f1234g1234a1234h", 1),
        50: 4,  # four Fei
    },
    calls=frozenset({"chow", "pong", "open_kong", "closed_kong", "added_kong", "ron", "tsumo",
                     "sink_fei", "swap_fei"}),
    special_hands=frozenset(),  # no seven pairs, no thirteen orphans (three-kaki.md §6)
    dead_wall=7,
    jokers=JokerRules(),
    seat_winds=(27, 28, 29),
    min_value=5,
    value_unit="fan",
    rules_file="three-kaki.md",
    scoring="assistant.scoring.three_kaki",
    rule_flags=frozenset({'called_set_no_discard', 'kong_beats_pong', 'bonus_replacement_is_rinshan'}),
    liability_warning="trap",
    option_choices={
        "multi_win": ("nearest", "both"),
        "small_dragons": ("inclusive", "additive"),
        "pay_exposed_kong": ("each_1", "discarder_2"),
        "bite_pairs": ("off", "each_1"),
        "draw_dealer": ("stays", "passes"),
    },
    options={
        "swap_from_others": False,
        "multi_win": "nearest",
        "min": 5,
        "limit": 10,
        "small_dragons": "inclusive",
        "value_m": 8,
        "value_s": 2,
        "fei_unit": 2,
        "square_unit": 1,
        "pay_concealed_kong": 2,
        "pay_exposed_kong": "each_1",
        "pay_promoted_kong": 1,
        "pay_family": 2,
        "bite_pairs": "off",
        "draw_dealer": "stays",
        "false_win": 24,
    },
)
