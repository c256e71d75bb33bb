"""Joining from a second device: the addresses a tablet on the same network opens, and their QR codes.

- ``lan_addresses()``: this computer's IPv4 addresses, found without sending anything (the interfaces'
  addresses by ``SIOCGIFADDR`` on Linux, the host name's addresses elsewhere; the address of the
  default route's interface first, learnt from a UDP socket's ``connect``, which sends no packet).
- ``/join`` (the page behind the top bar's Join button): when the server listens on every interface
  (``serve --host 0.0.0.0``) the LAN address(es) with a QR code each, made here with segno; when it
  listens on localhost only, that a tablet cannot reach it and how to start it for the network.
  Opened from a match (``/join?m=<id>``), the addresses open that match.
- ``/join/qr.svg?url=…``: the QR code of one of those addresses (any other text is refused: the server
  does not make QR codes of whatever it is asked).
- ``/api/join``: the same as JSON, for programs.

The server learns where it listens from ``LISTEN_HOST`` / ``LISTEN_PORT`` (``serve`` sets them); without
them (an app made in a test) the LAN mode follows ``LOCAL_ONLY`` and the port is the one the page was
opened on.
"""

from __future__ import annotations

import io
import ipaddress
import socket
import struct
import sys
from functools import lru_cache

from flask import Blueprint, Response, abort, current_app, jsonify, render_template, request, url_for

from . import security
from .services import get_store

bp = Blueprint("join", __name__)

ANY = {"0.0.0.0", "::", ""}
LOCAL = {"127.0.0.1", "localhost", "::1", "[::1]"}
LAN_COMMAND = "rummy-referee serve --host 0.0.0.0 --pin 1234"
_PROBE = "10.255.255.255"  # a private address: connect() on a UDP socket only picks the route, it sends nothing
_SIOCGIFADDR = 0x8915


def _interface_addresses() -> list[str]:
    """Each network interface's IPv4 address (Linux: an ioctl per interface; nothing goes on the wire)."""
    if not sys.platform.startswith("linux"):
        return []
    try:
        import fcntl

        names = [n for _, n in socket.if_nameindex()]
    except (ImportError, OSError):
        return []
    out: list[str] = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for name in names:
            try:
                packed = fcntl.ioctl(s.fileno(), _SIOCGIFADDR, struct.pack("256s", name[:15].encode()))
            except OSError:
                continue
            out.append(socket.inet_ntoa(packed[20:24]))
    return out


def _host_name_addresses() -> list[str]:
    """The IPv4 addresses the host name resolves to (from /etc/hosts or the local resolver)."""
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET, socket.SOCK_DGRAM)
    except (OSError, UnicodeError):
        return []
    return [i[4][0] for i in infos]


def _default_route_address() -> str | None:
    """The address of the interface the default route leaves by: a UDP socket is connected (which sends
    no packet: UDP has no handshake, connect only fixes the destination and the source address) and asked
    for its own address."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect((_PROBE, 9))
            return s.getsockname()[0]
    except OSError:  # no route: no network
        return None


def _rank(addr: str) -> int:
    ip = ipaddress.IPv4Address(addr)
    if ip.is_link_local:
        return 3
    if ip.is_private:
        return 1
    return 2


def lan_addresses() -> list[str]:
    """This computer's IPv4 addresses other devices could open it on, best first: the default route's,
    then the private (home network) ones, then the others, link-local last; loopback left out."""
    found: list[str] = []
    primary = _default_route_address()
    for a in [primary, *_interface_addresses(), *_host_name_addresses()]:
        if not a or a in found:
            continue
        try:
            ip = ipaddress.IPv4Address(a)
        except ValueError:
            continue
        if ip.is_loopback or ip.is_unspecified:
            continue
        found.append(a)
    return sorted(found, key=lambda a: (a != primary, _rank(a)))


def listening() -> tuple[str, int | None]:
    """(host, port) the server listens on, as ``serve`` told the app (else guessed; see the module doc)."""
    cfg = current_app.config
    host = cfg.get("LISTEN_HOST")
    if host is None:
        host = "127.0.0.1" if cfg.get("LOCAL_ONLY", True) else "0.0.0.0"
    port = cfg.get("LISTEN_PORT")
    if port is None:
        _, _, tail = (request.host or "").rpartition(":")
        port = int(tail) if tail.isdigit() else None
    return str(host), port


def _url(host: str, port: int | None, path: str) -> str:
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}{'' if port in (None, 80) else f':{port}'}{path}"


def join_info(mid: str | None = None) -> dict:
    """What the join page shows: ``mode`` "lan" (every interface), "host" (one address) or "local", the
    URLs to open (best first), whether a PIN is asked, and the command that opens the dashboard to the LAN."""
    host, port = listening()
    path = f"/m/{mid}" if mid else "/"
    if host in ANY:
        mode, hosts = "lan", lan_addresses()
    elif host.lower() in LOCAL or host.startswith("127."):
        mode, hosts = "local", []
    else:
        mode, hosts = "host", [host]
    return {"mode": mode, "urls": [_url(h, port, path) for h in hosts], "port": port,
            "pin_required": security.pin_required(), "command": LAN_COMMAND, "match": mid}


def _match_arg() -> str | None:
    mid = request.args.get("m")
    if isinstance(mid, str) and 0 < len(mid) <= 64 and get_store().exists(mid):
        return mid
    return None


@lru_cache(maxsize=32)
def qr_svg(text: str) -> str:
    """The QR code of `text` as an SVG document (black on white with its quiet zone; it scales to its box)."""
    import segno

    buf = io.BytesIO()
    segno.make(text, error="m", micro=False).save(
        buf, kind="svg", scale=1, border=4, dark="#000", light="#fff", xmldecl=False, omitsize=True,
        title=text)
    return buf.getvalue().decode("utf-8")


@bp.get("/join")
def page():
    mid = _match_arg()
    title = None
    if mid:
        try:
            title = get_store().get(mid).extra.get("title")
        except Exception:  # the match went away meanwhile: the page still helps
            title = None
    return render_template("join.html", info=join_info(mid), mid=mid, match_title=title)


@bp.get("/join/qr.svg")
def qr():
    url = request.args.get("url", "")
    mid = _match_arg()
    if url not in join_info(mid)["urls"]:
        abort(404)
    resp = Response(qr_svg(url), mimetype="image/svg+xml")
    resp.headers["Cache-Control"] = "no-cache"
    return resp


@bp.get("/api/join")
def api():
    info = join_info(_match_arg())
    info["qr"] = [url_for("join.qr", url=u, m=info["match"]) for u in info["urls"]]
    return jsonify(ok=True, **info)
