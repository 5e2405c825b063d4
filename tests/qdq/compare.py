#!/usr/bin/python3
"""The QDQ suite against ONNX Runtime (docs/Quantization.md, "QDQ models"): builds the QDQ test
models (make_models.py), runs each on ONNX Runtime (run_ort.mjs, the npm package
onnxruntime-node that scripts/fetch-onnxruntime installs) and on nnaccel's int8 executor
(`nnaccel run --dtype int8`, which keeps the model's own scales), and compares the output
codes element by element; then simulates each model on systolic, sparse and broadcast and
requires VERIFIED with no layer on the host (systolic also through a written program file, its
cycle-exact array and its baselines), and on the stream ASIC VERIFIED or a one-line refusal for a
reason that is not the zero points.

ONNX Runtime runs each model twice: as it ships (graph optimizations on, QDQ groups fused into
its integer kernels) and unfused (optimizations off: DequantizeLinear, the fp32 op,
QuantizeLinear, as ONNX defines the QDQ form).

The dynamically quantized model (ONNX Runtime's quantize_dynamic form: DynamicQuantizeLinear,
ConvInteger, MatMulInteger) has no static output scale: there nnaccel's fp32 reference executor,
which runs the integer ops exactly, must equal ONNX Runtime's output element for element, and
the engines run the int8 model nnaccel builds from it (the model's weights, a calibrated input
scale) with no layer on the host.

Expected: every code equal to both. Where a Concat input is requantized onto an exact half (the
concat models move codes from 0.02 to 0.04), the QDQ form's fp32 arithmetic decides the side;
nnaccel moves such inputs through a table of that arithmetic (quant::rescaleTable,
docs/Quantization.md, "QDQ models"), so these are equal too. On an x86 CPU without VNNI,
ONNX Runtime's fused u8s8 kernels multiply-add pairs with vpmaddubsw, whose int16 sums saturate
(ONNX Runtime's quantization docs; oneDNN's "Nuances of int8 computations"), so there its fused
output is reported but not required: the unfused output, which is exact, still is.

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
# model, input, output scale (the last QuantizeLinear's)
MODELS = [("qdq_conv", "x_image", 0.05), ("qdq_depthwise", "x_image", 0.03),
          ("qdq_residual", "x_image", 0.05), ("qdq_concat_pool", "x_image", 0.04),
          ("qdq_matmul", "x_rows", 0.1), ("qop_conv_matmul", "x_image", 0.2),
          ("asym_conv", "x_image", 0.03), ("asym_depthwise", "x_image", 0.031),
          ("asym_residual", "x_image", 0.05), ("asym_concat_pool", "x_image", 0.03),
          ("asym_matmul", "x_rows", 0.1), ("asym_global_pool", "x_image", 0.01),
          ("asym_convtranspose", "x_image", 0.05),
          ("asym_qop_conv_matmul", "x_image", 0.2)]
# dynamically quantized models (compared in fp32), and their input
DYNAMIC = [("dyn_conv_matmul", "x_image")]
# engine, its options, whether it holds activation zero points (else it refuses asym_* models)
ENGINES = [("systolic", [], True), ("sparse", ["--threads", "1"], True),
           ("broadcast", [], True)]


def refusal(cmd):
    """The one-line error of a command expected to refuse its input, or why it is not one."""
    r = subprocess.run(cmd, capture_output=True, text=True)
    lines = r.stderr.strip().splitlines()
    if r.returncode == 0 or r.returncode >= 128 or len(lines) != 1:
        return None, f"exit {r.returncode}, stderr {r.stderr.strip()!r}"
    return lines[0], None


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {r.returncode}: {r.stderr.strip()}")
    return r.stdout


def saturating_int8_kernels():
    """True on an x86 CPU without VNNI, where ORT's fused u8s8 kernels may saturate."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            flags = next((l.split(":", 1)[1].split() for l in f if l.startswith("flags")), [])
    except OSError:
        return False
    return "avx2" in flags and not {"avx512_vnni", "avx_vnni"} & set(flags)


def codes(a_file, b_file, scale):
    """(equal codes, all codes, largest difference, same shape) of two outputs at scale."""
    a = np.rint(np.load(a_file) / scale)
    b = np.rint(np.load(b_file) / scale)
    if a.shape != b.shape:
        return 0, a.size, -1, False
    return int((a == b).sum()), a.size, int(np.abs(a - b).max()) if a.size else 0, True


def check_engines(nnaccel, work, model, onnx_file, x_file, failures, streamed):
    """Simulates \p model on every engine: VERIFIED with no layer on the host (or, for an
    asym_* model on an engine without zero points, a refusal), the systolic program file, exact
    array and baselines too, and on the stream ASIC VERIFIED or a one-line refusal that is not
    about zero points (appended to \p streamed when VERIFIED)."""
    for engine, extra, zero_points in ENGINES:
        report = os.path.join(work, f"{model}.{engine}.json")
        cmd = [nnaccel, "simulate", onnx_file, "--arch", engine, "--input", x_file,
               "--report", report] + extra
        if model.startswith("asym_") and not zero_points:
            line, why = refusal(cmd)
            if line is None or "asymmetric activation" not in line:
                failures.append(f"{model} on {engine}: expected a refusal, got {why or line}")
            continue
        run(cmd)
        r = json.load(open(report))
        host = sum(1 for l in r["layers"] if l["host_fallback"])
        if host or not r["verdict"]["checked"] or not r["verdict"]["passed"]:
            failures.append(f"{model} on {engine}: {host} host layers, verdict {r['verdict']}")
    # The systolic program file carries the zero points: compiled, written, read back and
    # run; its cycle-exact array and its baselines agree.
    program = os.path.join(work, model + ".nnx")
    run([nnaccel, "compile", onnx_file, "--arch", "systolic", "--output", program])
    for extra in (["--program", program], ["--exact"], ["--baseline"]):
        out = run([nnaccel, "simulate", onnx_file, "--arch", "systolic", "--input", x_file]
                  + extra)
        if "VERIFIED" not in out:
            failures.append(f"{model} on systolic {extra[0]}: not verified")
    # The stream ASIC: VERIFIED where it can place the model, else a one-line refusal for
    # a reason of its own (a 1-row matrix input, a stride-2 ConvTranspose at 1-up), never
    # for the zero points.
    cmd = [nnaccel, "simulate", onnx_file, "--arch", "stream", "--input", x_file]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if "VERIFIED" in r.stdout:
        streamed.append(model)
    else:
        line, why = refusal(cmd)
        if line is None or "zero point" in line:
            failures.append(f"{model} on stream: {why or line}")


def main():
    nnaccel, modules, work = sys.argv[1:4]
    if not os.path.isdir(os.path.join(modules, "onnxruntime-node")):
        print(f"no onnxruntime-node in {modules} (run scripts/fetch-onnxruntime)")
        return 1 if os.environ.get("NNACCEL_REQUIRE_ONNXRUNTIME") else 77
    os.makedirs(work, exist_ok=True)
    run([sys.executable, os.path.join(HERE, "make_models.py"), work])
    saturating = saturating_int8_kernels()
    if saturating:
        print("x86 CPU without VNNI: ONNX Runtime's fused u8s8 kernels may saturate int16 pair "
              "sums (vpmaddubsw); its unfused QDQ output is the required reference")
    failures = []
    streamed = []
    total_equal = total = 0
    for model, x, scale in MODELS:
        onnx_file = os.path.join(work, model + ".onnx")
        x_file = os.path.join(work, x + ".npy")
        nn_out = os.path.join(work, model + ".nnaccel.npy")
        run([nnaccel, "run", onnx_file, "--dtype", "int8", "--input", x_file, "--output", nn_out])
        for mode in ("unfused", "fused"):
            ort_out = os.path.join(work, f"{model}.ort-{mode}.npy")
            run(["node", os.path.join(HERE, "run_ort.mjs"), modules, onnx_file, x_file, ort_out,
                 mode])
            equal, size, worst, same = codes(ort_out, nn_out, scale)
            required = mode == "unfused" or not saturating
            if mode == "unfused":
                total_equal += equal
                total += size
            print(f"{model}: {equal}/{size} output codes equal to ONNX Runtime's ({mode}; "
                  f"largest difference {worst} code){'' if required else ' [not required here]'}")
            # Unfused, every code must be equal; ORT's fused integer kernels (QLinearConcat,
            # QLinearGlobalAveragePool, ...) requantize by rules of their own, so there a
            # difference of one code is reported and a larger one fails.
            if required and (not same or (equal != size if mode == "unfused" else worst > 1)):
                failures.append(f"{model} ({mode}): {equal}/{size} codes equal, shapes "
                                f"{'equal' if same else 'differ'}, largest difference {worst}")
        check_engines(nnaccel, work, model, onnx_file, x_file, failures, streamed)
    for model, x in DYNAMIC:
        onnx_file = os.path.join(work, model + ".onnx")
        x_file = os.path.join(work, x + ".npy")
        nn_out = os.path.join(work, model + ".nnaccel-fp32.npy")
        run([nnaccel, "run", onnx_file, "--input", x_file, "--output", nn_out])
        for mode in ("unfused", "fused"):
            ort_out = os.path.join(work, f"{model}.ort-{mode}.npy")
            run(["node", os.path.join(HERE, "run_ort.mjs"), modules, onnx_file, x_file, ort_out,
                 mode])
            a, b = np.load(nn_out), np.load(ort_out)
            equal = int((a == b).sum()) if a.shape == b.shape else 0
            print(f"{model}: {equal}/{b.size} fp32 outputs equal to ONNX Runtime's ({mode})")
            if equal != b.size:
                failures.append(f"{model} ({mode}): {equal}/{b.size} fp32 outputs equal")
        check_engines(nnaccel, work, model, onnx_file, x_file, failures, streamed)
    print(f"all: {total_equal}/{total} output codes equal to ONNX Runtime's (unfused)")
    print(f"stream VERIFIED: {len(streamed)} of {len(MODELS) + len(DYNAMIC)} "
          f"({', '.join(streamed)})")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
