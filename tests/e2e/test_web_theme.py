"""Issue 13, the table's second screen, in a real browser at tablet (1180×820, 820×1180) and phone (390×844)
sizes: the light and dark themes (like the device, or chosen in the Display menu, before the first paint;
text contrast WCAG AA), big numbers, the chart at 60 hands (hand numbers that do not overlap, equal lines
both visible, end labels clear of the target's), the Join page with a QR code that reads back as the
address, and the service worker (the static files from this device's copy once the server is gone)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.e2e.test_web_e2e import wait_version
from tests.e2e.test_web_layout import SIZES, _no_side_scroll, _not_covered, _on_screen

pytestmark = pytest.mark.slow

PLAYERS = ["Ana", "Ben", "Cleo"]


def _token(page) -> str:
    return page.locator('meta[name="csrf-token"]').get_attribute("content")


def _post(page, url: str, body: dict) -> dict:
    r = page.request.post(url, data=json.dumps(body), headers={"Content-Type": "application/json",
                                                               "X-CSRF-Token": _token(page)})
    assert r.status in (200, 201), r.text()
    return r.json()


def _match(page, base: str, hands: list[tuple[str, int]], target: int | None = None) -> str:
    """A Classic match (the winner of a hand scores the others' cards) of Ana, Ben and Cleo: each hand's
    winner and what they score."""
    page.goto(base + "/new")
    setup = {"type": "match", "rules": "classic", "players": PLAYERS, "dealer": "Ana"}
    if target:
        setup["options"] = {"target": target}
    mid = _post(page, base + "/api/matches", setup)["id"]
    dealer = "Ana"
    for winner, gain in hands:
        losers = [p for p in PLAYERS if p != winner]
        pts = {winner: 0, losers[0]: gain // 2, losers[1]: gain - gain // 2}
        _post(page, f"{base}/api/matches/{mid}/events",
              {"type": "hand_result", "dealer": dealer, "winner": winner, "points": pts})
        dealer = page.request.get(f"{base}/api/matches/{mid}").json()["next_dealer"]
    return mid


def _context(browser, size: str, scheme: str = "dark"):
    return browser.new_context(viewport=SIZES[size], color_scheme=scheme)


def _open_match(page, base: str, mid: str, hands: int) -> None:
    page.goto(f"{base}/m/{mid}")
    wait_version(page, hands)


def _reveal(page, selector: str) -> None:
    """A top-bar control: in the bar on a wide screen, behind ☰ on a narrower one."""
    if not page.locator(selector).is_visible() and page.locator("#menu-btn").is_visible():
        page.click("#menu-btn")
        page.locator(selector).wait_for(state="visible")
    _on_screen(page, selector)
    _not_covered(page, selector)


def _display(page, theme: str | None = None, big: bool | None = None) -> None:
    """Choose in the Display menu of the top bar, then close it."""
    _reveal(page, "#display-btn")
    _not_covered(page, "#display-btn")
    page.click("#display-btn")
    page.wait_for_selector("#display-menu:not([hidden])")
    _on_screen(page, "#display-menu")
    _no_side_scroll(page)
    if theme:
        page.check(f'#display-menu input[name="rr-theme"][value="{theme}"]')
    if big is not None:
        page.set_checked("#big-toggle", big)
    page.keyboard.press("Escape")
    page.wait_for_selector("#display-menu", state="hidden")


def _bg(page) -> str:
    return page.evaluate("getComputedStyle(document.body).backgroundColor")


# every visible text of the page: its colour against the ground it is drawn on (the backgrounds above it,
# composited), and the WCAG contrast; large text (24 px, or 18.66 px bold) needs 3, the rest 4.5
CONTRAST_JS = """(skip) => {
  const parse = (c) => { const m = c.match(/rgba?\\(([^)]+)\\)/); if (!m) return [0, 0, 0, 0];
    const v = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number); return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1]; };
  const over = (top, under) => { const a = top[3] + under[3] * (1 - top[3]); if (!a) return [0, 0, 0, 0];
    return [0, 1, 2].map((k) => (top[k] * top[3] + under[k] * under[3] * (1 - top[3])) / a).concat([a]); };
  const ground = (el) => { const layers = []; for (let e = el; e; e = e.parentElement) {
      const s = getComputedStyle(e); if (s.backgroundImage !== "none" && e !== document.documentElement) return null;
      layers.push(parse(s.backgroundColor)); }
    let c = [255, 255, 255, 1]; for (const l of layers.reverse()) c = over(l, c); return c; };
  const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const seen = new Set();
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!n.textContent.trim() || seen.has(el) || el.closest(skip)) continue;
    seen.add(el);
    const r = el.getBoundingClientRect(), s = getComputedStyle(el);
    if (!r.width || !r.height || s.visibility === "hidden" || Number(s.opacity) < 1 || el.closest("[hidden]")) continue;
    const g = ground(el); if (!g) continue;
    const fg = over(parse(s.color), g);
    const L1 = lum(fg), L2 = lum(g), ratio = (Math.max(L1, L2) + 0.05) / (Math.min(L1, L2) + 0.05);
    const px = parseFloat(s.fontSize), bold = Number(s.fontWeight) >= 700;
    const need = px >= 24 || (bold && px >= 18.66) ? 3 : 4.5;
    if (ratio < need) out.push(`${el.tagName.toLowerCase()}.${el.className} "${n.textContent.trim().slice(0, 30)}" ${ratio.toFixed(2)} < ${need}`);
  }
  return out;
}"""
SKIP = ".chart, .card, .pick, .swatch, .camera-box, option, :disabled, .sr-only"


@pytest.mark.parametrize("size", list(SIZES))
def test_themes_follow_the_device_and_the_choice_is_kept_before_the_first_paint(size, server, browser, shot):
    base, _app = server
    dark_ctx = _context(browser, size, "dark")
    page = dark_ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    mid = _match(page, base, [("Ben", 42)])
    _open_match(page, base, mid, 1)
    assert page.evaluate("document.documentElement.dataset.theme") is None  # like the device: dark
    dark_bg = _bg(page)
    assert dark_bg == "rgb(11, 31, 23)"
    light_page = _context(browser, size, "light").new_page()
    _open_match(light_page, base, mid, 1)
    assert _bg(light_page) == "rgb(238, 243, 239)"  # the device prefers light: the light theme
    light_page.context.close()

    # chosen in the Display menu: kept on this device, applied before the body is drawn
    _display(page, theme="light")
    assert page.evaluate("document.documentElement.dataset.theme") == "light" and _bg(page) == "rgb(238, 243, 239)"
    assert page.evaluate("localStorage.getItem('rr-theme')") == "light"
    assert page.locator('meta[name="theme-color"]').get_attribute("content") == "#dfe9e2"
    page.add_init_script("""new MutationObserver((ms, o) => { if (document.body) {
        window.__themeAtBody = document.documentElement.dataset.theme || 'none'; o.disconnect(); } })
      .observe(document, { childList: true, subtree: true });""")
    _open_match(page, base, mid, 1)
    assert page.evaluate("window.__themeAtBody") == "light"
    _no_side_scroll(page)
    shot(page, f"theme-light-{size}", full_page=False)
    # dark chosen on a light device
    other = _context(browser, size, "light").new_page()
    _open_match(other, base, mid, 1)
    _display(other, theme="dark")
    assert _bg(other) == dark_bg
    _display(other, theme="auto")
    assert other.evaluate("localStorage.getItem('rr-theme')") is None and _bg(other) != dark_bg
    other.context.close()
    page.context.close()
    assert not errors, errors


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_text_contrast_meets_wcag_aa(theme, server, browser):
    base, _app = server
    for size in ("landscape", "phone"):
        page = _context(browser, size, theme).new_page()
        mid = _match(page, base, [("Ben", 42)])
        for path in (f"/m/{mid}", "/new", "/matches", f"/join?m={mid}"):
            page.goto(base + path)
            page.wait_for_load_state("networkidle")
            assert page.evaluate("getComputedStyle(document.documentElement).colorScheme") == theme
            low = page.evaluate(CONTRAST_JS, SKIP)
            assert not low, f"{theme} {size} {path}: {low}"
        _reveal(page, "#display-btn")
        page.click("#display-btn")
        low = page.evaluate(CONTRAST_JS, SKIP)
        assert not low, f"{theme} {size} Display menu: {low}"
        page.context.close()


def _font(page, sel: str) -> float:
    return page.locator(sel).first.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")


@pytest.mark.parametrize("size", list(SIZES))
def test_big_numbers_double_the_totals_and_fit(size, server, browser, shot):
    base, _app = server
    page = _context(browser, size).new_page()
    mid = _match(page, base, [("Ana", 123), ("Cleo", 89)])
    _open_match(page, base, mid, 2)
    total, name = _font(page, "#scoreboard .total"), _font(page, "#scoreboard .pname")
    _display(page, big=True)
    assert page.evaluate("document.documentElement.dataset.big") == "1"
    assert _font(page, "#scoreboard .total") >= 2 * total - 0.5, (total, _font(page, "#scoreboard .total"))
    assert _font(page, "#scoreboard .pname") >= 1.35 * name
    _no_side_scroll(page)
    for card in page.locator("#scoreboard .player").all():  # nothing sticks out of its card
        box, t = card.bounding_box(), card.locator(".total").bounding_box()
        assert t["x"] >= box["x"] and t["x"] + t["width"] <= box["x"] + box["width"] + 0.5, (t, box)
        assert card.evaluate("e => e.scrollWidth <= e.clientWidth")
    # the scores come first: at the top of the page, the first player's total is on screen
    page.evaluate("window.scrollTo(0, 0)")
    _on_screen(page, '#scoreboard .player[data-player="Ana"] .total')
    shot(page, f"big-numbers-{size}", full_page=False)
    _open_match(page, base, mid, 2)  # kept on this device
    assert _font(page, "#scoreboard .total") >= 2 * total - 0.5
    _display(page, big=False)
    assert abs(_font(page, "#scoreboard .total") - total) < 0.5
    page.context.close()


def _overlaps(boxes: list[dict], pad: float = 0.0) -> list[tuple[int, int]]:
    out = []
    for i, a in enumerate(boxes):
        for j, b in enumerate(boxes[i + 1:], i + 1):
            if (a["x"] < b["x"] + b["width"] + pad and b["x"] < a["x"] + a["width"] + pad
                    and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"]):
                out.append((i, j))
    return out


def _points(page, player: str) -> list[tuple[float, float]]:
    pts = page.locator(f'#chart polyline.series[data-player="{player}"]').get_attribute("points")
    return [tuple(map(float, p.split(","))) for p in pts.split()]


@pytest.mark.parametrize("size", list(SIZES))
def test_chart_at_sixty_hands_and_equal_lines(size, server, browser, shot):
    base, _app = server
    page = _context(browser, size).new_page()
    # Cleo wins every hand: Ana's and Ben's lines are equal (0) all along
    mid = _match(page, base, [("Cleo", 10)] * 60, target=1000)
    _open_match(page, base, mid, 60)
    page.locator("#chart").scroll_into_view_if_needed()
    ticks = page.locator("#chart text.x-tick")
    boxes = [t.bounding_box() for t in ticks.all()]
    assert 4 <= len(boxes) <= 61
    assert not _overlaps(boxes, pad=4), f"hand numbers overlap: {_overlaps(boxes, 4)}"
    numbers = [int(t) for t in ticks.all_text_contents()]
    step = numbers[1] - numbers[0]
    assert numbers == list(range(0, 61, step)) and step in (1, 2, 5, 10, 20)
    # the text is drawn at its own size (the chart is as wide as its box, not shrunk)
    assert 14 <= ticks.first.evaluate("e => e.getBoundingClientRect().height") <= 26
    # equal lines: both visible, apart by at least a line's width, with their own marker and dash
    ana, ben = _points(page, "Ana"), _points(page, "Ben")
    assert len(ana) == len(ben) == 61
    assert all(abs(a[1] - b[1]) >= 4 for a, b in zip(ana, ben, strict=True))
    style = lambda p: page.locator(f'#chart polyline.series[data-player="{p}"]').get_attribute("stroke-dasharray")  # noqa: E731
    assert style("Ana") != style("Ben")
    shape = lambda p: page.locator(f'#chart .marker[data-player="{p}"]').first.get_attribute("data-shape")  # noqa: E731
    assert len({shape(p) for p in PLAYERS}) == 3
    # the end labels: apart from each other and from the target's label
    labels = [page.locator(f'#chart .series-label[data-player="{p}"]').bounding_box() for p in PLAYERS]
    target = page.locator("#chart .target-label").bounding_box()
    assert not _overlaps(labels + [target]), _overlaps(labels + [target])
    assert not _overlaps(labels + boxes), "an end label covers a hand number"
    svg = page.locator("#chart svg").bounding_box()
    for b in labels + [target] + boxes:
        assert svg["x"] - 0.5 <= b["x"] and b["x"] + b["width"] <= svg["x"] + svg["width"] + 0.5, (b, svg)
    _no_side_scroll(page)
    page.locator("#chart").scroll_into_view_if_needed()
    shot(page, f"chart-60-{size}", full_page=False)
    page.context.close()


@pytest.mark.parametrize("size", list(SIZES))
def test_end_labels_never_cover_the_target_label(size, server, browser):
    base, _app = server
    page = _context(browser, size).new_page()
    # everyone ends right under the target line (148, 148 and 146 of 150)
    mid = _match(page, base, [("Ana", 148), ("Ben", 148), ("Cleo", 146)])
    _open_match(page, base, mid, 3)
    st = page.request.get(f"{base}/api/matches/{mid}").json()
    assert st["target"] and all(st["target"] - 10 <= v < st["target"] for v in st["totals"].values()), st["totals"]
    page.locator("#chart").scroll_into_view_if_needed()
    labels = [page.locator(f'#chart .series-label[data-player="{p}"]').bounding_box() for p in PLAYERS]
    target = page.locator("#chart .target-label").bounding_box()
    ticks = [t.bounding_box() for t in page.locator("#chart text.x-tick").all()]
    assert not _overlaps(labels + [target] + ticks), _overlaps(labels + [target] + ticks)
    # and the window growing or shrinking draws it again at the new width
    before = page.locator("#chart svg").get_attribute("viewBox")
    page.set_viewport_size({"width": SIZES[size]["width"] - 120, "height": SIZES[size]["height"]})
    page.wait_for_timeout(300)
    assert page.locator("#chart svg").get_attribute("viewBox") != before
    _no_side_scroll(page)
    page.context.close()


@pytest.fixture
def lan_server(tmp_path, monkeypatch):
    """As if started with --host 0.0.0.0 --pin 2468 on a computer at 192.168.1.20 (listening on 127.0.0.1)."""
    from tests.conftest import running_server
    from web_ui import join

    monkeypatch.setattr(join, "lan_addresses", lambda: ["192.168.1.20"])
    with running_server({"DATABASE": str(tmp_path / "lan.db"), "PIN": "2468", "LOCAL_ONLY": False,
                         "LISTEN_HOST": "0.0.0.0", "LISTEN_PORT": 5000}) as (url, app):
        yield url, app


@pytest.mark.parametrize("size", list(SIZES))
def test_join_from_the_top_bar_shows_the_address_and_a_qr_code_that_reads_back(size, lan_server, browser, shot):
    import cv2

    base, app = lan_server
    from web_ui.services import get_store

    mid = get_store(app).create_match({"type": "match", "rules": "basic", "players": PLAYERS}, {}).id
    page = _context(browser, size).new_page()
    page.goto(f"{base}/m/{mid}")
    wait_version(page, 0)
    _reveal(page, "#join-btn")
    assert page.locator("#join-btn").get_attribute("title")  # named for a screen reader and on hover
    page.click("#join-btn")
    page.wait_for_selector("#join .join-qr")
    url = f"http://192.168.1.20:5000/m/{mid}"
    assert page.locator("#join .join-url").first.inner_text() == url
    assert page.locator("#join-pin").is_visible()  # changes need the PIN
    _no_side_scroll(page)
    qr = page.locator("#join .join-qr").first
    qr.scroll_into_view_if_needed()
    assert qr.evaluate("e => e.complete && e.naturalWidth > 0")
    box = qr.bounding_box()
    assert box["width"] >= 150 and box["x"] >= 0 and box["x"] + box["width"] <= SIZES[size]["width"]
    png = qr.screenshot()
    img = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_GRAYSCALE)
    text, _pts, _ = cv2.QRCodeDetector().detectAndDecode(img)
    assert text == url
    shot(page, f"join-{size}", full_page=False)
    page.click("text=Back to the match")
    wait_version(page, 0)
    page.context.close()


@pytest.mark.parametrize("size", ["landscape", "phone"])
def test_join_on_localhost_only_says_how_to_open_it(size, server, browser):
    base, _app = server
    page = _context(browser, size).new_page()
    page.goto(base + "/new")
    _reveal(page, "#join-btn")
    page.click("#join-btn")
    page.wait_for_selector("#join-local")
    assert "--host 0.0.0.0 --pin" in page.locator("#join-command").inner_text()
    assert page.locator(".join-qr").count() == 0
    _no_side_scroll(page)
    page.context.close()


LATE = "new Promise((ok) => setTimeout(() => ok('too late'), 8000))"  # a browser-side wait never hangs the test


def test_service_worker_keeps_the_static_files_for_when_the_server_is_gone(tmp_path, browser):
    from tests.conftest import running_server
    page = browser.new_context(viewport=SIZES["landscape"], service_workers="allow").new_page()
    with running_server({"DATABASE": str(tmp_path / "sw.db")}) as (base, app):
        from web_ui.services import get_store

        mid = get_store(app).create_match({"type": "match", "rules": "basic", "players": PLAYERS}, {}).id
        page.goto(f"{base}/m/{mid}")
        wait_version(page, 0)
        scope = page.evaluate(f"Promise.race([navigator.serviceWorker.ready.then((r) => r.scope), {LATE}])")
        assert scope == base + "/"
        page.reload()  # a page opened after the worker is active is controlled by it
        wait_version(page, 0)
        assert page.evaluate("!!navigator.serviceWorker.controller")
        sw = page.request.get(base + "/sw.js").text()
        files = json.loads(sw.split("const FILES = ", 1)[1].split(";", 1)[0])
        cached = page.evaluate("""async () => { const out = [];
            for (const n of await caches.keys()) for (const r of await (await caches.open(n)).keys()) out.push(new URL(r.url).pathname);
            return out.sort(); }""")
        assert cached == sorted(files)
        assert not any(p.startswith("/api/") or "stream" in p or p.startswith("/m/") for p in cached)
    # the server is gone: the static files still come, from this device's copy; the API does not (refused,
    # or no answer on a connection the browser kept open)
    got = page.evaluate(f"""Promise.race([fetch('/static/style.css').then(async (r) => [r.status, (await r.text()).slice(0, 200)],
                                                                  () => ['failed', '']), {LATE}])""")
    assert got[0] == 200 and ":root" in got[1], got
    icon = page.evaluate(f"Promise.race([fetch('/static/icons/icon-192.png').then((r) => r.status, () => 'failed'), {LATE}])")
    assert icon == 200
    api = page.evaluate(f"Promise.race([fetch('/api/matches/{mid}').then(() => 'answered', () => 'failed'), {LATE}])")
    assert api in ("failed", "too late"), api
    page.context.close()
