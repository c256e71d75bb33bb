"""The dashboard's message catalogues: extract, update, compile, check.

    python -m web_ui.i18n_tool            # extract messages.pot, update the .po files, compile the .mo files
    python -m web_ui.i18n_tool --check    # exit 1 if a msgid has no translation or a .mo is out of date

What is extracted (``web_ui/babel.cfg``): ``_()`` / ``gettext`` / ``ngettext`` / ``lazy_gettext`` in
``web_ui/*.py`` and ``web_ui/templates/*.html``, ``RR.T("…")`` in ``web_ui/static/*.js``.  The catalogue
is ``web_ui/translations/messages.pot`` (not committed: it is made again from the sources), one
``<lang>/LC_MESSAGES/messages.po`` per language of ``i18n.LANGUAGES`` but English (the source language),
compiled to ``messages.mo`` next to it (the package ships the .mo files; both are committed).

A new string is added to every .po with an empty translation (no fuzzy guesses: a translator writes it);
``--check`` and ``tests/test_i18n.py`` fail until each language has it.  Strings gone from the sources
leave the .po files.  Line numbers are not written (the files change only when the strings do).
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from .i18n import DEFAULT, LANGUAGES, TRANSLATIONS

ROOT = Path(__file__).resolve().parent
CONFIG = ROOT / "babel.cfg"
POT = TRANSLATIONS / "messages.pot"
KEYWORDS = dict(DEFAULT_KEYWORDS, lazy_gettext=None, T=None)
TARGETS = [lang for lang in LANGUAGES if lang != DEFAULT]
PROJECT = "rummy-referee"
VERSION = "0.1.0"
WIDTH = 110
SCRIPT_NAMES = {"ro": "Romanian", "pt": "Portuguese", "it": "Italian", "sr": "Serbian, Latin script"}
HEADER = ("# {name} ({english}): the Rummy Referee dashboard's strings.\n"
          "# Made and kept in line with the sources by `python -m web_ui.i18n_tool`: translate each empty msgstr,\n"
          "# keep %(name)s and {{name}} placeholders and rule numbers as they are, then run the tool again.\n#")


def extract() -> Catalog:
    """Every msgid of the current sources (a fresh template catalogue, in memory)."""
    with CONFIG.open(encoding="utf-8") as f:
        method_map, options_map = parse_mapping_cfg(f, str(CONFIG))
    cat = Catalog(project=PROJECT, msgid_bugs_address=None, charset="utf-8", fuzzy=False)
    for filename, lineno, message, comments, context in extract_from_dir(
            str(ROOT), method_map, options_map, keywords=KEYWORDS, comment_tags=("TRANSLATORS:",),
            strip_comment_tags=True):
        cat.add(message, None, [(filename, lineno)], auto_comments=comments, context=context)
    return cat


def po_path(lang: str) -> Path:
    return TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po"


def mo_path(lang: str) -> Path:
    return TRANSLATIONS / lang / "LC_MESSAGES" / "messages.mo"


def read(lang: str) -> Catalog:
    with po_path(lang).open("rb") as f:
        return read_po(f, locale=lang)


def po_bytes(cat: Catalog) -> bytes:
    buf = io.BytesIO()
    write_po(buf, cat, width=WIDTH, include_lineno=False, ignore_obsolete=True, sort_output=True)
    return buf.getvalue()


def mo_bytes(cat: Catalog) -> bytes:
    buf = io.BytesIO()
    write_mo(buf, cat, use_fuzzy=False)
    return buf.getvalue()


def _same_but_dates(a: bytes, b: bytes) -> bool:
    strip = (b'"POT-Creation-Date:', b'"PO-Revision-Date:')
    keep = lambda data: [ln for ln in data.splitlines() if not ln.startswith(strip)]  # noqa: E731
    return keep(a) == keep(b)


def _write_if_changed(path: Path, data: bytes) -> bool:
    if path.is_file() and _same_but_dates(path.read_bytes(), data):
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return True


def update(template: Catalog) -> list[str]:
    """Write messages.pot and bring each language's .po in line with it. Returns the files written."""
    written = []
    if _write_if_changed(POT, po_bytes(template)):
        written.append(str(POT))
    for lang in TARGETS:
        path = po_path(lang)
        if path.is_file():
            cat = read(lang)
            cat.update(template, no_fuzzy_matching=True, update_header_comment=False)
        else:
            cat = Catalog(locale=lang, project=PROJECT, version=VERSION, charset="utf-8", fuzzy=False,
                          header_comment=HEADER.format(name=LANGUAGES[lang], english=SCRIPT_NAMES.get(lang, lang)),
                          copyright_holder="the Rummy Referee authors", language_team=LANGUAGES[lang],
                          last_translator="the Rummy Referee authors")
            cat.update(template, no_fuzzy_matching=True)
        if _write_if_changed(path, po_bytes(cat)):
            written.append(str(path))
    return written


def compile_all() -> list[str]:
    written = []
    for lang in TARGETS:
        if po_path(lang).is_file() and _write_if_changed(mo_path(lang), mo_bytes(read(lang))):
            written.append(str(mo_path(lang)))
    return written


def untranslated(lang: str, template: Catalog | None = None) -> list[str]:
    """The msgids of the sources that `lang` has no (non-fuzzy, non-empty) translation for."""
    template = template or extract()
    cat = read(lang) if po_path(lang).is_file() else Catalog(locale=lang)
    out = []
    for m in template:
        if not m.id:
            continue
        have = cat.get(m.id, context=m.context)
        strings = have.string if have is not None else None
        if isinstance(strings, tuple | list):
            ok = all(s and s.strip() for s in strings)
        else:
            ok = bool(strings and strings.strip())
        if have is None or have.fuzzy or not ok:
            out.append(m.id if isinstance(m.id, str) else m.id[0])
    return out


def stale_mo(lang: str) -> bool:
    """True when the committed .mo is not what its .po compiles to."""
    return not mo_path(lang).is_file() or mo_path(lang).read_bytes() != mo_bytes(read(lang))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m web_ui.i18n_tool", description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="report untranslated strings and stale .mo files")
    args = ap.parse_args(argv)
    template = extract()
    if args.check:
        bad = 0
        for lang in TARGETS:
            missing = untranslated(lang, template)
            for mid in missing:
                print(f"{lang}: untranslated: {mid!r}")
            if stale_mo(lang):
                print(f"{lang}: {mo_path(lang)} is not compiled from its .po")
                bad += 1
            bad += len(missing)
        print(f"{len(template)} strings, {len(TARGETS)} languages: " + ("all translated" if not bad else f"{bad} problems"))
        return 1 if bad else 0
    for path in update(template) + compile_all():
        print("wrote", path)
    for lang in TARGETS:
        n = len(untranslated(lang, template))
        if n:
            print(f"{lang}: {n} strings to translate in {po_path(lang)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
