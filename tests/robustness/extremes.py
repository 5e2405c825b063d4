#!/usr/bin/env python3
"""The semantic fuzzer (issue 20 item 6): valid-but-extreme configs and models, run end to end.

Every numeric key of every engine's config (as `nnaccel arch show ENGINE` prints it) is set, one
at a time, to the edges a hostile or careless user reaches: 0, -1, 1, tiny and huge reals, int32
and int64 edges, NaN, a thousandth and a thousand times its default. Each config then runs
`nnaccel simulate` on a small model under a time and memory limit. Models come from the zoo and
from generated ONNX files with extreme scales and shapes (Debian's python3-onnx).

A case passes when nnaccel either runs (exit 0) or refuses with exactly one line starting with
"error: " (exit 1 or 2). Anything else is a finding: a signal (crash, abort), a timeout, the
memory limit, an "internal" error, or a refusal over several lines. Prints one line per finding
and a summary; exits 1 when there was a finding.

    tests/robustness/extremes.py NNACCEL WORKDIR [--sample N] [--seed S] [--timeout SECONDS]
                                 [--sanitized]

--sample N runs N cases drawn with the seed (the test suite's quick pass); without it, every
case (the campaign). --sanitized: NNACCEL is an ASan/UBSan build (the test suite's asan tier);
its memory limit is ASan's hard_rss_limit_mb instead of an address-space limit (ASan reserves
terabytes of address space for its shadow), and a sanitizer report is a finding.
"""
import argparse
import math
import os
import random
import resource
import subprocess
import sys

ENGINES = ["systolic", "sparse", "broadcast", "stream"]
MEMORY_LIMIT_BYTES = 4 << 30


def numeric_leaves(yaml_text):
    """(dotted key, value) of every numeric scalar of an `arch show` YAML (two-space indents)."""
    leaves, stack = [], []
    for line in yaml_text.splitlines():
        if not line.strip() or line.lstrip().startswith("#") or ":" not in line:
            continue
        indent = (len(line) - len(line.lstrip())) // 2
        key, _, value = line.strip().partition(":")
        stack = stack[:indent] + [key]
        value = value.strip()
        try:
            number = float(value)
        except ValueError:
            continue
        leaves.append((".".join(stack), number))
    return leaves


def extremes(default):
    values = [0, -1, 1, 1e-300, 1e300, 2**31 - 1, 2**31, 2**63 - 1, 2**63, "nan", "-inf"]
    if default not in (0, 1):
        values += [default / 1000, default * 1000]
    return values


def set_key(yaml_text, dotted, value):
    """yaml_text with the leaf `dotted` set to `value`."""
    path, out, stack = dotted.split("."), [], []
    for line in yaml_text.splitlines():
        if line.strip() and ":" in line and not line.lstrip().startswith("#"):
            indent = (len(line) - len(line.lstrip())) // 2
            key = line.strip().partition(":")[0]
            stack = stack[:indent] + [key]
            if stack == path:
                text = {"nan": ".nan", "-inf": "-.inf"}.get(value, repr(value))
                line = " " * (2 * indent) + key + ": " + text
        out.append(line)
    return "\n".join(out) + "\n"


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))


SANITIZED = False


def run_case(nnaccel, args, timeout):
    """'ok', 'refused' or a finding's description."""
    env = dict(os.environ)
    if SANITIZED:
        env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") +
                               f":hard_rss_limit_mb={MEMORY_LIMIT_BYTES >> 20}").lstrip(":")
    try:
        p = subprocess.run([nnaccel] + args, capture_output=True, text=True, timeout=timeout,
                           preexec_fn=None if SANITIZED else limit_memory, env=env)
    except subprocess.TimeoutExpired:
        return f"timeout after {timeout} s"
    err = p.stderr.strip().splitlines()
    errors = [line for line in err if line.startswith("error:")]
    reports = [line for line in err if "Sanitizer" in line or "runtime error:" in line]
    if reports:
        return "sanitizer: " + reports[0]
    if p.returncode < 0:
        return f"signal {-p.returncode}: {err[-1] if err else ''}"
    if any("internal" in line for line in errors):
        return "internal error: " + errors[0]
    if p.returncode == 0:
        return "ok"
    if p.returncode in (1, 2) and len(errors) == 1:
        return "refused"
    return f"exit {p.returncode} with {len(errors)} error lines: {err[-3:]}"


def model_cases(workdir):
    """Generated ONNX models with extreme numbers and shapes (skipped without python3-onnx)."""
    try:
        import numpy as np
        from onnx import TensorProto, helper, numpy_helper, save
    except ImportError:
        return []

    def conv_model(name, x_shape, w, pads=(0, 0, 0, 0), strides=(1, 1)):
        graph = helper.make_graph(
            [helper.make_node("Conv", ["x", "w"], ["y"], pads=list(pads), strides=list(strides))],
            name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x_shape))],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
            [numpy_helper.from_array(w.astype(np.float32), "w")])
        path = os.path.join(workdir, name + ".onnx")
        save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
        return path

    ones = np.ones((4, 3, 3, 3))
    return [
        conv_model("tiny_weights", (1, 3, 8, 8), ones * 1e-44),
        conv_model("huge_weights", (1, 3, 8, 8), ones * 1e38),
        conv_model("zero_weights", (1, 3, 8, 8), ones * 0),
        conv_model("one_pixel", (1, 3, 1, 1), ones, pads=(1, 1, 1, 1)),
        conv_model("kernel_is_image", (1, 3, 3, 3), ones),
        conv_model("huge_stride", (1, 3, 8, 8), ones, strides=(1000, 1000)),
        conv_model("many_channels", (1, 4096, 2, 2), np.ones((2, 4096, 1, 1))),
        conv_model("wide_image", (1, 3, 1, 20000), ones, pads=(1, 1, 1, 1)),
    ]


def all_cases(nnaccel, workdir):
    cases = []
    for engine in ENGINES:
        base = subprocess.run([nnaccel, "arch", "show", engine], capture_output=True, text=True,
                              check=True).stdout
        for key, default in numeric_leaves(base):
            for value in extremes(default):
                cases.append(("config", engine, key, value, base))
    for path in model_cases(workdir):
        for engine in ENGINES:
            cases.append(("model", engine, path, None, None))
    return cases


def run(nnaccel, workdir, case, timeout):
    kind, engine, what, value, base = case
    if kind == "config":
        config = os.path.join(workdir, f"{engine}.yaml")
        with open(config, "w") as f:
            f.write(set_key(base, what, value))
        args = ["simulate", "lenet5", "--arch", engine, "--config", config]
        label = f"{engine} {what}={value}"
    else:
        args = ["simulate", what, "--arch", engine]
        label = f"{engine} {os.path.basename(what)}"
    return label, run_case(nnaccel, args, timeout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("nnaccel")
    ap.add_argument("workdir")
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--sanitized", action="store_true")
    a = ap.parse_args()
    global SANITIZED
    SANITIZED = a.sanitized
    os.makedirs(a.workdir, exist_ok=True)
    cases = all_cases(a.nnaccel, a.workdir)
    if a.sample:
        cases = random.Random(a.seed).sample(cases, min(a.sample, len(cases)))
    counts, findings = {"ok": 0, "refused": 0}, []
    for case in cases:
        label, outcome = run(a.nnaccel, a.workdir, case, a.timeout)
        if outcome in counts:
            counts[outcome] += 1
        else:
            findings.append(f"{label}: {outcome}")
            print(f"FINDING {label}: {outcome}", flush=True)
    print(f"extremes: {len(cases)} cases, {counts['ok']} ran, {counts['refused']} refused with "
          f"one line, {len(findings)} findings")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
