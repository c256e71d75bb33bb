"""`rummy-referee serve`: start the dashboard (see web_ui/README.md)."""

from __future__ import annotations

import logging
import os
import secrets
import sys
import threading
import webbrowser
from pathlib import Path

from . import create_app
from .camera import attach_camera

LOCAL = {"127.0.0.1", "localhost", "::1"}


def default_db_path() -> str:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, "rummy-referee", "matches.db")


def access(host: str, pin: str | None) -> tuple[bool, str | None, bool]:
    """(local only, PIN, PIN generated). Beyond localhost every change needs a PIN: made up if not given."""
    local = host in LOCAL
    if pin is not None:
        pin = str(pin).strip()
        if not pin:
            raise ValueError("--pin must not be empty")
        return local, pin, False
    if local:
        return True, None, False
    return False, f"{secrets.randbelow(10**6):06d}", True


def cli_serve(args) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if not os.environ.get("RUMMY_WEB_DEBUG_LOG"):
        logging.getLogger("werkzeug").setLevel(logging.WARNING)  # not one line per request and SSE poll
    host = args.host or "127.0.0.1"
    port = int(args.port)
    db = args.db or default_db_path()
    try:
        local, pin, generated = access(host, args.pin)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if pin:
        print(f"Changes need the PIN {pin}" + (" (made up for this run; set one with --pin)" if generated else ""),
              flush=True)
    Path(db).parent.mkdir(parents=True, exist_ok=True)

    config = {"DATABASE": db, "PIN": pin, "LOCAL_ONLY": local,
              "LAYOUTS": [args.layout] if getattr(args, "layout", None) else []}
    app = create_app(config)
    camera = attach_camera(app, getattr(args, "camera", None), getattr(args, "layout", None),
                           getattr(args, "demo", False), motion_gate=not getattr(args, "no_motion_gate", False))
    pipeline = app.extensions["rummy_live"].pipeline
    if camera:
        print(f"Camera: {camera}", flush=True)

    from werkzeug.serving import make_server

    try:
        server = make_server(host, port, app, threaded=True)
    except OSError as e:
        print(f"error: cannot listen on {host}:{port}: {e}", file=sys.stderr)
        return 2
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    url = f"http://{shown}:{server.server_port}/"
    print(f"Rummy Referee dashboard: {url}  (database: {db})", flush=True)
    if host in ("0.0.0.0", "::"):
        print("Open it from a tablet on the same network with this computer's address.", flush=True)
    has_screen = os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY") or sys.platform in ("darwin", "win32")
    if has_screen and not getattr(args, "no_browser", False):
        threading.Timer(0.8, lambda: webbrowser.open(url)).start()
    try:
        if pipeline is not None and hasattr(pipeline, "start"):
            pipeline.start()
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        if pipeline is not None and hasattr(pipeline, "stop"):
            try:
                pipeline.stop()
            except Exception:
                pass
        app.extensions["rummy_store"].close()
    return 0
