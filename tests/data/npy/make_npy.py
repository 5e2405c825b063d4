#!/usr/bin/python3
"""Writes the .npy fixtures of tests/unit/tensor/NpyTest.cpp with numpy itself.

Run from anywhere with Debian's python3 (numpy installed): /usr/bin/python3 make_npy.py
The files are checked in; rerun only to change them. Values are small and exact so the C++
test can assert every element.
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def save(name, array, version=None):
    path = os.path.join(HERE, name)
    if version is None:
        np.save(path, array)
    else:
        with open(path, "wb") as f:
            np.lib.format.write_array(f, array, version=version)


save("f32_2x3.npy", np.array([[1.5, -2.0, 0.25], [3.0, 1e-3, -7.5]], dtype=np.float32))
save("i8_4.npy", np.array([-128, -1, 0, 127], dtype=np.int8))
save("u8_2x2.npy", np.array([[0, 1], [254, 255]], dtype=np.uint8))
save("i32_3.npy", np.array([-2147483648, 0, 2147483647], dtype=np.int32))
save("i64_2.npy", np.array([-(2**40), 2**62], dtype=np.int64))
save("bool_3.npy", np.array([True, False, True]))
save("f32_scalar.npy", np.float32(42.0))
save("f32_empty_0x3.npy", np.zeros((0, 3), dtype=np.float32))
save("f32_1x2x2_v2.npy", np.arange(4, dtype=np.float32).reshape(1, 2, 2), version=(2, 0))
# Well-formed files nnaccel rejects.
save("f32_fortran_2x3.npy", np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)))
save("f64_2.npy", np.array([1.0, 2.0], dtype=np.float64))
save("f32_bigendian_2.npy", np.array([1.0, 2.0], dtype=">f4"))
