"""``mahjong-assistant tileset ...``: teach the assistant the table's own tiles.

    tileset layout --variant V              the rows to lay out for enrolling (one tile of each kind)
    tileset enroll NAME PHOTO [--variant V] [--layout FILE]
    tileset learn NAME PHOTO TILES.json     any photo, its tiles as `detect --json` prints them, corrected
    tileset list | show NAME | remove NAME | use NAME|none

Bad input exits with status 2 and one ``error:`` line.
"""

from __future__ import annotations

import argparse
import json
import sys

from assistant.variants import variant_names

from .tilesets import TileSetError

VARIANTS = variant_names()


def chosen_tileset(name: str | None):
    """The tile set a command reads with: ``name``, or the one chosen with ``tileset use`` when ``name`` is
    None; ``'none'`` reads with none. Raises TileSetError for an unknown or damaged ``name``; a set in use that
    cannot be read is said on stderr and read without."""
    from . import tilesets as T

    if name == "none":
        return None
    if name is None:
        name = T.active_name()
        if name is None:
            return None
        try:
            return T.TileSet.load(name)
        except TileSetError as exc:
            print(f"warning: reading without the tile set in use: {exc}", file=sys.stderr, flush=True)
            return None
    return T.TileSet.load(name)


def _fail(msg: str) -> int:
    print(f"error: {msg}", file=sys.stderr)
    return 2


def _print_rows(rows) -> None:
    for i, r in enumerate(rows, 1):
        print(f"  row {i}: {' '.join(r)}")


def cmd_tileset(args: argparse.Namespace) -> int:
    from . import tilesets as T

    try:
        if args.action == "layout":
            rows = T.read_layout_file(args.layout) if args.layout else T.layout_rows(args.variant)
            if args.json:
                print(json.dumps(rows))
            else:
                print(f"Lay one tile of each kind face up in these rows, left to right, a finger's gap between rows, "
                      f"and take one photo from above ({sum(map(len, rows))} tiles):")
                _print_rows(rows)
            return 0
        if args.action == "list":
            active = T.active_name()
            names = T.list_sets()
            _, damaged = T.summaries()
            why = {d["name"]: d["reason"] for d in damaged}
            if args.json:
                print(json.dumps({"sets": names, "active": active, "damaged": damaged}))
            elif not names:
                print("no tile set enrolled yet (`mahjong-assistant tileset enroll NAME PHOTO --variant V`)")
            else:
                for n in names:
                    print(f"{'*' if n == active else ' '} {n}{'  (' + why[n] + ')' if n in why else ''}")
            return 0
        if args.action == "use":
            if args.name == "none":
                T.use(None)
                print("no tile set in use: the shipped classifier reads every set")
            else:
                T.use(T.check_name(args.name))
                print(f"tile set {args.name!r} in use (detect, analyze and serve read with it)")
            return 0
        if args.action == "remove":   # readable or not
            T.remove(args.name)
            print(f"removed tile set {args.name!r}")
            return 0
        if args.action == "show":
            ts = T.TileSet.load(args.name)
            info = ts.summary()
            if args.json:
                print(json.dumps(info))
            else:
                print(f"tile set {ts.name}: {info['examples']} examples of {info['kinds']} kinds"
                      f"{', rule system ' + ts.variant if ts.variant else ''}; "
                      f"{'adapted head' if info['adapted'] else 'not adapted yet'}")
                for h in info["history"]:
                    before, after = h.get("accuracy_before"), h.get("accuracy_after")
                    acc = f", held back {before:.0%} -> {after:.0%}" if before is not None and after is not None else ""
                    print(f"  {h['source']}: +{h['added']} examples, {'kept' if h['kept'] else 'not kept'}{acc}")
            return 0
        # enroll / learn: a photo
        from .inference import ImageError, TileRecognizer, load_image

        T.check_name(args.name)
        try:
            image = load_image(args.photo)
        except ImageError as exc:
            return _fail(str(exc))
        rec = TileRecognizer(head=None)
        if args.action == "enroll":
            layout = T.read_layout_file(args.layout) if args.layout else None
            if layout is None and not args.variant:
                return _fail("enroll needs --variant (the rule system of the set) or --layout FILE")
            res = T.enroll(args.name, image, rec, args.variant, layout)
        else:
            try:
                with open(args.tiles, encoding="utf-8") as fh:
                    data = json.load(fh)
            except (OSError, json.JSONDecodeError, RecursionError) as exc:
                return _fail(f"{args.tiles}: cannot read the tiles ({exc.__class__.__name__}: {exc})"[:300])
            res = T.learn_from_json(args.name, image, data, rec, args.variant)
    except TileSetError as exc:
        return _fail(str(exc))
    except OSError as exc:
        return _fail(f"{exc.__class__.__name__}: {exc}")
    if args.json:
        print(json.dumps(res))
        return 0
    what = f"{res.get('tiles', res['added'])} tiles" if args.action == "enroll" else f"{res['added']} new examples"
    print(f"tile set {res['set']}: learnt from {what} in {res['seconds']:.1f} s ({res['examples']} examples in all)")
    if args.action == "enroll" and "read_wrong_before" in res:
        print(f"  the shipped model read {res['read_wrong_before']} of them wrong before")
    if res.get("not_boxed"):
        print(f"  no box was found on {' '.join(res['not_boxed'])}: taken from "
              f"{'its place in its row' if len(res['not_boxed']) == 1 else 'their places in the rows'}")
    if res.get("held_back") and res.get("accuracy_before") is not None and res.get("accuracy_after") is not None:
        before, after = res["accuracy_before"], res["accuracy_after"]
        print(f"  held-back examples read right: {before:.0%} before -> {after:.0%} after")
    if res.get("generic_before") is not None and res.get("generic_after") is not None:
        print(f"  generic examples of every kind read right: {res['generic_before']:.0%} with the built-in models "
              f"-> {res['generic_after']:.0%} adapted")
    if res.get("note"):
        print(f"  note: {res['note']}")
    if res["kept"]:
        what = "its network" if res.get("adapts") == "network" else "its last layer"
        print(f"  adapted ({what}): detect, analyze and serve read better with --tileset "
              f"{res['set']} (or `mahjong-assistant tileset use {res['set']}`)")
    else:
        print(f"  not adapted: {res.get('reason', 'the adapted model read the held-back or earlier examples worse')}")
    return 0


def register(sub) -> None:
    p = sub.add_parser("tileset", help="teach the assistant your own tile set (enroll from one photo, learn "
                                        "from corrected photos)")
    acts = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    a = acts.add_parser("layout", help="print the rows to lay out for enrolling")
    a.add_argument("--variant", "-v", choices=VARIANTS, default="sanma")
    a.add_argument("--layout", help="a layout file instead (one row of codes per line)")
    a.add_argument("--json", action="store_true")
    a = acts.add_parser("enroll", help="learn a set from one photo of its tiles laid out in the layout's rows")
    a.add_argument("name")
    a.add_argument("photo")
    a.add_argument("--variant", "-v", choices=VARIANTS)
    a.add_argument("--layout", help="rows of codes (one row per line) instead of the rule system's layout")
    a.add_argument("--json", action="store_true")
    a = acts.add_parser("learn", help="learn from a photo and its tiles (detect --json output, codes corrected)")
    a.add_argument("name")
    a.add_argument("photo")
    a.add_argument("tiles", help="JSON as `detect --json` prints it; code 'none' marks a box that is no tile")
    a.add_argument("--variant", "-v", choices=VARIANTS)
    a.add_argument("--json", action="store_true")
    a = acts.add_parser("list", help="the enrolled sets (* = in use)")
    a.add_argument("--json", action="store_true")
    for name, helptext in (("show", "what a set knows"), ("remove", "delete a set and its examples"),
                           ("use", "read with this set from now on ('none': no set)")):
        a = acts.add_parser(name, help=helptext)
        a.add_argument("name")
        a.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_tileset)
