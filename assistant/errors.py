"""The one error type for bad tiles, bad notation and impossible hands."""

from __future__ import annotations


class TileError(ValueError):
    """Malformed notation or an impossible hand.

    ``token`` is the offending text (a tile code, a meld, or the whole hand) and ``position`` its
    0-based character offset in the input (or the tile's index for a list input); ``reason`` says
    what is wrong in plain words. ``str(err)`` reads
    ``bad tile token '5m' at position 3: 5m is not in the sanma tile set``.
    """

    def __init__(self, token: str, position: int, reason: str) -> None:
        self.token = token
        self.position = position
        self.reason = reason
        super().__init__(f"bad tile token {token!r} at position {position}: {reason}")
