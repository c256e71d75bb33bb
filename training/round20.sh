#!/usr/bin/env bash
# Round twenty of the detector (issue 10), on the CPU: the corner classifier taught twelve more typefaces, those of
# printed cards (Century Schoolbook, Palatino, Bookman, Times, Helvetica, Avant Garde and Courier clones from
# Debian's fonts-urw-base35, and GNU FreeFont): vision/synth/decks.py, FONT_DESIGNS_R20.  cls18 (the classifier
# shipped in round nineteen) is fine-tuned with their tables added to its data.  Figures: models/MODEL.md ("Round
# twenty").  Needs the data of training/round6.sh step 1 and training/round18.sh step 1, and (training time only):
#   apt-get install -y gnome-cards-data kdegames-card-data-kf5 librsvg2-bin fonts-dejavu-core fonts-liberation \
#       fonts-urw-base35 fonts-freefont-ttf
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
export RUMMY_SYNTH_CACHE=${RUMMY_SYNTH_CACHE:-$PWD/runs/synth-cache}
export YOLO_CONFIG_DIR=${YOLO_CONFIG_DIR:-$PWD/runs/yolo_config}
BASE=${BASE:-models/cards-cls.pt}  # cls18; at a later round: git show 425ad3f:models/cards-cls.pt > cls18.pt

# 1. 360 tables in the twelve new font decks (about a minute)
FONTS=()
for d in $($PY -c "from vision.synth.decks import FONT_DESIGNS_R20; print(' '.join(FONT_DESIGNS_R20))"); do
  FONTS+=(--only-deck "$d")
done
$PY -m vision.synth.dataset --out runs/data/synth640g --train 360 --size 640 --seed 201 --exclude-surface marble \
    --faults 0.3 "${FONTS[@]}"

# 2. cls20: cls18 fine-tuned 7 epochs on its data plus the new font tables
$PY -m training.train_classifier --data runs/data/real640 --data runs/data/synth640n --data runs/data/synth640x \
  --data runs/data/synth640f --data runs/data/synth640g --arch v3 --epochs 7 --batch 64 --threads 2 --jitter 2 \
  --loose 0.12 --real-weight 4 --synth-fraction 0.8 --card-negatives 2 --strong-aug --rot90 0.5 --lr 0.0005 \
  --init "$BASE" --seed 20 --mine models/cards-yolo.onnx --mine-imgsz 512 \
  --unsquash runs/data/real640 --out runs/cls20/cards-cls --max-minutes 26

# 3. the shipped reading stored, and the same-run comparison (threshold: best validation F1)
for w in runs/cls20/cards-cls-last runs/cls20/cards-cls; do
  $PY -m training.set_choices $w.pt --out runs/cls20/$(basename $w)-r4b8 --tta-r4 --tta-below 0.8 --imgsz 512 \
    --box-conf 0.05 --max-candidates 60 --conf 0.3
done
$PY -m training.compare --candidate shipped=models/cards-yolo.onnx,models/cards-cls.onnx \
  --candidate cls20last=models/cards-yolo.onnx,runs/cls20/cards-cls-last-r4b8.onnx \
  --candidate cls20best=models/cards-yolo.onnx,runs/cls20/cards-cls-r4b8.onnx \
  --md runs/eval/compare-r20.md --out runs/eval/compare-r20.json
