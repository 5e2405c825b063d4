"""Simulate a model on one engine and plot its per-layer cycles by cause.

    python3 examples/simulate_and_plot.py [MODEL] [ARCH] [OUT.png]

MODEL is an .onnx file or a zoo model (default resnet18), ARCH an engine (default systolic).
Prints the totals and the five slowest layers; writes the chart when matplotlib is installed.
"""

import sys

import nnaccel

model = sys.argv[1] if len(sys.argv) > 1 else "resnet18"
arch = sys.argv[2] if len(sys.argv) > 2 else "systolic"
out = sys.argv[3] if len(sys.argv) > 3 else "layer_cycles.png"

report = nnaccel.simulate(model, arch=arch)
print(report)
print(f"energy {report.energy_pj / 1e6:.2f} uJ, DRAM {report.dram_bytes:,} B, "
      f"utilization {report.utilization:.1%}")
for layer in sorted(report.layers, key=lambda r: -r["cycles"])[:5]:
    print(f"  {layer['name']:<32} {layer['op']:<16} {layer['cycles']:>12,} cycles")

try:
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib is not installed: no chart")
    sys.exit(0)

frame = report.to_pandas()
causes = [c for c in frame.columns if c.startswith("cycles_by_cause.") and frame[c].any()]
ax = frame.set_index("name")[causes].rename(columns=lambda c: c.split(".")[1]).plot.bar(
    stacked=True, figsize=(max(6, len(frame) * 0.25), 4), width=0.8)
ax.set_ylabel("cycles")
ax.legend(title="cause", fontsize=8)
ax.set_title(f"{model} on {arch} '{report.config}'")
plt.tight_layout()
plt.savefig(out, dpi=100)
print(f"wrote {out}")
