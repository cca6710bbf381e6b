"""Painter's-algorithm rendering of textured boxes (tiles, dice, sticks) into an image.

Every box face is a textured quad: its texture is warped with a homography into the bounding box
of the projected quad only (cheap), composited with a soft (anti-aliased) coverage mask and
shaded by a Lambert term. Alongside the colour image an integer *id buffer* records which
labelled tile face owns each pixel, which gives exact visible/occluded pixel counts.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .camera import Camera

_SHIFT = 4
_ONE = 1 << _SHIFT

# Box faces as corner indices into TileDims.corners(), in texture order TL, TR, BR, BL as seen
# from outside; with the face normals in the box frame. Face 0 is the printed face, 1 the back.
BOX_FACES: tuple[tuple[int, int, int, int], ...] = (
    (0, 1, 2, 3),  # front (z = +t/2)
    (5, 4, 7, 6),  # back (z = -t/2), "up" still along +y
    (0, 1, 5, 4),  # top edge (y = +h/2): texture rows run front -> back
    (1, 2, 6, 5),  # right edge (x = +w/2)
    (2, 3, 7, 6),  # bottom edge (y = -h/2)
    (3, 0, 4, 7),  # left edge (x = -w/2)
)
BOX_NORMALS = np.array([[0, 0, 1], [0, 0, -1], [0, 1, 0], [1, 0, 0], [0, -1, 0], [-1, 0, 0]], np.float64)


class Texture:
    """A BGR texture with a small mip pyramid, so far-away faces are not aliased."""

    def __init__(self, image: np.ndarray):
        levels = [np.ascontiguousarray(image)]
        while min(levels[-1].shape[:2]) >= 24:
            levels.append(cv2.pyrDown(levels[-1]))
        self.levels = levels

    def for_size(self, extent: float) -> np.ndarray:
        """The coarsest level whose larger side still has >= ``extent`` pixels."""
        best = self.levels[0]
        for level in self.levels[1:]:
            if max(level.shape[:2]) < extent:
                break
            best = level
        return best


@dataclass
class BoxObject:
    """A box in the world: 8 corners, 6 face textures, and labelling information."""

    corners: np.ndarray            # 8 x 3 world corners (TileDims.corners order)
    normals: np.ndarray            # 6 x 3 world face normals
    textures: list[Texture]        # one per BOX_FACES entry
    label_face: int = -1           # face whose visible pixels are counted (-1: none)
    label_id: int = 0              # id written for that face into the id buffer
    gloss: float = 0.0             # strength of a soft specular highlight on the faces

    @property
    def center(self) -> np.ndarray:
        """Centroid of the box."""
        return self.corners.mean(axis=0)


def face_quad(obj: BoxObject, face: int) -> np.ndarray:
    """World corners (4 x 3) of ``face`` in texture order."""
    return obj.corners[list(BOX_FACES[face])]


def face_visible(obj: BoxObject, face: int, eye: np.ndarray) -> bool:
    """True when ``face`` points towards the camera centre ``eye``."""
    quad = face_quad(obj, face)
    return float(np.dot(obj.normals[face], eye - quad.mean(axis=0))) > 1e-6


def _fixed(pts: np.ndarray) -> np.ndarray:
    """Float pixel points -> fixed-point int32 polygon for OpenCV (pixel centres at integers)."""
    return np.round(np.asarray(pts, np.float64) * _ONE).astype(np.int32).reshape(-1, 1, 2)


def quad_pixel_count(quad: np.ndarray) -> int:
    """Number of pixels the rasteriser covers for ``quad`` (4 x 2), ignoring the image bounds."""
    x0, y0 = np.floor(quad.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 1
    buf = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(buf, _fixed(quad - [x0, y0]), 1, cv2.LINE_8, _SHIFT)
    return int(buf.sum())


class Canvas:
    """The colour image (float32 BGR) and id buffer being painted."""

    def __init__(self, image: np.ndarray):
        self.image = image.astype(np.float32)
        self.h, self.w = image.shape[:2]
        self.ids = np.zeros((self.h, self.w), np.int32)

    def paint_quad(self, texture: np.ndarray, quad: np.ndarray, shade: float, face_id: int,
                   highlight: float = 0.0) -> None:
        """Warp ``texture`` onto the pixel ``quad`` (TL, TR, BR, BL), shaded; stamp the id buffer."""
        x0, y0 = np.floor(quad.min(axis=0)).astype(int)
        x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 1
        cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x1, self.w), min(y1, self.h)
        if cx1 <= cx0 or cy1 <= cy0:
            return
        th, tw = texture.shape[:2]
        src = np.array([[-0.5, -0.5], [tw - 0.5, -0.5], [tw - 0.5, th - 0.5], [-0.5, th - 0.5]], np.float32)
        dst = (quad - [cx0, cy0]).astype(np.float32)
        H = cv2.getPerspectiveTransform(src, dst)
        size = (cx1 - cx0, cy1 - cy0)
        warped = cv2.warpPerspective(texture, H, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        cover = cv2.warpPerspective(np.full((th, tw), 255, np.uint8), H, size, flags=cv2.INTER_LINEAR,
                                    borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        a = cover.astype(np.float32)[..., None] / 255.0
        colour = warped.astype(np.float32) * shade + highlight
        region = self.image[cy0:cy1, cx0:cx1]
        region *= 1 - a
        region += colour * a
        cv2.fillConvexPoly(self.ids, _fixed(quad), face_id, cv2.LINE_8, _SHIFT)

    def paint_polygon(self, poly: np.ndarray, colour: np.ndarray, alpha: float = 1.0) -> None:
        """A flat anti-aliased polygon (occluders); marks its pixels as "no tile" in the id buffer."""
        mask = np.zeros((self.h, self.w), np.uint8)
        cv2.fillPoly(mask, [_fixed(poly)], 255, cv2.LINE_AA, _SHIFT)
        a = mask.astype(np.float32)[..., None] / 255.0 * alpha
        self.image *= 1 - a
        self.image += np.asarray(colour, np.float32) * a
        self.ids[mask > 127] = -1


def render_boxes(canvas: Canvas, camera: Camera, objects: list[BoxObject], light: np.ndarray,
                 ambient: float) -> dict[int, np.ndarray]:
    """Paint ``objects`` far to near; returns the pixel quad of each labelled face by label id.

    ``light`` is the unit vector towards the light; shading = ambient + diffuse * max(0, n.l),
    normalised so that a face pointing straight up gets the value at the light's elevation.
    """
    eye = camera.position
    face_index = np.array(BOX_FACES)
    diffuse = 1.0 - ambient
    up_shade = ambient + diffuse * max(light[2], 0.0)
    order = sorted(range(len(objects)), key=lambda i: -float(np.linalg.norm(objects[i].center - eye)))
    quads: dict[int, np.ndarray] = {}
    for i in order:
        obj = objects[i]
        uv, depth = camera.project(obj.corners)
        if depth.min() < 30.0:  # behind or too close to the camera: skip the whole object
            continue
        centres = obj.corners[face_index].mean(axis=1)
        facing = np.einsum("ij,ij->i", obj.normals, eye - centres) > 1e-6
        lambert = np.maximum(obj.normals @ light, 0.0)
        # the labelled face goes last so its neighbours' shared edge pixels do not eat into it
        for face in sorted(range(6), key=lambda f: f == obj.label_face):
            if not facing[face]:
                continue
            quad = uv[face_index[face]]
            shade = (ambient + diffuse * float(lambert[face])) / up_shade
            highlight = _specular(obj, face, eye, light) if obj.gloss > 0 else 0.0
            extent = float(np.max(np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1)))
            texture = obj.textures[face].for_size(extent)
            face_id = obj.label_id if face == obj.label_face else -1
            canvas.paint_quad(texture, quad, shade, face_id, highlight)
            if face == obj.label_face:
                quads[obj.label_id] = quad
    return quads


def _specular(obj: BoxObject, face: int, eye: np.ndarray, light: np.ndarray) -> float:
    """A Blinn-Phong highlight (added grey level) for a glossy face."""
    centre = face_quad(obj, face).mean(axis=0)
    view = eye - centre
    half = light + view / np.linalg.norm(view)
    half /= np.linalg.norm(half)
    return obj.gloss * 255.0 * max(float(np.dot(obj.normals[face], half)), 0.0) ** 40


def shadow_polygons(camera: Camera, objects: list[BoxObject], light: np.ndarray) -> list[np.ndarray]:
    """Pixel polygons of the shadows the boxes cast on the table plane along ``light``."""
    polys = []
    if light[2] <= 0.05:
        return polys
    for obj in objects:
        c = obj.corners
        ground = c[:, :2] - c[:, 2:3] * light[None, :2] / light[2]
        hull = cv2.convexHull(ground.astype(np.float32)).reshape(-1, 2).astype(np.float64)
        pts = np.column_stack([hull, np.zeros(len(hull))])
        uv, depth = camera.project(pts)
        if depth.min() > 30.0:
            polys.append(uv)
    return polys
