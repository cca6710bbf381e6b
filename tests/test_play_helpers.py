"""Shared helpers of the play tests (not a test module)."""

from __future__ import annotations

import pytest

from assistant.play import IllegalEvent, PlayState, apply, replay, tile_total


def run(variant, events):
    """Replay ``events``; every state keeps the tile count of the set."""
    states = replay(variant, events)
    for s in states:
        assert s.tile_count == tile_total(s)
    return states


def rejected(state: PlayState, event, code: str) -> IllegalEvent:
    """``event`` is refused with ``code`` and ``state`` is left exactly as it was."""
    before = state.to_json()
    with pytest.raises(IllegalEvent) as info:
        apply(state, event)
    assert info.value.code == code, (info.value.code, info.value.message)
    assert state.to_json() == before
    return info.value


def hand_of(state, seat):
    return state.seats[seat].hand.format()


def discards_of(state, seat):
    return [d.to_json() for d in state.seats[seat].discards]


def points(state):
    return [s.points for s in state.seats]
