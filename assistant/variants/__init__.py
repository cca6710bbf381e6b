"""Registry of rule systems. Adding a variant = adding a definition module and one line here
(or calling :func:`register` at run time); no analysis code changes."""

from __future__ import annotations

from .base import CALLS, RULE_FLAGS, SPECIAL_HANDS, JokerRules, RuleSystem, copies_of
from .hong_kong import HONG_KONG
from .korean_3p import KOREAN_3P
from .sanma import SANMA
from .three_kaki import THREE_KAKI

_REGISTRY: dict[str, RuleSystem] = {}


def register(variant: RuleSystem) -> RuleSystem:
    _REGISTRY[variant.name] = variant
    return variant


def get_variant(name: str | RuleSystem) -> RuleSystem:
    """Look a rule system up by name (``sanma``, ``korean-3p``, ``hong-kong``, ``three-kaki``)."""
    if isinstance(name, RuleSystem):
        return name
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ValueError(
            f"unknown rule system {name!r}; choose one of: {', '.join(variant_names())}"
        ) from None


def variant_names() -> list[str]:
    return list(_REGISTRY)


for _v in (SANMA, KOREAN_3P, HONG_KONG, THREE_KAKI):
    register(_v)

__all__ = [
    "CALLS", "RULE_FLAGS", "SPECIAL_HANDS", "JokerRules", "RuleSystem", "copies_of", "get_variant", "register",
    "variant_names", "SANMA", "KOREAN_3P", "HONG_KONG", "THREE_KAKI",
]
