"""Synthetic table scenes for training tile detectors and classifiers.

A scene is a table seen through a pinhole camera (overhead, from the player's seat, or oblique)
with tiles modelled as 3D boxes (printed face, ivory layer, coloured back layer) in the layouts
of real play (see :mod:`datasets.layout`), lit with a directional light, casting soft shadows,
with distractors, and passed through camera effects (uneven light, colour, blur, noise, JPEG).

:meth:`SceneGenerator.generate` returns the BGR image and one :class:`TileLabel` per visible
tile; the same seed always gives a byte-identical image and identical labels (on the same
machine, art pack and library versions).
"""

from __future__ import annotations

import math
import zlib
from dataclasses import asdict, dataclass, field
from pathlib import Path

import cv2
import numpy as np

from . import effects
from .art import ArtLibrary
from .camera import Camera, rot_z
from .codes import BACK
from .layout import LayoutConfig, Placement, TileDims, build_layout
from .procedural import FACE_SIZE, FaceStyle, compose_face, random_style, render_ink
from .render import (
    BOX_NORMALS,
    BoxObject,
    Canvas,
    Texture,
    face_visible,
    quad_pixel_count,
    render_boxes,
    shadow_polygons,
)

BGR = tuple[int, int, int]

VIEWS: tuple[str, ...] = ("overhead", "seat", "oblique")

# (face colour, back colour) of some real sets, BGR.
TILE_SETS: tuple[tuple[BGR, BGR], ...] = (
    ((222, 236, 242), (60, 140, 40)), ((236, 240, 241), (170, 95, 30)), ((212, 232, 244), (60, 185, 235)),
    ((230, 236, 240), (45, 120, 230)), ((220, 232, 240), (150, 110, 230)), ((228, 236, 242), (40, 40, 170)),
    ((224, 238, 244), (60, 90, 20)), ((240, 240, 240), (40, 40, 40)), ((198, 222, 238), (130, 60, 20)),
    ((226, 234, 236), (200, 160, 60)), ((235, 238, 238), (35, 110, 35)),
)
SKIN: tuple[BGR, ...] = ((120, 160, 215), (100, 140, 200), (70, 100, 150), (140, 180, 225), (50, 75, 110))


@dataclass(frozen=True)
class SceneConfig:
    """What scenes look like; everything random inside these bounds is drawn from the seed."""

    width: int = 1280
    height: int = 720
    view_weights: tuple[float, float, float] = (0.4, 0.35, 0.25)  # overhead, seat, oblique
    art_probability: float = 0.5   # chance that a scene's tile set uses art-pack faces
    min_face_px: int = 12          # faces covering fewer pixels are not labelled
    min_visible: float = 0.1       # nor faces with a smaller visible fraction
    effects: bool = True
    distractors: bool = True
    layout: LayoutConfig = field(default_factory=LayoutConfig)


@dataclass
class TileLabel:
    """One visible tile. ``corners`` are TL, TR, BR, BL of the face as it reads upright."""

    code: str                     # printed code, or "bk" when the back is the visible side
    corners: list[list[float]]    # 4 x [x, y] image pixels (pixel centres at integers)
    face_up: bool                 # True: the printed face is the labelled side; False: the back
    rotation: int                 # 0/90/180/270: face "up" direction, degrees clockwise from image up
    angle: float                  # the same direction, unquantised, in [0, 360)
    occluded: float               # fraction of the face hidden by other things or the image border
    truncated: bool               # a corner lies outside the image
    zone: str                     # hand, meld, discard, wall, dora, scattered
    seat: int                     # 0 = camera player's seat, counter-clockwise

    def to_dict(self) -> dict:
        """JSON-ready dict."""
        return asdict(self)


@dataclass
class Scene:
    """A rendered scene: BGR uint8 image, tile labels and metadata."""

    image: np.ndarray
    labels: list[TileLabel]
    meta: dict


# --------------------------------------------------------------------------- tile sets


@dataclass
class TileSet:
    """The physical look of one scene's tiles and a per-scene texture cache."""

    dims: TileDims
    face_colour: np.ndarray
    back_colour: np.ndarray
    face_fraction: float
    gloss: float
    style: FaceStyle
    art: ArtLibrary | None
    art_set: str | None
    face_seed: int                  # which artwork each code gets: keyed by code, so the same in every frame
    _faces: dict[str, Texture] = field(default_factory=dict)
    _other: dict[str, Texture] = field(default_factory=dict)

    def face(self, code: str) -> Texture:
        """The printed face of ``code`` (art-pack or procedural; fixed for the scene)."""
        if code not in self._faces:
            self._faces[code] = Texture(compose_face(self._ink(code), self.face_colour))
        return self._faces[code]

    def _ink(self, code: str) -> np.ndarray:
        if self.art is not None and self.art_set is not None and code != BACK:
            rng = np.random.default_rng([self.face_seed, zlib.crc32(code.encode())])
            found = self.art.random_ink(code, rng, FACE_SIZE, prefer=self.art_set)
            if found is not None and (found[1].set_key == self.art_set or rng.random() < 0.5):
                return found[0]
        return render_ink(code, self.style, FACE_SIZE)

    def back(self) -> Texture:
        """The back face texture."""
        if "back" not in self._other:
            self._other["back"] = Texture(compose_face(render_ink(BACK, self.style, FACE_SIZE), self.back_colour))
        return self._other["back"]

    def side(self) -> Texture:
        """Edge texture: the ivory face layer above the coloured back layer (rows front -> back)."""
        if "side" not in self._other:
            rows = 32
            split = int(round(self.face_fraction * rows))
            band = np.empty((rows, 8, 3), np.float32)
            band[:split] = self.face_colour * 0.97
            band[split:] = self.back_colour
            band[split - 1:split + 1] *= 0.85
            band[[0, -1]] *= 0.9
            self._other["side"] = Texture(np.clip(band, 0, 255).astype(np.uint8))
        return self._other["side"]


def random_tile_set(rng: np.random.Generator, art: ArtLibrary | None, art_probability: float) -> TileSet:
    """Size, colours, face style and art source of a scene's tiles."""
    w = float(rng.uniform(23, 30))
    dims = TileDims(w, w * float(rng.uniform(1.3, 1.42)), w * float(rng.uniform(0.6, 0.85)))
    face, back = TILE_SETS[int(rng.integers(len(TILE_SETS)))]
    face_c = np.clip(np.asarray(face, np.float32) + rng.uniform(-10, 8, 3), 0, 255)
    back_c = np.clip(np.asarray(back, np.float32) + rng.uniform(-20, 20, 3), 0, 255)
    style = random_style(rng, back=tuple(int(c) for c in back_c))
    art_set = None
    if art is not None and art.available and rng.random() < art_probability:
        keys = art.set_keys()
        art_set = keys[int(rng.integers(len(keys)))]
    return TileSet(dims, face_c, back_c, float(rng.uniform(0.5, 0.75)), float(rng.uniform(0.0, 0.25)),
                   style, art, art_set, int(rng.integers(2**32)))


# --------------------------------------------------------------------------- cameras


def random_camera(rng: np.random.Generator, view: str, width: int, height: int, layout_info: dict) -> Camera:
    """A camera of the given view type around the table described by ``layout_info``."""
    if view == "overhead":
        target = np.array([rng.normal(0, 70), rng.normal(0, 70), 0.0])
        eye = target + np.array([rng.normal(0, 70), rng.normal(0, 70), rng.uniform(500, 1400)])
        up = rot_z(float(rng.uniform(0, 360))) @ np.array([0.0, 1.0, 0.0])
        return Camera.look_at(eye, target, up, float(rng.uniform(50, 75)), width, height)
    if view == "seat":
        hand_y = float(layout_info["hand_y_mm"])
        eye = np.array([rng.normal(0, 50), hand_y - rng.uniform(120, 260), rng.uniform(230, 430)])
        target = np.array([rng.normal(0, 50), hand_y + rng.uniform(60, 220), 0.0])
        return Camera.look_at(eye, target, np.array([0.0, 0.0, 1.0]), float(rng.uniform(60, 80)),
                              width, height, float(rng.normal(0, 3)))
    azimuth = math.radians(float(rng.uniform(0, 360)))
    elevation = math.radians(float(rng.uniform(35, 68)))
    dist = float(rng.uniform(550, 1200))
    target = np.array([rng.normal(0, 80), rng.normal(0, 80), 0.0])
    eye = target + dist * np.array([math.cos(azimuth) * math.cos(elevation),
                                    math.sin(azimuth) * math.cos(elevation), math.sin(elevation)])
    return Camera.look_at(eye, target, np.array([0.0, 0.0, 1.0]), float(rng.uniform(45, 70)),
                          width, height, float(rng.normal(0, 4)))


def random_light(rng: np.random.Generator) -> tuple[np.ndarray, float]:
    """Unit vector towards a directional light, and the ambient share of the shading."""
    azimuth = math.radians(float(rng.uniform(0, 360)))
    elevation = math.radians(float(rng.uniform(35, 82)))
    light = np.array([math.cos(azimuth) * math.cos(elevation), math.sin(azimuth) * math.cos(elevation),
                      math.sin(elevation)])
    return light, float(rng.uniform(0.4, 0.7))


# --------------------------------------------------------------------------- objects


def _world_box(dims: TileDims, R: np.ndarray, center: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """World corners and face normals of a box."""
    return dims.corners() @ R.T + center, BOX_NORMALS @ R.T


def tile_object(p: Placement, tiles: TileSet, label_id: int, eye: np.ndarray) -> tuple[BoxObject, str]:
    """The box of placement ``p``; labels the front if it faces the camera, else the back."""
    corners, normals = _world_box(tiles.dims, p.R, p.center)
    side = tiles.side()
    obj = BoxObject(corners, normals, [tiles.face(p.code), tiles.back(), side, side, side, side],
                    label_id=label_id, gloss=tiles.gloss)
    if face_visible(obj, 0, eye):
        obj.label_face, code = 0, p.code
    elif face_visible(obj, 1, eye):
        obj.label_face, code = 1, BACK
    else:
        code = p.code
    return obj, code


def _flat_texture(colour: np.ndarray, size: tuple[int, int] = (16, 16)) -> Texture:
    img = np.empty((size[1], size[0], 3), np.uint8)
    img[:] = np.clip(colour, 0, 255).astype(np.uint8)
    return Texture(img)


def _dice_texture(pips: int) -> Texture:
    img = np.full((48, 48, 3), 235, np.uint8)
    spots = {1: [(24, 24)], 2: [(12, 12), (36, 36)], 3: [(12, 12), (24, 24), (36, 36)],
             4: [(12, 12), (36, 12), (12, 36), (36, 36)], 5: [(12, 12), (36, 12), (24, 24), (12, 36), (36, 36)],
             6: [(12, 10), (36, 10), (12, 24), (36, 24), (12, 38), (36, 38)]}
    colour = (40, 40, 200) if pips in (1, 4) else (30, 30, 30)
    for x, y in spots[pips]:
        cv2.circle(img, (x, y), 6 if pips == 1 else 4, colour, -1, cv2.LINE_AA)
    return Texture(img)


def _stick_texture(rng: np.random.Generator) -> Texture:
    img = np.full((24, 240, 3), 235, np.uint8)
    cv2.circle(img, (120, 12), 7, (40, 40, 200), -1, cv2.LINE_AA)
    if rng.random() < 0.5:
        for x in (60, 180):
            cv2.circle(img, (x, 12), 4, (30, 30, 30), -1, cv2.LINE_AA)
    return Texture(img)


def distractor_objects(rng: np.random.Generator, placements: list[Placement], half: float) -> list[BoxObject]:
    """Dice, riichi sticks and a phone-like slab lying where no tile lies."""
    occupied = [p.center[:2] for p in placements]
    objects: list[BoxObject] = []

    def free_spot(radius: float, spread: float) -> np.ndarray | None:
        for _ in range(25):
            xy = rng.uniform(-spread, spread, 2)
            if all(np.linalg.norm(xy - c) > radius + 22 for c in occupied):
                occupied.append(xy)
                return xy
        return None

    def add(dims: TileDims, textures: list[Texture], xy: np.ndarray | None, gloss: float = 0.1) -> None:
        if xy is None:
            return
        R = rot_z(float(rng.uniform(0, 360)))
        corners, normals = _world_box(dims, R, np.array([xy[0], xy[1], dims.t / 2]))
        objects.append(BoxObject(corners, normals, textures, gloss=gloss))

    for _ in range(int(rng.integers(0, 3))):
        side = float(rng.uniform(11, 16))
        faces = [_dice_texture(k) for k in (1, 6, 2, 3, 5, 4)]
        add(TileDims(side, side, side), faces, free_spot(side, 0.5 * half))
    for _ in range(int(rng.integers(0, 3))):
        stick = _stick_texture(rng)
        add(TileDims(8.0, 100.0, 3.0), [Texture(cv2.rotate(stick.levels[0], cv2.ROTATE_90_CLOCKWISE))] * 2
            + [_flat_texture(np.array([220.0, 220, 220]))] * 4, free_spot(50, 0.8 * half))
    if rng.random() < 0.15:
        colour = rng.uniform(10, 80, 3)
        add(TileDims(70.0, 140.0, 8.0), [_flat_texture(colour)] * 6, free_spot(75, half), gloss=0.3)
    return objects


def paint_hand_occluder(canvas: Canvas, rng: np.random.Generator) -> None:
    """A skin-coloured hand-and-arm shape reaching in from an image border."""
    w, h = canvas.w, canvas.h
    scale = float(rng.uniform(0.12, 0.25)) * max(w, h)
    side = int(rng.integers(4))
    start = {0: (rng.uniform(0, w), h + scale), 1: (rng.uniform(0, w), -scale),
             2: (-scale, rng.uniform(0, h)), 3: (w + scale, rng.uniform(0, h))}[side]
    tip = np.array([rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h])
    start = np.array(start, np.float64)
    mask = np.zeros((h, w), np.uint8)
    cv2.line(mask, tuple(np.round(start).astype(int)), tuple(np.round(tip).astype(int)), 255,
             max(2, int(scale * 0.45)), cv2.LINE_AA)
    direction = (tip - start) / max(np.linalg.norm(tip - start), 1e-6)
    normal = np.array([-direction[1], direction[0]])
    for k in range(4):
        base = tip + normal * (k - 1.5) * scale * 0.12
        end = base + direction * scale * float(rng.uniform(0.25, 0.4))
        cv2.line(mask, tuple(np.round(base).astype(int)), tuple(np.round(end).astype(int)), 255,
                 max(2, int(scale * 0.09)), cv2.LINE_AA)
    colour = np.asarray(SKIN[int(rng.integers(len(SKIN)))], np.float32)
    a = cv2.GaussianBlur(mask.astype(np.float32) / 255.0, (0, 0), 1.0)[..., None]
    shade = 0.85 + 0.25 * effects.smooth_noise(rng, h, w, 4)[..., None]
    canvas.image *= 1 - a
    canvas.image += colour * shade * a
    canvas.ids[mask > 127] = -1


# --------------------------------------------------------------------------- labels


def quad_rotation(quad: np.ndarray) -> tuple[int, float]:
    """(quantised, exact) clockwise angle from image-up of the face's up direction."""
    up = (quad[0] + quad[1]) / 2 - (quad[3] + quad[2]) / 2
    angle = math.degrees(math.atan2(float(up[0]), float(-up[1]))) % 360.0
    return int(round(angle / 90.0)) % 4 * 90, angle


def make_labels(canvas: Canvas, quads: dict[int, np.ndarray], info: dict[int, tuple[str, Placement]],
                min_face_px: int, min_visible: float) -> list[TileLabel]:
    """Labels of the faces covering >= ``min_face_px`` pixels of which >= ``min_visible`` is visible
    (and at least one pixel), in placement order."""
    counts = np.bincount(canvas.ids[canvas.ids > 0].ravel(), minlength=max(quads, default=0) + 1)
    labels = []
    for label_id in sorted(quads):
        quad = quads[label_id]
        full = quad_pixel_count(quad)
        visible = int(counts[label_id]) if label_id < len(counts) else 0
        if full < min_face_px or visible == 0 or visible < min_visible * full:
            continue
        code, p = info[label_id]
        corners = np.round(quad, 2)
        rotation, angle = quad_rotation(corners)  # from the rounded corners: labels stay self-consistent
        inside = bool(np.all((corners >= -0.5) & (corners <= [canvas.w - 0.5, canvas.h - 0.5])))
        labels.append(TileLabel(
            code=code, corners=[[float(x), float(y)] for x, y in corners],
            face_up=code != BACK, rotation=rotation, angle=round(angle, 2),
            occluded=round(max(0.0, 1.0 - visible / full), 4), truncated=not inside, zone=p.zone, seat=p.seat))
    return labels


# --------------------------------------------------------------------------- generator


class SceneGenerator:
    """Renders deterministic random scenes: ``SceneGenerator(config, art).generate(seed)``.

    ``art`` is an :class:`ArtLibrary`, an art root path, or None for the default root; a root
    that does not exist simply means procedural faces only.
    """

    def __init__(self, config: SceneConfig | None = None, art: ArtLibrary | str | Path | None = None):
        self.config = config or SceneConfig()
        self.art = art if isinstance(art, ArtLibrary) else ArtLibrary(art)

    def generate(self, seed: int) -> Scene:
        """One scene; the same ``seed`` gives the same image bytes and labels."""
        cfg = self.config
        rng = np.random.default_rng(seed)
        tiles = random_tile_set(rng, self.art, cfg.art_probability)
        placements, layout_info = build_layout(tiles.dims, rng, cfg.layout)
        weights = np.asarray(cfg.view_weights, np.float64)
        view = VIEWS[int(rng.choice(len(VIEWS), p=weights / weights.sum()))]
        camera = random_camera(rng, view, cfg.width, cfg.height, layout_info)
        light, ambient = random_light(rng)

        eye = camera.position
        objects, info = [], {}
        for k, p in enumerate(placements):
            obj, code = tile_object(p, tiles, k + 1, eye)
            objects.append(obj)
            info[k + 1] = (code, p)
        if cfg.distractors:
            objects += distractor_objects(rng, placements, layout_info["table_half_mm"])

        canvas = Canvas(effects.render_table(camera, rng, layout_info["table_half_mm"]))
        effects.apply_shadows(canvas.image, shadow_polygons(camera, objects, light), rng)
        quads = render_boxes(canvas, camera, objects, light, ambient)
        if cfg.distractors and rng.random() < 0.2:
            paint_hand_occluder(canvas, rng)
        labels = make_labels(canvas, quads, info, cfg.min_face_px, cfg.min_visible)
        if cfg.effects:
            image = effects.post_process(canvas.image, rng)
        else:
            image = np.clip(canvas.image + 0.5, 0, 255).astype(np.uint8)
        meta = {"seed": int(seed), "view": view, "width": cfg.width, "height": cfg.height,
                "tile_mm": [round(tiles.dims.w, 2), round(tiles.dims.h, 2), round(tiles.dims.t, 2)],
                "art_set": tiles.art_set, "camera_position_mm": [round(float(v), 1) for v in eye],
                **layout_info}
        return Scene(image=image, labels=labels, meta=meta)
