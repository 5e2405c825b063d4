#!/usr/bin/env python3
"""Trained models on real photographs (docs/Testing.md, "Real models"): what the models see in
Debian's scikit-image photographs, through `nnaccel run` with each model's own preprocessing,
in fp32 and in int8 (calibrated on the other photographs, never on the one judged).

usage: photos.py NNACCEL MODELS_DIR WORK_DIR

- BlazeFace (front camera) finds a face in astronaut.png (a score logit above 0, sigmoid 0.5,
  MediaPipe's default minimum detection confidence) and none in rocket.jpg, chelsea.png (a cat)
  or coffee.png; int8 still finds it.
- The PP-OCRv4 text detector marks text in page.png (mean probability above 0.05) and nothing in
  chelsea.png (every pixel below 0.01).
- The PP-OCR direction classifier keeps its top-1 class in int8 on page.png, cosine >= 0.99.

Exits 77 (ctest's skip code) when MODELS_DIR lacks the models or photographs, unless
NNACCEL_REQUIRE_REAL_MODELS is set.
"""
import os
import re
import shutil
import subprocess
import sys

FACE = "face_detection_front_128x128_barracuda.onnx"
DET = "ch_PP-OCRv4_det_infer.onnx"
CLS = "ch_ppocr_mobile_v2.0_cls_infer.onnx"
PHOTOS = ["astronaut.png", "rocket.jpg", "chelsea.png", "coffee.png", "page.png",
          "motorcycle_left.png"]
STATS = re.compile(r"output '([^']*)': .*\n  min (\S+)  max (\S+)  mean (\S+)")
AGREE = re.compile(r"int8 vs fp32 '[^']*' \(this input\): top-1 agreement (\d+)/(\d+) .*"
                   r"cosine similarity (\S+),")


def run(nnaccel, args):
    r = subprocess.run([nnaccel, "run"] + args, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"nnaccel run {' '.join(args)}: exit {r.returncode}: {r.stderr}")
    return r.stdout


def outputs(text):
    """{output name: (min, max, mean)} of the printed outputs."""
    return {m[0]: tuple(float(v) for v in m[1:]) for m in STATS.findall(text)}


def main():
    nnaccel, models, work = sys.argv[1:4]
    images = os.path.join(models, "images")
    need = [os.path.join(models, m) for m in (FACE, DET, CLS)] + \
        [os.path.join(images, p) for p in PHOTOS]
    missing = [p for p in need if not os.path.isfile(p)]
    if missing:
        print(f"missing: {', '.join(missing)} (run scripts/fetch-real-models {models})")
        return 1 if os.environ.get("NNACCEL_REQUIRE_REAL_MODELS") else 77
    failures = []

    def check(ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)

    def calib_without(photo):
        d = os.path.join(work, f"calib-without-{photo}")
        os.makedirs(d, exist_ok=True)
        for p in PHOTOS:
            if p != photo:
                shutil.copyfile(os.path.join(images, p), os.path.join(d, p))
        return d

    face = os.path.join(models, FACE)
    for photo in ["astronaut.png", "rocket.jpg", "chelsea.png", "coffee.png"]:
        out = outputs(run(nnaccel, [face, "--input", os.path.join(images, photo), "--norm",
                                    "signed"]))
        best = max(out["Identity:0"][1], out["Identity_1:0"][1])
        has_face = photo == "astronaut.png"
        check(best > 0 if has_face else best < 0,
              f"BlazeFace fp32 on {photo}: best face logit {best} ({'a face' if has_face else 'no face'})")
    out = outputs(run(nnaccel, [face, "--input", os.path.join(images, "astronaut.png"), "--norm",
                                "signed", "--dtype", "int8", "--calib",
                                calib_without("astronaut.png"), "--eval-samples", "0"]))
    best = max(out["Identity:0"][1], out["Identity_1:0"][1])
    check(best > 0, f"BlazeFace int8 on astronaut.png: best face logit {best}")

    det = [os.path.join(models, DET), "--size", "192x384", "--norm", "imagenet",
           "--channel-order", "bgr"]
    page = outputs(run(nnaccel, det + ["--input", os.path.join(images, "page.png")]))
    cat = outputs(run(nnaccel, det + ["--input", os.path.join(images, "chelsea.png")]))
    check(page["sigmoid_0.tmp_0"][2] > 0.05,
          f"text detector fp32 on page.png: mean probability {page['sigmoid_0.tmp_0'][2]}")
    check(cat["sigmoid_0.tmp_0"][1] < 0.01,
          f"text detector fp32 on chelsea.png: max probability {cat['sigmoid_0.tmp_0'][1]}")

    text = run(nnaccel, [os.path.join(models, CLS), "--input", os.path.join(images, "page.png"),
                         "--size", "48x192", "--norm", "signed", "--channel-order", "bgr",
                         "--dtype", "int8", "--calib", calib_without("page.png"),
                         "--calib-method", "mse", "--eval-samples", "0"])
    m = AGREE.search(text)
    check(m is not None and m[1] == m[2] and float(m[3]) >= 0.99,
          f"direction classifier int8 (mse) on page.png: "
          f"{'top-1 ' + m[1] + '/' + m[2] + ', cosine ' + m[3] if m else 'no agreement line'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
