#!/usr/bin/env bash
# Runs every shipped validation (`nnaccel validate`, validations/*.yaml) at full size: the
# published experiments end to end, as the test suite cannot (it runs them with --size
# reduced). Writes each one's JSON rows to OUT_DIR/NAME.json and prints its table, its wall time
# and its agreement line; docs/Validation.md records the figures.
#
#   bench/validate_full.sh [-n NNACCEL] [-o OUT_DIR] [NAME ...]
#
# NNACCEL defaults to build/tools/nnaccel/nnaccel, OUT_DIR to ./validate-full, the names to every
# validation `nnaccel validate` lists. The full `scnn` experiment simulates AlexNet, GoogLeNet
# and VGG-16 and ten GoogLeNet density points cycle by cycle: 5.3 minutes on two quiet cores.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
nnaccel="$here/build/tools/nnaccel/nnaccel"
out=validate-full
while getopts "n:o:" opt; do
  case $opt in
  n) nnaccel=$OPTARG ;;
  o) out=$OPTARG ;;
  *) sed -n '7p' "$0" | sed 's/^# *//' >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
names=("$@")
if [[ ${#names[@]} -eq 0 ]]; then
  # The list's first column, between its header rule and its closing hint line.
  mapfile -t names < <("$nnaccel" validate | awk 'NR > 2 && $1 != "run" {print $1}')
fi
mkdir -p "$out"
for name in "${names[@]}"; do
  SECONDS=0
  "$nnaccel" validate "$name" --report "$out/$name.json" | grep -v '^run [0-9]*/'
  printf 'validation %s: %d s wall\n\n' "$name" "$SECONDS"
done
