#!/usr/bin/python3
# Generates the expected outputs pasted into the reference-kernel tests, independently of the
# C++ code: naive numpy loops for Conv/ConvTranspose/pooling (ONNX semantics, onnxruntime's
# count_include_pad rule) and the ONNX test-data generator's own interpolate_nd for Resize.
# Run with Debian's /usr/bin/python3 (numpy + onnx 1.12): /usr/bin/python3 expected_values.py
import itertools
import math

import numpy as np
from onnx.backend.test.case.node.resize import (cubic_coeffs, interpolate_nd, linear_coeffs,
                                                nearest_coeffs)


def seq(shape, seed):
    """The test inputs: multiples of 1/8 in [-9/8, 9/8] (TestUtil.h: seqTensor)."""
    n = int(np.prod(shape))
    return np.array([((i * 37 + seed * 11) % 19 - 9) / 8.0 for i in range(n)],
                    dtype=np.float64).reshape(shape)


def conv(x, w, b, group, strides, dilations, pb, pe):
    n, c = x.shape[:2]
    m = w.shape[0]
    sp = x.shape[2:]
    k = w.shape[2:]
    out = [(sp[i] + pb[i] + pe[i] - ((k[i] - 1) * dilations[i] + 1)) // strides[i] + 1
           for i in range(len(sp))]
    y = np.zeros([n, m] + out)
    cg, mg = c // group, m // group
    for nn, mm in itertools.product(range(n), range(m)):
        g = mm // mg
        for o in itertools.product(*[range(v) for v in out]):
            acc = 0.0 if b is None else b[mm]
            for ci in range(cg):
                for kk in itertools.product(*[range(v) for v in k]):
                    pos = [o[i] * strides[i] - pb[i] + kk[i] * dilations[i] for i in range(len(sp))]
                    if all(0 <= pos[i] < sp[i] for i in range(len(sp))):
                        acc += x[(nn, g * cg + ci) + tuple(pos)] * w[(mm, ci) + kk]
            y[(nn, mm) + o] = acc
    return y


def conv_transpose(x, w, b, group, strides, dilations, pb, pe, outpad):
    n, c = x.shape[:2]
    mg = w.shape[1]
    m = mg * group
    sp = x.shape[2:]
    k = w.shape[2:]
    full = [strides[i] * (sp[i] - 1) + outpad[i] + (k[i] - 1) * dilations[i] + 1
            for i in range(len(sp))]
    out = [full[i] - pb[i] - pe[i] for i in range(len(sp))]
    y = np.zeros([n, m] + out)
    cg = c // group
    for nn, ci in itertools.product(range(n), range(c)):
        g = ci // cg
        for i in itertools.product(*[range(v) for v in sp]):
            for mm in range(mg):
                for kk in itertools.product(*[range(v) for v in k]):
                    pos = [i[a] * strides[a] + kk[a] * dilations[a] - pb[a] for a in range(len(sp))]
                    if all(0 <= pos[a] < out[a] for a in range(len(sp))):
                        y[(nn, g * mg + mm) + tuple(pos)] += x[(nn, ci) + i] * w[(ci, mm) + kk]
    if b is not None:
        y += b.reshape([1, m] + [1] * len(sp))
    return y


def pool(x, kind, k, strides, dilations, pb, pe, ceil, include_pad):
    sp = x.shape[2:]
    r = len(sp)
    out = []
    for i in range(r):
        eff = (k[i] - 1) * dilations[i] + 1
        span = sp[i] + pb[i] + pe[i] - eff
        o = (math.ceil(span / strides[i]) if ceil else span // strides[i]) + 1
        if ceil and (o - 1) * strides[i] >= sp[i] + pb[i]:
            o -= 1
        out.append(o)
    y = np.zeros(list(x.shape[:2]) + out)
    for nc in itertools.product(range(x.shape[0]), range(x.shape[1])):
        for o in itertools.product(*[range(v) for v in out]):
            vals, window = [], 1
            for a in range(r):
                start = o[a] * strides[a] - pb[a]
                end = min(start + (k[a] - 1) * dilations[a] + 1, sp[a] + pe[a])
                window *= len(range(start, end, dilations[a]))
            for kk in itertools.product(*[range(v) for v in k]):
                pos = [o[a] * strides[a] - pb[a] + kk[a] * dilations[a] for a in range(r)]
                if all(0 <= pos[a] < sp[a] for a in range(r)):
                    vals.append(x[nc + tuple(pos)])
            if kind == 'max':
                y[nc + o] = max(vals)
            else:
                y[nc + o] = sum(vals) / (window if include_pad else len(vals))
    return y


def show(name, a):
    """Prints a C++ constant kName (shape in the comment) to paste into the test."""
    flat = ', '.join('%.9g' % v for v in np.asarray(a, dtype=np.float32).flatten())
    ident = 'k' + ''.join(p[:1].upper() + p[1:] for p in name.split('_'))
    print('// %s' % 'x'.join(str(d) for d in np.shape(a)))
    print('const std::vector<float> %s = {%s};' % (ident, flat))


print('// ---- ConvKernelsTest')
show('conv2d_asym', conv(seq([1, 2, 5, 6], 1), seq([3, 2, 3, 2], 2), seq([3], 3), 1,
                         [2, 1], [1, 2], [1, 0], [0, 1]))
show('conv2d_group2', conv(seq([1, 4, 4, 4], 4), seq([4, 2, 3, 3], 5), None, 2,
                           [1, 1], [1, 1], [1, 1], [1, 1]))
show('conv2d_depthwise', conv(seq([2, 3, 6, 5], 6), seq([6, 1, 3, 3], 7), seq([6], 8), 3,
                              [2, 2], [2, 2], [1, 2], [1, 0]))
show('conv1d', conv(seq([1, 2, 7], 9), seq([2, 2, 3], 10), seq([2], 11), 1, [2], [2], [2], [1]))
show('conv3d', conv(seq([1, 1, 3, 3, 3], 12), seq([2, 1, 2, 2, 2], 13), seq([2], 14), 1,
                    [1, 1, 1], [1, 1, 1], [0, 0, 0], [0, 0, 0]))
show('convT2d', conv_transpose(seq([1, 2, 3, 3], 15), seq([2, 2, 3, 3], 16), seq([4], 17), 2,
                               [2, 2], [1, 2], [1, 0], [0, 1], [1, 1]))
show('convT1d', conv_transpose(seq([1, 1, 3], 18), seq([1, 1, 3], 19), seq([1], 20), 1,
                               [2], [1], [0], [0], [1]))
print('// ---- PoolKernelsTest')
x = seq([1, 2, 6, 6], 21)
show('max_ceil', pool(x, 'max', [3, 3], [2, 2], [1, 1], [1, 1], [1, 1], True, False))
show('max_dilated', pool(x, 'max', [2, 2], [1, 2], [2, 2], [0, 1], [0, 0], False, False))
show('avg_exclude', pool(x, 'avg', [3, 3], [2, 2], [1, 1], [1, 1], [1, 1], False, False))
show('avg_include', pool(x, 'avg', [3, 3], [2, 2], [1, 1], [1, 1], [1, 1], False, True))
show('avg_include_ceil', pool(x, 'avg', [3, 3], [2, 2], [1, 1], [1, 1], [1, 1], True, True))
show('avg_exclude_ceil', pool(x, 'avg', [3, 3], [2, 2], [1, 1], [1, 1], [1, 1], True, False))
show('avg_include_asym_ceil', pool(seq([1, 1, 8], 22), 'avg', [3], [3], [1], [2], [1], True, True))
show('max_1d', pool(seq([1, 2, 9], 23), 'max', [3], [2], [1], [1], [0], False, False))
print('// ---- ResizeKernelsTest')
r = seq([1, 1, 3, 4], 24).astype(np.float32)
def rz(name, coeffs, scales=None, sizes=None, **kw):
    if scales is not None:
        scales = np.array(scales, dtype=np.float32)
    show(name, interpolate_nd(r, coeffs, output_size=sizes, scale_factors=scales, **kw))
for mode in ['round_prefer_floor', 'round_prefer_ceil', 'floor', 'ceil']:
    for ct in ['half_pixel', 'asymmetric', 'align_corners', 'pytorch_half_pixel']:
        rz('nearest_%s_%s' % (mode, ct), lambda x, m=mode: nearest_coeffs(x, mode=m),
           scales=[1, 1, 1.7, 2.5], coordinate_transformation_mode=ct)
for ct in ['half_pixel', 'asymmetric', 'align_corners', 'pytorch_half_pixel']:
    rz('linear_up_%s' % ct, linear_coeffs, scales=[1, 1, 2, 1.5], coordinate_transformation_mode=ct)
    rz('linear_down_%s' % ct, linear_coeffs, scales=[1, 1, 0.6, 0.6],
       coordinate_transformation_mode=ct)
rz('linear_sizes_pytorch_1', linear_coeffs, sizes=[1, 1, 1, 3],
   coordinate_transformation_mode='pytorch_half_pixel')
rz('cubic_up_half_pixel', cubic_coeffs, scales=[1, 1, 2, 2])
rz('cubic_down_align', cubic_coeffs, scales=[1, 1, 0.8, 0.8],
   coordinate_transformation_mode='align_corners')
rz('cubic_exclude_A05', lambda x: cubic_coeffs(x, A=-0.5), scales=[1, 1, 2, 2],
   exclude_outside=True)
rz('linear_tf_crop', linear_coeffs, sizes=[1, 1, 3, 3], roi=np.array([0, 0, 0.4, 0.6, 1, 1, 1.2, 0.7], dtype=np.float32),
   coordinate_transformation_mode='tf_crop_and_resize', extrapolation_value=10.0)
print('// ---- Resize on N and C axes (linear 4-D)')
show('linear_nd', interpolate_nd(seq([2, 2, 2, 2], 25).astype(np.float32), linear_coeffs,
                                 scale_factors=np.array([1.5, 2, 1, 1], dtype=np.float32),
                                 coordinate_transformation_mode='asymmetric'))

print('// ---- EltwiseKernelsTest')
ex = np.array([-100, -3, -1, -0.5, 0, 0.5, 1, 3, 20, 100], dtype=np.float32).astype(np.float64)
show('sigmoid', 1 / (1 + np.exp(-ex)))
show('tanh', np.tanh(ex))
show('elu', np.where(ex < 0, 0.7 * (np.exp(ex) - 1), ex))
show('softplus', np.log1p(np.exp(np.minimum(ex, 80))) + np.maximum(ex - 80, 0))
show('selu', np.where(ex > 0, 1.0507 * ex, 1.0507 * (1.6733 * np.exp(ex) - 1.6733)))
show('hard_sigmoid', np.maximum(0, np.minimum(1, np.float32(0.2) * ex + 0.5)))
show('hard_swish', ex * np.maximum(0, np.minimum(1, ex / 6 + 0.5)))
a = seq([2, 1, 3], 26)
b = seq([4, 1], 27) + 2.0  # no zeros: also used as a divisor
show('bcast_add', a + b)
show('bcast_sub', a - b)
show('bcast_mul', a * b)
show('bcast_div', (a.astype(np.float32) / b.astype(np.float32)))
print('// ---- DenseKernelsTest')
show('matmul_batch', np.matmul(seq([2, 1, 2, 3], 28), seq([3, 3, 2], 29)))
sx = seq([2, 3, 2], 30)
def softmax(v, axis):
    e = np.exp(v - v.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
show('softmax_axis1', softmax(sx, 1))
show('softmax_coerce_axis1', softmax(sx.reshape(2, 6), 1).reshape(2, 3, 2))
show('softmax_axis2', softmax(sx, 2))
print('// ---- NormKernelsTest')
bx = seq([2, 3, 2, 2], 31)
sc, bi, mu, var = seq([3], 32), seq([3], 33), seq([3], 34), np.abs(seq([3], 35)) + 0.25
show('batchnorm', sc.reshape(1, 3, 1, 1) * (bx - mu.reshape(1, 3, 1, 1)) /
     np.sqrt(var.reshape(1, 3, 1, 1) + 1e-3) + bi.reshape(1, 3, 1, 1))
