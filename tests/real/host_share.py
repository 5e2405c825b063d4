#!/usr/bin/env python3
"""Real-model test set (docs/Testing.md, "Real models"): trained CNNs that ship as ONNX in npm
packages (scripts/fetch-real-models) run on the systolic, sparse and broadcast engines (and the
stream engine where its pipeline takes them) with at most 5 % of their layers on the host,
verified bit-exact against the int8 reference.

usage: host_share.py NNACCEL MODELS_DIR WORK_DIR

Exits 77 (ctest's skip code) when MODELS_DIR lacks the models, unless NNACCEL_REQUIRE_REAL_MODELS
is set (scripts/bootstrap test sets it after fetching them): then a missing model fails.
"""
import json
import os
import subprocess
import sys

# model file, the --dim bindings of its symbolic input dimensions (PaddleOCR exports
# [N,3,H,W]), and whether the stream engine takes it. The text classifier streams (its written-out
# HardSwish chains are one LUT each, its squeeze-excite products run on channel-scale aux tiles);
# the text detector streams its ConvTranspose upsampling as stride phases and depth to space;
# the line detector its dilated convolutions, bilinear Resizes (Interpolate tiles; its head's
# channel slices are one convolution each after the pass pipeline) and peak mask
# x * (x == maxpool(x)) (docs/arch/Stream.md).
MODELS = [
    ("ch_PP-OCRv4_det_infer.onnx",
     ["p2o.DynamicDimension.0=1", "p2o.DynamicDimension.1=96", "p2o.DynamicDimension.2=128"],
     True),
    ("ch_ppocr_mobile_v2.0_cls_infer.onnx",
     ["p2o.DynamicDimension.0=1", "p2o.DynamicDimension.1=48", "p2o.DynamicDimension.2=192"],
     True),
    ("face_detection_front_128x128_barracuda.onnx", [], True),  # NHWC, from TensorFlow
    ("face_detection_back_256x256_barracuda.onnx", [], True),
    # M-LSD line detector (TensorFlow, NHWC RGBA input): its peak mask x == maxpool(x) is an
    # int8 comparison and its three bilinear Resizes integer interpolations, all on the engines.
    ("mlsd_320x320_tiny.onnx", [], True),
    # PP-OCRv4 text recognizer (SVTR: LayerNorm written out, attention, three Softmax). Its
    # attention MatMuls multiply two computed tensors: on systolic's array (B as the stationary
    # weights), broadcast's lanes and sparse's post-processing units (its PEs read weights only
    # as compiler-encoded streams). The stream engine does not take it: a pixel pipeline with
    # no frame store has no unit for attention over the token sequence (the run refuses the
    # token Transpose naming the node).
    ("ch_PP-OCRv4_rec_infer.onnx", ["p2o.DynamicDimension.0=1", "p2o.DynamicDimension.1=320"],
     False),
    # openWakeWord's speech embedding (Google's speech_embedding via tf2onnx): 20 convolutions
    # of 1x3/3x1/3x3 with LeakyReLU and Max on a 76x32 mel spectrogram (NHWC, one channel). On
    # the stream engine the input's Reshape to NCHW is a view, and the 1x3 convolutions on the
    # 2-column frames the pooling leaves split into frame-wide aperture blocks.
    ("embedding_model.onnx", [], True),
]
ENGINES = [("systolic", []), ("sparse", ["--threads", "1"]), ("broadcast", []),
           ("stream", ["--preset", "large"])]
MAX_HOST_SHARE = 0.05


def main():
    nnaccel, models_dir, work = sys.argv[1:4]
    missing = [m for m, _, _ in MODELS if not os.path.isfile(os.path.join(models_dir, m))]
    if missing:
        print(f"real models missing in {models_dir}: {', '.join(missing)} "
              f"(run scripts/fetch-real-models {models_dir})")
        return 1 if os.environ.get("NNACCEL_REQUIRE_REAL_MODELS") else 77
    os.makedirs(work, exist_ok=True)
    failures = []
    for model, dims, streams in MODELS:
        for engine, extra in ENGINES:
            if engine == "stream" and not streams:
                continue
            report = os.path.join(work, f"{model}.{engine}.json")
            cmd = [nnaccel, "simulate", os.path.join(models_dir, model), "--arch", engine,
                   "--report", report] + [a for d in dims for a in ("--dim", d)] + extra
            run = subprocess.run(cmd, capture_output=True, text=True)
            if run.returncode != 0:
                failures.append(f"{model} on {engine}: exit {run.returncode}: {run.stderr.strip()}")
                continue
            r = json.load(open(report))
            host = sum(1 for l in r["layers"] if l["host_fallback"])
            share = host / len(r["layers"])
            line = (f"{model} on {engine}: {host}/{len(r['layers'])} layers on the host "
                    f"({100 * share:.1f} %), {r['total']['cycles']} cycles, "
                    f"verified: {r['verdict']['passed']}")
            print(line)
            if share > MAX_HOST_SHARE or not r["verdict"]["checked"] or not r["verdict"]["passed"]:
                failures.append(line)
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
