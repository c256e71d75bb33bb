"""Procedural table surfaces (felt, wood, cloth, plain, marble, noise textures), no image files.

    from vision.synth.surfaces import list_surfaces, make_surface
    table = make_surface("felt", 1280, 720, rng)      # BGR uint8
"""

from __future__ import annotations

import cv2
import numpy as np


def _noise(h: int, w: int, rng: np.random.Generator, scale: float) -> np.ndarray:
    """Smooth value noise in [0, 1] with features about `scale` pixels wide."""
    sh, sw = max(2, int(h / scale) + 2), max(2, int(w / scale) + 2)
    small = rng.random((sh, sw)).astype(np.float32)
    big = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    return np.clip(big, 0, 1)


def _fractal(h: int, w: int, rng: np.random.Generator, base: float, octaves: int = 4) -> np.ndarray:
    out = np.zeros((h, w), np.float32)
    amp, total = 1.0, 0.0
    for i in range(octaves):
        out += amp * _noise(h, w, rng, max(2.0, base / (2 ** i)))
        total += amp
        amp *= 0.5
    return out / total


def _tint(gray: np.ndarray, color) -> np.ndarray:
    return np.clip(gray[..., None] * np.array(color, np.float32)[None, None, :], 0, 255).astype(np.uint8)


def felt(h, w, rng):
    colors = [(40, 110, 30), (90, 60, 20), (30, 30, 120), (60, 90, 20), (70, 40, 40), (35, 35, 35)]
    c = np.array(colors[rng.integers(len(colors))], np.float32) * rng.uniform(0.7, 1.3)
    g = 0.85 + 0.25 * _fractal(h, w, rng, 60) + 0.12 * (rng.random((h, w)).astype(np.float32) - 0.5)
    return _tint(g, c)


def wood(h, w, rng):
    base = np.array([rng.uniform(40, 90), rng.uniform(80, 130), rng.uniform(120, 190)], np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    warp = _fractal(h, w, rng, 120) * rng.uniform(20, 60)
    freq = rng.uniform(0.04, 0.12)
    if rng.random() < 0.5:
        xx, yy = yy, xx
    rings = 0.5 + 0.5 * np.sin((yy + warp) * freq + _fractal(h, w, rng, 30) * 3)
    grain = 0.1 * (rng.random((h, w)).astype(np.float32) - 0.5)
    g = 0.7 + 0.35 * rings + grain
    img = _tint(g, base)
    if rng.random() < 0.5:  # planks
        step = int(rng.uniform(80, 200))
        for k in range(step, w, step):
            cv2.line(img, (k, 0), (k, h), tuple(int(v * 0.5) for v in base), 2)
    return img


def cloth(h, w, rng):
    c1 = rng.uniform(60, 220, 3)
    c2 = c1 * rng.uniform(0.5, 0.9)
    period = int(rng.integers(6, 30))
    yy, xx = np.mgrid[0:h, 0:w]
    check = (((xx // period) + (yy // period)) % 2).astype(np.float32) if rng.random() < 0.5 else \
        (((xx // period) % 2) | ((yy // period) % 2)).astype(np.float32)
    weave = 0.06 * np.sin(xx * 1.3) * np.sin(yy * 1.3)
    img = c1[None, None, :] * (1 - check[..., None]) + c2[None, None, :] * check[..., None]
    img = img * (1 + weave[..., None]) * (0.9 + 0.2 * _fractal(h, w, rng, 100)[..., None])
    return np.clip(img, 0, 255).astype(np.uint8)


def plain(h, w, rng):
    c = rng.uniform(30, 235, 3)
    g = 0.92 + 0.16 * _noise(h, w, rng, max(h, w) / 2) + 0.03 * (rng.random((h, w)).astype(np.float32) - 0.5)
    return _tint(g, c)


def marble(h, w, rng):
    base = rng.uniform(150, 235) * np.ones(3) * rng.uniform(0.85, 1.0, 3)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    t = _fractal(h, w, rng, 150, 5) * 12
    veins = np.abs(np.sin((xx * 0.01 + yy * 0.006) * 6 + t))
    g = 0.75 + 0.25 * veins ** 0.3
    return _tint(g, base)


def noise_texture(h, w, rng):
    c1, c2 = rng.uniform(0, 255, 3), rng.uniform(0, 255, 3)
    t = _fractal(h, w, rng, rng.uniform(10, 200), 5)[..., None]
    return np.clip(c1 * t + c2 * (1 - t), 0, 255).astype(np.uint8)


SURFACES = {"felt": felt, "wood": wood, "cloth": cloth, "plain": plain, "marble": marble, "noise": noise_texture}


def list_surfaces() -> list[str]:
    return list(SURFACES)


def make_surface(name: str, width: int, height: int, rng: np.random.Generator | None = None) -> np.ndarray:
    """A BGR table surface of the given kind and size."""
    rng = rng if rng is not None else np.random.default_rng()
    return np.ascontiguousarray(SURFACES[name](height, width, rng))
