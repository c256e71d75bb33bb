"""The table layout: zones as polygons in relative (0..1) coordinates, and where a point falls.

JSON format (shared/contracts/game-log.md, "Tracking a recording"):

    {"stock": [[x, y], ...], "discard": [[x, y], ...], "players": {"Ana": [[x, y], ...], ...}}

Optional keys (this project's own, never required):

- ``"card_height"``: a card's long side as a fraction of the frame height; helps the snapshot group
  melds when only corner indices are visible. Estimated from the detections when absent.
- ``"aruco"``: ``{"dictionary": "DICT_4X4_50", "ids": [tl, tr, br, bl]}``. Four markers at the table's
  corners; the zones are then relative to the quadrilateral of the marker centres instead of the frame,
  so they follow a bumped camera and the perspective is undone (`Calibration`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, PrivateAttr, ValidationError, field_validator

Point = tuple[float, float]

STOCK = "stock"
DISCARD = "discard"


class LayoutError(ValueError):
    """A layout file that cannot be used; the message says what is wrong and where."""


def _check_polygon(poly: list[list[float]], where: str) -> list[list[float]]:
    if len(poly) < 3:
        raise ValueError(f"{where}: a zone needs at least 3 points, got {len(poly)}")
    for i, pt in enumerate(poly):
        if len(pt) != 2:
            raise ValueError(f"{where}: point {i + 1} must be [x, y], got {pt!r}")
        x, y = pt
        if not (-0.001 <= x <= 1.001 and -0.001 <= y <= 1.001):
            raise ValueError(f"{where}: point {i + 1} {pt!r} is outside 0..1 (coordinates are relative to the frame)")
    area = _polygon_area(np.asarray(poly, dtype=np.float64))
    if abs(area) < 1e-6:
        raise ValueError(f"{where}: the zone has no area")
    return poly


def _polygon_area(p: np.ndarray) -> float:
    x, y = p[:, 0], p[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


class ArucoSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    dictionary: str = "DICT_4X4_50"
    ids: tuple[int, int, int, int] = (0, 1, 2, 3)  # top-left, top-right, bottom-right, bottom-left


class Layout(BaseModel):
    """Validated zones. Build with `Layout.load(path)`, `Layout.from_dict(d)` or the constructor."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    stock: list[list[float]]
    discard: list[list[float]]
    players: dict[str, list[list[float]]]
    card_height: float | None = None
    aruco: ArucoSpec | None = None

    @field_validator("stock")
    @classmethod
    def _stock(cls, v):
        return _check_polygon(v, "stock")

    @field_validator("discard")
    @classmethod
    def _discard(cls, v):
        return _check_polygon(v, "discard")

    @field_validator("players")
    @classmethod
    def _players(cls, v):
        if not v:
            raise ValueError("players: at least one player zone is needed")
        for name, poly in v.items():
            if not name.strip():
                raise ValueError("players: a player name is empty")
            _check_polygon(poly, f"players.{name}")
        return v

    @field_validator("card_height")
    @classmethod
    def _card_height(cls, v):
        if v is not None and not 0.01 <= v <= 1.0:
            raise ValueError("card_height: must be a fraction of the frame height between 0.01 and 1")
        return v

    _polys: dict = PrivateAttr(default_factory=dict)

    def model_post_init(self, _context) -> None:
        polys = {STOCK: self.stock, DISCARD: self.discard}
        polys.update({f"player:{n}": p for n, p in self.players.items()})
        self._polys = {k: np.asarray(p, dtype=np.float64) for k, p in polys.items()}

    def __eq__(self, other) -> bool:
        return isinstance(other, Layout) and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    # ---- construction / persistence ----
    @classmethod
    def from_dict(cls, data: dict) -> Layout:
        if not isinstance(data, dict):
            raise LayoutError("layout: expected a JSON object with 'stock', 'discard' and 'players'")
        try:
            return cls.model_validate(data)
        except ValidationError as e:
            raise LayoutError("layout: " + "; ".join(_describe(err) for err in e.errors())) from None

    @classmethod
    def load(cls, path: str | Path) -> Layout:
        from vision.jsonfile import load_json_file

        try:
            data = load_json_file(path, "layout")
        except ValueError as e:
            raise LayoutError(str(e)) from None
        return cls.from_dict(data)

    def to_dict(self) -> dict:
        return self.model_dump(exclude_none=True)

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=1) + "\n", encoding="utf-8")

    # ---- queries ----
    @property
    def player_names(self) -> list[str]:
        return list(self.players)

    def zone_of(self, point: Point) -> str | None:
        """Zone key of a relative point: "stock", "discard", "player:<name>", or None (outside every zone).

        The discard pile and the stock win over a player's zone when polygons overlap."""
        polys = self._polys
        for key in (DISCARD, STOCK):
            if point_in_polygon(point, polys[key]):
                return key
        best, best_d = None, -1.0
        for key, poly in polys.items():
            if key in (STOCK, DISCARD):
                continue
            d = _inside_depth(point, poly)
            if d >= 0 and d > best_d:
                best, best_d = key, d
        return best


def _describe(err: dict) -> str:
    loc = ".".join(str(x) for x in err.get("loc", ()) if x != "__root__")
    msg = err.get("msg", "invalid")
    if err.get("type") == "extra_forbidden":
        return f"unknown key '{loc}' (expected stock, discard, players, and optionally card_height, aruco)"
    if err.get("type") == "missing":
        return f"'{loc}' is missing"
    msg = msg.removeprefix("Value error, ")
    return f"{loc}: {msg}" if loc and not msg.startswith(loc) else msg


def point_in_polygon(point: Point, poly: np.ndarray) -> bool:
    return _inside_depth(point, poly) >= 0


def _inside_depth(point: Point, poly: np.ndarray) -> float:
    """Distance from the point to the polygon edge, positive inside, -1 outside (even-odd rule)."""
    x, y = point
    n = len(poly)
    inside = False
    dmin = float("inf")
    for i in range(n):
        x1, y1 = poly[i]
        x2, y2 = poly[(i + 1) % n]
        if (y1 > y) != (y2 > y):
            xc = x1 + (y - y1) * (x2 - x1) / (y2 - y1)
            if x < xc:
                inside = not inside
        dx, dy = x2 - x1, y2 - y1
        L2 = dx * dx + dy * dy
        t = 0.0 if L2 == 0 else max(0.0, min(1.0, ((x - x1) * dx + (y - y1) * dy) / L2))
        px, py = x1 + t * dx - x, y1 + t * dy - y
        dmin = min(dmin, (px * px + py * py) ** 0.5)
    return dmin if inside else -1.0


# ---------------------------------------------------------------------------------------------
# Mapping pixels to layout coordinates: plain (divide by the frame size) or via ArUco markers.


@dataclass
class FrameMapper:
    """Maps pixel points of a frame to the layout's relative coordinates."""

    width: int
    height: int
    homography: np.ndarray | None = None  # pixels -> unit square of the marker quad

    def to_rel(self, x: float, y: float) -> Point:
        if self.homography is None:
            return (x / self.width, y / self.height)
        v = self.homography @ np.array([x, y, 1.0])
        return (float(v[0] / v[2]), float(v[1] / v[2]))

    def to_px(self, rx: float, ry: float) -> Point:
        if self.homography is None:
            return (rx * self.width, ry * self.height)
        v = np.linalg.inv(self.homography) @ np.array([rx, ry, 1.0])
        return (float(v[0] / v[2]), float(v[1] / v[2]))

    def polygon_px(self, poly: list[list[float]]) -> np.ndarray:
        return np.array([self.to_px(x, y) for x, y in poly], dtype=np.float32)


class Calibration:
    """ArUco auto-calibration: four markers at the table corners give a homography to the unit square.

    `update(frame)` looks for the markers (cheap enough to run every few frames) and keeps the last good
    homography, so zones follow a bumped camera; without markers in view the previous one is kept."""

    def __init__(self, spec: ArucoSpec):
        import cv2

        self.spec = spec
        try:
            dict_id = getattr(cv2.aruco, spec.dictionary)
        except AttributeError:
            raise LayoutError(f"aruco: unknown dictionary {spec.dictionary!r}") from None
        self._dict = cv2.aruco.getPredefinedDictionary(dict_id)
        self._detector = cv2.aruco.ArucoDetector(self._dict, cv2.aruco.DetectorParameters())
        self.homography: np.ndarray | None = None

    def find(self, frame_bgr: np.ndarray) -> np.ndarray | None:
        """Homography pixels -> unit square from the four markers in this frame, or None."""
        import cv2

        gray = cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2GRAY) if frame_bgr.ndim == 3 else frame_bgr
        corners, ids, _ = self._detector.detectMarkers(gray)
        if ids is None:
            return None
        centres = {}
        for c, i in zip(corners, ids.ravel(), strict=False):
            centres[int(i)] = c.reshape(-1, 2).mean(axis=0)
        if not all(i in centres for i in self.spec.ids):
            return None
        src = np.array([centres[i] for i in self.spec.ids], dtype=np.float32)
        dst = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=np.float32)
        return cv2.getPerspectiveTransform(src, dst)

    def update(self, frame_bgr: np.ndarray) -> bool:
        h = self.find(frame_bgr)
        if h is not None:
            self.homography = h
        return h is not None

    def mapper(self, width: int, height: int) -> FrameMapper:
        return FrameMapper(width, height, self.homography)
