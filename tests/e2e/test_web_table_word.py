"""The table's word in a real browser (issue 12): the camera's question at the top of the live screen, large,
with its picture of the card; the players correct it with the card picker and the match follows."""

from __future__ import annotations

import json

import pytest

from tests.conftest import running_server
from tests.e2e.test_web_layout import SIZES, _new_match, _no_side_scroll, _not_covered
from tests.test_table_word import LAYOUT, Source, Unsure
from vision.layout import Layout
from vision.pipeline import Pipeline
from web_ui.camera import MatchReferee

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("size", ["landscape", "phone"])
def test_the_camera_asks_and_the_table_corrects(size, tmp_path, browser, shot):
    with running_server({"DATABASE": str(tmp_path / "w.db")}) as (base, app):
        live = app.extensions["rummy_live"]
        det = Unsure()
        pipe = Pipeline(Source, Layout.from_dict(LAYOUT), MatchReferee(live), "Ana", detector=det, fps=20.0,
                        motion_gate=False, max_rate=0)
        # no service worker: it would fetch the camera's stream itself, past the route below
        ctx = browser.new_context(viewport=SIZES[size], service_workers="block")
        try:
            page = ctx.new_page()
            # the camera's video is an endless stream: not needed here, and a browser closing on an open stream
            # can hang the test's end (the questions and their pictures are plain requests)
            page.route("**/camera.mjpg", lambda route: route.abort())
            page.goto(base + "/new")
            mid = _new_match(page, base, {"type": "match", "rules": "basic", "players": ["Ana", "Ben", "Cleo"],
                                          "dealer": "Ana"})
            live.attach(pipe)
            pipe.start()
            page.goto(f"{base}/m/{mid}")
            page.wait_for_selector('body[data-version="1"]', state="attached", timeout=20_000)  # the camera dealt
            det.second = True
            q = page.locator("#proposals .proposal")
            q.wait_for(state="visible", timeout=20_000)
            # at the top of the screen, above the scores, readable from across the table
            box, scores = q.bounding_box(), page.locator("#scoreboard").bounding_box()
            assert box["y"] < scores["y"]
            size_px = page.evaluate("parseFloat(getComputedStyle(document.querySelector('#proposals .ptext')).fontSize)")
            assert size_px >= 28, size_px
            page.wait_for_selector("#proposals img.pcrop", timeout=10_000)
            natural = page.locator("#proposals img.pcrop").evaluate("i => new Promise(r => i.complete ? r(i.naturalWidth)"
                                                                    " : i.addEventListener('load', () => r(i.naturalWidth)))")
            assert natural > 0
            assert "KD" in q.inner_text() or "K♦" in q.inner_text() or "K♠" in q.inner_text()
            _no_side_scroll(page)
            _not_covered(page, '#proposals [data-answer="confirm"]')
            shot(page, f"table-word-{size}", full_page=False)
            # "Correct it": the picker, the card as it is, Send
            page.click('#proposals [data-answer="correct"]')
            page.click('#proposals .rank-btn[data-rank="Q"]')
            page.click('#proposals .suit-btn[data-suit="S"]')
            page.locator('#proposals [data-answer="send-fix"]').scroll_into_view_if_needed()
            _not_covered(page, '#proposals [data-answer="send-fix"]')
            page.click('#proposals [data-answer="send-fix"]')
            page.wait_for_selector('body[data-version="3"]', state="attached", timeout=10_000)  # draw + discard
            page.wait_for_selector("#proposals", state="hidden", timeout=10_000)
            assert page.locator("#discard-top .card").get_attribute("data-card") == "QS"
            st = json.loads(page.request.get(f"{base}/api/matches/{mid}").text())
            assert st["current"]["discard"] == ["5C", "QS"]
        finally:
            ctx.close()
            pipe.stop()
