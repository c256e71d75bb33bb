"""Reading photos someone handed the referee, safely: a missing, corrupt or oversized file is an error
message, never an exception or a decompression bomb.  `read_image(path) -> (BGR array, None) | (None, why)`
checks the file's size and its header's pixel count (`MAX_PIXELS`) before anything is decoded.
"""

from __future__ import annotations

import os
from pathlib import Path

MAX_PIXELS = 80_000_000  # 80 MP: beyond any camera at a card table; a decompression bomb is refused unread
MAX_FILE_BYTES = 200 * 1024 * 1024
os.environ.setdefault("OPENCV_IO_MAX_IMAGE_PIXELS", str(MAX_PIXELS))  # OpenCV's own guard, as a second line


def image_size(path) -> tuple[int, int] | None:
    """(width, height) from the header alone (nothing decoded) of a file path or a binary file object, or
    None when Pillow cannot tell."""
    try:
        from PIL import Image
    except ImportError:
        return None
    try:
        with Image.open(path) as im:  # lazy: reads the header only
            return int(im.width), int(im.height)
    except Image.DecompressionBombError:  # Pillow's own limit, far beyond ours
        return (-1, -1)
    except Exception:  # not an image Pillow knows (OpenCV may still read it) or a broken header
        return None


def read_image(path: str):
    p = Path(path)
    if not p.is_file():
        return None, f"no such file: {path}"
    try:
        if p.stat().st_size > MAX_FILE_BYTES:
            return None, f"file too large to be a photo ({p.stat().st_size // (1024 * 1024)} MB): {path}"
        data = p.read_bytes()
    except (OSError, MemoryError) as e:
        return None, f"cannot read image: {path} ({str(e).strip().splitlines()[-1][:120] if str(e) else type(e).__name__})"
    return decode_image(data, path)


def decode_image(data: bytes, name: str = "the photo"):
    """`read_image` for a photo already in memory (an upload): (BGR array, None) | (None, why); the pixel
    count is checked from the header before anything is decoded."""
    import io

    import cv2
    import numpy as np

    try:
        size = image_size(io.BytesIO(data))
        if size == (-1, -1) or (size is not None and size[0] * size[1] > MAX_PIXELS):
            shown = "more pixels than any photo" if size == (-1, -1) else f"{size[0]}x{size[1]} pixels"
            return None, f"image too large: {shown} (at most {MAX_PIXELS // 1_000_000} megapixels): {name}"
        buf = np.frombuffer(data, dtype=np.uint8)
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR) if buf.size else None
    except (cv2.error, MemoryError) as e:
        return None, f"cannot read image: {name} ({str(e).strip().splitlines()[-1][:120] if str(e) else type(e).__name__})"
    if img is None:
        return None, f"cannot read image: {name}"
    return img, None
