"""Refusals in the players' language: one player-facing message per refusal code.

The referee (and the vision layer below the dashboard) refuse with a stable ``code`` and a detailed English
``message`` that names the rule, e.g. ``already_drawn`` / "Ana has already drawn this turn (rule C-3.1)".  The
API keeps both exactly as they are (other programs rely on them).  Beside them the dashboard shows, in the
device's language, the message of the code from ``MESSAGES`` below, with the rule numbers that the engine's
message names: "Jucătorul a tras deja o carte în această tură (regula C-3.1)".  In English the engine's own
detailed message is shown.

How the text reaches the screens (the choice, written down):

- **API responses**: when the request's language (``rr_lang`` cookie, else Accept-Language) is not English,
  every JSON refusal ``{ok: false, code, message}`` whose code is in ``MESSAGES`` gets ``"message_local"``
  next to ``message``, and so does each entry of an import's ``refused`` list (an ``after_request`` hook,
  so every route has it, the ones added later too).  ``code`` and ``message`` are unchanged.
- **The live state and its stream** (the feed of refused events): one stream message goes to every screen,
  whatever its language, so the entries carry only ``code`` and ``message``; the page's catalogue script
  ``/i18n/<lang>.js`` sends this table as ``window.RR_REFUSALS`` and ``RR.refusal(entry)`` (common.js) makes
  the same text in the browser (the rule numbers taken from the engine's message the same way).

``MESSAGES`` covers the codes whose ``message`` is English by contract: the referee's ``REFUSAL_CODES``,
its set-up codes (``SetupError``) and the strict JSON codes, and the codes the dashboard passes on from the
layers below it (a photo the enrolment cannot read, a camera without picture...).  The dashboard's own
refusals (PIN, CSRF, an empty body...) are written with ``gettext`` where they are raised, so their
``message`` is already in the request's language; they have an entry here too, for the places that show a
refusal by its code.  ``tests/test_i18n.py`` enumerates every code raised in ``referee/`` and ``web_ui/``
and checks that each has its message in all five languages.
"""

from __future__ import annotations

import re

from flask import Flask, Response, current_app
from flask_babel import force_locale, get_locale, gettext, lazy_gettext

DEFAULT = "en"  # the source language (web_ui/i18n.py chooses the language; this module only reads it)


def current_language() -> str:
    loc = get_locale()
    return loc.language if loc is not None else DEFAULT

# one message per code: a whole sentence, without a final full stop (the rule numbers may follow)
MESSAGES = {
    # -- the referee's refusals of an event (referee.REFUSAL_CODES)
    "bad_json": lazy_gettext("That is not valid JSON"),
    "bad_event": lazy_gettext("This move is incomplete or has a field the referee does not understand"),
    "unknown_event": lazy_gettext("The referee does not know this kind of move"),
    "unknown_player": lazy_gettext("That player is not in this match"),
    "bad_card": lazy_gettext("That is not a card the referee knows (write it like 10H, QS or JK=8S)"),
    "not_your_turn": lazy_gettext("It is not this player's turn"),
    "must_draw_first": lazy_gettext("The player must draw a card first"),
    "already_drawn": lazy_gettext("The player has already drawn a card this turn"),
    "must_discard": lazy_gettext("The player must discard a card to end the turn"),
    "card_not_in_hand": lazy_gettext("That card is not in the player's hand"),
    "duplicate_card": lazy_gettext("That card is already accounted for: the deck has no other copy of it"),
    "joker_undeclared": lazy_gettext("A joker must say which card it stands for (like JK=8S)"),
    "joker_not_allowed": lazy_gettext("This match is played without jokers"),
    "invalid_meld": lazy_gettext("These cards do not make a valid meld"),
    "invalid_layoff": lazy_gettext("These cards cannot be laid off there"),
    "ambiguous_layoff": lazy_gettext("These cards fit more than one meld: say which one"),
    "no_such_meld": lazy_gettext("There is no meld with that number on the table"),
    "layoff_needs_own_meld": lazy_gettext("The player must put down a meld of their own before laying off"),
    "max_melds_per_turn": lazy_gettext("No more melds this turn: these rules allow only so many per turn"),
    "discard_just_taken": lazy_gettext("The card taken from the discard pile cannot be discarded in the same turn"),
    "no_legal_discard": lazy_gettext("That would leave the player no card they may discard"),
    "deep_pickup_not_allowed": lazy_gettext("Only the top card of the discard pile may be taken"),
    "deep_card_unusable": lazy_gettext("That card cannot be used this turn, so it may not be taken from under "
                                       "other cards"),
    "deep_card_unused": lazy_gettext("The card taken from deep in the discard pile must be used this turn"),
    "card_not_in_discard": lazy_gettext("That card is not in the discard pile"),
    "discard_empty": lazy_gettext("The discard pile is empty"),
    "stock_empty": lazy_gettext("The stock is empty"),
    "final_discard_required": lazy_gettext("These rules require a final discard: keep one card to discard"),
    "discard_playable": lazy_gettext("That card can be laid off on the table, so it cannot be the card to go out "
                                     "with"),
    "face_down_not_last": lazy_gettext("Only the very last card may be discarded face down"),
    "face_down_not_allowed": lazy_gettext("Discards are face up in these rules"),
    "hand_over": lazy_gettext("The hand is over: nobody may play after someone went out"),
    "no_hand_in_progress": lazy_gettext("No hand is being played: deal first"),
    "hand_in_progress": lazy_gettext("A hand is still being played: finish it first"),
    "reveal_needed": lazy_gettext("The last hand is waiting for players to show their cards"),
    "reveal_mismatch": lazy_gettext("The cards shown do not match what the referee knows of this hand"),
    "reveal_not_needed": lazy_gettext("These cards do not need to be shown"),
    "wrong_dealer": lazy_gettext("It is another player's turn to deal"),
    "wrong_deal_size": lazy_gettext("A player was dealt the wrong number of cards for these rules"),
    "match_over": lazy_gettext("The match is over"),
    "rummy_call_not_allowed": lazy_gettext("Rummy! cannot be called now"),
    "rummy_call_invalid": lazy_gettext("Rummy! does not apply here"),
    "end_hand_not_allowed": lazy_gettext("The hand cannot be ended now"),
    "match_line": lazy_gettext("A match line may only be the first line of a game log"),
    "bad_text": lazy_gettext("The text holds a character that cannot be used"),
    "too_deep": lazy_gettext("The data is nested too deeply"),
    "bad_number": lazy_gettext("A number is too large"),
    # -- the host's evening (referee/evening.py): corrections, target, seating
    "bad_correction": lazy_gettext("That correction of a hand is not valid"),
    "no_such_hand": lazy_gettext("There is no finished hand with that number"),
    "bad_target": lazy_gettext("That target cannot be set"),
    "target_reached": lazy_gettext("A player has already reached that target"),
    "bad_seating": lazy_gettext("The players cannot be seated like that"),
    # -- a match set-up the rules cannot play (referee SetupError, strict JSON)
    "bad_match": lazy_gettext("A game log must start with its match line"),
    "bad_players": lazy_gettext("Give the players' names, each one different, in seating order"),
    "bad_player_count": lazy_gettext("These rules are not played with this number of players"),
    "bad_options": lazy_gettext("The rule options are not written as the referee expects"),
    "bad_option": lazy_gettext("One of the rule options has a value it cannot take"),
    "unknown_option": lazy_gettext("One of the rule options is not one these rules know"),
    "unknown_rules": lazy_gettext("These rules are not known: choose one of the presets"),
    "bad_setup": lazy_gettext("The match cannot be set up like that"),
    "bad_name": lazy_gettext("A name is empty, too long or holds a control character"),
    "bad_dealer": lazy_gettext("The first dealer must be one of the players"),
    "bad_colors": lazy_gettext("The players' colours are not valid"),
    # -- the dashboard's own, and what it passes on from the camera and the enrolment
    "bad_body": lazy_gettext("The request is not what this screen expects"),
    "empty_body": lazy_gettext("The request is empty"),
    "bad_encoding": lazy_gettext("The text is not UTF-8"),
    "too_large": lazy_gettext("That is too large"),
    "empty_log": lazy_gettext("The game log is empty"),
    "nothing_to_undo": lazy_gettext("There is nothing to take back"),
    "nothing_to_redo": lazy_gettext("There is nothing to redo"),
    "redo_refused": lazy_gettext("This can no longer be redone"),
    "no_match": lazy_gettext("No match is open"),
    "refused": lazy_gettext("The move was refused"),
    "not_found": lazy_gettext("Not found"),
    "not_saved": lazy_gettext("The change could not be saved: the database cannot be written"),
    "internal_error": lazy_gettext("Something went wrong on the server: reload the page to see the match as it is"),
    "csrf": lazy_gettext("This page has expired: reload it and try again"),
    "pin_required": lazy_gettext("Enter the PIN to make changes"),
    "bad_pin": lazy_gettext("Wrong PIN"),
    "too_many_attempts": lazy_gettext("Too many wrong PINs: wait a few minutes and try again"),
    "bad_host": lazy_gettext("This dashboard does not answer to that address"),
    "too_many_screens": lazy_gettext("Too many screens are following matches right now: this one tries again "
                                     "shortly"),
    "no_camera": lazy_gettext("No camera is connected"),
    "no_frame": lazy_gettext("The camera has no picture yet"),
    "no_proposal": lazy_gettext("That proposal is no longer waiting"),
    "no_picture": lazy_gettext("There is no picture for that proposal"),
    "no_camera_picture": lazy_gettext("The camera has no picture to take: upload a photo instead"),
    "bad_photo": lazy_gettext("The referee cannot use this photo: take it again with the cards apart, face up, on "
                              "a plain table, without glare"),
    "no_photo": lazy_gettext("There is no photo of that suit yet"),
    "no_such_slot": lazy_gettext("Photos are of clubs, diamonds, hearts, spades or jokers"),
    "no_such_deck": lazy_gettext("There is no deck by that name"),
    # -- HTTP errors (web_ui/__init__.py names them after the status)
    "bad_request": lazy_gettext("The request is not valid"),
    "method_not_allowed": lazy_gettext("This address does not accept that method"),
    "request_entity_too_large": lazy_gettext("The request is too large"),
    "content_too_large": lazy_gettext("The request is too large"),
}

RULE_REF = re.compile(r"\(rules? ([^()]+)\)")


def rule_refs(message: str | None, rule: str | None = None) -> str:
    """The rule numbers an engine message names ("... (rule C-4.1/C-4.2)" → "C-4.1/C-4.2"), and `rule`."""
    refs = RULE_REF.findall(message or "")
    if rule and not any(rule in r for r in refs):
        refs.append(rule)
    return "; ".join(refs)


def with_rules(text: str, refs: str) -> str:
    # the same msgid as RR.refusal's in common.js: "(rule C-3.1)" in each language
    return gettext("{text} (rule {rule})").replace("{text}", text).replace("{rule}", refs) if refs else text


def local(code: str | None, message: str | None = None, rule: str | None = None) -> str | None:
    """The player-facing text of a refusal in the request's language; None in English (the engine's detailed
    message stands) and for a code without an entry here."""
    if current_language() == DEFAULT or code not in MESSAGES:
        return None
    return with_rules(str(MESSAGES[code]), rule_refs(message, rule))


def text(body: dict) -> str:
    """What to show for a refusal ``{code, message, rule?}``: its local text, else its own message."""
    return local(body.get("code"), body.get("message"), body.get("rule")) or body.get("message") or body.get("code") or ""


def table(lang: str) -> dict[str, str]:
    """code → message in `lang` (for the page scripts: window.RR_REFUSALS); empty for English."""
    if lang == DEFAULT:
        return {}
    with force_locale(lang):
        return {code: str(msg) for code, msg in MESSAGES.items()}


def _add_local(item) -> bool:
    if not isinstance(item, dict) or "message_local" in item or not isinstance(item.get("code"), str):
        return False
    loc = local(item["code"], item.get("message") if isinstance(item.get("message"), str) else None,
                item.get("rule") if isinstance(item.get("rule"), str) else None)
    if loc is None:
        return False
    item["message_local"] = loc
    return True


def _localise(resp: Response) -> Response:
    """Add ``message_local`` to a JSON refusal (and to the entries of a ``refused`` list)."""
    if resp.is_streamed or resp.mimetype != "application/json" or current_language() == DEFAULT:
        return resp
    data = resp.get_data()
    if len(data) > 1024 * 1024 or (b'"ok":false' not in data.replace(b" ", b"") and b'"refused"' not in data):
        return resp
    try:
        body = resp.get_json(silent=True)
    except Exception:  # noqa: BLE001 - a body that is not JSON is left as it is
        return resp
    if not isinstance(body, dict):
        return resp
    changed = body.get("ok") is False and _add_local(body)
    for item in body.get("refused") or [] if isinstance(body.get("refused"), list) else []:
        changed = _add_local(item) or changed
    if changed:
        resp.set_data(current_app.json.dumps(body))
    return resp


def init_app(app: Flask) -> None:
    app.after_request(_localise)
