#!/usr/bin/env bash
# Rebuild the shipped detector from nothing but shared/data/real/train and this repository.
# Offline: nothing is downloaded.  Debian card art is optional (procedural decks always work):
#   apt-get install -y gnome-cards-data kdegames-card-data-kf5 librsvg2-bin fonts-dejavu-core
# ONNX export needs `onnxscript` in the venv (pip install onnxscript).
#
#   bash training/reproduce.sh                 # the CPU recipe used for models/ (see models/MODEL.md)
#   DEVICE=0 HOURS_A=0.3 HOURS_B=1.5 IMGSZ=640 bash training/reproduce.sh   # on a GPU: longer, larger
# (the classifier always trains on the CPU; it takes minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
DEVICE=${DEVICE:-cpu}
HOURS_A=${HOURS_A:-0.6}
HOURS_B=${HOURS_B:-1.35}
IMGSZ=${IMGSZ:-320}
THREADS=${THREADS:-2}
export RUMMY_SYNTH_CACHE=${RUMMY_SYNTH_CACHE:-$PWD/runs/synth-cache}
export YOLO_CONFIG_DIR=${YOLO_CONFIG_DIR:-$PWD/runs/yolo_config}

# 1. real photos → whole photos + native-resolution 320 px crops (seed 0); dev/ is never read
$PY -m training.prepare_real --src ../shared/data/real/train --out runs/data/real --seed 0
# 2. synthetic tables (416 px): all decks but one, all surfaces but one; a dark-deck set; the held-out set
$PY -m vision.synth.dataset --out runs/data/synth --train 3000 --val 100 --size 416 --seed 1 \
    --exclude-deck kde-nicu-white --exclude-surface marble
$PY -m vision.synth.dataset --out runs/data/synth_noir --train 700 --size 416 --seed 50 \
    --only-deck proc-noir --only-deck proc-noir-duplex --only-deck proc-classic --only-deck kde-standard \
    --only-deck gnome-anglo_poker --exclude-surface marble
$PY -m vision.synth.dataset --out runs/data/synth_heldout --val 150 --size 416 --seed 100 \
    --only-deck kde-nicu-white --only-surface marble
# 3. stage A: from scratch (yolo11n.yaml, no pretrained weights) on the real photos
$PY -m training.train --data runs/data/real --model yolo11n.yaml --epochs 6 --hours "$HOURS_A" --imgsz "$IMGSZ" \
    --batch 16 --threads "$THREADS" --workers 1 --name stageA --seed 0 --device "$DEVICE"
# 4. stage B: from stage A, real photos (twice) + synthetic tables
$PY -m training.train --data runs/data/real --data runs/data/real --data runs/data/synth --data runs/data/synth_noir \
    --model runs/train/stageA/weights/last.pt --epochs 12 --hours "$HOURS_B" --imgsz "$IMGSZ" --batch 16 \
    --threads "$THREADS" --workers 1 --name stageB --seed 0 --device "$DEVICE"
# 5. the corner classifier that names YOLO's boxes (two runs, the second from the first)
$PY -m training.train_classifier --data runs/data/real --data runs/data/synth --data runs/data/synth_noir \
    --epochs 24 --out runs/cls/cards-cls --max-minutes 16 --seed 0
$PY -m training.train_classifier --data runs/data/real --data runs/data/synth --data runs/data/synth_noir \
    --epochs 30 --lr 0.002 --synth-fraction 0.6 --init runs/cls/cards-cls.pt --out runs/cls2/cards-cls \
    --max-minutes 24 --seed 0
# 6. ship and measure
$PY -m training.export runs/train/stageB/weights/best.pt --out models
cp runs/cls2/cards-cls.pt runs/cls2/cards-cls.onnx models/
$PY -m training.evaluate --model models/cards-yolo.pt --classifier models/cards-cls.pt --backend torch --sweep \
    --out runs/eval/dev.json
$PY -m training.evaluate --model models/cards-yolo.pt --classifier models/cards-cls.pt --backend torch \
    --data runs/data/synth_heldout --split val --out runs/eval/heldout.json
$PY benchmarks/detector.py
