"""Compare every engine on your own ONNX model under one equal-resource budget.

    python3 examples/compare_your_model.py MODEL.onnx [--dim NAME=VALUE ...]

Prints cycles, energy, DRAM bytes and the verdict per engine, and the per-layer cycles of the
engines side by side (pandas).
"""

import sys

import nnaccel

if len(sys.argv) < 2:
    sys.exit(__doc__)
model = sys.argv[1]
dims = dict((kv.split("=")[0], int(kv.split("=")[1])) for kv in sys.argv[2:])

comparison = nnaccel.compare(model, dims=dims)
print(f"{'engine':<10} {'cycles':>12} {'energy uJ':>10} {'DRAM B':>12}  verdict")
for engine, r in comparison.reports.items():
    verdict = {True: "VERIFIED", False: "MISMATCH", None: "timing only"}[r.verified]
    print(f"{engine:<10} {r.cycles:>12,} {r.energy_pj / 1e6:>10.2f} {r.dram_bytes:>12,}  "
          f"{verdict}")
for engine, why in comparison.errors.items():
    print(f"{engine:<10} not run: {why}")

frame = comparison.to_pandas()
# One row per layer, one column per engine (<NA> where an engine lowers the model into other
# layers, e.g. a fused pair).
table = frame.pivot_table(index="name", columns="engine", values="cycles", sort=False)
print("cycles of the first layers:")
print(table.round(0).astype("Int64").head(15).to_string())
