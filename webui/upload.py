"""Photo upload (scored through the injectable ``ANALYZE_IMAGE``) and the typed-hand page."""

from __future__ import annotations

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
    from vision.inference import ImageError, ImageTooLarge, decode_image

    try:   # an image bomb is refused from its header, before it is decoded; EXIF orientation applied
        image = decode_image(data, "the photo")
    except ImageTooLarge as e:
        raise ApiError(str(e), 413, "image") from None
    except ImageError:
        raise ApiError("that file is not a picture this server can read (JPEG, PNG, WebP or BMP)", 415,
                       "image") from None
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
