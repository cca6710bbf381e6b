"""Render the page's tile images ahead of time: ``python -m datasets.assets.tiles [--art DIR]``.

Writes ``webui/static/tiles/<code>.png`` for every tile code (96x128, shown at 44x59 CSS pixels: sharp on 2x
screens) from the art packs in ``../shared/art`` (``--art`` or ``$MAHJONG_ART``; FluffyStuff and samoheen are
CC0, the I.Mahjong glyphs and lietxia M+ licensed: all may be shipped, credits in NOTICE), else the project's
own procedural faces. Build-time only: the web app (:mod:`webui.tiles`) serves the files and never renders (it
does not import ``datasets``)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import cv2

from datasets.art import ArtLibrary
from datasets.codes import TILE_CODES
from datasets.procedural import compose_face, render_face
from webui.tiles import TILES_DIR

SIZE = (96, 128)  # width, height
BODY = (236, 246, 249)  # BGR ivory
PREFERRED_SETS = ("fluffystuff/Regular", "samoheen-hk", "imahjong-fonts/glyph-svg/HK", "lietxia")
REPOSITORY = Path(__file__).resolve().parents[2]


def render_tile(code: str, lib: ArtLibrary | None) -> bytes:
    """PNG bytes of one tile face (art-pack face when available, else procedural)."""
    face = None
    if lib is not None and code != "bk":
        entries = lib.entries(code)
        for key in PREFERRED_SETS:
            entry = next((e for e in entries if e.set_key == key), None)
            if entry is not None:
                ink = lib.ink(entry, SIZE)
                if ink is not None:
                    face = compose_face(ink, BODY)
                    break
    if face is None:
        face = render_face(code, face_colour=BODY, size=SIZE)
    ok, buf = cv2.imencode(".png", face, [cv2.IMWRITE_PNG_COMPRESSION, 9])
    if not ok:  # pragma: no cover
        raise RuntimeError(f"cannot encode tile {code}")
    return buf.tobytes()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m datasets.assets.tiles", description=__doc__.split("\n")[0])
    ap.add_argument("--art", default=os.environ.get("MAHJONG_ART") or str(REPOSITORY.parent / "shared" / "art"))
    ap.add_argument("--out", default=str(TILES_DIR))
    args = ap.parse_args(argv)
    art = ArtLibrary(args.art)
    lib = art if art.available else None
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for code in TILE_CODES:
        (out / f"{code}.png").write_bytes(render_tile(code, lib))
    print(f"wrote {len(TILE_CODES)} tile images to {out} ({'art packs' if lib else 'procedural faces'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
