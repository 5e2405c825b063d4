#!/usr/bin/python3
"""The QDQ suite against ONNX Runtime (docs/Quantization.md, "QDQ models"): builds the QDQ test
models (make_models.py), runs each on ONNX Runtime (run_ort.mjs, the npm package
onnxruntime-node that scripts/fetch-onnxruntime installs) and on nnaccel's int8 executor
(`nnaccel run --dtype int8`, which keeps the model's own scales), and compares the output
codes element by element; then simulates each model on every int8 engine that takes it and
requires VERIFIED with no layer on the host.

Expected: every code equal to ONNX Runtime's, except in the concat + max pool model, where a
Concat input requantized from 0.02 to 0.04 lands exactly on a half: nnaccel rounds that exact
half to even, ONNX Runtime goes through fp32 and lands on either side (docs/Quantization.md,
"QDQ models"). There a difference of one code is reported, and a larger one fails.

usage: compare.py NNACCEL ORT_MODULES_DIR WORK_DIR
Exits 77 (ctest's skip code) when ORT_MODULES_DIR has no onnxruntime-node, unless
NNACCEL_REQUIRE_ONNXRUNTIME is set (scripts/bootstrap test sets it after installing it).
"""
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
# model, input, output scale (the last QuantizeLinear's), codes allowed to differ from ORT's
MODELS = [("qdq_conv", "x_image", 0.05, 0), ("qdq_depthwise", "x_image", 0.03, 0),
          ("qdq_residual", "x_image", 0.05, 0), ("qdq_concat_pool", "x_image", 0.04, 1),
          ("qdq_matmul", "x_rows", 0.1, 0), ("qop_conv_matmul", "x_image", 0.2, 0)]
ENGINES = [("systolic", []), ("sparse", ["--threads", "1"]), ("broadcast", [])]


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {r.returncode}: {r.stderr.strip()}")
    return r.stdout


def main():
    nnaccel, modules, work = sys.argv[1:4]
    if not os.path.isdir(os.path.join(modules, "onnxruntime-node")):
        print(f"no onnxruntime-node in {modules} (run scripts/fetch-onnxruntime)")
        return 1 if os.environ.get("NNACCEL_REQUIRE_ONNXRUNTIME") else 77
    os.makedirs(work, exist_ok=True)
    run([sys.executable, os.path.join(HERE, "make_models.py"), work])
    failures = []
    total_equal = total = 0
    for model, x, scale, allowed in MODELS:
        onnx_file = os.path.join(work, model + ".onnx")
        x_file = os.path.join(work, x + ".npy")
        ort_out = os.path.join(work, model + ".ort.npy")
        nn_out = os.path.join(work, model + ".nnaccel.npy")
        run(["node", os.path.join(HERE, "run_ort.mjs"), modules, onnx_file, x_file, ort_out])
        run([nnaccel, "run", onnx_file, "--dtype", "int8", "--input", x_file, "--output", nn_out])
        a = np.rint(np.load(ort_out) / scale)
        b = np.rint(np.load(nn_out) / scale)
        equal = int((a == b).sum())
        worst = int(np.abs(a - b).max()) if a.size else 0
        total_equal += equal
        total += a.size
        print(f"{model}: {equal}/{a.size} output codes equal to ONNX Runtime's "
              f"(largest difference {worst} code)")
        if a.shape != b.shape or worst > allowed:
            failures.append(f"{model}: shapes {a.shape} / {b.shape}, largest difference {worst}")
        for engine, extra in ENGINES:
            report = os.path.join(work, f"{model}.{engine}.json")
            run([nnaccel, "simulate", onnx_file, "--arch", engine, "--input", x_file,
                 "--report", report] + extra)
            r = json.load(open(report))
            host = sum(1 for l in r["layers"] if l["host_fallback"])
            if host or not r["verdict"]["checked"] or not r["verdict"]["passed"]:
                failures.append(f"{model} on {engine}: {host} host layers, verdict {r['verdict']}")
    print(f"all: {total_equal}/{total} output codes equal to ONNX Runtime's")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
