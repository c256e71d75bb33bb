"""The dashboard's languages: Flask-Babel catalogues in web_ui/translations/<lang>/LC_MESSAGES/.

One catalogue a language serves the templates (``{{ _("...") }}``), the Python messages shown to players
(``gettext``) and the page scripts: ``/i18n/<lang>.js`` sets ``window.RR_CATALOG`` (English source text →
translation) before ``common.js``, whose ``RR.T(text, params)`` looks a string up and fills ``{name}``
placeholders.  English is the source language: its catalogue is empty and every string stands as written.

The language is chosen per device: the ``rr_lang`` cookie (set by the picker in the top bar), else the
browser's Accept-Language, else English.  Refusal codes stay the engine's; only their text is translated.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from babel.messages.mofile import read_mo
from flask import Blueprint, Flask, Response, redirect, request
from flask_babel import Babel, get_locale

TRANSLATIONS = Path(__file__).with_name("translations")
LANGUAGES = {"en": "English", "ro": "Română", "pt": "Português", "it": "Italiano", "sr": "Srpski"}
DEFAULT = "en"
# the page's <html lang>: the Serbian catalogue is in Latin script (the rule text's), which "sr" alone does not say
HTML_LANG = {"sr": "sr-Latn"}
COOKIE = "rr_lang"
COOKIE_AGE = 3600 * 24 * 730  # two years: a tablet at the table keeps its language

bp = Blueprint("i18n", __name__)


def pick_language() -> str:
    """The device's language: its cookie, else the browser's preference, else English."""
    chosen = request.cookies.get(COOKIE)
    if chosen in LANGUAGES:
        return chosen
    return request.accept_languages.best_match(list(LANGUAGES)) or DEFAULT


def current_language() -> str:
    loc = get_locale()
    return loc.language if loc is not None and loc.language in LANGUAGES else DEFAULT


@cache
def catalogue(lang: str) -> dict[str, str]:
    """msgid → msgstr of one language's compiled catalogue (empty for English or a missing file)."""
    mo = TRANSLATIONS / lang / "LC_MESSAGES" / "messages.mo"
    if lang == DEFAULT or not mo.is_file():
        return {}
    with mo.open("rb") as f:
        cat = read_mo(f)
    out = {}
    for m in cat:  # the scripts look strings up without a context: a pgettext entry is the templates' own
        if m.id and m.string and not m.context and isinstance(m.id, str) and isinstance(m.string, str):
            out[m.id] = m.string
    return out


@bp.get("/i18n/<lang>.js")
def script(lang: str):
    if lang not in LANGUAGES:
        lang = DEFAULT
    from . import refusals

    cat = json.dumps(catalogue(lang), ensure_ascii=False, sort_keys=True)
    refused = json.dumps(refusals.table(lang), ensure_ascii=False, sort_keys=True)
    body = f"window.RR_LANG = {json.dumps(lang)};\nwindow.RR_CATALOG = {cat};\nwindow.RR_REFUSALS = {refused};\n"
    resp = Response(body, mimetype="text/javascript")
    resp.headers["Cache-Control"] = "no-cache"  # asked again each time, but a 304 while it is the same
    resp.add_etag()
    return resp.make_conditional(request)


def _same_site_path(target: str | None) -> str:
    """Where to go back to after the language is chosen: a path of this site, else the start page."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    return target


@bp.get("/lang/<lang>")
def choose(lang: str):
    """The picker's choice: the cookie is set by this response and the browser is sent back (``?next=``).

    Set by the server, not by the page's script before a reload: a cookie written with ``document.cookie``
    reaches Chromium's network service on its own, and a reload started at once could go out without it
    (the page came back in the old language, once in CI). A cookie from a response is stored before its
    redirect is followed."""
    if lang not in LANGUAGES:
        return Response(f"unknown language {lang!r}: one of {', '.join(LANGUAGES)}", status=404, mimetype="text/plain")
    resp = redirect(_same_site_path(request.args.get("next")), code=303)
    resp.set_cookie(COOKIE, lang, max_age=COOKIE_AGE, path="/", samesite="Strict")
    resp.headers["Cache-Control"] = "no-store"
    return resp


def init_app(app: Flask) -> None:
    app.config.setdefault("BABEL_DEFAULT_LOCALE", DEFAULT)
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", str(TRANSLATIONS))
    Babel(app, locale_selector=pick_language)
    app.register_blueprint(bp)
    from . import refusals

    refusals.init_app(app)  # message_local beside the engine's message in the API's refusals

    @app.context_processor
    def _lang_ctx():
        lang = current_language()
        return {"lang": lang, "html_lang": HTML_LANG.get(lang, lang), "languages": LANGUAGES}
