"""Final (or provisional) standings of a match.

Sanma (sanma.md §11.4–11.6): rank by points, ties by initial seat (initial East first); leftover
riichi sticks go to first place at the end (``leftover_sticks = first``); final score =
(points − return) / 1,000 + uma (+a / 0 / −a) + oka ((return − start) × 3 / 1,000, to first place).
``final_rounding = exact`` keeps one decimal; ``integer`` rounds every player but first to the nearest
whole number (halves away from zero) and gives first place the rest, so the scores still sum to zero.

Other rule systems: rank by points (Hong Kong portions, korean-3p and 3 Kaki points); the score is
the points themselves.

>>> from assistant.match.state import MatchState
>>> from assistant.match.rules import match_options
>>> s = MatchState("sanma", ("A", "B", "C"), match_options("sanma"), (52000, 38000, 15000), finished=True)
>>> [(x.rank, x.player, x.score) for x in standings(s)]
[(1, 'A', 42.0), (2, 'B', -2.0), (3, 'C', -40.0)]
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from .rules import RIICHI_STICK
from .state import MatchState


@dataclass(frozen=True)
class Standing:
    """One player's place: ``points`` at the end (leftover sticks included where they go to first),
    ``score`` the final result (sanma: in thousands with uma and oka; others: the points)."""

    rank: int
    player: str
    initial_seat: int
    points: int
    score: float | int
    uma: int = 0
    oka: float = 0


def _ranking(points: tuple[int, ...]) -> list[int]:
    """Player numbers from first to last: more points first, then the earlier initial seat."""
    return sorted(range(len(points)), key=lambda p: (-points[p], p))


def sanma_uma(a: int, players: int = 3) -> list[int]:
    """Uma by rank: ``+a / 0 / −a`` for three players.

    >>> sanma_uma(15)
    [15, 0, -15]
    """
    if players != 3:
        raise ValueError("sanma uma is defined for three players")
    return [a, 0, -a]


def standings(state: MatchState) -> list[Standing]:
    """The standings, first place first (final once ``state.finished``)."""
    order = _ranking(state.points)
    if state.rules.riichi:
        return _sanma(state, order)
    return [
        Standing(rank=i + 1, player=state.players[p], initial_seat=p, points=state.points[p], score=state.points[p])
        for i, p in enumerate(order)
    ]


def _sanma(state: MatchState, order: list[int]) -> list[Standing]:
    opts = state.options
    points = list(state.points)
    if state.finished and state.sticks and opts["leftover_sticks"] == "first":
        points[order[0]] += state.sticks * RIICHI_STICK
    start, target = opts["start_points"], opts["return_points"]
    oka_total = Decimal((target - start) * state.n) / 1000
    uma = sanma_uma(opts["uma"], state.n)
    raw: list[Decimal] = []
    for i, p in enumerate(order):
        raw.append(Decimal(points[p] - target) / 1000 + uma[i] + (oka_total if i == 0 else 0))
    if opts["final_rounding"] == "integer":
        rounded = [r.quantize(Decimal(1), rounding=ROUND_HALF_UP) for r in raw]
        if sum(raw) == 0:
            rounded[0] = -sum(rounded[1:])
        scores: list[float | int] = [int(r) for r in rounded]
    else:
        scores = [float(r.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)) for r in raw]
    return [
        Standing(
            rank=i + 1, player=state.players[p], initial_seat=p, points=points[p], score=scores[i], uma=uma[i],
            oka=float(oka_total) if i == 0 else 0,
        )
        for i, p in enumerate(order)
    ]


__all__ = ["Standing", "sanma_uma", "standings"]
