"""Card decks for the synthetic renderer.

A deck is a mapping card name → RGBA image (uint8, H×W×4, transparent outside the rounded
card), plus, for each card, the boxes of its printed corner indices in card pixels.

Card names are canonical ("10H", "AS", ...) with three extra keys: "JK_RED", "JK_BLACK" (the
two jokers; both are "JK" to the referee) and "BACK" (the back of the deck).

Two sources of designs:

* procedural decks ("proc-*"), drawn here with OpenCV primitives: always available, part of
  this project (AGPL);
* Debian's card art, rendered from SVG with `rsvg-convert` when the packages are installed
  (`apt-get install gnome-cards-data kdegames-card-data-kf5 librsvg2-bin`): "gnome-*" from
  /usr/share/aisleriot/cards (gnome-cards-data) and "kde-*" from /usr/share/carddecks
  (kdegames-card-data-kf5).  This art is GPL/LGPL and is only used to make training images;
  it is never shipped in the package.  Their corner-index boxes are found automatically
  (small ink blobs in the card's top-left corner, mirrored to the bottom-right).

    from vision.synth.decks import list_decks, load_deck
    deck = load_deck("proc-classic")
    rgba = deck["10H"]; boxes = deck.index_boxes["10H"]   # [(x1, y1, x2, y2), ...]
"""

from __future__ import annotations

import functools
import gzip
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import cv2
import numpy as np

from referee.cards import ALL_CARDS as CARDS

from ..enrol.faces import find_index_boxes, rounded_alpha
from ..geometry import Box
from .glyphs import RED_SUITS, draw_suit, draw_suit_ttf, draw_text_fit, draw_text_ttf

JOKERS = ("JK_RED", "JK_BLACK")
ALL_FACES = CARDS + JOKERS


class Deck(dict):
    """card name → RGBA image; `index_boxes[card]` lists its corner-index boxes (card pixels)."""

    def __init__(self, name: str, faces: dict[str, np.ndarray], index_boxes: dict[str, list[Box]],
                 licence: str = "AGPL-3.0-or-later (drawn by this project)"):
        super().__init__(faces)
        self.name = name
        self.index_boxes = index_boxes
        self.licence = licence

    @property
    def aspect(self) -> float:
        """width / height of the cards."""
        img = next(iter(self.values()))
        return img.shape[1] / img.shape[0]


# --------------------------------------------------------------------------- procedural decks

PROC_DESIGNS: dict[str, dict] = {
    "proc-classic": dict(font=cv2.FONT_HERSHEY_SIMPLEX, paper=(250, 250, 250), red=(30, 30, 200), black=(20, 20, 20),
                         idx_h=0.085, suit_h=0.07, idx_x=0.05, idx_y=0.045, border=None, thick=0.16,
                         back=((150, 60, 20), (230, 200, 170)), face=(60, 160, 220)),
    "proc-duplex": dict(font=cv2.FONT_HERSHEY_DUPLEX, paper=(225, 240, 246), red=(40, 20, 170), black=(40, 30, 30),
                        idx_h=0.075, suit_h=0.06, idx_x=0.06, idx_y=0.05, border=(90, 90, 90), thick=0.13,
                        back=((30, 30, 160), (200, 200, 240)), face=(80, 180, 90)),
    "proc-jumbo": dict(font=cv2.FONT_HERSHEY_TRIPLEX, paper=(245, 248, 248), red=(20, 20, 215), black=(10, 10, 10),
                       idx_h=0.12, suit_h=0.085, idx_x=0.045, idx_y=0.035, border=None, thick=0.14,
                       back=((40, 110, 40), (210, 235, 210)), face=(150, 90, 170)),
    "proc-complex": dict(font=cv2.FONT_HERSHEY_COMPLEX, paper=(236, 244, 250), red=(50, 40, 190), black=(35, 25, 25),
                         idx_h=0.09, suit_h=0.065, idx_x=0.055, idx_y=0.05, border=(160, 120, 40), thick=0.12,
                         back=((20, 20, 20), (60, 170, 210)), face=(40, 120, 200)),
    # black cards with gold (hearts, diamonds) and silver (spades, clubs) print
    "proc-noir": dict(font=cv2.FONT_HERSHEY_SIMPLEX, paper=(28, 26, 26), red=(60, 170, 215), black=(215, 215, 210),
                      idx_h=0.085, suit_h=0.07, idx_x=0.05, idx_y=0.045, border=None, thick=0.13,
                      back=((20, 20, 20), (60, 150, 200)), face=(40, 90, 120)),
    "proc-noir-duplex": dict(font=cv2.FONT_HERSHEY_DUPLEX, paper=(15, 15, 18), red=(80, 190, 230), black=(235, 235, 235),
                             idx_h=0.08, suit_h=0.065, idx_x=0.055, idx_y=0.05, border=(70, 150, 190), thick=0.12,
                             back=((30, 30, 30), (90, 90, 90)), face=(30, 70, 100)),
}

# Decks printed in the machine's TrueType fonts (training only; `list_decks(include_fonts=True)`, the dataset's
# `--font-decks`): twenty-four typefaces where the procedural decks above have four, index proportions and
# colours varied, half with the font's own suit glyphs.  The fonts are Debian's fonts-dejavu-core and
# fonts-liberation (installed with chromium; round eighteen's twelve) and fonts-urw-base35 and fonts-freefont-ttf
# (round twenty's, `FONT_DESIGNS_R20`); a design whose font file is missing is not listed.  Nothing of them ships: they
# only draw training pictures.
FONT_DIRS = (Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/truetype/liberation"),
             Path("/usr/share/fonts/opentype/urw-base35"), Path("/usr/share/fonts/truetype/freefont"))
FONT_PACKAGES = "fonts-dejavu-core fonts-liberation fonts-urw-base35 fonts-freefont-ttf"
_FONT_BASE = dict(font=cv2.FONT_HERSHEY_SIMPLEX, thick=0.13, border=None, face=(70, 150, 200),
                  back=((120, 40, 40), (210, 190, 190)))
FONT_DESIGNS: dict[str, dict] = {
    "font-dejavu-sans-bold": dict(_FONT_BASE, ttf="DejaVuSans-Bold.ttf", suit_ttf="DejaVuSans.ttf",
                                  paper=(248, 248, 248), red=(30, 30, 205), black=(15, 15, 15),
                                  idx_h=0.085, suit_h=0.07, idx_x=0.05, idx_y=0.045),
    "font-dejavu-serif": dict(_FONT_BASE, ttf="DejaVuSerif.ttf", paper=(238, 246, 250), red=(45, 35, 185),
                              black=(30, 25, 25), idx_h=0.08, suit_h=0.065, idx_x=0.06, idx_y=0.05,
                              border=(120, 100, 60), back=((40, 40, 150), (200, 200, 235))),
    "font-dejavu-serif-cond-bold": dict(_FONT_BASE, ttf="DejaVuSerifCondensed-Bold.ttf", suit_ttf="DejaVuSerif.ttf",
                                        paper=(244, 250, 252), red=(20, 20, 190), black=(10, 10, 10),
                                        idx_h=0.11, suit_h=0.075, idx_x=0.045, idx_y=0.035),
    "font-dejavu-sans-cond": dict(_FONT_BASE, ttf="DejaVuSansCondensed.ttf", paper=(250, 250, 250),
                                  red=(60, 50, 210), black=(40, 40, 40), idx_h=0.09, suit_h=0.06, idx_x=0.055,
                                  idx_y=0.05, back=((30, 90, 30), (200, 230, 200))),
    "font-dejavu-mono-bold": dict(_FONT_BASE, ttf="DejaVuSansMono-Bold.ttf", suit_ttf="DejaVuSansMono.ttf",
                                  paper=(235, 242, 245), red=(35, 25, 170), black=(25, 20, 20),
                                  idx_h=0.08, suit_h=0.07, idx_x=0.05, idx_y=0.05, border=(80, 80, 80)),
    "font-dejavu-sans-light": dict(_FONT_BASE, ttf="DejaVuSans-ExtraLight.ttf", paper=(252, 252, 252),
                                   red=(20, 10, 200), black=(0, 0, 0), idx_h=0.1, suit_h=0.07, idx_x=0.05,
                                   idx_y=0.04),
    "font-liberation-serif-bold": dict(_FONT_BASE, ttf="LiberationSerif-Bold.ttf", suit_ttf="DejaVuSerif-Bold.ttf",
                                       paper=(240, 248, 250), red=(40, 40, 200), black=(20, 20, 30),
                                       idx_h=0.095, suit_h=0.07, idx_x=0.05, idx_y=0.04,
                                       back=((20, 20, 20), (60, 170, 210))),
    "font-liberation-serif": dict(_FONT_BASE, ttf="LiberationSerif-Regular.ttf", paper=(230, 240, 245),
                                  red=(50, 30, 160), black=(35, 30, 30), idx_h=0.085, suit_h=0.065,
                                  idx_x=0.06, idx_y=0.05),
    "font-liberation-sans-narrow-bold": dict(_FONT_BASE, ttf="LiberationSansNarrow-Bold.ttf",
                                             suit_ttf="DejaVuSansCondensed.ttf", paper=(250, 250, 250),
                                             red=(30, 30, 220), black=(10, 10, 10), idx_h=0.12, suit_h=0.08,
                                             idx_x=0.04, idx_y=0.035),
    "font-liberation-sans": dict(_FONT_BASE, ttf="LiberationSans-Regular.ttf", suit_ttf="DejaVuSans.ttf",
                                 paper=(246, 246, 242), red=(40, 40, 190), black=(30, 30, 30), idx_h=0.075,
                                 suit_h=0.06, idx_x=0.06, idx_y=0.055, border=(150, 150, 150)),
    "font-liberation-mono": dict(_FONT_BASE, ttf="LiberationMono-Regular.ttf", paper=(248, 250, 252),
                                 red=(30, 20, 180), black=(20, 20, 20), idx_h=0.085, suit_h=0.07, idx_x=0.05,
                                 idx_y=0.045),
    # a dark card with light print, as the real photos' black deck
    "font-liberation-sans-bold-noir": dict(_FONT_BASE, ttf="LiberationSans-Bold.ttf", suit_ttf="DejaVuSans.ttf",
                                           paper=(25, 22, 22), red=(70, 180, 220), black=(220, 220, 215),
                                           idx_h=0.09, suit_h=0.07, idx_x=0.05, idx_y=0.045,
                                           back=((25, 25, 25), (80, 140, 180)), face=(40, 80, 110)),
}
FONT_DESIGNS_R18 = tuple(FONT_DESIGNS)  # round eighteen's twelve (training/round18.sh draws these alone)
# Round twenty: twelve more, in the typefaces of printed cards (Debian's fonts-urw-base35: Century Schoolbook,
# Palatino, Bookman, Times, Helvetica, Avant Garde and Courier clones; fonts-freefont-ttf), half with the font's own
# suit glyphs, one dark.
FONT_DESIGNS_R20 = {
    "font-urw-c059-bold": dict(_FONT_BASE, ttf="C059-Bold.otf", suit_ttf="C059-Bold.otf", paper=(244, 248, 250),
                               red=(35, 30, 200), black=(20, 15, 15), idx_h=0.09, suit_h=0.07, idx_x=0.05,
                               idx_y=0.04),
    "font-urw-c059-roman": dict(_FONT_BASE, ttf="C059-Roman.otf", paper=(236, 244, 248), red=(50, 40, 180),
                                black=(30, 30, 30), idx_h=0.08, suit_h=0.065, idx_x=0.06, idx_y=0.05,
                                border=(110, 90, 70)),
    "font-urw-p052-bold": dict(_FONT_BASE, ttf="P052-Bold.otf", suit_ttf="FreeSerif.ttf", paper=(248, 248, 246),
                               red=(25, 25, 190), black=(10, 10, 10), idx_h=0.1, suit_h=0.075, idx_x=0.045,
                               idx_y=0.04, back=((120, 60, 20), (220, 200, 170))),
    "font-urw-bookman-demi": dict(_FONT_BASE, ttf="URWBookman-Demi.otf", paper=(242, 246, 250), red=(40, 30, 210),
                                  black=(25, 20, 25), idx_h=0.085, suit_h=0.07, idx_x=0.05, idx_y=0.045),
    "font-urw-gothic-demi": dict(_FONT_BASE, ttf="URWGothic-Demi.otf", suit_ttf="FreeSans.ttf",
                                 paper=(250, 250, 250), red=(30, 20, 220), black=(15, 15, 15), idx_h=0.095,
                                 suit_h=0.07, idx_x=0.05, idx_y=0.04, back=((30, 100, 30), (190, 230, 190))),
    "font-urw-nimbus-sans-narrow-bold": dict(_FONT_BASE, ttf="NimbusSansNarrow-Bold.otf", paper=(248, 250, 252),
                                             red=(30, 30, 200), black=(10, 10, 10), idx_h=0.12, suit_h=0.08,
                                             idx_x=0.04, idx_y=0.035),
    "font-urw-nimbus-roman-bold": dict(_FONT_BASE, ttf="NimbusRoman-Bold.otf", suit_ttf="NimbusRoman-Bold.otf",
                                       paper=(238, 246, 250), red=(45, 35, 175), black=(30, 25, 25), idx_h=0.09,
                                       suit_h=0.065, idx_x=0.055, idx_y=0.045, border=(140, 140, 140)),
    "font-urw-nimbus-sans": dict(_FONT_BASE, ttf="NimbusSans-Regular.otf", paper=(252, 252, 252),
                                 red=(20, 20, 210), black=(35, 35, 35), idx_h=0.075, suit_h=0.06, idx_x=0.06,
                                 idx_y=0.055),
    "font-urw-nimbus-mono-bold": dict(_FONT_BASE, ttf="NimbusMonoPS-Bold.otf", suit_ttf="FreeMono.ttf",
                                      paper=(240, 244, 246), red=(40, 30, 170), black=(20, 20, 20), idx_h=0.085,
                                      suit_h=0.07, idx_x=0.05, idx_y=0.05),
    "font-free-serif-bold": dict(_FONT_BASE, ttf="FreeSerifBold.ttf", suit_ttf="FreeSerif.ttf",
                                 paper=(246, 248, 244), red=(35, 35, 195), black=(15, 15, 20), idx_h=0.1,
                                 suit_h=0.075, idx_x=0.05, idx_y=0.04, back=((60, 20, 90), (200, 180, 220))),
    "font-free-sans": dict(_FONT_BASE, ttf="FreeSans.ttf", paper=(234, 242, 246), red=(50, 50, 200),
                           black=(40, 35, 35), idx_h=0.085, suit_h=0.065, idx_x=0.055, idx_y=0.05),
    # a dark card with light print
    "font-urw-c059-bold-noir": dict(_FONT_BASE, ttf="C059-Bold.otf", suit_ttf="FreeSerif.ttf", paper=(30, 25, 25),
                                    red=(80, 170, 230), black=(225, 225, 220), idx_h=0.09, suit_h=0.07,
                                    idx_x=0.05, idx_y=0.045, back=((20, 20, 20), (70, 130, 170)),
                                    face=(50, 90, 120)),
}
FONT_DESIGNS.update(FONT_DESIGNS_R20)


def font_file(name: str) -> str | None:
    """The path of a font file in FONT_DIRS, or None where this machine lacks it."""
    for folder in FONT_DIRS:
        if (folder / name).is_file():
            return str(folder / name)
    return None


def _font_design(name: str) -> dict:
    d = dict(FONT_DESIGNS[name])
    for key in ("ttf", "suit_ttf"):
        if key in d:
            path = font_file(d[key])
            if path is None:
                raise FileNotFoundError(f"deck {name}: font {d[key]} is not in {', '.join(map(str, FONT_DIRS))} "
                                        f"(apt-get install {FONT_PACKAGES})")
            d[key] = path
    return d


def _text(img: np.ndarray, text: str, x: float, y: float, height: float, color, d: dict, thick: float,
          max_width: float | None = None, center: bool = False) -> tuple:
    if d.get("ttf"):
        return draw_text_ttf(img, text, x, y, height, color, d["ttf"], max_width=max_width, center=center)
    return draw_text_fit(img, text, x, y, height, color, d["font"], thick, max_width=max_width, center=center)


def _suit(img: np.ndarray, suit: str, cx: float, cy: float, size: float, color, d: dict,
          upside_down: bool = False) -> None:
    if d.get("suit_ttf"):
        draw_suit_ttf(img, suit, cx, cy, size, color, d["suit_ttf"], upside_down=upside_down)
    else:
        draw_suit(img, suit, cx, cy, size, color, upside_down=upside_down)


PIP_LAYOUT = {
    1: [(0.5, 0.5)],
    2: [(0.5, 0.0), (0.5, 1.0)],
    3: [(0.5, 0.0), (0.5, 0.5), (0.5, 1.0)],
    4: [(0, 0), (1, 0), (0, 1), (1, 1)],
    5: [(0, 0), (1, 0), (0, 1), (1, 1), (0.5, 0.5)],
    6: [(0, 0), (1, 0), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
    7: [(0, 0), (1, 0), (0, 0.5), (1, 0.5), (0, 1), (1, 1), (0.5, 0.25)],
    8: [(0, 0), (1, 0), (0, 0.5), (1, 0.5), (0, 1), (1, 1), (0.5, 0.25), (0.5, 0.75)],
    9: [(0, 0), (1, 0), (0, 1 / 3), (1, 1 / 3), (0, 2 / 3), (1, 2 / 3), (0, 1), (1, 1), (0.5, 0.5)],
    10: [(0, 0), (1, 0), (0, 1 / 3), (1, 1 / 3), (0, 2 / 3), (1, 2 / 3), (0, 1), (1, 1), (0.5, 1 / 6), (0.5, 5 / 6)],
}


def _draw_index(img: np.ndarray, rank: str, suit: str | None, color, d: dict, w: int, h: int) -> Box:
    """Rank over suit in the top-left corner; returns the index's box."""
    x, y = d["idx_x"] * w, d["idx_y"] * h
    if rank == "JOKER":  # letters stacked vertically
        boxes = []
        lh = d["idx_h"] * h * 0.55
        for i, ch in enumerate("JOKER"):
            boxes.append(_text(img, ch, x + lh * 0.5, y + i * lh * 1.25, lh, color, d, d["thick"], center=True))
    else:
        ih = d["idx_h"] * h
        max_w = ih * 1.3
        b = _text(img, rank, x + max_w / 2, y, ih, color, d, d["thick"], max_width=max_w, center=True)
        sh = d["suit_h"] * h
        cx = (b[0] + b[2]) / 2
        cy = b[3] + ih * 0.22 + sh / 2
        _suit(img, suit, cx, cy, sh, color, d)
        boxes = [b, (cx - sh * 0.45, cy - sh / 2, cx + sh * 0.45, cy + sh / 2)]
    x1 = min(bb[0] for bb in boxes) - 2
    y1 = min(bb[1] for bb in boxes) - 2
    x2 = max(bb[2] for bb in boxes) + 2
    y2 = max(bb[3] for bb in boxes) + 2
    return (max(0.0, x1), max(0.0, y1), min(w - 1.0, x2), min(h - 1.0, y2))


def _draw_centre(img: np.ndarray, rank: str, suit: str | None, color, d: dict, w: int, h: int, upper: bool) -> None:
    """Half of the card's centre (drawn twice, the card turned 180° in between)."""
    if rank == "JOKER":
        if upper:
            cv2.circle(img, (w // 2, h // 2), int(w * 0.22), color, max(2, w // 60), cv2.LINE_AA)
            _text(img, "JOKER", w / 2, h * 0.44, h * 0.06, color, d, d["thick"], center=True)
        return
    if rank in ("J", "Q", "K"):
        x1, y1, x2, y2 = int(w * 0.2), int(h * 0.16), int(w * 0.8), int(h * 0.5)
        cv2.rectangle(img, (x1, y1), (x2, y2 + 1), d["face"], -1)
        cv2.rectangle(img, (x1, y1), (x2, y2 + 1), color, max(2, w // 80))
        _text(img, rank, w * 0.38, h * 0.22, h * 0.17, color, d, d["thick"] * 1.2, center=True)
        _suit(img, suit, w * 0.64, h * 0.3, h * 0.1, color, d)
        return
    n = 1 if rank == "A" else int(rank)
    size = h * (0.3 if n == 1 else 0.11)
    for px, py in PIP_LAYOUT[n]:
        if n == 1 and not upper:
            continue
        yy = 0.2 + 0.6 * py
        if (yy < 0.5) != upper and not (abs(yy - 0.5) < 1e-6 and upper):
            continue
        _suit(img, suit, w * (0.32 + 0.36 * px), h * yy, size, color, d, upside_down=yy > 0.5)


def _draw_back(d: dict, w: int, h: int) -> np.ndarray:
    base, line = d["back"]
    img = np.full((h, w, 3), base, np.uint8)
    step = max(6, w // 14)
    for k in range(-h, w + h, step):
        cv2.line(img, (k, 0), (k + h, h), line, max(1, w // 90), cv2.LINE_AA)
        cv2.line(img, (k, h), (k + h, 0), line, max(1, w // 90), cv2.LINE_AA)
    m = int(w * 0.06)
    cv2.rectangle(img, (m, m), (w - m, h - m), (255, 255, 255), max(2, w // 50))
    return img


def _proc_card(card: str, d: dict, w: int = 250, h: int = 350) -> tuple[np.ndarray, list[Box]]:
    if card == "BACK":
        rgb = _draw_back(d, w, h)
        boxes = [(0.0, 0.0, w - 1.0, h - 1.0)]
    else:
        if card in JOKERS:
            rank, suit = "JOKER", None
            color = d["red"] if card == "JK_RED" else d["black"]
        else:
            rank, suit = card[:-1], card[-1]
            color = d["red"] if suit in RED_SUITS else d["black"]
        rgb = np.full((h, w, 3), d["paper"], np.uint8)
        box = None
        for _ in range(2):  # draw the upper half, turn the card 180°, draw it again
            _draw_centre(rgb, rank, suit, color, d, w, h, upper=True)
            box = _draw_index(rgb, rank, suit, color, d, w, h)
            rgb = cv2.rotate(rgb, cv2.ROTATE_180)
        x1, y1, x2, y2 = box
        boxes = [box, (w - 1 - x2, h - 1 - y2, w - 1 - x1, h - 1 - y1)]
        if d["border"] is not None:
            m = int(w * 0.035)
            cv2.rectangle(rgb, (m, m), (w - 1 - m, h - 1 - m), d["border"], 1, cv2.LINE_AA)
    alpha = rounded_alpha(h, w, int(w * 0.06))
    edge = alpha.copy()
    cv2.rectangle(edge, (0, 0), (w - 1, h - 1), 0, 1)
    rgba = np.dstack([rgb, alpha])
    # thin grey edge so white cards stay visible on light tables
    contour = cv2.morphologyEx(alpha, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8)) > 0
    rgba[contour, :3] = (rgba[contour, :3] * 0.6).astype(np.uint8)
    return rgba, boxes


def _proc_deck(name: str) -> Deck:
    d = PROC_DESIGNS[name] if name in PROC_DESIGNS else _font_design(name)
    faces, boxes = {}, {}
    for card in ALL_FACES + ("BACK",):
        faces[card], boxes[card] = _proc_card(card, d)
    return Deck(name, faces, boxes)


# --------------------------------------------------------------------------- Debian SVG decks

GNOME_DIR = Path("/usr/share/aisleriot/cards")
KDE_DIR = Path("/usr/share/carddecks")
# Themes whose cards render and whose corner indices the automatic finder locates (checked on
# a contact sheet); others (oxygen*, konqi-modern, future, jolly-royal, penguins, xskat-*,
# neoclassical, anglo_modern) fail one or the other and are left out.
GNOME_DECKS = ("anglo", "anglo_poker", "simplistic", "plastic", "ornamental", "gnomangelo", "paris")
KDE_DECKS = ("standard", "nicu-white", "tigullio-international", "dondorf", "nicu-ornamental")
SUIT_WORDS = {"S": "spade", "H": "heart", "D": "diamond", "C": "club"}
RANK_WORDS = {"A": "1", "J": "jack", "Q": "queen", "K": "king"}


def _svg_ids(kind: str, card: str) -> list[str]:
    if card == "BACK":
        return ["back", "card_back", "cardback"]
    if card in JOKERS:
        colour = "red" if card == "JK_RED" else "black"
        return [f"joker_{colour}", f"{colour}_joker", "joker"]
    rank, suit = card[:-1], SUIT_WORDS[card[-1]]
    r = RANK_WORDS.get(rank, rank)
    return [f"{suit}_{r}"] if kind == "gnome" else [f"{r}_{suit}"]


def _svg_source(name: str) -> tuple[str, Path] | None:
    if name.startswith("gnome-"):
        p = GNOME_DIR / f"{name[6:]}.svgz"
        return ("gnome", p) if p.exists() else None
    if name.startswith("kde-"):
        d = KDE_DIR / f"svg-{name[4:]}"
        files = sorted(d.glob("*.svgz")) if d.is_dir() else []
        return ("kde", files[0]) if files else None
    return None


def cache_dir() -> Path:
    d = Path(os.environ.get("RUMMY_SYNTH_CACHE") or Path(tempfile.gettempdir()) / "rummy-synth-cache")
    d.mkdir(parents=True, exist_ok=True)
    return d


def _render_svg_card(svg: Path, element: str, height: int, out: Path) -> bool:
    # rendered beside the cache file and moved into place: another process rendering the same deck at the same
    # time (two evaluations, `serve` beside `track`) never reads a half-written card (seen: "no card 'BACK'")
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    r = subprocess.run(["rsvg-convert", "-i", element, "-h", str(height), str(svg), "-o", str(tmp)],
                       capture_output=True, timeout=60)
    ok = r.returncode == 0 and tmp.exists() and tmp.stat().st_size > 0
    if ok:
        os.replace(tmp, out)
    else:
        tmp.unlink(missing_ok=True)
    return ok


def _svg_deck(name: str, height: int = 350, keep_unlabelled: bool = False) -> Deck:
    src = _svg_source(name)
    if src is None or shutil.which("rsvg-convert") is None:
        raise KeyError(f"deck {name!r} needs its Debian card package and rsvg-convert")
    kind, svgz = src
    cdir = cache_dir() / f"{name}-{height}"
    cdir.mkdir(parents=True, exist_ok=True)
    svg = cdir / "deck.svg"
    if not svg.exists():
        tmp = svg.with_name(f".deck.svg.{os.getpid()}.tmp")
        tmp.write_bytes(gzip.decompress(svgz.read_bytes()))
        os.replace(tmp, svg)
    faces, boxes = {}, {}
    for card in ALL_FACES + ("BACK",):
        png = cdir / f"{card}.png"
        if not png.exists():
            for element in _svg_ids(kind, card):
                if _render_svg_card(svg, element, height, png):
                    break
        if not png.exists():
            continue
        img = cv2.imread(str(png), cv2.IMREAD_UNCHANGED)
        if img is None or img.ndim != 3 or img.shape[2] != 4:
            continue
        if card == "BACK":
            bx = [(0.0, 0.0, img.shape[1] - 1.0, img.shape[0] - 1.0)]
        else:
            bx = find_index_boxes(img)
        if bx is None and keep_unlabelled:
            bx = []  # drawn, but never labelled (its index was not found)
        if bx is None:
            continue
        faces[card], boxes[card] = img, bx
    missing = [c for c in CARDS if c not in faces]
    if len(missing) > 22:
        raise KeyError(f"deck {name!r}: could not render {len(missing)} cards")
    return Deck(name, faces, boxes, licence=f"GPL/LGPL Debian card art from {svgz} (training only)")


# --------------------------------------------------------------------------- public API

def list_decks(include_svg: bool = True, include_fonts: bool = False) -> list[str]:
    """Names of the decks available on this machine (procedural ones always; the font decks when asked for,
    so that the datasets of earlier rounds are drawn again as they were)."""
    names = list(PROC_DESIGNS)
    if include_fonts:
        names += [n for n, d in FONT_DESIGNS.items() if font_file(d["ttf"]) and font_file(d.get("suit_ttf", d["ttf"]))]
    if include_svg and shutil.which("rsvg-convert"):
        names += [f"gnome-{n}" for n in GNOME_DECKS if _svg_source(f"gnome-{n}")]
        names += [f"kde-{n}" for n in KDE_DECKS if _svg_source(f"kde-{n}")]
    return names


_REGISTERED: dict[str, Deck] = {}


def register_deck(deck: Deck) -> None:
    """Make a deck built elsewhere (an enrolled deck's faces) drawable by name, like the built-in ones."""
    _REGISTERED[deck.name] = deck


def load_deck(name: str) -> Deck:
    """Load (render, first time) a deck by name; see `list_decks()` and `register_deck()`."""
    if name in _REGISTERED:
        return _REGISTERED[name]
    return _load_deck(name)


@functools.lru_cache(maxsize=64)
def _load_deck(name: str) -> Deck:
    if name in PROC_DESIGNS or name in FONT_DESIGNS:
        return _proc_deck(name)
    return _svg_deck(name)


def full_deck(name: str) -> Deck:
    """Every face of a design (see `_full_deck`); a registered deck is returned as it is."""
    return _REGISTERED[name] if name in _REGISTERED else _full_deck(name)


@functools.lru_cache(maxsize=8)
def _full_deck(name: str) -> Deck:
    """Every face of a design, also those whose corner index the automatic finder misses (they are drawn
    but never labelled): for photos of a whole deck (`vision.synth.suit_photos`).  Registered as
    `<name>+all`."""
    deck = _proc_deck(name) if name in PROC_DESIGNS or name in FONT_DESIGNS else _svg_deck(name, keep_unlabelled=True)
    aspect = float(np.median([f.shape[1] / f.shape[0] for f in deck.values()]))
    # an unlabelled face of another shape is a broken render (several cards in one picture): left out
    faces = {k: f for k, f in deck.items() if deck.index_boxes[k] or abs(f.shape[1] / f.shape[0] / aspect - 1) < 0.05}
    deck = Deck(f"{name}+all", faces, deck.index_boxes, deck.licence)
    register_deck(deck)
    return deck
