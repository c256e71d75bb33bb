#!/usr/bin/env bash
# Round three of the detector (issue 10), end to end, on the CPU: the COCO-pretrained YOLOv5n start,
# a single-class corner-index localiser at 640 px, and a v3 corner classifier (the same pretrained trunk)
# that names the boxes.  Offline; figures and the comparison are in models/MODEL.md ("Round three").
#   apt-get install -y gnome-cards-data kdegames-card-data-kf5 librsvg2-bin   # card art, training time only
#   .venv/bin/pip install -e '.[train]'
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
DEVICE=${DEVICE:-cpu}
export RUMMY_SYNTH_CACHE=${RUMMY_SYNTH_CACHE:-$PWD/runs/synth-cache}
export YOLO_CONFIG_DIR=${YOLO_CONFIG_DIR:-$PWD/runs/yolo_config}

# 0. the pretrained start: shared/models/pretrained/yolov5n-coco.pt read with a restricted unpickler
$PY -m training.pretrained --nc 55 --out runs/yolov5n-coco-55.pt
# 1. data: the real training photos whole (dev/ is never read), rendered tables at 640 px in every deck but
#    the held-out one, a rendered validation split, and the held-out set (deck kde-nicu-white on marble)
$PY -m training.prepare_real --src ../shared/data/real/train --out runs/data/real --seed 0
mkdir -p runs/data/real640/images/{train,val} runs/data/real640/labels/{train,val}
for s in train val; do
  for f in runs/data/real/images/$s/*.jpg; do
    b=$(basename "$f" .jpg); case $b in *_t) continue;; esac
    ln -sf "$(realpath "$f")" runs/data/real640/images/$s/
    ln -sf "$(realpath runs/data/real/labels/$s/$b.txt)" runs/data/real640/labels/$s/
  done
done
$PY -m vision.synth.dataset --out runs/data/synth640 --train 700 --size 640 --seed 31 \
    --exclude-deck kde-nicu-white --exclude-surface marble --faults 0.3
$PY -m vision.synth.dataset --out runs/data/synth --val 60 --size 640 --seed 77 \
    --exclude-deck kde-nicu-white --exclude-surface marble --faults 0.3
$PY -m vision.synth.dataset --out runs/data/synth_heldout --val 150 --size 416 --seed 100 \
    --only-deck kde-nicu-white --only-surface marble
# 2. stage A: 55 classes, real photos, 640 px, from COCO (stopped after 7 epochs, 24 min: its 55-way naming
#    learnt slowly, val mAP50 0.05, so the run went on as a localiser)
$PY -m training.train --data runs/data/real640 --model runs/yolov5n-coco-55.pt --epochs 30 --hours 0.4 \
    --imgsz 640 --batch 16 --threads 2 --workers 2 --name r3a --seed 0 --lr0 0.002 --close-mosaic 3 --device "$DEVICE"
cp runs/train/r3a/weights/last.pt runs/r3a_last.pt
# 3. stage B: single class (corner index), real photos + rendered tables, 640 px, from stage A
$PY -m training.train --data runs/data/real640 --data runs/data/synth640 --model runs/r3a_last.pt --epochs 20 \
    --hours 0.75 --imgsz 640 --batch 16 --threads 2 --workers 2 --name r3b --seed 0 --lr0 0.0015 --close-mosaic 2 \
    --single-cls --device "$DEVICE"
# 4. the v3 corner classifier (COCO trunk), then a second run from it with every rendered crop
$PY -m training.train_classifier --data runs/data/real640 --data runs/data/synth640 --arch v3 --epochs 24 \
    --batch 64 --threads 1 --jitter 2 --loose 0.1 --real-weight 3 --synth-fraction 0.6 --card-negatives 1 \
    --strong-aug --lr 0.003 --out runs/cls3/cards-cls --max-minutes 40
$PY -m training.train_classifier --data runs/data/real640 --data runs/data/synth640 --arch v3 --epochs 14 \
    --batch 64 --threads 1 --jitter 3 --loose 0.12 --real-weight 3 --synth-fraction 1.0 --card-negatives 2 \
    --strong-aug --lr 0.0012 --init runs/cls3/cards-cls.pt --seed 1 --out runs/cls3b/cards-cls --max-minutes 25
# 5. export and the same-run comparison (thresholds chosen on the validation splits, never on dev)
$PY -m training.export runs/train/r3b/weights/best.pt --out runs/r3
cp runs/cls3b/cards-cls.pt runs/cls3b/cards-cls.onnx runs/r3/
$PY -m training.compare \
  --candidate shipped-round1=models/cards-yolo.onnx,models/cards-cls.onnx \
  --candidate r3-640=runs/r3/cards-yolo.onnx,runs/r3/cards-cls.onnx,640,0.05,60 \
  --candidate r3-512=runs/r3/cards-yolo.onnx,runs/r3/cards-cls.onnx,512,0.05,60 \
  --candidate r3-640-cls3a=runs/r3/cards-yolo.onnx,runs/cls3/cards-cls.onnx,640,0.05,60 \
  --md runs/eval/compare-r3.md --out runs/eval/compare-r3.json
# ship the winner (r3-512) with the choices made on validation stored in the classifier's config
cp runs/r3/cards-yolo.pt runs/r3/cards-yolo.onnx models/
$PY -m training.set_choices runs/r3/cards-cls.pt --out models/cards-cls --conf 0.7 --imgsz 512 --box-conf 0.05 \
    --max-candidates 60
# 6. (measured, not shipped) the classifier fine-tuned with crops mined from the shipped localiser's boxes
$PY -m training.train_classifier --data runs/data/real640 --data runs/data/synth640 --arch v3 --epochs 8 \
    --batch 64 --threads 2 --jitter 2 --loose 0.12 --real-weight 3 --synth-fraction 0.7 --card-negatives 2 \
    --strong-aug --lr 0.0008 --init runs/cls3b/cards-cls.pt --seed 2 --mine runs/r3/cards-yolo.onnx --mine-imgsz 512 \
    --out runs/cls3c/cards-cls --max-minutes 14
$PY -m training.set_choices runs/cls3c/cards-cls.pt --out runs/cls3c/cards-cls-choices --imgsz 512 --box-conf 0.05 \
    --max-candidates 60
$PY -m training.compare --candidate shipped-r3=models/cards-yolo.onnx,models/cards-cls.onnx,512,0.05,60 \
  --candidate r3-cls3c=models/cards-yolo.onnx,runs/cls3c/cards-cls-choices.onnx,512,0.05,60 \
  --md runs/eval/compare-cls3c.md --out runs/eval/compare-cls3c.json
