#!/usr/bin/env python3
"""int8 against fp32 on the real-model set with real photographs (docs/Quantization.md,
"Calibration on real models"): every model is calibrated with each calibration method on a
folder of photographs and evaluated on a photograph outside that folder, preprocessed the way
the model was trained (scripts/fetch-real-models provides both).

usage: int8_agreement.py NNACCEL MODELS_DIR WORK_DIR [--methods m1,m2,...] [--models f1,f2,...]
                         [--equalize]
                         [--asymmetric] [--bias-correction]

--models keeps the models whose file name contains one of the given strings;
--equalize passes --equalize to every run (channel equalization before calibration);
--asymmetric passes --asymmetric (asymmetric activations with zero points);
--bias-correction passes --bias-correction (biases shifted by their mean int8 error).

Prints one row per model and method: the worst output's cosine similarity and relative error,
and top-1 agreement for classifier outputs. A measurement, not a test: it asserts nothing.
"""
import os
import re
import subprocess
import sys

from protocol import LINES, evaluation_set

# model, extra options (preprocessing and symbolic dims), the judged photograph (or LINES: a
# text line of page.png, protocol.py)
MODELS = [
    ("face_detection_front_128x128_barracuda.onnx", ["--norm", "signed"], "astronaut.png"),
    ("face_detection_back_256x256_barracuda.onnx", ["--norm", "signed"], "astronaut.png"),
    ("ch_PP-OCRv4_det_infer.onnx",
     ["--norm", "imagenet", "--channel-order", "bgr", "--size", "192x384"], "page.png"),
    ("ch_ppocr_mobile_v2.0_cls_infer.onnx",
     ["--norm", "signed", "--channel-order", "bgr", "--size", "48x192"], LINES),
    # PaddleOCR keeps a line's aspect ratio at height 48: the 384x21 lines become 48x880.
    ("ch_PP-OCRv4_rec_infer.onnx",
     ["--norm", "signed", "--channel-order", "bgr", "--size", "48x880"], LINES),
    # M-LSD normalises inside the graph (x / 127.5 - 1): raw pixels in, RGBA.
    ("mlsd_320x320_tiny.onnx", ["--norm", "raw"], "motorcycle_left.png"),
]
LINE = re.compile(r"int8 vs fp32 '(.*)' \(this input\): (?:top-1 agreement (\d+)/(\d+) "
                  r"\([^)]*\), )?cosine similarity ([0-9.e+-]+), relative error ([0-9.e+-]+|inf)")


def main():
    nnaccel, models_dir, work = sys.argv[1:4]
    methods = ["minmax", "percentile", "mse", "entropy"]
    options = sys.argv[4:]
    if "--methods" in options:
        methods = options[options.index("--methods") + 1].split(",")
    models = MODELS
    if "--models" in options:
        keep = options[options.index("--models") + 1].split(",")
        models = [m for m in MODELS if any(k in m[0] for k in keep)]
    equalize = [flag for flag in ("--equalize", "--asymmetric", "--bias-correction")
                if flag in options]
    images = os.path.join(models_dir, "images")
    print(f"{'model':46} {'method':10} {'worst cosine':>12} {'rel error':>10} {'top-1':>6}")
    for model, extra, evaluated in models:
        judged, calib = evaluation_set(images, work, evaluated)
        for method in methods:
            cmd = [nnaccel, "run", os.path.join(models_dir, model), "--dtype", "int8",
                   "--input", judged, "--calib", calib,
                   "--calib-method", method, "--eval-samples", "0"] + extra + equalize
            run = subprocess.run(cmd, capture_output=True, text=True)
            if run.returncode != 0:
                print(f"{model:46} {method:10} error: {run.stderr.strip()}")
                continue
            rows = [m.groups() for m in map(LINE.search, run.stdout.splitlines()) if m]
            cosine = min(float(r[3]) for r in rows)
            rel = max(float(r[4]) for r in rows)
            top1 = [r for r in rows if r[1] is not None]
            t = f"{sum(int(r[1]) for r in top1)}/{sum(int(r[2]) for r in top1)}" if top1 else "-"
            print(f"{model:46} {method:10} {cosine:12.6f} {rel:10.4f} {t:>6}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
