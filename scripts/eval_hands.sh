#!/usr/bin/env bash
# The 20 rendered hands of docs/PIPELINE.md, tracked with the model: rummy500:4 basic:8 classic:4 solitaired:4.
#   bash scripts/eval_hands.sh TREE OUT [more vision.evaluation arguments...]
# TREE: a checkout to run in (its models/ are the ones measured); OUT: a folder for R.jsonl (rows) and R.err
# (errors, and the trace with --trace). Later arguments override the defaults (`--table camera`: nobody answers,
# as `track`; `--detector oracle`; `--taught DECK`). Summary: python scripts/eval_hands_summary.py OUT.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TREE=$(cd "$1" && pwd); mkdir -p "$2"; OUT=$(cd "$2" && pwd); shift 2
export RUMMY_SYNTH_CACHE=${RUMMY_SYNTH_CACHE:-$ROOT/runs/synth-cache}
PY=${PYTHON:-$ROOT/.venv/bin/python}
cd "$TREE"
for rh in rummy500:4 basic:8 classic:4 solitaired:4; do
  r=${rh%:*}; h=${rh#*:}
  "$PY" -m vision.evaluation --hands "$h" --rules "$r" --detector model --table truthful "$@" \
    > "$OUT/$r.jsonl" 2> "$OUT/$r.err"
done
