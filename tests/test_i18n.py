"""The dashboard's languages (issue 13, "Languages"): the catalogues are complete and compiled, every refusal
code has its message in all five languages, and the API gives the device's language beside the engine's
unchanged code and message."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
from flask_babel import force_locale

from referee import REFUSAL_CODES
from referee.presets import PRESET_SHORT_TITLES, PRESET_TITLES
from web_ui import create_app, i18n_tool, refusals
from web_ui.i18n import LANGUAGES

ROOT = Path(__file__).resolve().parents[1]
TARGETS = [lang for lang in LANGUAGES if lang != "en"]
PLACEHOLDER = re.compile(r"\{\w+\}|%\(\w+\)s|<[^>]+>")


@pytest.fixture
def app(tmp_path):
    return create_app({"DATABASE": str(tmp_path / "i18n.db")})


@pytest.fixture(scope="module")
def template():
    return i18n_tool.extract()


# -- the catalogues ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", TARGETS)
def test_committed_mo_is_compiled_from_its_po(lang):
    """The package ships the .mo files: each one is exactly what its .po compiles to."""
    assert i18n_tool.mo_path(lang).read_bytes() == i18n_tool.mo_bytes(i18n_tool.read(lang)), \
        f"run python -m web_ui.i18n_tool to compile {i18n_tool.mo_path(lang)}"


@pytest.mark.parametrize("lang", TARGETS)
def test_every_string_of_the_sources_is_translated(lang, template):
    """Every msgid extracted from the current templates, scripts and Python has a translation: a string added
    later without one fails here (python -m web_ui.i18n_tool adds it to the .po files, empty)."""
    assert len(template) > 300  # the extraction finds the templates', the scripts' and the Python strings
    missing = i18n_tool.untranslated(lang, template)
    assert not missing, f"{lang}: {len(missing)} untranslated, e.g. {missing[:5]}"


def test_extraction_finds_each_kind_of_source(template):
    where = {loc[0].split("/")[0] for m in template for loc in m.locations}
    assert {"templates", "static", "api.py", "refusals.py"} <= where
    ids = {m.id for m in template}
    assert "Enter a move" in ids  # a template's _()
    assert "{player} took {card} from the discard pile" in ids  # a script's RR.T
    assert "There is nothing to take back." in ids  # a Python gettext
    assert "The player has already drawn a card this turn" in ids  # a refusal message (lazy_gettext)


@pytest.mark.parametrize("lang", TARGETS)
def test_translations_keep_placeholders_and_tags(lang):
    cat = i18n_tool.read(lang)
    for m in cat:
        if not m.id:
            continue
        ids = (m.id,) if isinstance(m.id, str) else m.id
        strings = (m.string,) if isinstance(m.string, str) else m.string
        want = sorted(PLACEHOLDER.findall(ids[-1]))
        for s in strings:
            assert sorted(PLACEHOLDER.findall(s)) == want, f"{lang}: {m.id!r} -> {s!r}"


def test_the_preset_names_are_the_engines(app):
    """The dashboard's translatable copies of the presets' names are the engine's English names."""
    from web_ui.pages import RULE_NAMES, SHORT_NAMES

    with app.test_request_context(headers={"Accept-Language": "en"}):
        assert {k: str(v) for k, v in RULE_NAMES.items()} == PRESET_TITLES
        assert {k: str(v) for k, v in SHORT_NAMES.items()} == PRESET_SHORT_TITLES
    with app.test_request_context(headers={"Accept-Language": "it"}):
        assert str(RULE_NAMES["basic"]) == "Rummy Base (cardgames.io)"


# -- refusal codes -------------------------------------------------------------------------------------------
# the calls that refuse with a literal code: (name, index of the code argument) for referee/ and web_ui/
CODE_ARG = {"referee": {"Refusal": 0, "SetupError": 0, "StrictJSONError": 0, "RefereeError": 0, "Verdict": 1},
            "web_ui": {"StrictJSONError": 0, "Refusal": 1, "_err": 1}}


def raised_codes() -> dict[str, str]:
    """Every refusal code in the sources: the engine's REFUSAL_CODES, and each literal code given to a refusal
    (referee's Refusal/SetupError/StrictJSONError/Verdict, web_ui's _err and security.Refusal), a
    ``code=`` keyword or a ``"code":`` key of a dict, in referee/ and web_ui/. Code → where."""
    found = {c: "referee.REFUSAL_CODES" for c in REFUSAL_CODES}
    for pkg, calls in CODE_ARG.items():
        for path in sorted((ROOT / pkg).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            rel = path.relative_to(ROOT)
            where = lambda node, rel=rel: f"{rel}:{node.lineno}"  # noqa: E731
            for node in ast.walk(tree):
                if isinstance(node, ast.Call):
                    f = node.func
                    name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
                    i = calls.get(name)
                    if i is not None and len(node.args) > i and isinstance(node.args[i], ast.Constant) \
                            and isinstance(node.args[i].value, str):
                        found.setdefault(node.args[i].value, where(node))
                    for kw in node.keywords:
                        if kw.arg == "code" and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
                            found.setdefault(kw.value.value, where(node))
                elif isinstance(node, ast.Dict):
                    for k, v in zip(node.keys, node.values, strict=True):
                        if isinstance(k, ast.Constant) and k.value == "code" and isinstance(v, ast.Constant) \
                                and isinstance(v.value, str):
                            found.setdefault(v.value, where(node))
    return found


def test_the_enumeration_finds_the_known_kinds_of_code():
    codes = raised_codes()
    assert set(REFUSAL_CODES) <= set(codes)
    for code in ("bad_option", "unknown_rules", "bad_player_count",  # SetupError
                 "bad_dealer", "bad_name", "bad_setup",  # strict_json
                 "nothing_to_undo", "csrf", "pin_required", "bad_photo", "no_match"):  # the dashboard's
        assert code in codes, code


def test_every_refusal_code_has_a_message_in_all_five_languages(app):
    codes = raised_codes()
    missing = {c: w for c, w in codes.items() if c not in refusals.MESSAGES}
    assert not missing, f"refusal codes without a message in web_ui/refusals.py: {missing}"
    with app.test_request_context():
        with force_locale("en"):
            english = {c: str(refusals.MESSAGES[c]) for c in codes}
        assert all(english.values())
        for lang in TARGETS:
            with force_locale(lang):
                for code in codes:
                    text = str(refusals.MESSAGES[code])
                    assert text.strip(), (lang, code)
                    assert text != english[code], f"{lang}: {code} is not translated ({text!r})"


def test_the_script_table_has_every_code_in_its_language(app):
    c = app.test_client()
    js = c.get("/i18n/ro.js").get_data(as_text=True)
    table = json.loads(js.split("window.RR_REFUSALS = ", 1)[1].rstrip().rstrip(";"))
    assert set(table) == set(refusals.MESSAGES)
    assert table["already_drawn"] == "Jucătorul a tras deja o carte în această tură"
    cat = json.loads(js.split("window.RR_CATALOG = ", 1)[1].split(";\n", 1)[0])
    assert cat["Discard"] == "Decartează"  # the move, not the pile of the template's pgettext("the pile", ...)
    en = c.get("/i18n/en.js").get_data(as_text=True)
    assert "window.RR_REFUSALS = {};" in en and "window.RR_CATALOG = {};" in en


def test_rule_numbers_are_read_from_the_engines_message():
    assert refusals.rule_refs("x (rule C-3.1)") == "C-3.1"
    assert refusals.rule_refs("a meld needs 3 cards (rule C-4.1/C-4.2)", "C-4.1") == "C-4.1/C-4.2"
    assert refusals.rule_refs("sets differ (rule C-4.1, R500-3)") == "C-4.1, R500-3"
    assert refusals.rule_refs("no rule here", "SOL-3") == "SOL-3"
    assert refusals.rule_refs(None) == ""


# -- the API -------------------------------------------------------------------------------------------------
def _match(c) -> str:
    r = c.post("/api/matches", json={"type": "match", "rules": "basic", "players": ["Ana", "Ben", "Cleo"]})
    assert r.status_code == 201, r.get_json()
    return r.get_json()["id"]


def test_a_refused_event_asked_in_romanian_gets_romanian_text_and_the_same_code(app):
    c = app.test_client()
    mid = _match(c)
    ev = {"type": "draw", "player": "Ben", "from": "stock"}  # no hand dealt yet
    plain = c.post(f"/api/matches/{mid}/events", json=ev)
    ro = c.post(f"/api/matches/{mid}/events", json=ev, headers={"Accept-Language": "ro-RO,ro;q=0.9,en;q=0.5"})
    assert plain.status_code == ro.status_code == 422
    p, r = plain.get_json(), ro.get_json()
    assert "message_local" not in p  # English: the engine's own detailed message
    assert r["code"] == p["code"] == "no_hand_in_progress" and r["message"] == p["message"] and r["rule"] == p["rule"]
    assert r["message_local"] == "Nu se joacă nicio rundă: mai întâi împărțiți cărțile (regula C-2)"


def test_the_cookie_chooses_the_language_over_the_browser(app):
    c = app.test_client()
    mid = _match(c)
    assert c.post(f"/api/matches/{mid}/events", json={"type": "deal", "dealer": "Ana", "upcard": "5H"}).status_code == 200
    c.set_cookie("rr_lang", "it")
    r = c.post(f"/api/matches/{mid}/events", json={"type": "draw", "player": "Cleo", "from": "stock"},
               headers={"Accept-Language": "pt"}).get_json()
    assert r["code"] == "not_your_turn"
    assert r["message_local"].startswith("Non è il turno di questo giocatore (regola ")
    assert "Ben" in r["message"]  # the engine's English detail is kept as it was
    c.set_cookie("rr_lang", "xx")  # not a language of the dashboard: the browser's choice again
    r = c.post(f"/api/matches/{mid}/events", json={"type": "draw", "player": "Cleo", "from": "stock"},
               headers={"Accept-Language": "pt"}).get_json()
    assert r["message_local"].startswith("Não é a vez deste jogador")


def test_setup_and_body_refusals_get_local_text(app):
    c = app.test_client()
    h = {"Accept-Language": "sr"}
    r = c.post("/api/matches", json={"type": "match", "rules": "nope", "players": ["Ana", "Ben"]}, headers=h)
    assert r.status_code == 422 and r.get_json()["code"] == "unknown_rules"
    assert r.get_json()["message_local"] == "Ova pravila nisu poznata: izaberite neka od ponuđenih"
    r = c.post("/api/matches", data=b"{nope", content_type="application/json", headers=h)
    assert r.status_code == 400 and r.get_json()["code"] == "bad_json"
    assert r.get_json()["message_local"] == "Ovo nije ispravan JSON"
    # the dashboard's own messages are written in the request's language where they are raised
    r = c.post("/api/matches", data=b"", content_type="application/json", headers=h)
    assert r.get_json()["code"] == "empty_body" and r.get_json()["message"] == "Zahtev nema telo: pošaljite JSON objekat."


def test_an_import_lists_its_refused_lines_in_the_language(app):
    c = app.test_client()
    log = "\n".join([json.dumps({"type": "match", "rules": "basic", "players": ["Ana", "Ben"]}),
                     json.dumps({"type": "draw", "player": "Ana", "from": "stock"}), "{not json"]) + "\n"
    r = c.post("/api/matches/import", data=log.encode(), content_type="application/x-ndjson",
               headers={"Accept-Language": "pt-BR"})
    assert r.status_code == 201
    refused = r.get_json()["refused"]
    assert [x["code"] for x in refused] == ["no_hand_in_progress", "bad_json"]
    assert refused[0]["message_local"].startswith("Nenhuma mão está em jogo")
    assert refused[1]["message_local"] == "Isto não é um JSON válido"


def test_pages_are_in_the_device_language(app):
    c = app.test_client()
    c.set_cookie("rr_lang", "ro")
    page = c.get("/new").get_data(as_text=True)
    assert '<html lang="ro">' in page and "Partidă nouă" in page and "Începe partida" in page
    assert '<script src="/i18n/ro.js">' in page
    r = c.get("/m/nope")
    assert r.status_code == 404 and "Nu există o asemenea partidă." in r.get_data(as_text=True)
    assert "Remi de bază (cardgames.io)" in page
    c.set_cookie("rr_lang", "sr")  # Serbian in Latin script, as the rule text is: the page says so
    page = c.get("/matches").get_data(as_text=True)
    assert '<html lang="sr-Latn">' in page and "Partije" in page and '<script src="/i18n/sr.js">' in page
    other = create_app({"DATABASE": app.config["DATABASE"] + "2"}).test_client()  # another device: English
    assert '<html lang="en">' in other.get("/new").get_data(as_text=True)


def test_the_picker_sets_the_cookie_and_sends_the_device_back(app):
    c = app.test_client()
    r = c.get("/lang/ro?next=/matches%3Fx%3D1")
    assert r.status_code == 303 and r.headers["Location"] == "/matches?x=1"
    assert "rr_lang=ro" in r.headers["Set-Cookie"] and "SameSite=Strict" in r.headers["Set-Cookie"]
    assert '<html lang="ro">' in c.get("/new").get_data(as_text=True)  # the cookie is kept: the pages follow
    for bad in ("https://evil.example/", "//evil.example/", "/\\evil.example", ""):  # nowhere but this site
        r = c.get("/lang/pt", query_string={"next": bad})
        assert r.status_code == 303 and r.headers["Location"] == "/"
    r = c.get("/lang/xx?next=/new")
    assert r.status_code == 404 and "unknown language 'xx'" in r.get_data(as_text=True)
    assert "Set-Cookie" not in r.headers
    assert '<html lang="pt">' in c.get("/new").get_data(as_text=True)  # the refused choice changed nothing


def test_the_tool_reports_a_clean_state(capsys):
    assert i18n_tool.main(["--check"]) == 0
    assert "all translated" in capsys.readouterr().out


def test_the_engines_notes_are_known_to_the_scripts():
    """The notes of a hand are the engine's English sentences; words.js (Words.note) matches each one whole to
    translate it. Every literal part of each note the engine writes is in words.js, so a reworded note in
    referee/ fails here instead of silently staying English."""
    words = (ROOT / "web_ui" / "static" / "words.js").read_text(encoding="utf-8")
    notes = []
    for path in sorted((ROOT / "referee").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "append" \
                    and isinstance(node.func.value, ast.Attribute) and node.func.value.attr == "notes":
                notes.append(node.args[0])
            elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "warnings" for t in node.targets) \
                    and isinstance(node.value, ast.Tuple):
                notes.extend(node.value.elts)
    assert len(notes) >= 6
    for n in notes:
        parts = [v.value for v in (n.values if isinstance(n, ast.JoinedStr) else [n])
                 if isinstance(v, ast.Constant) and isinstance(v.value, str)]
        for part in parts:
            if len(part.strip()) > 3:
                assert part.replace("(", "\\(").replace(")", "\\)") in words or part in words, \
                    f"the engine's note part {part!r} is not in words.js"


def test_the_catalogue_script_is_revalidated_not_sent_again(app):
    c = app.test_client()
    first = c.get("/i18n/it.js")
    assert first.status_code == 200 and first.headers["Cache-Control"] == "no-cache" and first.headers.get("ETag")
    again = c.get("/i18n/it.js", headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and not again.get_data()
    assert c.get("/i18n/xx.js").get_data(as_text=True).startswith('window.RR_LANG = "en";')  # unknown: English
