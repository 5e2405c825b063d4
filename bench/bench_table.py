#!/usr/bin/env python3
"""Runs nnaccel_bench (or reads its JSON output) and prints the figures as Markdown tables.

Usage:
  bench/bench_table.py BUILD/bench/nnaccel_bench [benchmark options...]   # runs it
  bench/bench_table.py results.json                                       # a saved run
Options after the binary go to Google Benchmark, e.g. --benchmark_filter='fp32/|conv_'.
Times are medians of the iterations (the "ms" counter); x_ columns are ratios to a reference
measured in the same run, interleaved with the benchmark (see bench/BenchUtil.h). The scaling/
benchmarks (bench/ScalingBench.cpp) report minima and get a table of their own.
"""
import json
import subprocess
import sys


def load(args):
    if args[0].endswith(".json"):
        with open(args[0]) as f:
            return json.load(f)
    cmd = [args[0], "--benchmark_format=json"] + args[1:]
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout
    return json.loads(out)


def ms(b):
    return b.get("ms", b["real_time"] if b.get("time_unit") == "ms" else b["real_time"] / 1e6)


def fmt(v, digits=None):
    """digits=None: three significant digits (times), else fixed decimals (ratios)."""
    if v is None:
        return "–"
    return f"{v:.3g}" if digits is None else f"{v:.{digits}f}"


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    data = load(sys.argv[1:])
    by = {}
    scaling = []
    for b in data["benchmarks"]:
        if b.get("error_occurred"):
            print(f"{b['name']}: {b.get('error_message')}", file=sys.stderr)
            continue
        if b["name"].startswith("scaling/"):
            scaling.append(b)
            continue
        kind, name = b["name"].split("/")[:2]
        by.setdefault(kind, {})[name] = b
    ctx = data["context"]
    print(f"{ctx.get('date')}, {ctx.get('num_cpus')} CPUs, load average "
          f"{' '.join(f'{x:.2f}' for x in ctx.get('load_avg', []))}\n")

    models = [m for kind in ("fp32", "int8", "calibrate", "onnx_load") for m in by.get(kind, {})]
    models = list(dict.fromkeys(models))
    if models:
        print("| model | GMAC | fp32 ms | GMAC/s | fp32 warm / fresh | int8 ms | int8 / fp32 "
              "| calibrate ms | calibrate / fp32 | ONNX load ms | load / fp32 |")
        print("| --- |" + " ---: |" * 10)
        for m in models:
            f, i, c, o = (by.get(k, {}).get(m) for k in ("fp32", "int8", "calibrate", "onnx_load"))
            print(f"| {m} | {fmt(f and f['GMAC'], 2)} | {fmt(f and ms(f))} "
                  f"| {fmt(f and f['GMAC/s'])} | {fmt(f and f['x_fresh'], 2)} "
                  f"| {fmt(i and ms(i))} | {fmt(i and i['x_fp32'], 2)} "
                  f"| {fmt(c and ms(c))} | {fmt(c and c['x_fp32'], 2)} "
                  f"| {fmt(o and ms(o))} | {fmt(o and o['x_fp32'], 2)} |")
        print()
    layers = list(dict.fromkeys(list(by.get("conv_onednn", {})) + list(by.get("conv_naive", {}))))
    if layers:
        print("| conv layer | oneDNN ms | oneDNN GMAC/s | naive ms | naive GMAC/s | naive / oneDNN |")
        print("| --- |" + " ---: |" * 5)
        for layer in layers:
            d, n = by.get("conv_onednn", {}).get(layer), by.get("conv_naive", {}).get(layer)
            print(f"| {layer} | {fmt(d and ms(d))} | {fmt(d and d['GMAC/s'])} "
                  f"| {fmt(n and ms(n))} | {fmt(n and n['GMAC/s'])} "
                  f"| {fmt(n and n['x_onednn'], 1)} |")
    if scaling:
        print_scaling(scaling)


def print_scaling(benchmarks):
    """The table of bench/ScalingBench.cpp: one row per engine, input size and batch. "(x1)" is
    the figure over the same engine's model at its own size with batch 1 (its first point)."""
    print("| engine | model | input | batch | GMAC | wall ms | quantize / compile / reference "
          "/ simulate ms | ns/MAC | simulate ns/MAC (x1) | simulate CPU ns/MAC (x1) "
          "| reference ns/MAC | simulate / reference | cycles | cycles/MAC (x1) | DRAM MB |")
    print("| --- | --- | --- |" + " ---: |" * 12)
    base = {}
    for b in benchmarks:
        engine, model, size, batch = b["name"].split("/")[1:5]
        b0 = base.setdefault((engine, model), b)

        def rel(key, digits):
            return f"{b[key]:.{digits}f} ({b[key] / b0[key]:.2f})"

        cycles_rel = b["cycles_per_mac"] / b0["cycles_per_mac"]
        phases = " / ".join(f"{b[k]:,.0f}" for k in ("quantize_ms", "compile_ms", "reference_ms",
                                                     "simulate_ms"))
        print(f"| {engine} | {model} | {size} | {batch.removeprefix('b')} "
              f"| {b['macs'] * 1e-9:.2f} | {b['ms']:,.0f} | {phases} | {b['ns_per_mac']:.2f} "
              f"| {rel('sim_ns_per_mac', 2)} | {rel('sim_cpu_ns_per_mac', 2)} "
              f"| {b['ref_ns_per_mac']:.3f} | {b['x_int8ref']:.1f} | {b['cycles']:,.0f} "
              f"| {b['cycles_per_mac'] * 1e3:.3g}e-3 ({cycles_rel:.2f}) "
              f"| {fmt(b['dram_mb'])} |")


if __name__ == "__main__":
    main()
