"""Scoring: one scorer module per rule system, named by the definition's ``scoring`` field.

``score(ctx)`` picks the variant's scorer (a module exposing ``score(ctx: WinContext) -> ScoreResult``).
Adding a rule system = a definition naming its scorer module; nothing here changes.
"""

from __future__ import annotations

from dataclasses import replace
from importlib import import_module

from .base import Payment, PlayerShown, ScoreItem, ScoreResult, WinContext


def scorer_for(variant):
    if not variant.scoring:
        raise ValueError(f"no scorer is defined for rule system {variant.name!r}")
    try:
        return import_module(variant.scoring)
    except ModuleNotFoundError as e:
        raise ValueError(f"scoring for {variant.name} is not available ({e})") from None


def score(ctx: WinContext) -> ScoreResult:
    """Score a win under its rule system, choosing the reading that pays most.

    Table options that change shapes or the tile set (e.g. korean-3p seven pairs) are applied to the
    rule system first, so the analysis sees them too.
    """
    if ctx.options:
        ctx = replace(ctx, variant=ctx.variant.with_options(ctx.options))
    return scorer_for(ctx.variant).score(ctx)


__all__ = ["Payment", "PlayerShown", "ScoreItem", "ScoreResult", "WinContext", "score", "scorer_for"]
