#!/usr/bin/env bash
# Detector round two (models/MODEL.md, "Round two"): the failure analysis, the training runs and the
# same-run comparison that decided what ships.  CPU only, about 2 hours on the project's 2-core machine.
# Needs what training/reproduce.sh made (runs/data/{real,synth,synth_noir,synth_heldout},
# runs/train/stageB/weights/best.pt) and the Debian card art for the renderer.
#
#   bash training/round2.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
export RUMMY_SYNTH_CACHE=${RUMMY_SYNTH_CACHE:-$PWD/runs/synth-cache}
export YOLO_CONFIG_DIR=${YOLO_CONFIG_DIR:-$PWD/runs/yolo_config}
V3="0,0,1;0,0,1.2;0,0,0.85"
V5="0,0,1;0.08,0.08,1;-0.08,-0.08,1;0,0,1.2;0,0,0.85"

# 1. where the shipped detector fails: dev photos, rendered held-out set, rendered situation probes
$PY -m training.probes --out runs/data/probes --n 40
$PY -m training.analyze --title "dev photos, shipped model" --md runs/eval/dev-analysis-old.md --out runs/eval/dev-analysis-old.json
$PY -m training.analyze --data runs/data/synth_heldout --split val --md runs/eval/heldout-analysis-old.md
for p in table-720p far-720p red-cloth fanned; do
  $PY -m training.analyze --data runs/data/probes/$p --split val --md runs/eval/probe-$p-old.md
done

# 2. data: rendered tables with camera faults (anamorphic squash, salt-and-pepper pixels)
$PY -m vision.synth.dataset --out runs/data/synth_faults --train 800 --val 60 --size 416 --seed 200 --faults 0.5 \
    --exclude-deck kde-nicu-white --exclude-surface marble

# 3. YOLO stage C: one class ("corner index"), from stage B, 384 px, 54 minutes (6 epochs), real x2 + synthetic
$PY -m training.train --data runs/data/real --data runs/data/real --data runs/data/synth \
    --model runs/train/stageB/weights/best.pt --single-cls --epochs 6 --hours 0.9 --imgsz 384 --batch 16 \
    --threads 2 --workers 2 --lr0 0.001 --name stageC --seed 0
$PY -m training.export runs/train/stageC/weights/best.pt --out runs/stageC-export

# 4. corner classifiers
#   v2 (square 40 px crops), from scratch, then longer (the second run was stopped by hand after 9 of 30 epochs;
#   its best checkpoint by validation accuracy is what step v2c starts from)
$PY -m training.train_classifier --data runs/data/real --data runs/data/synth --data runs/data/synth_noir --arch v2 \
    --epochs 8 --jitter 2 --loose 0.1 --card-negatives 2 --strong-aug --synth-fraction 0.2 --lr 0.003 --threads 1 \
    --out runs/cls-v2/cards-cls --max-minutes 45 --seed 0
$PY -m training.train_classifier --data runs/data/real --data runs/data/synth --data runs/data/synth_noir --arch v2 \
    --epochs 30 --jitter 2 --loose 0.1 --card-negatives 2 --strong-aug --synth-fraction 0.2 --lr 0.003 --threads 1 \
    --init runs/cls-v2/cards-cls.pt --out runs/cls-v2b/cards-cls --max-minutes 9 --seed 1
#   v1 (the shipped convention) fine-tuned with the new augmentation, hard negatives and the camera-fault tables
$PY -m training.train_classifier --data runs/data/real --data runs/data/synth --data runs/data/synth_noir \
    --data runs/data/synth_faults --arch v1 --init models/cards-cls.pt --epochs 14 --jitter 2 --loose 0.1 \
    --card-negatives 2 --strong-aug --synth-fraction 0.25 --lr 0.001 --threads 1 --out runs/cls-v1ft/cards-cls \
    --max-minutes 30 --seed 2
#   v2c: v2 continued, plus crops of the shipped YOLO's own boxes (mined positives and hard negatives)
$PY -m training.train_classifier --data runs/data/real --data runs/data/synth --data runs/data/synth_noir \
    --data runs/data/synth_faults --arch v2 --init runs/cls-v2b/cards-cls.pt --epochs 24 --jitter 2 --loose 0.1 \
    --card-negatives 2 --strong-aug --synth-fraction 0.25 --lr 0.002 --threads 2 --mine models/cards-yolo.pt \
    --mine-data runs/data/real --mine-data runs/data/synth_faults --out runs/cls-v2c/cards-cls --max-minutes 38 --seed 3

#   v2d: v2c fine-tuned on the real photos alone (+ crops mined from the shipped YOLO)
$PY -m training.train_classifier --data runs/data/real --arch v2 --init runs/cls-v2c/cards-cls.pt --epochs 8 --jitter 3 \
    --loose 0.1 --card-negatives 2 --strong-aug --real-weight 1 --lr 0.0007 --threads 2 --mine models/cards-yolo.pt \
    --out runs/cls-v2d/cards-cls --max-minutes 15 --seed 4

#   v2e: v2c with low-resolution crops twice as often and crops mined from the stage-C boxes
$PY -m training.train_classifier --data runs/data/real --data runs/data/synth --data runs/data/synth_noir \
    --data runs/data/synth_faults --arch v2 --init runs/cls-v2c/cards-cls.pt --epochs 10 --jitter 2 --loose 0.1 \
    --card-negatives 2 --strong-aug --lowres 0.6 --synth-fraction 0.25 --lr 0.001 --threads 2 \
    --mine runs/stageC-export/cards-yolo.onnx --mine-data runs/data/real --mine-data runs/data/synth_faults \
    --out runs/cls-v2e/cards-cls --max-minutes 20 --seed 5

# 5. test-time choices written into candidate classifier files
$PY -m training.set_choices models/cards-cls.pt --out runs/cand/v1-v5tta --views "$V5" --tta
$PY -m training.set_choices runs/cls-v2c/cards-cls.pt --out runs/cand/v2c-v1 --views "0,0,1" --no-tta
$PY -m training.set_choices runs/cls-v2c/cards-cls.pt --out runs/cand/v2c-v3 --views "$V3" --no-tta
$PY -m training.set_choices runs/cls-v2c/cards-cls.pt --out runs/cand/v2c-v5 --views "$V5" --no-tta
$PY -m training.set_choices runs/cls-v2c/cards-cls.pt --out runs/cand/v2c-v3tta --views "$V3" --tta
$PY -m training.set_choices runs/cls-v2d/cards-cls.pt --out runs/cand/v2d-v3 --views "$V3" --no-tta
$PY -m training.set_choices runs/cls-v2d/cards-cls.pt --out runs/cand/v2d-v3tta --views "$V3" --tta
$PY -m training.set_choices runs/cls-v2e/cards-cls.pt --out runs/cand/v2e-v3 --views "$V3" --no-tta

# 6. choose on validation data only (rendered val + real val split), then everything in one run
$PY -m training.compare --val-only --candidate o-v1v5tta=models/cards-yolo.onnx,runs/cand/v1-v5tta.onnx \
    --candidate o-v2c=models/cards-yolo.onnx,runs/cand/v2c-v1.onnx --candidate o-v2c3=models/cards-yolo.onnx,runs/cand/v2c-v3.onnx \
    --candidate o-v2c5=models/cards-yolo.onnx,runs/cand/v2c-v5.onnx --candidate o-v2c3tta=models/cards-yolo.onnx,runs/cand/v2c-v3tta.onnx \
    --candidate C-v2c5=runs/stageC-export/cards-yolo.onnx,runs/cand/v2c-v5.onnx \
    --candidate C-v2c3tta=runs/stageC-export/cards-yolo.onnx,runs/cand/v2c-v3tta.onnx
P=runs/data/probes
$PY -m training.compare --candidate shipped-round1=models/cards-yolo.onnx,models/cards-cls.onnx \
    --candidate round2=models/cards-yolo.onnx,runs/cand/v2c-v3.onnx \
    --candidate round2+180tta=models/cards-yolo.onnx,runs/cand/v2c-v3tta.onnx \
    --candidate round2-stageC-yolo=runs/stageC-export/cards-yolo.onnx,runs/cand/v2c-v3.onnx \
    --candidate round1-cls+5views=models/cards-yolo.onnx,runs/cand/v1-v5tta.onnx \
    --set table-720p=$P/table-720p:val --set far-720p=$P/far-720p:val --set red-cloth=$P/red-cloth:val \
    --set fanned=$P/fanned:val --md runs/eval/compare-final.md --out runs/eval/compare-final.json
$PY -m training.compare --candidate shipped-round1=models/cards-yolo.onnx,models/cards-cls.onnx \
    --candidate v2d-3views=models/cards-yolo.onnx,runs/cand/v2d-v3.onnx \
    --candidate v2d-3views+180=models/cards-yolo.onnx,runs/cand/v2d-v3tta.onnx \
    --candidate stageC-v2d-3views=runs/stageC-export/cards-yolo.onnx,runs/cand/v2d-v3.onnx \
    --set table-720p=$P/table-720p:val --set far-720p=$P/far-720p:val --set red-cloth=$P/red-cloth:val \
    --set fanned=$P/fanned:val --md runs/eval/compare-v2d.md --out runs/eval/compare-v2d.json
$PY -m training.compare --candidate shipped-round1=models/cards-yolo.onnx,models/cards-cls.onnx \
    --candidate v2e-3views=models/cards-yolo.onnx,runs/cand/v2e-v3.onnx \
    --candidate stageC-v2e-3views=runs/stageC-export/cards-yolo.onnx,runs/cand/v2e-v3.onnx \
    --set table-720p=$P/table-720p:val --set far-720p=$P/far-720p:val --set red-cloth=$P/red-cloth:val \
    --set fanned=$P/fanned:val --md runs/eval/compare-v2e.md --out runs/eval/compare-v2e.json

# 7. speed: input sizes (accuracy and time), backends, the motion gate
$PY -m training.compare --candidate s384=models/cards-yolo.onnx,models/cards-cls.onnx,384 \
    --candidate s416=models/cards-yolo.onnx,models/cards-cls.onnx,416 --candidate s544=models/cards-yolo.onnx,models/cards-cls.onnx,544 \
    --candidate s640=models/cards-yolo.onnx,models/cards-cls.onnx,640 \
    --set table-720p=$P/table-720p:val --set far-720p=$P/far-720p:val --md runs/eval/compare-imgsz.md
$PY benchmarks/detector.py --frames 40 --warmup 4 --config i384=models/cards-yolo.onnx,models/cards-cls.onnx,384 \
    --config i416=models/cards-yolo.onnx,models/cards-cls.onnx,416 --config i480=models/cards-yolo.onnx,models/cards-cls.onnx,480 \
    --config i544=models/cards-yolo.onnx,models/cards-cls.onnx,544 --config i640=models/cards-yolo.onnx,models/cards-cls.onnx,640 \
    --config torch480=models/cards-yolo.pt,models/cards-cls.pt,480
$PY -u benchmarks/motion_gate.py --tracking 3
