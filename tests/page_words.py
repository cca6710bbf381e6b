"""What a page must not say to a player: the engine's names for events and phases (``added_kong``,
``claim_window``), the live pipeline's track ids (``t9``, photos' ``p12``) and the code of a tile that shows no
face (``bk``: "a face-down tile"). ("none" is a word; the code ``none`` never reaches the page.)

>>> internal_words("East declared added_kong with 7p. Tile t9 was read as bk (0.55); discards: none; p12")
['added_kong', 't9', 'bk', 'p12']
>>> internal_words("East added to a pong, making a kong of 7p. The tile in East's discards was read as a "
...                "face-down tile, only 55 % sure: tap it. You may pong 1p or chow 23p.")
[]
"""

from __future__ import annotations

import re

_INTERNAL = re.compile(r"\b(?:[a-z]+_[a-z_]+|[tp]\d+|bk)\b")


def internal_words(text: str) -> list[str]:
    """The internal words in ``text``, in order."""
    return _INTERNAL.findall(text)
