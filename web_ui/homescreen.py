"""Keeping the dashboard on a tablet's home screen: the web-app manifest and the service worker.

- ``/manifest.webmanifest``: name, start page ``/``, full screen without the browser's bars
  (``standalone``), the felt's colours and the icons (``static/icon.svg`` and PNGs made from it by
  ``scripts/make_icons.py``).
- ``/sw.js``: a service worker for the whole site (it is served from the root, so its scope is ``/``).
  It keeps a copy of every static file (``static/``) and serves them from that copy first; pages, the
  API (``/api/``) and the live streams always go to the network and are never stored.  Its cache's name
  carries a hash of the static files' contents, computed here: when a file changes, ``sw.js`` changes, the
  browser installs the new worker and the old copy is deleted.

Browsers run service workers only in a secure context: ``http://localhost`` / ``127.0.0.1`` or HTTPS.
A tablet opening ``http://192.168.x.y:5000`` gets the manifest (Add to Home screen) but no offline copy.
"""

from __future__ import annotations

import hashlib
import os
from functools import lru_cache
from pathlib import Path

from flask import Blueprint, current_app, jsonify, render_template, url_for
from flask_babel import gettext

bp = Blueprint("homescreen", __name__)

THEME_COLOR = "#071510"  # the top bar's colour in the dark theme
BACKGROUND_COLOR = "#0b1f17"  # the page's
ICON_SIZES = (192, 512)


def static_files(folder: str | os.PathLike) -> list[str]:
    """The static folder's files, relative and sorted (hidden files left out)."""
    root = Path(folder)
    out = []
    for p in root.rglob("*"):
        rel = p.relative_to(root)
        if p.is_file() and not any(part.startswith(".") for part in rel.parts):
            out.append(rel.as_posix())
    return sorted(out)


@lru_cache(maxsize=8)
def _digest(folder: str, stamp: tuple) -> str:
    h = hashlib.sha256()
    for rel, _size, _mtime in stamp:
        h.update(rel.encode() + b"\0")
        h.update((Path(folder) / rel).read_bytes())
        h.update(b"\0")
    return h.hexdigest()[:16]


def static_version(folder: str | os.PathLike) -> str:
    """A hash of the static files' names and contents (read again only when a file's size or time changes)."""
    folder = str(folder)
    stamp = []
    for rel in static_files(folder):
        st = (Path(folder) / rel).stat()
        stamp.append((rel, st.st_size, st.st_mtime_ns))
    return _digest(folder, tuple(stamp))


@bp.get("/manifest.webmanifest")
def manifest():
    icons = [{"src": url_for("static", filename="icon.svg"), "sizes": "any", "type": "image/svg+xml"}]
    icons += [{"src": url_for("static", filename=f"icons/icon-{n}.png"), "sizes": f"{n}x{n}", "type": "image/png"}
              for n in ICON_SIZES]
    body = {
        "name": "Rummy Referee",
        "short_name": "Rummy",
        "description": gettext("The scoreboard and referee at the card table."),
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "orientation": "any",
        "theme_color": THEME_COLOR,
        "background_color": BACKGROUND_COLOR,
        "icons": icons,
    }
    resp = jsonify(body)
    resp.mimetype = "application/manifest+json"
    resp.headers["Cache-Control"] = "no-cache"
    return resp


@bp.get("/sw.js")
def service_worker():
    folder = current_app.static_folder
    files = [url_for("static", filename=f) for f in static_files(folder)]
    body = render_template("sw.js", cache=f"rr-static-{static_version(folder)}", files=files)
    resp = current_app.response_class(body, mimetype="text/javascript")
    resp.headers["Cache-Control"] = "no-cache"  # the browser asks again on each visit whether a new one is out
    return resp
