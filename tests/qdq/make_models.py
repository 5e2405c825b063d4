#!/usr/bin/python3
"""Builds the QDQ test models (docs/Quantization.md, "QDQ models") with the ONNX Python API of
Debian's python3-onnx, in the form ONNX Runtime's static quantizer writes with symmetric int8
activations: int8 weights per output channel and int32 biases behind DequantizeLinear, every
activation wrapped in QuantizeLinear -> DequantizeLinear (int8, zero point 0). The `asym_*`
models are the form of ONNX Runtime's default (asymmetric) activations: uint8 or int8 with
zero points, a Relu's output at uint8 zero point 0. One model per case, plus one input; seeded,
so the files are the same on every run.

usage: make_models.py OUT_DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

RNG = np.random.default_rng(7)


class Builder:
    def __init__(self, name):
        self.name = name
        self.nodes, self.inits = [], []
        self.count = 0

    def fresh(self, base):
        self.count += 1
        return f"{base}_{self.count}"

    def const(self, base, array):
        name = self.fresh(base)
        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def node(self, op, inputs, base, **attrs):
        out = self.fresh(base)
        self.nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    def qdq(self, x, scale, zero=0, dtype=np.int8):
        s = self.const("s", np.array(scale, dtype=np.float32))
        z = self.const("z", np.array(zero, dtype=dtype))
        return self.node("DequantizeLinear", [self.node("QuantizeLinear", [x, s, z], "q"), s, z],
                         "dq")

    def weights(self, shape, axis):
        codes = RNG.integers(-127, 128, size=shape, dtype=np.int8)
        scales = (RNG.uniform(0.5, 1.5, size=shape[axis]) / 127 * 0.3).astype(np.float32)
        w = self.const("w", codes)
        s = self.const("ws", scales)
        z = self.const("wz", np.zeros(shape[axis], dtype=np.int8))
        return self.node("DequantizeLinear", [w, s, z], "wdq", axis=axis), scales

    def bias(self, channels, x_scale, w_scales):
        codes = RNG.integers(-2000, 2000, size=channels).astype(np.int32)
        s = self.const("bs", (np.float32(x_scale) * w_scales).astype(np.float32))
        return self.node("DequantizeLinear", [self.const("b", codes), s], "bdq", axis=0)

    def conv(self, x, x_scale, cin, cout, group=1, kernel=3):
        w, ws = self.weights((cout, cin // group, kernel, kernel), 0)
        b = self.bias(cout, x_scale, ws)
        return self.node("Conv", [x, w, b], "conv", pads=[kernel // 2] * 4, group=group)

    def save(self, out_dir, x_shape, y, y_shape):
        graph = helper.make_graph(
            self.nodes, self.name,
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
            [helper.make_tensor_value_info(y, TensorProto.FLOAT, y_shape)], self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        model.ir_version = 7
        onnx.checker.check_model(model)
        onnx.save(model, os.path.join(out_dir, self.name + ".onnx"))


def conv_model(out):
    b = Builder("qdq_conv")
    x = b.qdq("x", 0.02)
    y = b.qdq(b.conv(x, 0.02, 8, 16), 0.05)
    b.save(out, [1, 8, 12, 12], y, [1, 16, 12, 12])


def depthwise_model(out):
    b = Builder("qdq_depthwise")
    x = b.qdq("x", 0.02)
    y = b.qdq(b.conv(x, 0.02, 8, 8, group=8), 0.03)
    b.save(out, [1, 8, 12, 12], y, [1, 8, 12, 12])


def residual_model(out):
    b = Builder("qdq_residual")
    x = b.qdq("x", 0.02)
    c = b.qdq(b.conv(x, 0.02, 8, 8), 0.04)
    y = b.qdq(b.node("Add", [c, x], "add"), 0.05)
    b.save(out, [1, 8, 12, 12], y, [1, 8, 12, 12])


def concat_pool_model(out):
    b = Builder("qdq_concat_pool")
    x = b.qdq("x", 0.02)
    c = b.qdq(b.conv(x, 0.02, 8, 8), 0.04)
    cat = b.qdq(b.node("Concat", [c, x], "cat", axis=1), 0.04)
    y = b.qdq(b.node("MaxPool", [cat], "pool", kernel_shape=[2, 2], strides=[2, 2]), 0.04)
    b.save(out, [1, 8, 12, 12], y, [1, 16, 6, 6])


def matmul_model(out):
    b = Builder("qdq_matmul")
    x = b.qdq("x", 0.02)
    w, _ = b.weights((32, 10), 1)
    y = b.qdq(b.node("MatMul", [x, w], "mm"), 0.1)
    b.save(out, [1, 6, 32], y, [1, 6, 10])


def qoperator(out, name, dtype, zeros, weight_max):
    """The QOperator form (ONNX Runtime's QuantFormat.QOperator): QuantizeLinear, two QLinearConv
    and a QLinearMatMul over `dtype` tensors, DequantizeLinear at the end. `zeros`: the zero
    points of the input, the two convolutions' outputs and the MatMul's output; the weights are
    int8 codes within +-`weight_max`."""
    b = Builder(name)
    xs = b.const("xs", np.array(0.02, dtype=np.float32))
    xz = b.const("xz", np.array(zeros[0], dtype=dtype))
    q = b.node("QuantizeLinear", ["x", xs, xz], "q")

    def qlinear_conv(x, x_s, x_z, cin, cout, y_scale, y_zero):
        codes = RNG.integers(-weight_max, weight_max + 1, size=(cout, cin, 3, 3), dtype=np.int8)
        w_scales = (RNG.uniform(0.5, 1.5, size=cout) / 127 * 0.3).astype(np.float32)
        bias = RNG.integers(-2000, 2000, size=cout).astype(np.int32)
        ys = b.const("ys", np.array(y_scale, dtype=np.float32))
        yz = b.const("yz", np.array(y_zero, dtype=dtype))
        y = b.node("QLinearConv", [x, x_s, x_z, b.const("w", codes), b.const("ws", w_scales),
                                   b.const("wz", np.zeros(cout, dtype=np.int8)), ys, yz,
                                   b.const("b", bias)], "qconv", pads=[1, 1, 1, 1])
        return y, ys, yz

    c1, s1, z1 = qlinear_conv(q, xs, xz, 8, 8, 0.04, zeros[1])
    c2, s2, z2 = qlinear_conv(c1, s1, z1, 8, 6, 0.05, zeros[2])
    shape = b.const("shape", np.array([1, 6, 144], dtype=np.int64))
    flat = b.node("Reshape", [c2, shape], "flat")
    w = b.const("mw", RNG.integers(-weight_max, weight_max + 1, size=(144, 10), dtype=np.int8))
    ms = b.const("ms", np.array(0.003, dtype=np.float32))
    mz = b.const("mz", np.array(0, dtype=np.int8))
    ys = b.const("mys", np.array(0.2, dtype=np.float32))
    yz = b.const("myz", np.array(zeros[3], dtype=dtype))
    mm = b.node("QLinearMatMul", [flat, s2, z2, w, ms, mz, ys, yz], "qmm")
    y = b.node("DequantizeLinear", [mm, ys, yz], "dq")
    b.save(out, [1, 8, 12, 12], y, [1, 6, 10])


def qoperator_model(out):
    qoperator(out, "qop_conv_matmul", np.int8, (0, 0, 0, 0), 127)


U8 = np.uint8


def asym_conv_model(out):
    """uint8 input at zero point 120 (padding is real 0: the code 120), Conv fused with a Relu
    whose output is uint8 at zero point 0, as ONNX Runtime's quantizer writes it."""
    b = Builder("asym_conv")
    x = b.qdq("x", 0.02, 120, U8)
    c = b.conv(x, 0.02, 8, 16)
    y = b.qdq(b.node("Relu", [b.qdq(c, 0.03, 0, U8)], "relu"), 0.03, 0, U8)
    b.save(out, [1, 8, 12, 12], y, [1, 16, 12, 12])


def asym_depthwise_model(out):
    b = Builder("asym_depthwise")
    x = b.qdq("x", 0.021, -9)
    y = b.qdq(b.conv(x, 0.021, 8, 8, group=8), 0.031, 17)
    b.save(out, [1, 8, 12, 12], y, [1, 8, 12, 12])


def asym_residual_model(out):
    b = Builder("asym_residual")
    x = b.qdq("x", 0.02, 131, U8)
    c = b.qdq(b.conv(x, 0.02, 8, 8), 0.04, 100, U8)
    y = b.qdq(b.node("Add", [c, x], "add"), 0.05, 140, U8)
    b.save(out, [1, 8, 12, 12], y, [1, 8, 12, 12])


def asym_concat_pool_model(out):
    """Concat of two zero points, max pooling, and average pooling with padding (a padded
    position is real 0, excluded from the count)."""
    b = Builder("asym_concat_pool")
    x = b.qdq("x", 0.02, 5)
    c = b.qdq(b.conv(x, 0.02, 8, 8), 0.04, -30)
    cat = b.qdq(b.node("Concat", [c, x], "cat", axis=1), 0.04, -12)
    m = b.qdq(b.node("MaxPool", [cat], "maxpool", kernel_shape=[2, 2], strides=[2, 2]), 0.04, -12)
    y = b.qdq(b.node("AveragePool", [m], "avgpool", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
              0.03, 7)
    b.save(out, [1, 8, 12, 12], y, [1, 16, 6, 6])


def asym_matmul_model(out):
    b = Builder("asym_matmul")
    x = b.qdq("x", 0.02, 110, U8)
    w, _ = b.weights((32, 10), 1)
    y = b.qdq(b.node("MatMul", [x, w], "mm"), 0.1, 140, U8)
    b.save(out, [1, 6, 32], y, [1, 6, 10])


def asym_global_pool_model(out):
    b = Builder("asym_global_pool")
    x = b.qdq("x", 0.02, 128 + 40, U8)
    c = b.qdq(b.conv(x, 0.02, 8, 12), 0.04, 90, U8)
    y = b.qdq(b.node("GlobalAveragePool", [c], "gap"), 0.01, 120, U8)
    b.save(out, [1, 8, 12, 12], y, [1, 12, 1, 1])


def asym_convtranspose_model(out):
    """A 3x3 stride-2 ConvTranspose (the positions between input samples are real 0: the
    input's zero point) with padding, uint8 in and out."""
    b = Builder("asym_convtranspose")
    x = b.qdq("x", 0.02, 100, U8)
    w, ws = b.weights((8, 6, 3, 3), 1)
    bias = b.bias(6, 0.02, ws)
    y = b.node("ConvTranspose", [x, w, bias], "deconv", strides=[2, 2], pads=[1, 1, 1, 1],
               output_padding=[1, 1])
    y = b.qdq(y, 0.05, 130, U8)
    b.save(out, [1, 8, 12, 12], y, [1, 6, 24, 24])


def asym_qoperator_model(out):
    """The QOperator form with zero points: uint8 QLinearConv (x zero point 120, output 131),
    a second one onto zero point 0, and a uint8 QLinearMatMul. The weights are 7-bit (|w| <= 64,
    ONNX Runtime's reduce_range): ONNX Runtime runs QOperator nodes with its own u8s8 kernels even
    with graph optimizations off, and on an x86 CPU without VNNI their int16 pair sums saturate
    for 8-bit weights (255 * 127 * 2 > 32767); 7-bit weights keep them exact (2 * 255 * 64)."""
    qoperator(out, "asym_qop_conv_matmul", U8, (120, 131, 0, 110), 64)


def dynamic_model(out):
    """ONNX Runtime's dynamic quantization (quantize_dynamic's QOperator form): each layer's
    input quantized from its own range at run time (DynamicQuantizeLinear, uint8), a ConvInteger
    (3x3, stride 2) and a MatMulInteger with int8 weights, the int32 sums cast to float and
    multiplied by the input scale times the weight scale (per tensor for the convolution, per
    column for the MatMul), a float bias and Relu between. The weights are 7-bit (|w| <= 64,
    ONNX Runtime's reduce_range) for the reason asym_qoperator_model gives."""
    b = Builder("dyn_conv_matmul")
    xq, xs, xz = (b.fresh(n) for n in ("xq", "xs", "xz"))
    b.nodes.append(helper.make_node("DynamicQuantizeLinear", ["x"], [xq, xs, xz]))
    w = b.const("w", RNG.integers(-64, 65, size=(12, 8, 3, 3), dtype=np.int8))
    c = b.node("ConvInteger", [xq, w, xz], "conv", pads=[1, 1, 1, 1], strides=[2, 2])
    cf = b.node("Cast", [c], "cast", to=TensorProto.FLOAT)
    scale = b.node("Mul", [xs, b.const("ws", np.float32(0.004))], "scale")
    y = b.node("Mul", [cf, scale], "rescale")
    bias = b.const("bias", RNG.uniform(-0.5, 0.5, size=(1, 12, 1, 1)).astype(np.float32))
    r = b.node("Flatten", [b.node("Relu", [b.node("Add", [y, bias], "add")], "relu")], "flat")
    rq, rs, rz = (b.fresh(n) for n in ("rq", "rs", "rz"))
    b.nodes.append(helper.make_node("DynamicQuantizeLinear", [r], [rq, rs, rz]))
    m = b.node("MatMulInteger", [rq, b.const("wm", RNG.integers(-64, 65, size=(432, 10),
                                                                  dtype=np.int8)), rz], "mm")
    wms = b.const("wms", RNG.uniform(0.002, 0.004, size=10).astype(np.float32))
    mf = b.node("Cast", [m], "mcast", to=TensorProto.FLOAT)
    out_y = b.node("Mul", [mf, b.node("Mul", [rs, wms], "mscale")], "y")
    b.save(out, [1, 8, 12, 12], out_y, [1, 10])


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for make in (conv_model, depthwise_model, residual_model, concat_pool_model, matmul_model,
                 qoperator_model, asym_conv_model, asym_depthwise_model, asym_residual_model,
                 asym_concat_pool_model, asym_matmul_model, asym_global_pool_model,
                 asym_convtranspose_model):
        make(out)
    for name, shape in (("x_image", (1, 8, 12, 12)), ("x_rows", (1, 6, 32))):
        np.save(os.path.join(out, name + ".npy"),
                RNG.uniform(-2.5, 2.5, size=shape).astype(np.float32))
    # Made after the inputs, so that adding them left the earlier models' figures as they were.
    asym_qoperator_model(out)
    dynamic_model(out)


if __name__ == "__main__":
    main()
