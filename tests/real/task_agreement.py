#!/usr/bin/env python3
"""int8 against fp32 on the real-model set, measured on what each model's users read from it
(docs/Quantization.md, "What the outputs decode to"): a raw output's cosine weighs every element
alike, while a detector's user reads a few thresholded scores and the boxes behind them. Each
model runs in fp32 and in int8 (the default calibration, and the best one of int8_agreement.py's
tables), calibrated and judged as int8_agreement.py does (protocol.py); the outputs are decoded the way the model's own post-processing does:

- BlazeFace: score = sigmoid(logit) per anchor; detections are the anchors with score >= 0.5
  (MediaPipe's min_score_thresh); the boxes are the regressors' first four numbers, in pixels.
- PP-OCRv4 detector (DBNet): the text mask is probability >= 0.3 (PaddleOCR's det_db_thresh).
- PP-OCR classifier: top-1 of the two orientations, on the judged line and then on all twelve
  oriented lines (protocol.py), each calibrated on the other lines.
- PP-OCRv4 recognizer: greedy CTC decoding (argmax per time step, repeats merged, blank 0 dropped).
- M-LSD: line centres are the peaks of the masked score map with score >= 0.1 (its default
  score_thr); the offsets are the four endpoint displacements at those peaks.

usage: task_agreement.py NNACCEL MODELS_DIR WORK_DIR
A measurement, not a test: it asserts nothing.
"""
import os
import subprocess
import sys

import numpy as np

from protocol import LINES, evaluation_set, oriented_line_sets

# model, preprocessing options, evaluated photograph, decoder, the best int8 options of
# docs/Quantization.md's tables (worst output's cosine)
MODELS = [
    ("face_detection_front_128x128_barracuda.onnx", ["--norm", "signed"], "astronaut.png",
     "blazeface", ["--calib-method", "mse", "--asymmetric"]),
    ("face_detection_back_256x256_barracuda.onnx", ["--norm", "signed"], "astronaut.png",
     "blazeface", ["--asymmetric", "--equalize"]),
    ("ch_PP-OCRv4_det_infer.onnx",
     ["--norm", "imagenet", "--channel-order", "bgr", "--size", "192x384"], "page.png", "dbnet",
     ["--calib-method", "percentile", "--asymmetric", "--equalize"]),
    ("ch_ppocr_mobile_v2.0_cls_infer.onnx",
     ["--norm", "signed", "--channel-order", "bgr", "--size", "48x192"], LINES, "top1",
     ["--equalize"]),
    ("ch_PP-OCRv4_rec_infer.onnx",
     ["--norm", "signed", "--channel-order", "bgr", "--size", "48x880"], LINES, "ctc",
     ["--asymmetric", "--bias-correction"]),
    ("mlsd_320x320_tiny.onnx", ["--norm", "raw"], "motorcycle_left.png", "mlsd",
     ["--calib-method", "mse", "--asymmetric", "--bias-correction"]),
]


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-np.clip(x, -80.0, 80.0)))


def cosine(a, b):
    a, b = a.ravel().astype(np.float64), b.ravel().astype(np.float64)
    n = np.linalg.norm(a) * np.linalg.norm(b)
    return float(a @ b / n) if n > 0 else float(np.array_equal(a, b))


def jaccard(a, b):
    a, b = set(a), set(b)
    return len(a & b) / len(a | b) if a | b else 1.0


def blazeface(ref, got):
    scores = [i for i, o in enumerate(ref) if o.shape[-1] == 1]
    boxes = [i for i, o in enumerate(ref) if o.shape[-1] == 16]
    p_ref = np.concatenate([sigmoid(ref[i]).ravel() for i in scores])
    p_got = np.concatenate([sigmoid(got[i]).ravel() for i in scores])
    b_ref = np.concatenate([ref[i].reshape(-1, 16)[:, :4] for i in boxes])
    b_got = np.concatenate([got[i].reshape(-1, 16)[:, :4] for i in boxes])
    det_ref, det_got = np.flatnonzero(p_ref >= 0.5), np.flatnonzero(p_got >= 0.5)
    both = np.intersect1d(det_ref, det_got)
    box = float(np.abs(b_ref[both] - b_got[both]).max()) if len(both) else 0.0
    return (f"score cosine {cosine(p_ref, p_got):.4f}, detections {len(det_ref)} fp32 / "
            f"{len(det_got)} int8 (Jaccard {jaccard(det_ref, det_got):.3f}), box error on the "
            f"shared detections max {box:.2f} px")


def dbnet(ref, got):
    m_ref, m_got = ref[0] >= 0.3, got[0] >= 0.3
    union = np.logical_or(m_ref, m_got).sum()
    iou = np.logical_and(m_ref, m_got).sum() / union if union else 1.0
    return (f"text mask IoU {iou:.4f} ({int(m_ref.sum())} fp32 / {int(m_got.sum())} int8 "
            f"pixels)")


def top1(ref, got):
    return f"top-1 {int(ref[0].argmax() == got[0].argmax())}/1"


def ctc(ref, got):
    def decode(p):
        best = p.reshape(-1, p.shape[-1]).argmax(axis=1)
        out, last = [], -1
        for c in best:
            if c != last and c != 0:
                out.append(int(c))
            last = c
        return best, out
    steps_ref, text_ref = decode(ref[0])
    steps_got, text_got = decode(got[0])
    same = int((steps_ref == steps_got).sum())
    return (f"time steps with the same argmax {same}/{len(steps_ref)}, decoded text "
            f"{'identical' if text_ref == text_got else 'different'} ({len(text_ref)} characters)")


def mlsd(ref, got):
    names = {o.shape[-1]: o for o in ref}
    offsets_ref, scores_ref = names[4], names[1]
    got_by = {o.shape[-1]: o for o in got}
    offsets_got, scores_got = got_by[4], got_by[1]
    peaks_ref = set(map(tuple, np.argwhere(scores_ref[0, :, :, 0] >= 0.1)))
    peaks_got = set(map(tuple, np.argwhere(scores_got[0, :, :, 0] >= 0.1)))
    both = sorted(peaks_ref & peaks_got)
    err = max((float(np.abs(offsets_ref[0, y, x] - offsets_got[0, y, x]).max())
               for y, x in both), default=0.0)
    return (f"line centres {len(peaks_ref)} fp32 / {len(peaks_got)} int8 (Jaccard "
            f"{jaccard(peaks_ref, peaks_got):.3f}), endpoint offsets on the shared centres max "
            f"error {err:.2f} px")


DECODERS = {"blazeface": blazeface, "dbnet": dbnet, "top1": top1, "ctc": ctc, "mlsd": mlsd}


def run(nnaccel, model, options, outputs):
    cmd = [nnaccel, "run", model, "--output"] + outputs + options
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {done.stderr.strip()}")
    return [np.load(o) for o in outputs]


def main():
    nnaccel, models_dir, work = sys.argv[1:4]
    images = os.path.join(models_dir, "images")
    for model, extra, evaluated, decoder, best in MODELS:
        judged, calib = evaluation_set(images, work, evaluated)
        path = os.path.join(models_dir, model)
        base = ["--input", judged] + extra
        n = output_count(nnaccel, path, base)
        ref = run(nnaccel, path, base, files(work, model, "fp32", n))
        int8 = ["--dtype", "int8", "--calib", calib, "--eval-samples", "0"]
        for label, options in (("default (minmax)", []), (" ".join(best), best)):
            got = run(nnaccel, path, base + int8 + options, files(work, model, "int8", n))
            print(f"{model:46} {label:50} {DECODERS[decoder](ref, got)}")
        if decoder == "top1":
            oriented(nnaccel, path, extra, best, work)
    return 0


def oriented(nnaccel, model, extra, best, work):
    """The classifier's top-1 in int8 against fp32 over the twelve oriented lines."""
    sets = oriented_line_sets(os.path.join(os.path.dirname(model), "images"), work)
    name = os.path.basename(model)
    for label, options in (("default (minmax)", []), (" ".join(best), best)):
        same = right = 0
        for judged, calib, turned in sets:
            base = ["--input", judged] + extra
            ref = run(nnaccel, model, base, files(work, name, "fp32", 1))[0]
            int8 = ["--dtype", "int8", "--calib", calib, "--eval-samples", "0"] + options
            got = run(nnaccel, model, base + int8, files(work, name, "int8", 1))[0]
            same += int(ref.argmax() == got.argmax())
            right += int(ref.argmax() == (1 if turned else 0))
        print(f"{name:46} {label:50} 12 oriented lines: int8 top-1 equal to fp32's on "
              f"{same}/12 (fp32 names the orientation right on {right}/12)")


def files(work, model, tag, count):
    return [os.path.join(work, f"{model}.{tag}.{i}.npy") for i in range(count)]


def output_count(nnaccel, model, base):
    """The number of model outputs: an fp32 `nnaccel run` prints one "output '...'" line each."""
    done = subprocess.run([nnaccel, "run", model] + base, capture_output=True, text=True)
    return sum(1 for line in done.stdout.splitlines() if line.startswith("output '"))


if __name__ == "__main__":
    sys.exit(main())
