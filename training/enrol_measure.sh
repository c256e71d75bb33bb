#!/usr/bin/env bash
# Issue 11's measurement (models/MODEL.md, "Enrolment"): the held-out deck's four suit photos rendered, the deck
# enrolled with the product's own command (timed), then the general detector and the taught one on the same
# held-out tables, and the detection speed without and with the deck.  Needs the Debian card art:
#   apt-get install -y gnome-cards-data kdegames-card-data-kf5 librsvg2-bin
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
export RUMMY_SYNTH_CACHE=${RUMMY_SYNTH_CACHE:-$PWD/runs/synth-cache}
[ -d runs/data/synth_heldout/present ] || $PY -m vision.synth.dataset --out runs/data/synth_heldout --val 150 \
    --size 416 --seed 100 --only-deck kde-nicu-white --only-surface marble
$PY -m vision.synth.suit_photos --deck kde-nicu-white --out runs/enrol/nicu --seed 1 --jokers
P=runs/enrol/nicu
/usr/bin/time -v .venv/bin/rummy-referee enrol --out runs/decks/nicu-default --name "Nicu white (rendered)" \
  --suit C $P/C.jpg --suit D $P/D.jpg --suit H $P/H.jpg --suit S $P/S.jpg --jokers $P/jokers.jpg 2> runs/enrol-time.txt
grep -E "Elapsed|Maximum resident" runs/enrol-time.txt
$PY -m training.eval_deck --data runs/data/synth_heldout --deck runs/decks/nicu-default
$PY benchmarks/detector.py --deck runs/decks/nicu-default --frames 60 --warmup 5
