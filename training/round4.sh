#!/usr/bin/env bash
# Round four of the detector (issue 10), on the CPU: the round-three localiser kept, the v3 corner classifier
# fine-tuned with quarter turns (--rot90) and the localiser's own boxes (--mine), read at every quarter turn when
# its plain reading is unsure (tta "r4", "tta_below"), the test-time choices made on validation data.
# Figures and the comparison: models/MODEL.md ("Round four").  Needs the data of training/round3.sh step 1:
#   runs/data/real640 (the real training photos), runs/data/synth640 (700 rendered tables), runs/data/synth (val),
#   runs/data/synth_heldout (the held-out deck).  Offline.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
export RUMMY_SYNTH_CACHE=${RUMMY_SYNTH_CACHE:-$PWD/runs/synth-cache}
export YOLO_CONFIG_DIR=${YOLO_CONFIG_DIR:-$PWD/runs/yolo_config}
Y=models/cards-yolo.onnx
R3=${R3:-runs/shipped-r3-cls.pt}   # the round-three classifier (git show c797914:models/cards-cls.pt > $R3)
[ -f "$R3" ] || git show c797914:models/cards-cls.pt > "$R3"
$PY -m training.set_choices "$R3" --out runs/r3/cls-r3 >/dev/null
# 1. cls4: 12 epochs (16 min) from round three's classifier; half the crops turned by a random quarter turn
$PY -m training.train_classifier --data runs/data/real640 --data runs/data/synth640 --arch v3 --epochs 12 \
  --batch 64 --threads 2 --jitter 2 --loose 0.12 --real-weight 4 --synth-fraction 0.7 --card-negatives 2 \
  --strong-aug --rot90 0.5 --lr 0.0015 --init "$R3" --seed 4 --mine $Y --mine-imgsz 512 \
  --out runs/cls4/cards-cls --max-minutes 50
# 2. cls5: 12 more epochs from cls4 (the epoch with the best real-val accuracy is kept: 8 of 12)
$PY -m training.train_classifier --data runs/data/real640 --data runs/data/synth640 --arch v3 --epochs 12 \
  --batch 64 --threads 2 --jitter 2 --loose 0.12 --real-weight 4 --synth-fraction 0.8 --card-negatives 2 \
  --strong-aug --rot90 0.5 --lr 0.001 --init runs/cls4/cards-cls.pt --seed 5 --mine $Y --mine-imgsz 512 \
  --out runs/cls5/cards-cls --max-minutes 40
# 3. the quarter-turn readings to choose from (on validation data): every box, or only boxes read under 0.5-0.9
$PY -m training.set_choices runs/cls4/cards-cls.pt --out runs/cls4/r4 --tta-r4
for b in 5 7 8 9; do
  $PY -m training.set_choices runs/cls4/cards-cls.pt --out runs/cls4/r4b$b --tta-r4 --tta-below 0.$b
done
$PY -m training.set_choices runs/cls5/cards-cls.pt --out runs/cls5/r4b8 --tta-r4 --tta-below 0.8
$PY -m training.set_choices runs/cls5/cards-cls-last.pt --out runs/cls5/last-r4b8 --tta-r4 --tta-below 0.8
# 4. the same-run comparison (thresholds chosen on the validation splits, never on dev)
$PY -m training.compare --candidate shipped-r3=$Y,runs/r3/cls-r3.onnx,512,0.05,60 \
  --candidate cls4=$Y,runs/cls4/cards-cls.onnx,512,0.05,60 --candidate cls4-r4=$Y,runs/cls4/r4.onnx,512,0.05,60 \
  --candidate cls4-b5=$Y,runs/cls4/r4b5.onnx,512,0.05,60 --candidate cls4-b7=$Y,runs/cls4/r4b7.onnx,512,0.05,60 \
  --candidate cls4-b8=$Y,runs/cls4/r4b8.onnx,512,0.05,60 --candidate cls4-b9=$Y,runs/cls4/r4b9.onnx,512,0.05,60 \
  --candidate cls5-b8=$Y,runs/cls5/r4b8.onnx,512,0.05,60 --candidate cls5last-b8=$Y,runs/cls5/last-r4b8.onnx,512,0.05,60 \
  --md runs/eval/compare-r4final.md --out runs/eval/compare-r4final.json
# 5. ship the winner (cls5, turns under 0.8) with the choices made on validation
$PY -m training.set_choices runs/cls5/cards-cls.pt --out models/cards-cls --tta-r4 --tta-below 0.8 --conf 0.5 \
  --imgsz 512 --box-conf 0.05 --max-candidates 60
