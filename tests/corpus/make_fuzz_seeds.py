#!/usr/bin/env python3
"""Writes the hand-made seeds of the fuzz targets (fuzz/CMakeLists.txt) that are not real files
of their kind: each is a case a loader once failed on or an edge it must refuse with one line.
Every seed is replayed by `ctest -L fuzz`; `scripts/bootstrap fuzz` starts the fuzzers from
them. Pure standard library (zlib, struct), so the PNG below is written here, not copied.

    python3 tests/corpus/make_fuzz_seeds.py
"""
import os
import struct
import zlib

ROOT = os.path.dirname(os.path.abspath(__file__))


def write(folder, name, data):
    os.makedirs(os.path.join(ROOT, folder), exist_ok=True)
    with open(os.path.join(ROOT, folder, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def npy(header, payload=b""):
    text = header.encode()
    text += b" " * ((64 - (10 + len(text) + 1) % 64) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text + payload


def png(width, height, color_type=2, rows=None):
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    channels = {0: 1, 2: 3, 6: 4}[color_type]
    if rows is None:
        rows = b"".join(b"\x00" + bytes(range(width * channels)) for _ in range(height))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(rows)) +
            chunk(b"IEND", b""))


# .npy: a huge declared shape, a negative extent, an unknown dtype, a header cut short.
write("npy", "huge_shape.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, 1099511627776), }"))
write("npy", "negative_dim.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-3, 2), }"))
write("npy", "unknown_dtype.npy", npy("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", b"\0" * 16))
write("npy", "cut_header.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }")[:30])
# LeNet-5 inputs (1x1x32x32 f32): one NaN (fp32 compares identical NaNs as equal; int8 refuses
# it, naming the file), and all denormals (an int8 range too small for a scale: the value is 0).
lenet = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 32, 32), }"
write("npy", "lenet_nan.npy", npy(lenet, struct.pack("<f", float("nan")) + b"\0" * 4092))
write("npy", "lenet_denormal.npy", npy(lenet, struct.pack("<f", 1e-40) * 1024))

# Images: a real 4x3 RGB PNG, one declaring 100000x100000 pixels, one cut short, a JPEG header
# over garbage.
write("images", "tiny_rgb.png", png(4, 3))
write("images", "tiny_gray.png", png(5, 2, color_type=0))
write("images", "huge_declared.png", png(100000, 100000, rows=b"\x00" * 64))
write("images", "truncated.png", png(4, 3)[:40])
write("images", "jpeg_header_garbage.jpg", b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + bytes(range(256)))

# Engine configs and budgets: values whose consequences once overflowed or hung, a YAML alias
# bomb, deep nesting, and override forms.
write("configs", "tiny_bandwidth.yaml", "dram:\n  bytes_per_cycle: 1e-300\n")
write("configs", "huge_latency.yaml", "dram:\n  latency_cycles: 1000000000\n")
write("configs", "huge_sbuf.yaml", "sbuf:\n  bytes_per_partition: 1073741824\n")
write("configs", "nan_clock.yaml", "clock_mhz: .nan\n")
write("configs", "alias_bomb.yaml",
      "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
      "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n")
write("configs", "deep_nesting.yaml", "[" * 2000 + "]" * 2000 + "\n")
write("configs", "override_value.txt", "dram.bytes_per_cycle=1e-300")
write("configs", "override_list.txt", "dtypes=[int8, fp32]")

# Programs: a bad magic, and the magic of a systolic program followed by nothing.
write("programs", "bad_magic.program", b"NOTNNX\x00\x00" + bytes(64))
write("programs", "magic_only.program", b"NNXSYS01")

# Text formats: a SCALE-Sim run_name that leaves the output folder, topology rows with extents
# near int64, a sweep CSV whose header is all there is.
write("text", "run_name_escape.cfg",
      "[general]\nrun_name = ../../escape\n\n[architecture_presets]\nArrayHeight: 8\nArrayWidth: 8\n"
      "IfmapSramSzkB: 64\nFilterSramSzkB: 64\nOfmapSramSzkB: 64\nIfmapOffset: 0\nFilterOffset: 1000000\n"
      "OfmapOffset: 2000000\nDataflow: ws\nBandwidth: 10\nMemoryBanks: 1\n\n[run_presets]\n"
      "InterfaceBandwidth: CALC\n")
write("text", "huge_layer.csv",
      "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, "
      "Stride Height, Stride Width,\nbig, 4294967296, 4294967296, 3, 3, 4294967296, 64, 1, 1,\n")
write("text", "sweep_header_only.csv", "# nnaccel sweep\n")
# The text_formats fuzzer's first finding (out of memory): SCALE-Sim expands a layer named with
# "DP" into one layer per channel, and this row declares 3.4e10 channels.
write("text", "dp_row_expands.csv",
      "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, "
      "Stride Height, Stride Width,\nconv_DP, 10, 10, 3, 3, 34294967293, 1, 1, 1,\n")
