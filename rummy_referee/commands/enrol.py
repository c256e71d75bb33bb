"""`rummy-referee enrol --out DECK --suit C clubs.jpg --suit D diamonds.jpg --suit H hearts.jpg --suit S
spades.jpg [--jokers jokers.jpg] [--name NAME] [--seconds N] [--scenes N] [--json]` (contract: shared/contracts/game-log.md,
"Teaching the referee a deck").

Reads the four photos (each suit's 13 cards face up, apart, A..K in reading order), learns the deck
(vision/enrol/learn.py) and writes its profile folder DECK.  Prints a line per suit with the cards found,
then what the learning measured.  Exit status 0 when the deck was learnt; 2, with a message naming the
photo and what is wrong with it, when a photo is missing or unreadable, does not show 13 separate cards,
shows another suit's card, or a suit is given twice; nothing is written then.
"""

from __future__ import annotations

import json
import sys
import time

from referee.strict_json import one_line

SUITS = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
DEFAULT_SECONDS = 180.0


def _fail(msg: str) -> int:
    print(one_line(f"rummy-referee enrol: {msg}"), file=sys.stderr)
    return 2


def cli_enrol(args) -> int:
    suits: dict[str, str] = {}
    for suit, photo in args.suit:
        key = suit.strip().upper()[:1] if suit.strip() else ""
        if key not in SUITS:
            return _fail(f"--suit {suit} {photo}: the suit must be C, D, H or S")
        if key in suits:
            return _fail(f"the suit {SUITS[key]} ({key}) is given twice ({suits[key]} and {photo})")
        suits[key] = photo
    missing = [f"{SUITS[s]} ({s})" for s in SUITS if s not in suits]
    if missing:
        return _fail(f"a photo is needed for each suit; missing: {', '.join(missing)}")
    t0 = time.perf_counter()
    try:
        from vision.enrol.learn import read_photos
        from vision.enrol.photos import EnrolError
    except ImportError as e:  # the vision stack is not installed
        return _fail(f"cannot load the vision tools: {e}")
    try:
        found = read_photos(suits, args.jokers)
    except EnrolError as e:
        return _fail(str(e))
    for s in SUITS:
        print(f"{SUITS[s]:>8} ({s}): {len(found[s])} cards found in {suits[s]}", flush=True)
    if "JK" in found:
        print(f"{'jokers':>12}: {len(found['JK'])} found in {args.jokers}", flush=True)

    from vision.enrol.learn import teach

    last = [-1]

    def progress(frac: float, text: str) -> None:
        step = int(frac * 10)
        if step != last[0] and not args.json:
            last[0] = step
            print(f"  {int(frac * 100):3d} %  {text}", file=sys.stderr, flush=True)

    photos = {s: str(p) for s, p in suits.items()}
    if args.jokers:
        photos["jokers"] = str(args.jokers)
    try:
        meta = teach(found, args.out, name=args.name, photos=photos,
                     seconds=args.seconds or DEFAULT_SECONDS, scenes=getattr(args, "scenes", None) or 360,
                     progress=progress)
    except OSError as e:
        return _fail(f"cannot write the deck profile {args.out}: {e}")
    learning = meta["learning"]
    if args.json:
        print(json.dumps(meta))
    else:
        check = learning.get("check", {})
        print(f"deck '{meta['name']}' learnt in {time.perf_counter() - t0:.0f} s and written to {args.out}: "
              f"{meta['cards']} cards, {meta['jokers']} jokers; on {learning['checked_on']} practice tables it had "
              f"not seen it reads precision {check.get('precision', 0):.2f}, recall {check.get('recall', 0):.2f}")
        print(f"use it with: rummy-referee detect --deck {args.out} PHOTO (also track and serve)")
    return 0
