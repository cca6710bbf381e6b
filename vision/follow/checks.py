"""Checks: what a new observation cannot show after the followed table, in plain words.

Each of :data:`CHECKS` compares the new observation (``observed``) with what the followed state shows
(``followed``) and says what cannot be (a discard vanished without a meld, a row or meld that changed, tiles set
aside gone, the camera player's hand a tile short ...); the inferrer reports it as a problem and infers nothing
from the frame.
:func:`blocks_frame` tells which of the reconstruction's own problems stop a frame from being followed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from ..observation import TableObservation, mostly_backs, tops_only
from .tile_codes import is_bonus
from .views import GameContext, TableView, as_claimed, meld_grows, newly_face_up, shows_meld, still_aside

#: observation problems that do not stop a frame from being followed (the page still shows them): a tile
#: lying where no tile belongs was left out of the table
ADVISORY = frozenset({"unplaced"})


def blocks_frame(problem, obs: TableObservation, game: GameContext) -> bool:
    """Whether the observation's ``problem`` stops the frame from being followed."""
    if problem.kind in ADVISORY:
        return False
    if problem.kind == "hand_size" and problem.position is not None and problem.position != game.order[game.camera]:
        s = obs.seat(problem.position)
        return s is None or not tops_only(s.hand, len(s.melds))   # tops of a hidden hand: not counted
    if problem.kind == "hand_size" and problem.position is not None:
        return not meld_read_aside(obs, problem.position, game)
    return True


def meld_read_aside(obs: TableObservation, position: int, game: GameContext) -> bool:
    """The seat's area set aside holds tiles no bonus area takes, and counted as one meld they make its hand
    whole: a meld laid where the tiles set aside lie (its claimed tile often missed), which the follower takes
    as the call the vanished discard allows (:func:`.alternatives.call_targets`)."""
    s = obs.seat(position)
    if s is None or not misplaced_meld_tiles(s.bonus, game):
        return False
    return len(s.hand) + 3 * (len(s.melds) + 1) in game.variant.hand_sizes


def misplaced_meld_tiles(bonus, game: GameContext) -> list[str]:
    """The tiles of an area set aside that no bonus area takes (a meld's, laid there)."""
    return [c for c in bonus if not is_bonus(c) and not (c == "jk" and game.jokers) and c != "bk"]


#: a check of a new observation (``observed``) against what the followed state shows (``followed``:
#: :func:`engine_view`)
Check = Callable[[TableView, TableView, GameContext], list[str]]


def _check_rows(followed: TableView, observed: TableView, game: GameContext) -> list[str]:
    """Discards are only added at the end of a row; the latest one leaves it only for a meld or a win."""
    out = []
    for i, (s, v) in enumerate(zip(followed.seats, observed.seats, strict=True)):
        r, want = s.discards, v.discards
        if want[:len(r)] == r:
            continue
        if r and want[:len(r) - 1] == r[:-1] and want[len(r) - 1:len(r)] != r[-1:]:
            gone = r[-1]
            if not _claimed(followed, observed, game, gone, i) and not _won_with(followed, observed, game, gone):
                out.append(f"The {gone} that {game.who(i)} discarded vanished from the discard row, but no new meld "
                           "shows it.")
            continue
        out.append(f"{game.who(i)}'s discard row changed: it showed {' '.join(r) or 'nothing'} and now shows "
                   f"{' '.join(want) or 'nothing'}; discards are only added at the end (or the last one called).")
    return out


def _claimed(followed: TableView, observed: TableView, game: GameContext, tile: str,
             discarder: int | None = None) -> bool:
    """A new meld shows ``tile`` as its claimed (sideways) tile (from ``discarder`` when given)."""
    for j, w in enumerate(observed.seats):
        source = None if discarder is None else game.back(j, discarder)
        for m in w.shown[len(followed.seats[j].melds):]:
            m = as_claimed(m, tile, source)
            if m.sideways is not None and m.tiles[m.sideways] == tile and (source is None or m.source == source):
                return True
    return False


def _won_with(followed: TableView, observed: TableView, game: GameContext, tile: str) -> bool:
    """A winner may have taken ``tile`` into its hand: a hand newly face up holds it, or the camera player's
    hand gained it."""
    cam = game.camera
    if (Counter(observed.seats[cam].hand) - Counter(followed.seats[cam].hand))[tile]:
        return True
    return any(tile in observed.seats[s].hand for s in newly_face_up(followed, observed, game))


def taken_from_pool(followed: TableView, observed: TableView, game: GameContext, tile: str) -> bool:
    """Whether the frame shows ``tile`` taken from Hong Kong's centre pool: a new meld's claimed tile, or a
    winner's."""
    return _claimed(followed, observed, game, tile) or _won_with(followed, observed, game, tile)


def _check_centre(followed: TableView, observed: TableView, game: GameContext) -> list[str]:
    """A tile leaves Hong Kong's centre pool only for a meld or a win."""
    gone = Counter(followed.centre) - Counter(observed.centre)
    return [f"A {c} vanished from the centre discards, but no new meld shows it." for c in gone.elements()
            if not taken_from_pool(followed, observed, game, c)]


def _check_melds(followed: TableView, observed: TableView, game: GameContext) -> list[str]:
    """A shown meld stays, and only grows into a kong or gets its Fei swapped."""
    out = []
    for i, (s, v) in enumerate(zip(followed.seats, observed.seats, strict=True)):
        if len(v.melds) < len(s.melds):
            out.append(f"{game.who(i)} showed {len(s.melds)} meld(s) and now shows {len(v.melds)}; a shown meld "
                       "never leaves the table.")
            continue
        for a, b in zip(s.melds, v.melds, strict=False):
            won = a.added and shows_meld(a.base, b) and _won_with(followed, observed, game, a.added)
            if not meld_grows(a, b) and not won:
                out.append(f"{game.who(i)}'s meld {a.text} now reads {b.text}; a shown meld "
                           "only grows into a kong or gets its Fei swapped.")
    return out


def _check_areas(followed: TableView, observed: TableView, game: GameContext) -> list[str]:
    """Tiles set aside stay there; dora indicators stay turned over."""
    out = []
    for i, (s, v) in enumerate(zip(followed.seats, observed.seats, strict=True)):
        for name, have, want in (("bonus tiles", s.bonus, v.bonus), ("Norths", s.norths, v.norths)):
            if not still_aside(have, want):
                out.append(f"{game.who(i)}'s {name} were {' '.join(have)} and are now {' '.join(want) or 'none'}; "
                           "tiles set aside stay there.")
    if observed.dora[:len(followed.dora)] != followed.dora:
        out.append(f"The dora indicators were {' '.join(followed.dora)} and are now "
                   f"{' '.join(observed.dora) or 'none'}; indicators stay turned over.")
    return out


def check_camera(followed: TableView | None, observed: TableView, game: GameContext) -> list[str]:
    """The camera player's hand is seen face up, as many tiles with its melds as the rule system deals (or one
    more, the tile just drawn), with or without those of its deal not read yet (``followed``'s ``unread``: the
    frame may read them now)."""
    v = observed.seats[game.camera]
    if v.state in ("backs", "mixed") or "bk" in v.hand:
        return [f"The camera player's hand ({game.who(game.camera)}) is not seen face up."]
    size = len(v.hand) + 3 * len(v.melds)
    unread = followed.seats[game.camera].unread if followed is not None else 0
    least, most = game.variant.hand_sizes
    if game.variant.hand_stage(size) is None and game.variant.hand_stage(size + unread) is None and \
            not v.missed:    # tiles the frame missed: sized by :func:`.views.with_missed_tiles`
        short = "short" if size < least else "too many"
        return [f"The camera player's hand counts {size} tiles ({len(v.hand)} in hand, {len(v.melds)} meld(s)): "
                f"{least - size if size < least else size - most} tile(s) {short}; a tile is missed or misplaced."]
    return []


def check_hidden(followed: TableView | None, observed: TableView, game: GameContext) -> list[str]:
    """A hidden hand partly face up is being laid down (wait for the rest); a few faces among mostly backs
    are the tops of standing tiles read as faces, which change nothing (the hand stays hidden)."""
    return [f"{game.who(i)}'s hand is seen partly face up." for i, v in enumerate(observed.seats)
            if i != game.camera and v.state == "mixed" and not mostly_backs(v.hand)]


#: checks of a new observation against the last accepted table
CHECKS: tuple[Check, ...] = (check_camera, check_hidden, _check_rows, _check_centre, _check_melds, _check_areas)


def reconstruction_problems(obs: TableObservation, variant) -> list:
    """The reconstruction's own checks (copies, tile kinds, hand sizes ...) for an observation that comes
    without them."""
    from ..reconstruct import check

    return check(obs, variant)


def describe_difference(followed: TableView, observed: TableView, game: GameContext) -> str:
    """What changed, in the words of :func:`vision.live.describe_change`."""
    def as_dict(seats, hands, dora, centre) -> dict:
        return {"seats": [{"position": game.order[i], "discards": list(s.discards), "hand": list(hands[i]),
                           "melds": [{"notation": "", "tiles": list(m.codes)} for m in s.melds],
                           "bonus": list(s.bonus), "norths": list(s.norths)} for i, s in enumerate(seats)],
                "dora_indicators": list(dora), "centre_discards": list(centre)}

    try:
        from ..observation import describe_change

        def hands(view: TableView) -> list:   # hidden hands are not compared (the frame's backs are not counted)
            return [s.hand if i == game.camera else () for i, s in enumerate(view.seats)]

        before = as_dict(followed.seats, hands(followed), followed.dora, followed.centre)
        after = as_dict(observed.seats, hands(observed), observed.dora, observed.centre)
        return describe_change(before, after) or "nothing readable"
    except Exception:   # the words are a courtesy; never let them hide the problem
        return "the table changed"
