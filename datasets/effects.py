"""Table cloth, room background, shadows and camera effects (lighting, blur, noise, JPEG)."""

from __future__ import annotations

import cv2
import numpy as np

from .camera import Camera

CLOTHS: tuple[tuple[int, int, int], ...] = (
    (60, 110, 30), (45, 85, 20), (140, 85, 25), (95, 55, 20), (45, 35, 120), (35, 35, 35),
    (105, 105, 100), (110, 110, 25), (95, 45, 70), (50, 70, 95), (150, 120, 60),
)
WOODS: tuple[tuple[int, int, int], ...] = ((40, 70, 110), (30, 50, 80), (70, 110, 150), (25, 25, 30), (200, 200, 200))


def _jitter(colour: tuple[int, int, int], rng: np.random.Generator, amount: float) -> np.ndarray:
    """``colour`` with a random per-channel offset of up to ``amount`` levels."""
    return np.clip(np.asarray(colour, np.float32) + rng.uniform(-amount, amount, 3), 0, 255)


def smooth_noise(rng: np.random.Generator, height: int, width: int, cells: int) -> np.ndarray:
    """Low-frequency noise in about [-1, 1]: a ``cells`` x ``cells`` grid upsampled bicubically."""
    grid = rng.normal(0.0, 0.5, (cells, cells)).astype(np.float32)
    return cv2.resize(grid, (width, height), interpolation=cv2.INTER_CUBIC)


# --------------------------------------------------------------------------- table


def table_texture(rng: np.random.Generator, half_mm: float, rail_mm: float, px_per_mm: float = 1.0
                  ) -> tuple[np.ndarray, np.ndarray]:
    """A square cloth-and-rail texture (BGRA, alpha = 255) and its 3x3 texture-pixel -> world-mm map."""
    size = int(np.ceil(2 * (half_mm + rail_mm) * px_per_mm))
    cloth = _jitter(CLOTHS[int(rng.integers(len(CLOTHS)))], rng, 15)
    tex = np.empty((size, size, 3), np.float32)
    tex[:] = cloth
    tex *= 1.0 + float(rng.uniform(0.03, 0.1)) * smooth_noise(rng, size, size, int(rng.integers(3, 9)))[..., None]
    grain = rng.standard_normal((size, size), dtype=np.float32) * float(rng.uniform(2, 7))
    if rng.random() < 0.5:  # felt: slightly smeared grain
        grain = cv2.GaussianBlur(grain, (0, 0), float(rng.uniform(0.6, 1.5))) * 1.8
    tex += grain[..., None]
    centre = (size - 1) / 2
    if rng.random() < 0.4:
        _centre_panel(tex, rng, centre, px_per_mm)
    _markings(tex, rng, size, cloth, px_per_mm)
    _rail(tex, rng, size, int(round(rail_mm * px_per_mm)))
    out = np.empty((size, size, 4), np.uint8)
    out[..., :3] = np.clip(tex, 0, 255)
    out[..., 3] = 255
    A = np.array([[1 / px_per_mm, 0, -centre / px_per_mm], [0, -1 / px_per_mm, centre / px_per_mm], [0, 0, 1]])
    return out, A


def _centre_panel(tex: np.ndarray, rng: np.random.Generator, centre: float, ppm: float) -> None:
    """The dark centre console of an automatic table (with four small seat lamps)."""
    half = float(rng.uniform(45, 75)) * ppm
    colour = _jitter((35, 35, 38), rng, 15)
    c = int(round(centre))
    h = int(round(half))
    cv2.rectangle(tex, (c - h, c - h), (c + h, c + h), colour.tolist(), -1, cv2.LINE_AA)
    lamp = _jitter((40, 40, 200), rng, 40).tolist()
    for dx, dy in ((0, 1), (1, 0), (0, -1), (-1, 0)):
        p = (c + int(dx * h * 0.75), c + int(dy * h * 0.75))
        cv2.circle(tex, p, max(2, int(6 * ppm)), lamp, -1, cv2.LINE_AA)


def _markings(tex: np.ndarray, rng: np.random.Generator, size: int, cloth: np.ndarray, ppm: float) -> None:
    """Distractor shapes printed on or lying flat on the cloth: coins, cards, rings."""
    for _ in range(int(rng.integers(0, 4))):
        colour = np.clip(cloth + rng.uniform(-90, 140, 3), 0, 255).tolist()
        x, y = rng.uniform(0.1 * size, 0.9 * size, 2).astype(int)
        kind = int(rng.integers(3))
        if kind == 0:
            cv2.circle(tex, (int(x), int(y)), max(1, int(rng.uniform(8, 14) * ppm)), colour, -1, cv2.LINE_AA)
        elif kind == 1:
            dims = (float(rng.uniform(50, 90)) * ppm, float(rng.uniform(30, 55)) * ppm)
            rect = ((float(x), float(y)), dims, float(rng.uniform(0, 180)))
            cv2.fillConvexPoly(tex, cv2.boxPoints(rect).astype(np.int32), colour, cv2.LINE_AA)
        else:
            radius, width = max(2, int(rng.uniform(20, 45) * ppm)), max(1, int(rng.integers(2, 6) * ppm))
            cv2.circle(tex, (int(x), int(y)), radius, colour, width, cv2.LINE_AA)


def _rail(tex: np.ndarray, rng: np.random.Generator, size: int, rail: int) -> None:
    """The wooden (or plastic) table rim around the cloth, with a lit inner edge."""
    if rail <= 0:
        return
    wood = _jitter(WOODS[int(rng.integers(len(WOODS)))], rng, 12)
    streaks = 1 + 0.08 * smooth_noise(rng, rail, size, 40)[..., None]  # grain along the rail
    strip = wood[None, None, :] * streaks  # rail x size x 3
    tex[:rail] = strip
    tex[size - rail:] = strip[::-1]
    tex[:, :rail] = strip.transpose(1, 0, 2)
    tex[:, size - rail:] = strip.transpose(1, 0, 2)[:, ::-1]
    cv2.rectangle(tex, (rail, rail), (size - rail - 1, size - rail - 1), (wood * 1.25).clip(0, 255).tolist(), 2)


def render_table(camera: Camera, rng: np.random.Generator, half_mm: float) -> np.ndarray:
    """Float32 BGR image of the table plane seen by ``camera`` over a room background."""
    ppm = float(np.clip(camera.width / 1280, 0.25, 1.0))  # texture detail follows the image size
    tex, A = table_texture(rng, half_mm, float(rng.uniform(30, 70)), ppm)
    H = camera.plane_homography() @ A
    size = (camera.width, camera.height)
    warped = cv2.warpPerspective(tex, H, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    alpha = warped[..., 3:].astype(np.float32) / 255.0
    alpha *= (camera.ray_z() < -1e-6)[..., None]
    return background(rng, camera.height, camera.width) * (1 - alpha) + warped[..., :3].astype(np.float32) * alpha


def background(rng: np.random.Generator, height: int, width: int) -> np.ndarray:
    """A dim room/floor: vertical gradient between two colours plus blotchy noise."""
    top = rng.uniform(20, 140, 3).astype(np.float32)
    bottom = rng.uniform(20, 110, 3).astype(np.float32)
    t = np.linspace(0, 1, height, dtype=np.float32)[:, None, None]
    img = top * (1 - t) + bottom * t
    img = img * (1 + 0.15 * smooth_noise(rng, height, width, 6)[..., None])
    return np.broadcast_to(img, (height, width, 3)).astype(np.float32)


def apply_shadows(image: np.ndarray, polygons: list[np.ndarray], rng: np.random.Generator) -> None:
    """Darken ``image`` in place under the (blurred) union of the shadow polygons."""
    if not polygons:
        return
    h, w = image.shape[:2]
    mask = np.zeros((h, w), np.uint8)
    for poly in polygons:
        cv2.fillPoly(mask, [np.round(poly * 16).astype(np.int32).reshape(-1, 1, 2)], 255, cv2.LINE_AA, 4)
    soft = cv2.GaussianBlur(mask.astype(np.float32) / 255.0, (0, 0), float(rng.uniform(1.5, 5.0)) * w / 1280)
    image *= 1.0 - float(rng.uniform(0.25, 0.55)) * soft[..., None]


# --------------------------------------------------------------------------- camera effects


def lighting_gradient(image: np.ndarray, rng: np.random.Generator) -> None:
    """In place: uneven illumination (a tilted plane of light plus a vignette)."""
    h, w = image.shape[:2]
    xx = (np.arange(w, dtype=np.float32) / w - 0.5)[None, :]
    yy = (np.arange(h, dtype=np.float32) / h - 0.5)[:, None]
    gx, gy = rng.uniform(-0.35, 0.35, 2)
    cx, cy = rng.uniform(-0.3, 0.3, 2)
    vignette = float(rng.uniform(0.0, 0.6)) * ((xx - cx) ** 2 + (yy - cy) ** 2)
    gain = float(rng.uniform(0.75, 1.2)) * (1 + gx * xx + gy * yy - vignette)
    image *= gain[..., None]


def colour_balance(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """White-balance gains and a gamma change."""
    gains = rng.uniform(0.88, 1.12, 3).astype(np.float32)
    out = np.clip(image * gains, 0, 255)
    gamma = float(rng.uniform(0.8, 1.25))
    return 255.0 * (out / 255.0) ** gamma


def blur(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Defocus (Gaussian) or motion blur, sometimes none."""
    r = rng.random()
    if r < 0.45:
        return cv2.GaussianBlur(image, (0, 0), float(rng.uniform(0.4, 1.4)))
    if r < 0.6:
        k = int(rng.integers(3, 8))
        kernel = np.zeros((k, k), np.float32)
        kernel[k // 2, :] = 1.0 / k
        rot = cv2.getRotationMatrix2D(((k - 1) / 2, (k - 1) / 2), float(rng.uniform(0, 180)), 1.0)
        kernel = cv2.warpAffine(kernel, rot, (k, k))
        return cv2.filter2D(image, -1, kernel / max(kernel.sum(), 1e-6))
    return image


def sensor_noise(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Gaussian luminance + chroma noise."""
    h, w = image.shape[:2]
    sigma = float(rng.uniform(0.5, 6.0))
    lum = rng.standard_normal((h, w, 1), dtype=np.float32) * sigma
    small = rng.standard_normal(((h + 1) // 2, (w + 1) // 2, 3), dtype=np.float32) * (sigma * 0.5)
    chroma = cv2.resize(small, (w, h), interpolation=cv2.INTER_NEAREST)  # blotchy 2x2 chroma noise
    return image + lum + chroma


def jpeg(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Round-trip through JPEG at a random quality (most of the time)."""
    if rng.random() < 0.2:
        return image
    quality = int(rng.integers(35, 96))
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else image


def post_process(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """All camera effects on a float32 BGR render; returns uint8 BGR."""
    lighting_gradient(image, rng)
    out = colour_balance(image, rng)
    out = blur(out, rng)
    out = sensor_noise(out, rng)
    return jpeg(np.clip(out + 0.5, 0, 255).astype(np.uint8), rng)
