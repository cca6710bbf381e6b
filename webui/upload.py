"""Photo upload (scored through the injectable ``ANALYZE_IMAGE``) and the typed-hand page."""

from __future__ import annotations

import cv2
import numpy as np
from flask import Blueprint, current_app, jsonify, render_template, request

from .engine import table_view
from .errors import ApiError
from .feed import RecognitionUnavailable

bp = Blueprint("upload", __name__)

IMAGE_TYPES = ("image/jpeg", "image/png", "image/webp", "image/bmp", "application/octet-stream")


@bp.get("/photo")
def page():
    return render_template("upload.html")


@bp.post("/api/photo")
def photo():
    """A photo of a hand or a table (multipart field ``image``, or the raw body with an image type):
    ``ANALYZE_IMAGE(bytes)`` reads it into a snapshot, then the same analysis as the live page."""
    f = request.files.get("image")
    if f is not None:
        data = f.read()
    elif request.mimetype in IMAGE_TYPES:
        data = request.get_data()
    else:
        raise ApiError("send the photo as the multipart field 'image' (or the raw body with an image type)",
                       field="image")
    if not data:
        raise ApiError("the photo is empty", field="image")
    from vision.inference import MAX_PIXELS, ImageError, declared_size

    try:
        size = declared_size(data)   # from the header: an image bomb is refused before it is decoded
    except ImageError as e:
        raise ApiError(str(e), 413, "image") from None
    if size is not None and size[0] * size[1] > MAX_PIXELS:
        raise ApiError(f"the photo is too large ({size[0]}x{size[1]} pixels, at most {MAX_PIXELS // 1_000_000} "
                       "megapixels)", 413, "image")
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise ApiError("that file is not a picture this server can read (JPEG, PNG, WebP or BMP)", 415, "image")
    variant = (request.form.get("variant") or "").strip()
    if variant:
        from assistant.variants import variant_names

        if variant not in variant_names():
            raise ApiError(f"unknown rule system {variant!r}; choose one of: {', '.join(variant_names())}",
                           field="variant")
        from flask import g

        g.photo_variant = variant
    analyze = current_app.config["ANALYZE_IMAGE"]
    try:
        snap = analyze(data)
    except RecognitionUnavailable as e:
        raise ApiError(str(e), 503) from None
    if not isinstance(snap, dict):
        raise ApiError("the photo analyser returned nothing usable", 500)
    s = current_app.extensions["hub"].settings.get()
    view = table_view(snap.get("state"), me=s["me"], teaching=s["teaching"], win=snap.get("win"))
    return jsonify({"snapshot": snap, "view": view, "size": [int(image.shape[1]), int(image.shape[0])]})
