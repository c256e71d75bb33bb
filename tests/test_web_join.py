"""Issue 13, the table's second screen: joining from another device (/join, its QR codes, the addresses found
without sending anything, the start-up message), the home screen (manifest, service worker), the page's CSP,
and the light theme's colours (WCAG AA contrast, computed from style.css)."""

from __future__ import annotations

import json
import re
import socket
import struct
from pathlib import Path

import numpy as np
import pytest

from web_ui import create_app, join
from web_ui.homescreen import static_files, static_version

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "web_ui" / "static"
CSS = re.sub(r"/\*.*?\*/", "", (STATIC / "style.css").read_text(encoding="utf-8"), flags=re.S)  # no comments
LAN = ["192.168.1.20", "10.0.0.5"]


def _app(tmp_path, **cfg):
    return create_app({"DATABASE": str(tmp_path / "j.db"), **cfg})


@pytest.fixture
def lan(monkeypatch):
    monkeypatch.setattr(join, "lan_addresses", lambda: list(LAN))


# ---------- joining ----------

def test_local_only_says_so_and_how_to_open_it_to_the_network(tmp_path):
    app = _app(tmp_path)
    c = app.test_client()
    html = c.get("/join").get_data(as_text=True)
    assert 'data-mode="local"' in html and 'id="join-local"' in html
    assert "rummy-referee serve --host 0.0.0.0 --pin 1234" in html
    assert "join-qr" not in html  # no code to scan: a tablet could not open it
    info = c.get("/api/join").get_json()
    assert info["mode"] == "local" and info["urls"] == [] and info["pin_required"] is False
    app.extensions["rummy_store"].close()


def test_lan_mode_lists_the_addresses_with_the_port_and_a_qr_code_each(tmp_path, lan):
    app = _app(tmp_path, LISTEN_HOST="0.0.0.0", LISTEN_PORT=5123, LOCAL_ONLY=False,
               ALLOWED_HOSTS=["192.168.1.20"], PIN="2468")
    c = app.test_client()
    html = c.get("/join").get_data(as_text=True)
    assert 'data-mode="lan"' in html
    for a in LAN:
        assert f'href="http://{a}:5123/"' in html
        assert f'src="/join/qr.svg?url=http://{a}:5123/"' in html
    assert html.index("192.168.1.20") < html.index("10.0.0.5")  # the order found: the usual one first
    assert 'id="join-pin"' in html and "2468" not in html  # the PIN is asked for, never shown
    info = c.get("/api/join").get_json()
    assert info["urls"] == [f"http://{a}:5123/" for a in LAN] and info["pin_required"] is True
    assert info["qr"][0] == "/join/qr.svg?url=http://192.168.1.20:5123/"
    # a tablet opening the printed address passes the Host check and sees the same page
    assert c.get("/join", headers={"Host": "192.168.1.20:5123"}).status_code == 200
    app.extensions["rummy_store"].close()


def test_without_a_pin_there_is_no_pin_note(tmp_path, lan):
    app = _app(tmp_path, LISTEN_HOST="0.0.0.0", LISTEN_PORT=5000, LOCAL_ONLY=False)
    html = app.test_client().get("/join").get_data(as_text=True)
    assert "join-pin" not in html and "http://192.168.1.20:5000/" in html
    app.extensions["rummy_store"].close()


def test_opened_from_a_match_the_addresses_open_that_match(tmp_path, lan):
    app = _app(tmp_path, LISTEN_HOST="0.0.0.0", LISTEN_PORT=5000, LOCAL_ONLY=False)
    mid = app.extensions["rummy_store"].create_match(
        {"type": "match", "rules": "basic", "players": ["Ana", "Ben"], "title": "Friday"}, {"title": "Friday"}).id
    c = app.test_client()
    html = c.get(f"/join?m={mid}").get_data(as_text=True)
    assert f'href="http://192.168.1.20:5000/m/{mid}"' in html and 'id="join-match"' in html
    assert f'href="/m/{mid}"' in html  # back to the match
    assert c.get(f"/join/qr.svg?url=http://192.168.1.20:5000/m/{mid}&m={mid}").status_code == 200
    # the match page's Join button carries the match
    assert f'href="/join?m={mid}"' in c.get(f"/m/{mid}").get_data(as_text=True)
    # an unknown match is left out, not an error
    html = c.get("/join?m=nope").get_data(as_text=True)
    assert 'href="http://192.168.1.20:5000/"' in html and "join-match" not in html
    app.extensions["rummy_store"].close()


def test_one_address_mode_and_the_guess_without_serve(tmp_path, lan):
    app = _app(tmp_path, LISTEN_HOST="192.168.7.9", LISTEN_PORT=8080, LOCAL_ONLY=False)
    assert app.test_client().get("/api/join").get_json()["urls"] == ["http://192.168.7.9:8080/"]
    app.extensions["rummy_store"].close()
    # no LISTEN_*: LAN mode follows LOCAL_ONLY, the port is the page's own
    app = create_app({"DATABASE": str(tmp_path / "g.db"), "LOCAL_ONLY": False})
    info = app.test_client().get("/api/join", headers={"Host": "localhost:6001"}).get_json()
    assert info["mode"] == "lan" and info["urls"] == ["http://192.168.1.20:6001/", "http://10.0.0.5:6001/"]
    app.extensions["rummy_store"].close()
    app = _app(tmp_path, LISTEN_HOST="::", LISTEN_PORT=80)
    with app.test_request_context():
        assert join._url("fe80::1", 80, "/") == "http://[fe80::1]/"
    app.extensions["rummy_store"].close()


def _svg_matrix(svg: str) -> np.ndarray:
    """The dark modules of segno's SVG (one stroked path of horizontal runs), read back from the served bytes."""
    size = int(re.search(r'viewBox="0 0 (\d+) (\d+)"', svg).group(1))
    d = re.search(r'<path class="qrline"[^>]* d="([^"]+)"', svg).group(1)
    grid = np.zeros((size, size), dtype=bool)
    x = y = 0.0
    for cmd, a, b in re.findall(r"([Mmh])(-?[\d.]+)(?:[ ,](-?[\d.]+))?", d):
        if cmd == "M":
            x, y = float(a), float(b)
        elif cmd == "m":
            x, y = x + float(a), y + float(b)
        else:
            n = float(a)
            grid[int(y), int(x): int(x + n)] = True
            x += n
    return grid


def test_the_qr_code_reads_back_as_the_address(tmp_path, lan):
    import cv2
    import segno

    app = _app(tmp_path, LISTEN_HOST="0.0.0.0", LISTEN_PORT=5123, LOCAL_ONLY=False)
    c = app.test_client()
    url = "http://192.168.1.20:5123/"
    r = c.get(f"/join/qr.svg?url={url}")
    assert r.status_code == 200 and r.mimetype == "image/svg+xml"
    grid = _svg_matrix(r.get_data(as_text=True))
    qr = segno.make(url, error="m", micro=False)
    expected = np.array([[bool(v) for v in row] for row in qr.matrix])
    assert np.array_equal(grid[4:-4, 4:-4], expected)  # four modules of quiet zone, then segno's own matrix
    img = np.where(grid, 0, 255).astype(np.uint8).repeat(8, 0).repeat(8, 1)
    text, _pts, _ = cv2.QRCodeDetector().detectAndDecode(img)
    assert text == url
    # only the join page's own addresses: no QR code of whatever text is asked
    assert c.get("/join/qr.svg?url=http://evil.example/").status_code == 404
    assert c.get("/join/qr.svg").status_code == 404
    app.extensions["rummy_store"].close()


class _Recording(socket.socket):
    calls: list[str] = []

    def connect(self, addr):
        type(self).calls.append("connect")
        return super().connect(addr)

    def send(self, *a, **k):  # pragma: no cover - must not happen
        type(self).calls.append("send")
        raise AssertionError("sent a packet")

    sendto = sendmsg = sendall = send


def test_addresses_are_found_without_sending_anything(monkeypatch):
    _Recording.calls = []
    monkeypatch.setattr(join.socket, "socket", _Recording)
    found = join.lan_addresses()
    assert not {"send"} & set(_Recording.calls)
    assert all(not a.startswith("127.") and a != "0.0.0.0" for a in found)
    for a in found:
        socket.inet_aton(a)


def test_addresses_best_first(monkeypatch):
    monkeypatch.setattr(join, "_default_route_address", lambda: "172.20.0.4")
    monkeypatch.setattr(join, "_interface_addresses", lambda: ["127.0.0.1", "169.254.3.3", "8.8.4.4", "172.20.0.4",
                                                               "192.168.0.7"])
    monkeypatch.setattr(join, "_host_name_addresses", lambda: ["192.168.0.7", "127.0.1.1", "not an address"])
    assert join.lan_addresses() == ["172.20.0.4", "192.168.0.7", "8.8.4.4", "169.254.3.3"]
    monkeypatch.setattr(join, "_default_route_address", lambda: None)  # no network at all
    monkeypatch.setattr(join, "_interface_addresses", lambda: [])
    monkeypatch.setattr(join, "_host_name_addresses", lambda: [])
    assert join.lan_addresses() == []


def test_no_address_found_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(join, "lan_addresses", lambda: [])
    app = _app(tmp_path, LISTEN_HOST="0.0.0.0", LISTEN_PORT=5000, LOCAL_ONLY=False)
    html = app.test_client().get("/join").get_data(as_text=True)
    assert 'id="join-none"' in html and "join-qr" not in html
    app.extensions["rummy_store"].close()


# ---------- the start-up message ----------

class _FakeServer:
    port = 5123

    def run(self):
        raise KeyboardInterrupt

    def close(self):
        pass


def _serve(monkeypatch, tmp_path, *args):
    from rummy_referee.cli import main
    from rummy_referee.commands import serve

    made = {}

    def fake_make_server(app, host, port):
        made["app"] = app
        return _FakeServer()

    monkeypatch.setattr(serve, "make_server", fake_make_server)
    monkeypatch.setattr(serve, "lan_addresses", lambda: list(LAN))
    assert main(["serve", "--db", str(tmp_path / "s.db"), "--no-browser", "--port", "0", *args]) == 0
    return made["app"]


def test_startup_message_prints_the_addresses_to_open(tmp_path, monkeypatch, capsys):
    app = _serve(monkeypatch, tmp_path, "--host", "0.0.0.0", "--pin", "1234")
    out = capsys.readouterr().out
    assert "Changes need the PIN 1234" in out
    assert "http://192.168.1.20:5123/" in out and "http://10.0.0.5:5123/" in out
    assert "http://127.0.0.1:5123/join" in out
    assert (app.config["LISTEN_HOST"], app.config["LISTEN_PORT"]) == ("0.0.0.0", 5123)
    assert "192.168.1.20" in app.config["ALLOWED_HOSTS"]  # the printed address passes the Host check


def test_startup_message_on_localhost_says_how_to_open_it_to_a_tablet(tmp_path, monkeypatch, capsys):
    _serve(monkeypatch, tmp_path)
    out = capsys.readouterr().out
    assert "http://127.0.0.1:5123/" in out and "--host 0.0.0.0 --pin" in out


# ---------- home screen ----------

def _png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


def test_manifest_is_valid_with_its_icons(tmp_path):
    app = _app(tmp_path)
    c = app.test_client()
    r = c.get("/manifest.webmanifest")
    assert r.status_code == 200 and r.mimetype == "application/manifest+json"
    m = json.loads(r.get_data(as_text=True))
    for k in ("name", "short_name", "start_url", "display", "theme_color", "background_color", "icons"):
        assert m[k], k
    assert m["start_url"] == "/" and m["display"] == "standalone"
    assert re.fullmatch(r"#[0-9a-f]{6}", m["theme_color"]) and re.fullmatch(r"#[0-9a-f]{6}", m["background_color"])
    sizes = {i["sizes"] for i in m["icons"]}
    assert {"192x192", "512x512"} <= sizes
    for icon in m["icons"]:
        assert c.get(icon["src"]).status_code == 200, icon
        if icon["type"] == "image/png":
            n = int(icon["sizes"].split("x")[0])
            assert _png_size(STATIC / icon["src"].removeprefix("/static/")) == (n, n)
    html = c.get("/new").get_data(as_text=True)
    head = html[: html.index("</head>")]
    assert '<link rel="manifest" href="/manifest.webmanifest">' in head and '<meta name="theme-color"' in head
    assert '<script src="/static/theme.js"></script>' in head  # before the first paint, not deferred
    app.extensions["rummy_store"].close()


def test_service_worker_lists_the_static_files_and_never_the_api(tmp_path):
    app = _app(tmp_path)
    c = app.test_client()
    r = c.get("/sw.js")
    assert r.status_code == 200 and r.mimetype == "text/javascript"
    assert r.headers["Cache-Control"] == "no-cache"
    body = r.get_data(as_text=True)
    files = json.loads(re.search(r"const FILES = (\[.*?\]);", body).group(1))
    on_disk = ["/static/" + f for f in static_files(STATIC)]
    assert files == on_disk and "/static/style.css" in files and "/static/icons/icon-512.png" in files
    for f in files:
        assert c.get(f).status_code == 200, f
    assert not any("/api/" in f or "stream" in f for f in files)
    cache = re.search(r'const CACHE = "(rr-static-[0-9a-f]{16})";', body).group(1)
    assert cache == f"rr-static-{static_version(STATIC)}"
    app.extensions["rummy_store"].close()


def test_the_cache_name_follows_the_files_contents(tmp_path):
    folder = tmp_path / "static"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.js").write_text("one")
    (folder / "sub" / "b.css").write_text("two")
    (folder / ".hidden").write_text("x")
    assert static_files(folder) == ["a.js", "sub/b.css"]
    v1 = static_version(folder)
    assert static_version(folder) == v1
    (folder / "a.js").write_text("ONE, longer")
    v2 = static_version(folder)
    assert v2 != v1
    (folder / "c.svg").write_text("<svg/>")
    assert static_version(folder) not in (v1, v2)


def test_csp_stays_strict_and_allows_the_manifest_and_the_worker(tmp_path):
    app = _app(tmp_path)
    c = app.test_client()
    for path in ("/new", "/join", "/sw.js", "/manifest.webmanifest"):
        csp = c.get(path).headers["Content-Security-Policy"]
        parts = dict((p.split()[0], p.split()[1:]) for p in csp.split("; "))
        assert parts["script-src"] == ["'self'"] and parts["style-src"] == ["'self'"], csp
        assert parts["manifest-src"] == ["'self'"] and parts["worker-src"] == ["'self'"], csp
        assert parts["default-src"] == ["'self'"] and "unsafe" not in csp
    app.extensions["rummy_store"].close()


# ---------- themes ----------

def _block(css: str, start: str) -> dict[str, str]:
    i = css.index(start)
    body = css[css.index("{", i + len(start) - 1) + 1: css.index("}", i)]
    return dict((k.strip(), v.strip()) for k, v in (d.split(":", 1) for d in body.split(";") if d.strip()))


def _theme(name: str) -> dict[str, str]:
    dark = _block(CSS, ":root {")
    if name == "dark":
        return dark
    return {**dark, **_block(CSS, ':root[data-theme="light"] {')}


def test_light_theme_chosen_and_like_the_device_are_the_same():
    chosen = _block(CSS, ':root[data-theme="light"] {')
    auto = _block(CSS, ':root:not([data-theme="dark"]) {')
    assert chosen == auto and len(chosen) > 20
    assert "@media (prefers-color-scheme: light)" in CSS


def _lum(hexcol: str) -> float:
    h = hexcol.lstrip("#")
    if len(h) in (3, 4):
        h = "".join(c * 2 for c in h)
    rgb = [int(h[i: i + 2], 16) / 255 for i in (0, 2, 4)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    la, lb = sorted((_lum(a), _lum(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


# (text, ground) pairs as the stylesheet uses them (the browser test reads the rest from the page, but not over
# the table's gradient: its two ends are here)
PAIRS = [("text", "bg"), ("text", "panel"), ("text", "felt"), ("text", "bar"), ("text", "btn"), ("text", "chip-bg"),
         ("text", "field"), ("muted", "bg"), ("muted", "panel"), ("muted", "felt"), ("muted", "bar"),
         ("gold", "felt"), ("gold", "panel"), ("gold", "champion"), ("ok", "panel"), ("bad", "panel"),
         ("warn", "panel"), ("blue", "panel"), ("blue", "bg"), ("on-undo", "undo"), ("on-fill", "gold-fill"),
         ("on-fill", "warn-fill"), ("reason", "feed-bad"), ("text", "bad-banner"), ("text", "ok-banner"),
         ("text", "hand-over"), ("undo-icon", "panel"), ("text", "undo"), ("text", "table-glow"),
         ("muted", "table-glow"), ("gold", "table-glow"), ("suit-h", "bar"), ("suit-s", "bar")]


@pytest.mark.parametrize("name", ["light", "dark"])
def test_theme_text_meets_wcag_aa(name):
    v = _theme(name)
    low = {f"{a} on {b}": round(contrast(v[f"--{a}"], v[f"--{b}"]), 2) for a, b in PAIRS
           if contrast(v[f"--{a}"], v[f"--{b}"]) < 4.5}
    assert not low, low
