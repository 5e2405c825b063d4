#!/usr/bin/env bash
# Times SCALE-Sim v2 and `nnaccel scalesim` on the same config and topology (issue 7 item 5),
# checks that their three reports are identical, and prints both wall times and the ratio.
#
#   bench/scalesim_speed.sh SCALESIM_DIR [-c CONFIG.cfg] [-t TOPOLOGY.csv] [-i conv|gemm]
#                           [-n NNACCEL] [-r REPEATS] [-p PYTHON]
#
# SCALESIM_DIR is a checkout of github.com/scalesim-project/scale-sim-v2 (its scalesim/scale.py
# is run with PYTHONPATH=SCALESIM_DIR; it needs numpy, pandas, absl-py and tqdm). The defaults
# are the checkout's own configs/scale.cfg (32x32 array, os, CALC, 64 KiB SRAMs) and
# topologies/conv_nets/Resnet18.csv. NNACCEL defaults to build/tools/nnaccel/nnaccel; nnaccel's
# time is the fastest of REPEATS runs (default 5) of the whole command, files written included.
set -euo pipefail

usage() { sed -n '5,6p' "$0" | sed 's/^# *//' >&2; exit 2; }
[[ $# -ge 1 ]] || usage
scalesim_dir=$(cd "$1" && pwd)
shift
here=$(cd "$(dirname "$0")/.." && pwd)
config="$scalesim_dir/configs/scale.cfg"
topology="$scalesim_dir/topologies/conv_nets/Resnet18.csv"
input_type=conv
nnaccel="$here/build/tools/nnaccel/nnaccel"
repeats=5
python=python3
while getopts "c:t:i:n:r:p:" opt; do
  case $opt in
  c) config=$OPTARG ;;
  t) topology=$OPTARG ;;
  i) input_type=$OPTARG ;;
  n) nnaccel=$OPTARG ;;
  r) repeats=$OPTARG ;;
  p) python=$OPTARG ;;
  *) usage ;;
  esac
done
[[ -f "$scalesim_dir/scalesim/scale.py" ]] || { echo "no scalesim/scale.py in $scalesim_dir" >&2; exit 2; }
[[ -x "$nnaccel" ]] || { echo "no nnaccel binary at $nnaccel (use -n)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }

echo "config:   $config"
echo "topology: $topology ($input_type)"
start=$(now)
PYTHONPATH="$scalesim_dir" "$python" "$scalesim_dir/scalesim/scale.py" -c "$config" \
  -t "$topology" -p "$work/scalesim" -i "$input_type" > "$work/scalesim.log" 2>&1
scalesim_s=$(echo "$(now) - $start" | bc -l)

best=""
for ((i = 0; i < repeats; ++i)); do
  rm -rf "$work/nnaccel"
  start=$(now)
  "$nnaccel" scalesim -c "$config" -t "$topology" -p "$work/nnaccel" -i "$input_type" > /dev/null
  t=$(echo "$(now) - $start" | bc -l)
  if [[ -z "$best" ]] || (( $(echo "$t < $best" | bc -l) )); then best=$t; fi
done

same=yes
for report in COMPUTE_REPORT BANDWIDTH_REPORT DETAILED_ACCESS_REPORT; do
  a=$(find "$work/scalesim" -name "$report.csv")
  b=$(find "$work/nnaccel" -name "$report.csv")
  if ! cmp -s "$a" "$b"; then
    same=no
    echo "reports differ: $report.csv" >&2
    diff "$a" "$b" | head -5 >&2 || true
  fi
done

printf 'SCALE-Sim v2:      %10.3f s\n' "$scalesim_s"
printf 'nnaccel scalesim:  %10.3f s (fastest of %d)\n' "$best" "$repeats"
printf 'ratio:             %10.0fx\n' "$(echo "$scalesim_s / $best" | bc -l)"
echo "identical reports: $same"
[[ $same == yes ]]
