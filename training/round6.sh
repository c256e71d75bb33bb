#!/usr/bin/env bash
# Round six of the detector (issue 10), on the CPU: the localiser (round three's, trained 45 minutes in stage B
# while its validation mAP50 was still rising) trained on from the shipped weights with new rendered tables,
# eight more card designs among them; the round-four classifier kept.  Figures and the comparison:
# models/MODEL.md ("Round six").  Offline; the card art comes from the Debian packages (training time only):
#   apt-get install -y gnome-cards-data kdegames-card-data-kf5 librsvg2-bin
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
export RUMMY_SYNTH_CACHE=${RUMMY_SYNTH_CACHE:-$PWD/runs/synth-cache}
export YOLO_CONFIG_DIR=${YOLO_CONFIG_DIR:-$PWD/runs/yolo_config}
mkdir -p "$YOLO_CONFIG_DIR"
# ultralytics looks for Arial.ttf there and would download it: any local TTF will do (plots are off anyway)
[ -f "$YOLO_CONFIG_DIR/Arial.ttf" ] || cp /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf "$YOLO_CONFIG_DIR/Arial.ttf"

# 1. data: the real training photos whole (dev/ is never read), 600 new rendered tables in the usual decks,
#    300 in eight designs the shipped localiser never saw, the rendered validation split (linked in, so that
#    ultralytics validates on it beside the real val split) and the held-out set (kde-nicu-white on marble)
$PY -m training.prepare_real --src ../shared/data/real/train --out runs/data/real --seed 0
mkdir -p runs/data/real640/images/{train,val} runs/data/real640/labels/{train,val}
for s in train val; do
  for f in runs/data/real/images/$s/*.jpg; do
    b=$(basename "$f" .jpg); case $b in *_t) continue;; esac
    ln -sf "$(realpath "$f")" runs/data/real640/images/$s/
    ln -sf "$(realpath runs/data/real/labels/$s/$b.txt)" runs/data/real640/labels/$s/
  done
done
$PY -m vision.synth.dataset --out runs/data/synth640n --train 600 --size 640 --seed 131 \
    --exclude-deck kde-nicu-white --exclude-surface marble --faults 0.3
EXTRA=()
for d in gnome-anglo_bitmap gnome-atlasnye gnome-bellot gnome-orell gnome-tango gnome-tigullio \
         gnome-guyenne-classic kde-ancient-egyptians; do EXTRA+=(--only-deck "$d"); done
$PY -m vision.synth.dataset --out runs/data/synth640x --train 300 --size 640 --seed 141 --exclude-surface marble \
    --faults 0.3 "${EXTRA[@]}"
$PY -m vision.synth.dataset --out runs/data/synth --val 60 --size 640 --seed 77 \
    --exclude-deck kde-nicu-white --exclude-surface marble --faults 0.3
$PY -m vision.synth.dataset --out runs/data/synth_heldout --val 150 --size 416 --seed 100 \
    --only-deck kde-nicu-white --only-surface marble
rm -rf runs/data/synth640n/images/val runs/data/synth640n/labels/val
ln -sfn "$PWD/runs/data/synth/images/val" runs/data/synth640n/images/val
ln -sfn "$PWD/runs/data/synth/labels/val" runs/data/synth640n/labels/val

# 2. the localiser: one class, from the shipped weights, 640 px, 1.3 hours (ultralytics fits the epochs and the
#    learning-rate schedule to the time: 14 epochs here), the last two epochs without mosaic
$PY -m training.train --data runs/data/real640 --data runs/data/synth640n --data runs/data/synth640x \
    --model models/cards-yolo.pt --epochs 12 --hours 1.3 --imgsz 640 --batch 16 --threads 2 --workers 2 \
    --name r6loc --seed 6 --lr0 0.001 --close-mosaic 2 --single-cls

# 3. export (needs onnxscript, in the train extra), the candidate kept for the next round, and the same-run
#    comparison (thresholds chosen on the validation splits, never on dev), the shipped classifier naming the boxes
$PY -m training.export runs/train/r6loc/weights/best.pt --out runs/r6
cp runs/r6/cards-yolo.pt training/candidates/cards-yolo-r6.pt
$PY -m training.compare --candidate shipped=models/cards-yolo.onnx,models/cards-cls.onnx \
  --candidate r6=runs/r6/cards-yolo.onnx,models/cards-cls.onnx --md runs/eval/compare-r6.md --out runs/eval/compare-r6.json
# 4. cls12: the shipped classifier fine-tuned on the new localiser's own boxes, read as shipped, and compared
$PY -m training.train_classifier --data runs/data/real640 --data runs/data/synth640n --arch v3 --epochs 8 \
  --batch 64 --threads 2 --jitter 2 --loose 0.12 --real-weight 4 --synth-fraction 0.8 --card-negatives 2 \
  --strong-aug --rot90 0.5 --lr 0.0008 --init models/cards-cls.pt --seed 12 --mine runs/r6/cards-yolo.onnx \
  --mine-imgsz 512 --out runs/cls12/cards-cls --max-minutes 16
$PY -m training.set_choices runs/cls12/cards-cls.pt --out runs/cls12/r4b8 --tta-r4 --tta-below 0.8 --imgsz 512 \
  --box-conf 0.05 --max-candidates 60
$PY -m training.compare --candidate shipped=models/cards-yolo.onnx,models/cards-cls.onnx \
  --candidate r6-cls12=runs/r6/cards-yolo.onnx,runs/cls12/r4b8.onnx \
  --candidate r3loc-cls12=models/cards-yolo.onnx,runs/cls12/r4b8.onnx \
  --md runs/eval/compare-r6b.md --out runs/eval/compare-r6b.json
