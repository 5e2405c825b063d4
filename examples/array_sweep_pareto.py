"""Sweep the systolic array's shape and print the (cycles, energy) Pareto front.

    python3 examples/array_sweep_pareto.py [MODEL] [OUT.png]

The grid is every rows x cols in {16, 32, 64, 128}^2 on the `server` preset; points run two
at a time. Writes a scatter plot with the front when matplotlib is installed.
"""

import sys

import nnaccel

model = sys.argv[1] if len(sys.argv) > 1 else "resnet18"
out = sys.argv[2] if len(sys.argv) > 2 else "array_sweep.png"
sizes = [16, 32, 64, 128]

sweep = nnaccel.sweep(model, arch="systolic", preset="server",
                      params={"array.rows": sizes, "array.cols": sizes},
                      timing_only=True, threads=2)
print(sweep)
print(f"{'rows':>5} {'cols':>5} {'cycles':>12} {'energy uJ':>10}  front")
for p in sweep.points:
    print(f"{p['params']['array.rows']:>5} {p['params']['array.cols']:>5} {p['cycles']:>12,} "
          f"{p['energy_pj'] / 1e6:>10.2f}  {'*' if p['pareto'] else ''}")
best = sweep.best()
print(f"fewest cycles: {best['params']}")

try:
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib is not installed: no chart")
    sys.exit(0)

fig, ax = plt.subplots(figsize=(6, 4))
ax.scatter([p["cycles"] for p in sweep.points], [p["energy_pj"] / 1e6 for p in sweep.points],
           color="lightgray")
front = sorted(sweep.pareto(), key=lambda p: p["cycles"])
ax.plot([p["cycles"] for p in front], [p["energy_pj"] / 1e6 for p in front], "o-")
for p in front:
    ax.annotate(f"{p['params']['array.rows']}x{p['params']['array.cols']}",
                (p["cycles"], p["energy_pj"] / 1e6), fontsize=8)
ax.set_xscale("log")
ax.set_xlabel("cycles")
ax.set_ylabel("energy (uJ)")
ax.set_title(f"{model}: systolic array shape")
plt.tight_layout()
plt.savefig(out, dpi=100)
print(f"wrote {out}")
