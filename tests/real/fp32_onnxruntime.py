#!/usr/bin/env python3
"""nnaccel's fp32 reference executor against ONNX Runtime on the real-model set (docs/Testing.md,
"Real models"): every model runs on the same seeded input (uniform in [-1, 1), M-LSD's raw
pixels in [0, 255)) through `nnaccel run` and through ONNX Runtime (tests/qdq/run_ort.mjs,
graph optimizations off, one thread); per model and output, the largest absolute difference
and the output's largest magnitude (a random input can leave an output near zero everywhere,
as the text detector's probability map, where a relative figure says nothing).

usage: fp32_onnxruntime.py NNACCEL MODELS_DIR ORT_MODULES_DIR WORK_DIR
A measurement, not a test: it asserts nothing.
"""
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
RUN_ORT = os.path.join(HERE, "..", "qdq", "run_ort.mjs")
# model, --dim bindings (as tests/real/host_share.py binds them), input value range
MODELS = [
    ("ch_PP-OCRv4_det_infer.onnx",
     ["p2o.DynamicDimension.0=1", "p2o.DynamicDimension.1=96", "p2o.DynamicDimension.2=128"],
     (-1, 1)),
    ("ch_ppocr_mobile_v2.0_cls_infer.onnx",
     ["p2o.DynamicDimension.0=1", "p2o.DynamicDimension.1=48", "p2o.DynamicDimension.2=192"],
     (-1, 1)),
    ("ch_PP-OCRv4_rec_infer.onnx", ["p2o.DynamicDimension.0=1", "p2o.DynamicDimension.1=320"],
     (-1, 1)),
    ("face_detection_front_128x128_barracuda.onnx", [], (-1, 1)),
    ("face_detection_back_256x256_barracuda.onnx", [], (-1, 1)),
    ("mlsd_320x320_tiny.onnx", [], (0, 255)),
    ("embedding_model.onnx", [], (-1, 1)),
]


def main():
    nnaccel, models_dir, modules, work = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(19)
    print(f"{'model':46} {'output':>6} {'max |nnaccel - ORT|':>20} {'max |ORT|':>12}")
    for model, dims, (lo, hi) in MODELS:
        path = os.path.join(models_dir, model)
        dim_args = [a for d in dims for a in ("--dim", d)]
        info = json.loads(subprocess.run([nnaccel, "info", path, "--json"] + dim_args,
                                         capture_output=True, text=True, check=True).stdout)
        shape = info["inputs"][0]["shape"]
        outputs = len(info["outputs"])
        x = os.path.join(work, model + ".x.npy")
        np.save(x, rng.uniform(lo, hi, size=shape).astype(np.float32))
        ours = [os.path.join(work, f"{model}.nnaccel-{i}.npy") for i in range(outputs)]
        subprocess.run([nnaccel, "run", path, "--input", x, "--output"] + ours + dim_args,
                       capture_output=True, text=True, check=True)
        theirs = os.path.join(work, model + ".ort-%d.npy")
        subprocess.run(["node", RUN_ORT, modules, path, x, theirs, "unfused"], check=True)
        for i, mine in enumerate(ours):
            a, b = np.load(mine), np.load(theirs.replace("%d", str(i)))
            diff = float(np.abs(a.reshape(b.shape) - b).max())
            print(f"{model:46} {i:6} {diff:20.3e} {float(np.abs(b).max()):12.3e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
