"""What the pages show, computed with the engine's own functions (the same ones the CLI calls).

Nothing here decides a rule: every verdict, wait label, message and score comes from
:mod:`assistant.calls`, :mod:`assistant.furiten`, :mod:`assistant.analysis`, :mod:`assistant.scoring`
and :mod:`assistant.cli`; this module only gathers them into JSON for the templates and scripts.
"""

from __future__ import annotations

import argparse
from typing import Any

from assistant.analysis import discard_advice, shanten
from assistant.calls import legal_actions
from assistant.cli import discard_result, score_context, shanten_result, waits_result
from assistant.furiten import ron_blocker, wait_labels
from assistant.hand import Hand, parse_hand
from assistant.table import SEAT_NAMES, TableState, win_context
from assistant.tiles import Tile, parse_tiles
from assistant.variants import get_variant, variant_names

from .errors import ApiError

# How each wait label and warning reads, with an icon so that nothing depends on colour alone.
LABEL_ICONS = {"can ron": "✓", "tsumo only": "◐", "no yaku": "✗", "below the minimum": "✗", "no live tiles": "∅"}
WARNING_LABELS = {"FURITEN": "Furiten", "SACRED": "Sacred discard", "PAO": "Liability", "THIRD": "Liability",
                  "NO_YAKU": "No yaku", "BELOW": "Below the minimum", "VALUE": "Not checked"}


def variants_info() -> list[dict[str, Any]]:
    """Every rule system with its options and their defaults (settings page, typed-hand form)."""
    out = []
    for name in variant_names():
        v = get_variant(name)
        out.append({"name": v.name, "title": v.title, "players": v.players,
                    "options": {k: _jsonable(val) for k, val in v.options.items()},
                    "choices": {k: [_jsonable(c) for c in cs] for k, cs in v.option_choices.items()},
                    "schema": {k: _jsonable(v.option_schema(k)) for k in v.options},
                    "tiles": tile_set(name)})
    return out


def tile_set(variant: str) -> list[str]:
    """The tile codes of a rule system's set, red fives after their plain fives (the correction palette)."""
    v = get_variant(variant)
    codes = []
    for kind in sorted(v.copies):
        codes.append(Tile(kind).code)
        if v.red_fives.get(kind):
            codes.append(Tile(kind, True).code)
    return codes


def _jsonable(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    return value


def check_options(variant: str, options: Any) -> dict[str, Any]:
    """Table options for ``variant``: known keys, values of the default's type. ApiError otherwise."""
    try:
        v = get_variant(variant)
    except ValueError as e:
        raise ApiError(str(e), field="variant") from None
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise ApiError("'options' must be a JSON object of table options", field="options")
    out = {}
    for key, value in options.items():
        if key not in v.options:
            raise ApiError(f"'{key}' is not a table option of {v.name} (known: {', '.join(sorted(v.options))})",
                           field=f"options.{key}")
        default = v.options[key]
        ok = (isinstance(value, bool) if isinstance(default, bool)
              else isinstance(value, (int, float)) and not isinstance(value, bool) if isinstance(default, (int, float))
              else isinstance(value, (list, tuple, str)) if isinstance(default, (list, tuple))
              else isinstance(value, dict) if isinstance(default, dict)
              else isinstance(value, str) if isinstance(default, str) else True)
        if not ok:
            raise ApiError(f"option {key} of {v.name} takes a value like {_jsonable(default)!r}, got {value!r}",
                           field=f"options.{key}")
        out[key] = value
    try:
        v.with_options(out)
    except (ValueError, TypeError) as e:
        raise ApiError(str(e), field="options") from None
    return out


# ------------------------------------------------------------------------------------------------
# The table


def read_state(data: Any) -> TableState:
    """A TableState from JSON, or ApiError 400 naming the bad field."""
    if not isinstance(data, dict):
        raise ApiError("'state' must be a table state JSON object (see assistant/table.py)", field="state")
    try:
        return TableState.from_json(data)
    except ValueError as e:
        raise ApiError(f"bad table state: {e}", field=f"state.{getattr(e, 'field', '')}".rstrip(".")) from None


def _bare(hand: Hand) -> Hand:
    """The hand without its bonus area (what shanten and waits read)."""
    return Hand(hand.concealed, hand.melds, ())


def _warning(code: str, message: str) -> dict[str, str]:
    label = next((v for k, v in WARNING_LABELS.items() if code.startswith(k)), "Note")
    return {"code": code, "label": label, "icon": "⚠", "text": message}


def _meld_view(meld: Any) -> dict[str, Any]:
    return {"text": meld.format(), "tiles": [t.code for t in meld.tiles], "type": meld.type,
            "concealed": meld.concealed, "source": meld.source}


def seat_view(state: TableState, seat: int, *, me: int, teaching: bool) -> dict[str, Any]:
    """One seat: hand (unless hidden), melds, discards, and — for the player, or everyone outside
    teaching mode — shanten, waits with labels, discard advice and the calls it may make now."""
    s = state.seats[seat]
    v = state.variant
    private = teaching and seat != me
    out: dict[str, Any] = {
        "seat": seat, "name": state.seat_name(seat), "wind": SEAT_NAMES[seat], "points": s.points,
        "is_me": seat == me, "riichi": s.in_riichi, "closed": s.is_closed, "tile_count": s.hand.tile_count,
        "concealed": None if private else [t.code for t in s.hand.concealed],
        "drawn": state.drawn_tile.code if (state.drawn_tile is not None and seat == state.turn and not private)
        else None,
        "melds": [_meld_view(m) for m in s.hand.melds], "bonus": [t.code for t in s.hand.bonus],
        "discards": [{"tile": d.tile.code, "called_by": d.called_by, "riichi": d.riichi} for d in s.discards],
        "hidden": private, "shanten": None, "waits": [], "advice": [], "calls": [], "warnings": [],
    }
    if private:
        return out
    out["face_down"] = s.hand.hidden
    if s.hand.hidden:
        # a hand the camera sees only from behind: no shanten or waits; what it may call is still listed
        # (as "possible": its tiles cannot be checked)
        out["calls"] = [a.as_dict() for a in legal_actions(state, seat)
                        if a.kind not in ("pass", "discard") and state.phase in ("claim_window", "kong_window")]
        return out
    hand = _bare(s.hand)
    try:
        out["shanten"] = shanten(hand, v).as_dict()
    except ValueError as e:
        out["warnings"].append({"code": "HAND", "label": "Hand", "icon": "⚠", "text": str(e)})
        return out
    stage = v.hand_stage(s.hand.tile_count)
    if stage == "waiting":
        for w in wait_labels(state, seat):
            item = {"tile": w.tile.code, "live": w.live, "label": w.label, "icon": LABEL_ICONS.get(w.label, ""),
                    "reason": w.reason}
            out["waits"].append(item)
            if w.label == "tsumo only":
                blocker = ron_blocker(state, seat, w.tile)
                if blocker is not None:
                    out["warnings"].append(_warning(blocker.code, blocker.message))
            elif w.label in ("no yaku", "below the minimum"):
                out["warnings"].append(_warning("NO_YAKU" if w.label == "no yaku" else "BELOW", w.reason))
        unique: dict[str, dict[str, str]] = {}     # each text once, where it first appears
        for warning in out["warnings"]:
            unique.setdefault(warning["text"], warning)
        out["warnings"] = list(unique.values())
    elif stage == "discarding" and seat == me:
        options = discard_advice(hand, v, state.visible_tiles(seat))
        out["advice"] = [o.as_dict() for o in options]
    actions = legal_actions(state, seat)
    if state.phase == "own_turn" and seat == state.turn:
        actions = [a for a in actions if a.kind != "discard"]
    out["calls"] = [a.as_dict() for a in actions if a.kind != "pass" or state.phase in ("claim_window",
                                                                                         "kong_window")]
    for a in actions:
        for notice in a.warnings:
            if notice.code != "VALUE_UNCHECKED":
                out["warnings"].append(_warning(notice.code, notice.message))
    return out


def table_view(state_json: dict[str, Any] | None, *, me: int = 0, teaching: bool = False,
               win: dict[str, Any] | None = None) -> dict[str, Any]:
    """Everything the live page shows about one table state (``ok`` False with ``error`` when it is bad)."""
    if state_json is None:
        return {"ok": False, "error": "No table recognised yet."}
    try:
        state = TableState.from_json(state_json)
    except ValueError as e:
        return {"ok": False, "error": f"The table state is not valid: {e}"}
    me = me if 0 <= me < state.players else 0
    v = state.variant
    view: dict[str, Any] = {
        "ok": True, "variant": v.name, "title": v.title, "phase": state.phase, "turn": state.turn,
        "turn_name": state.seat_name(state.turn), "live_wall": state.live_wall,
        "dora_indicators": [t.code for t in state.dora_indicators], "round_wind": Tile(state.round_wind).code,
        "honba": state.honba, "riichi_sticks": state.riichi_sticks, "me": me, "teaching": teaching,
        "claim": None, "win": None,
        "seats": [seat_view(state, i, me=me, teaching=teaching) for i in range(state.players)],
    }
    if state.phase in ("claim_window", "kong_window") and state.last_tile is not None:
        view["claim"] = {"tile": state.last_tile.code, "discarder": state.turn,
                         "discarder_name": state.seat_name(state.turn), "declaration": state.declaration,
                         "too_late": state.next_drawn}
    if win:
        view["win"] = win_view(state, win)
    return view


# ------------------------------------------------------------------------------------------------
# Wins


def _payments(state_or_names: Any, payments: list[Any]) -> list[dict[str, Any]]:
    def name(seat: int | None) -> str:
        if seat is None:
            return "the table"
        if isinstance(state_or_names, TableState):
            return state_or_names.seat_name(seat)
        return state_or_names[seat]

    return [{"from": name(p.payer), "to": name(p.receiver), "payer": p.payer, "receiver": p.receiver,
             "amount": p.amount, "reason": p.reason} for p in payments]


def read_win(state: TableState, win: Any) -> tuple[int, Tile, bool]:
    if not isinstance(win, dict):
        raise ApiError("'win' must be an object {seat, tile, tsumo}", field="win")
    try:
        seat = state.check_seat(win.get("seat"), "win.seat")
    except ValueError as e:
        raise ApiError(str(e), field="win.seat") from None
    tsumo = win.get("tsumo", False)
    if not isinstance(tsumo, bool):
        raise ApiError("'win.tsumo' must be true or false", field="win.tsumo")
    code = win.get("tile")
    if code is None:
        code = (state.drawn_tile if tsumo else state.last_tile)
        code = code.code if code is not None else None
    if not isinstance(code, str):
        raise ApiError("'win.tile' is missing: which tile wins?", field="win.tile")
    tiles = parse_tiles(code)
    if len(tiles) != 1:
        raise ApiError(f"'win.tile' must be one tile, got {code!r}", field="win.tile")
    tile = tiles[0]
    if tile.kind not in state.variant.copies:
        raise ApiError(f"{tile.code} is not in the {state.variant.name} tile set", field="win.tile")
    return seat, tile, tsumo


def win_view(state: TableState, win: dict[str, Any]) -> dict[str, Any]:
    """The full scoring of a win on this table: legality (with the §6 reason), items, fu, total, who
    pays whom, and the hand as the match records it."""
    from assistant.scoring import score

    seat, tile, tsumo = read_win(state, win)
    kind = "tsumo" if tsumo else "ron"
    actions = [a for a in legal_actions(state, seat) if a.kind == kind]
    verdict = next((a for a in actions if a.tile is not None and a.tile.kind == tile.kind), None)
    out: dict[str, Any] = {
        "seat": seat, "name": state.seat_name(seat), "tile": tile.code, "tsumo": tsumo,
        "discarder": None if tsumo else state.discarder,
        "discarder_name": None if tsumo or state.discarder is None else state.seat_name(state.discarder),
        "allowed": verdict is not None and verdict.legal,
        "why_not": None if verdict is None else (verdict.message or None),
    }
    if verdict is None:
        out["why_not"] = (f"{state.seat_name(seat)} cannot {'declare tsumo' if tsumo else 'ron'} on {tile.code} "
                          f"now ({state.phase.replace('_', ' ')}).")
    try:
        result = score(win_context(state, seat, tile, tsumo=tsumo, in_hand=tsumo))
    except ValueError as e:
        out.update({"legal": False, "verdict": str(e), "items": [], "payments": []})
        return out
    out.update(result.as_dict())
    out["payments"] = _payments(state, result.payments)
    out["net"] = {state.seat_name(i): n for i, n in enumerate(result.net(state.players))}
    out["recordable"] = bool(result.legal and out["allowed"])
    return out


def hand_spec(state: TableState, seat: int, tile: Tile, tsumo: bool) -> dict[str, Any]:
    """The winning hand as :class:`assistant.match.events.HandSpec` JSON (winning tile marked ``*``)."""
    s = state.seats[seat]
    concealed = list(s.hand.concealed)
    if tsumo:
        concealed.remove(next(t for t in concealed if t == tile) if tile in concealed
                         else next(t for t in concealed if t.kind == tile.kind))
    from assistant.tiles import format_tiles

    parts = [format_tiles(concealed), f"{tile.code}*", *(m.format() for m in s.hand.melds)]
    text = " ".join(p for p in parts if p)
    if s.hand.bonus:
        text += " | " + format_tiles(s.hand.bonus)
    ctx = win_context(state, seat, tile, tsumo=tsumo, in_hand=tsumo)
    spec: dict[str, Any] = {"hand": text}
    if state.dora_indicators:
        spec["dora_indicators"] = "".join(t.code for t in state.dora_indicators)
    if ctx.kita:
        spec["kita"] = ctx.kita
    if ctx.fei_sunk:
        spec["fei_sunk"] = ctx.fei_sunk
    for flag in ("rinshan", "chankan", "haitei", "houtei", "tenhou", "chiihou"):
        if getattr(ctx, flag):
            spec[flag] = True
    return spec


# ------------------------------------------------------------------------------------------------
# Typed hands (the photo page's form): the CLI's own result functions


def typed_hand(data: dict[str, Any]) -> dict[str, Any]:
    """Shanten, waits (a waiting hand: 13 tiles) or discard advice (a hand that must discard: 14 tiles) of a
    typed hand, as the CLI computes them; the rule system says which size is which."""
    from .errors import get_str

    text = get_str(data, "hand", required=True, max_len=300)
    variant = get_str(data, "variant", "sanma")
    options = check_options(variant, data.get("options"))
    v = get_variant(variant).with_options(options)
    visible_text = get_str(data, "visible", "", max_len=600) or ""
    hand = parse_hand(text)
    visible = parse_tiles(visible_text) if visible_text.strip() else []
    out: dict[str, Any] = {"variant": v.name, "hand": hand.format(), "tile_count": hand.tile_count,
                           "concealed": [t.code for t in hand.concealed],
                           "melds": [_meld_view(m) for m in hand.melds]}
    out["shanten"] = shanten_result(hand, v)
    stage = v.hand_stage(hand.tile_count)
    if stage == "waiting":
        out["waits"] = waits_result(hand, v, visible)["waits"]
    elif stage == "discarding":
        out["advice"] = discard_result(hand, v, visible)["options"]
    else:
        raise ApiError(f"a hand has {v.hand_size} tiles (waits) or {v.full_hand_size} (discard advice); {text!r} "
                       f"has {hand.tile_count}", field="hand")
    return out


SCORE_FLAGS = ("riichi", "double_riichi", "ippatsu", "rinshan", "after_two_kongs", "chankan", "haitei", "houtei",
               "tenhou", "chiihou")


def typed_score(data: dict[str, Any]) -> dict[str, Any]:
    """Full scoring of a typed winning hand, through the same :func:`assistant.cli.score_context` as
    ``mahjong-assistant score``."""
    from assistant.scoring import score

    from .errors import get_bool, get_int, get_str

    variant = get_str(data, "variant", "sanma")
    options = check_options(variant, data.get("options"))
    ns = argparse.Namespace(
        hand=get_str(data, "hand", required=True, max_len=300), variant=variant,
        win_tile=get_str(data, "win_tile", required=True, max_len=4), tsumo=get_bool(data, "tsumo"),
        ron_from=get_str(data, "ron_from", None, max_len=8), seat=get_str(data, "seat", "E", max_len=8),
        round_wind=get_str(data, "round_wind", "E", max_len=8), melds=[],
        dora=get_str(data, "dora", "", max_len=40), ura=get_str(data, "ura", "", max_len=40),
        kita=get_int(data, "kita", 0, lo=0, hi=8), honba=get_int(data, "honba", 0, lo=0, hi=99),
        sticks=get_int(data, "sticks", 0, lo=0, hi=99), fei_sunk=get_int(data, "fei_sunk", 0, lo=0, hi=8),
        option=[f"{k}={_json_text(val)}" for k, val in options.items()],
        **{f: get_bool(data, f) for f in SCORE_FLAGS},
    )
    if not ns.tsumo and not ns.ron_from:
        raise ApiError("say how the hand was won: tsumo true, or ron_from a seat (E/S/W/N)", field="ron_from")
    if ns.tsumo and ns.ron_from:
        raise ApiError("a win is either tsumo or ron_from a seat, not both", field="ron_from")
    ctx = score_context(ns)
    res = score(ctx)
    names = [SEAT_NAMES[i] for i in range(ctx.variant.players)]
    out = {"variant": ctx.variant.name, "hand": ctx.hand.format(), **res.as_dict()}
    out["payments"] = _payments(names, res.payments)
    return out


def _json_text(value: Any) -> str:
    import json

    return json.dumps(value)


__all__ = ["LABEL_ICONS", "check_options", "hand_spec", "read_state", "read_win", "seat_view", "table_view",
           "tile_set", "typed_hand", "typed_score", "variants_info", "win_view"]
