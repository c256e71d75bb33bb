#!/usr/bin/env bash
# Round eighteen of the detector (issue 10), on the CPU: the corner classifier taught twelve more typefaces.
# The procedural decks print their indices in OpenCV's four Hershey fonts; the "font-*" decks
# (vision/synth/decks.py, FONT_DESIGNS) print them in the machine's DejaVu and Liberation TrueType fonts, half with
# the font's own suit symbols.  cls15 (training/candidates/cards-cls-r16.pt, round sixteen's best stills) is
# fine-tuned with their tables added to its data.  Figures and the comparison: models/MODEL.md ("Round eighteen").
# Run at stop 50, when models/cards-cls.pt was still cls13: since round nineteen the "shipped" row of its comparison
# is cls18 itself (to compare as then: git show 6faa40a:models/cards-cls.onnx).
# Needs the data of training/round6.sh step 1 (real640, synth640n, synth640x, the validation and held-out
# splits) and the Debian card art (training time only):
#   apt-get install -y gnome-cards-data kdegames-card-data-kf5 librsvg2-bin fonts-dejavu-core fonts-liberation
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
export RUMMY_SYNTH_CACHE=${RUMMY_SYNTH_CACHE:-$PWD/runs/synth-cache}
export YOLO_CONFIG_DIR=${YOLO_CONFIG_DIR:-$PWD/runs/yolo_config}

# 1. 360 tables in the twelve font decks (about a minute)
FONTS=()
for d in $($PY -c "from vision.synth.decks import FONT_DESIGNS_R18; print(' '.join(FONT_DESIGNS_R18))"); do
  FONTS+=(--only-deck "$d")
done
$PY -m vision.synth.dataset --out runs/data/synth640f --train 360 --size 640 --seed 151 --exclude-surface marble \
    --faults 0.3 "${FONTS[@]}"

# 2. cls18: cls15 fine-tuned 8 epochs (about 35 minutes on 2 cores) on cls15's data plus the font tables
$PY -m training.train_classifier --data runs/data/real640 --data runs/data/synth640n --data runs/data/synth640x \
  --data runs/data/synth640f --arch v3 --epochs 8 --batch 64 --threads 2 --jitter 2 --loose 0.12 --real-weight 4 \
  --synth-fraction 0.8 --card-negatives 2 --strong-aug --rot90 0.5 --lr 0.0006 \
  --init training/candidates/cards-cls-r16.pt --seed 18 --mine models/cards-yolo.onnx --mine-imgsz 512 \
  --unsquash runs/data/real640 --out runs/cls18/cards-cls --max-minutes 40

# 3. the shipped reading stored, and the same-run comparison (threshold: best validation F1)
for w in runs/cls18/cards-cls-last runs/cls18/cards-cls training/candidates/cards-cls-r16; do
  $PY -m training.set_choices $w.pt --out runs/cls18/$(basename $w)-r4b8 --tta-r4 --tta-below 0.8 --imgsz 512 \
    --box-conf 0.05 --max-candidates 60 --conf 0.3
done
$PY -m training.compare --candidate shipped=models/cards-yolo.onnx,models/cards-cls.onnx \
  --candidate cls15=models/cards-yolo.onnx,runs/cls18/cards-cls-r16-r4b8.onnx \
  --candidate cls18last=models/cards-yolo.onnx,runs/cls18/cards-cls-last-r4b8.onnx \
  --candidate cls18best=models/cards-yolo.onnx,runs/cls18/cards-cls-r4b8.onnx \
  --md runs/eval/compare-r18.md --out runs/eval/compare-r18.json
