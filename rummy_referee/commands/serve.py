"""`rummy-referee serve`: start the dashboard (see web_ui/README.md)."""

from __future__ import annotations

import logging
import os
import secrets
import socket
import sys
import threading
import webbrowser
from pathlib import Path

from referee.strict_json import one_line
from web_ui import create_app
from web_ui.camera import attach_camera
from web_ui.join import lan_addresses
from web_ui.server import make_server
from web_ui.services import get_decks, get_matches, get_store
from web_ui.store import StoreError

LOCAL = {"127.0.0.1", "localhost", "::1"}
ANY = {"0.0.0.0", "::", ""}


def local_addresses() -> list[str]:
    """This machine's IPv4 addresses (loopback left out, the default route's first); nothing is sent."""
    return lan_addresses()


def allowed_hosts(host: str, extra: list[str] | None = None) -> list[str]:
    """The names the dashboard answers to in LAN mode (its Host check, against DNS rebinding)."""
    names = set(LOCAL) | {h.strip().lower() for h in (extra or []) if h.strip()}
    if host in ANY:
        names |= set(local_addresses())
        hn = socket.gethostname().lower()
        names |= {hn, hn + ".local", hn + ".lan", hn + ".home"}
    else:
        names.add(host.lower())
    return sorted(names)


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
        logging.getLogger("waitress").setLevel(logging.WARNING)  # its warnings (a full task queue), not its chatter
    host = args.host or "127.0.0.1"
    port = args.port  # checked by the command line's `--port` type
    db = args.db or default_db_path()
    try:
        local, pin, generated = access(host, args.pin)
    except ValueError as e:
        print(one_line(f"rummy-referee serve: {e}"), file=sys.stderr)
        return 2

    decks_dir = Path(db).parent / "decks"  # decks taught on the dashboard live beside its database
    deck = getattr(args, "deck", None)
    if deck is not None:
        from vision.enrol.profile import DeckError, load_profile

        try:
            deck = str(load_profile(deck, search=decks_dir).path)
        except DeckError as e:
            print(one_line(f"rummy-referee serve: --deck: {e}"), file=sys.stderr)
            return 2
    config = {"DATABASE": db, "PIN": pin, "LOCAL_ONLY": local, "DATABASE_LOCK": True,
              "DECKS_DIR": str(decks_dir), "DECK": deck,
              "ALLOWED_HOSTS": [] if local else allowed_hosts(host, getattr(args, "allow_host", None)),
              "LAYOUTS": [args.layout] if getattr(args, "layout", None) else []}
    try:
        app = create_app(config)
    except StoreError as e:
        print(one_line(f"rummy-referee serve: {e}"), file=sys.stderr)
        return 2
    if pin:
        print(f"Changes need the PIN {pin}" + (" (made up for this run; set one with --pin)" if generated else ""),
              flush=True)
    if deck is None and get_decks(app).using:  # the deck chosen on the dashboard last time, if still there
        from vision.enrol.profile import DeckError, load_profile

        try:
            deck = str(load_profile(get_decks(app).using).path)
        except DeckError as e:
            print(one_line(f"The deck chosen last time cannot be used ({e}): reading with the general model"),
                  flush=True)
    camera = attach_camera(app, getattr(args, "camera", None), getattr(args, "layout", None),
                           getattr(args, "demo", False), motion_gate=not getattr(args, "no_motion_gate", False),
                           deck=deck)
    pipeline = get_matches(app).pipeline
    if camera:
        print(f"Camera: {camera}", flush=True)

    try:
        server = make_server(app, host, port)
    except (OSError, ValueError, OverflowError) as e:
        print(one_line(f"rummy-referee serve: cannot listen on {host}:{port}: {e}"), file=sys.stderr)
        get_store(app).close()
        return 2
    app.config["LISTEN_HOST"], app.config["LISTEN_PORT"] = host, server.port  # the Join page's addresses
    shown = "127.0.0.1" if host in ANY else host
    url = f"http://{shown}:{server.port}/"
    print(f"Rummy Referee dashboard: {url}  (database: {db})", flush=True)
    if host in ANY:
        lan = [f"http://{a}:{server.port}/" for a in local_addresses()]
        if lan:
            print("On a tablet on the same network, open: " + "  or  ".join(lan), flush=True)
        else:
            print("Open it from a tablet on the same network with this computer's address.", flush=True)
    if not local:
        print(f"Join from another device: {url}join shows the address and its QR code", flush=True)
    else:
        print("Only this computer can open it; for a tablet: rummy-referee serve --host 0.0.0.0 --pin 1234",
              flush=True)
    has_screen = os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY") or sys.platform in ("darwin", "win32")
    if has_screen and not getattr(args, "no_browser", False):
        threading.Timer(0.8, lambda: webbrowser.open(url)).start()
    try:
        if pipeline is not None:
            pipeline.start()
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
        if pipeline is not None:
            try:
                pipeline.stop()
            except Exception:
                logging.getLogger(__name__).exception("stopping the camera")
        get_store(app).close()
    return 0
