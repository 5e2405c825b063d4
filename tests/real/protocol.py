"""The evaluation protocol of the int8 measurements on the real-model set (int8_agreement.py,
task_agreement.py; docs/Quantization.md, "Calibration on real models"): each model is
calibrated on a few real images and judged on one it was not calibrated on.

- Photographs: scikit-image's six (scripts/fetch-real-models); a model is calibrated on the
  five it is not judged on.
- Text lines: the PaddleOCR recognizer and direction classifier read one line of text, as
  PaddleOCR's pipeline crops it from the detector's boxes, not a whole page squashed into 48
  pixels of height (on which the recognizer decodes nothing). The crops are the title and the
  five paragraph lines of page.png (boxes read off the 384x191 photograph); a model is judged
  on the first paragraph line and calibrated on the other five. The direction classifier is
  also judged on every line upright and turned by 180 degrees (what it tells apart), each with
  the other lines, both ways, as its calibration set. Cropping needs PIL (Debian's
  python3-pil).
"""
import os
import shutil

PHOTOGRAPHS = ["chelsea.png", "coffee.png", "rocket.jpg", "astronaut.png", "motorcycle_left.png",
               "page.png"]
# (left, top, right, bottom) in page.png's pixels, top to bottom
LINE_BOXES = [(0, 6, 300, 38), (0, 42, 384, 63), (0, 62, 384, 83), (0, 81, 384, 102),
              (0, 100, 384, 121), (0, 119, 250, 140)]
JUDGED_LINE = 1
LINES = "page lines"  # the `evaluated` name of the text-line protocol


def evaluation_set(images, work, evaluated):
    """(the judged input's path, the calibration folder) for \\p evaluated: a photograph's name
    in \\p images, or LINES."""
    if evaluated == LINES:
        return _line_set(images, work)
    calib = os.path.join(work, f"calib-{evaluated}")
    os.makedirs(calib, exist_ok=True)
    for f in PHOTOGRAPHS:
        if f != evaluated:
            shutil.copyfile(os.path.join(images, f), os.path.join(calib, f))
    return os.path.join(images, evaluated), calib


def _line_set(images, work):
    from PIL import Image  # pylint: disable=import-outside-toplevel
    calib = os.path.join(work, "calib-lines")
    os.makedirs(calib, exist_ok=True)
    judged = os.path.join(work, "judged-line.png")
    with Image.open(os.path.join(images, "page.png")) as page:
        for i, box in enumerate(LINE_BOXES):
            page.crop(box).save(judged if i == JUDGED_LINE else os.path.join(calib, f"line{i}.png"))
    return judged, calib


def oriented_line_sets(images, work):
    """[(judged path, calibration folder, 180-degree turned?)] for the 12 oriented lines: each
    line upright and turned, calibrated on the other five lines both ways."""
    from PIL import Image  # pylint: disable=import-outside-toplevel
    folder = os.path.join(work, "oriented")
    os.makedirs(folder, exist_ok=True)
    names = []
    with Image.open(os.path.join(images, "page.png")) as page:
        for i, box in enumerate(LINE_BOXES):
            line = page.crop(box)
            for turned in (False, True):
                name = f"line{i}{'_180' if turned else ''}.png"
                (line.rotate(180) if turned else line).save(os.path.join(folder, name))
                names.append((i, turned, name))
    sets = []
    for i, turned, name in names:
        calib = os.path.join(work, f"calib-oriented-{i}")
        os.makedirs(calib, exist_ok=True)
        for j, _, other in names:
            if j != i:
                shutil.copyfile(os.path.join(folder, other), os.path.join(calib, other))
        sets.append((os.path.join(folder, name), calib, turned))
    return sets
