#!/usr/bin/env python3
"""Op battery (docs/Testing.md, "Op battery"): one small ONNX model per operator variant a real
CNN export may contain (a 3x3 stem convolution, then the op), built with Debian's python3-onnx,
run on every engine. Each run must end VERIFIED (bit-exact against the int8 reference) or with a
one-line refusal naming the node; the table shows, per engine, the layers left on the host and
the refusals, which is where the engines' op coverage ends.

usage: op_battery.py NNACCEL WORK_DIR [--strict] [--asymmetric]

--strict: exit 1 when a run crashes, mismatches, or prints a multi-line error (refusals and host
layers are reported, not failures). --asymmetric: every run calibrates asymmetric activations
(zero points; docs/Quantization.md). A measurement, not a ctest: it takes a few minutes.
"""
import json
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import helper as h, TensorProto as T, numpy_helper as nh

rng = np.random.default_rng(5)
MODELS = {}


def W(name, shape, s=0.3):
    return nh.from_array((rng.standard_normal(shape) * s).astype(np.float32), name)


def save(name, nodes, inits, inshape=(1, 8, 16, 16), opset=17):
    """Records model NAME: input x, a 3x3 stem conv + Relu giving 'a', then NODES (output 'y')."""
    x = h.make_tensor_value_info('x', T.FLOAT, list(inshape))
    stem = [h.make_node('Conv', ['x', 'ws'], ['s0'], pads=[1, 1, 1, 1], name='stem'),
            h.make_node('Relu', ['s0'], ['a'], name='stem_relu')]
    channels = inshape[1]
    g = h.make_graph(stem + nodes, name, [x], [h.make_tensor_value_info('y', T.FLOAT, None)],
                     [W('ws', (channels, channels, 3, 3))] + inits)
    m = h.make_model(g, opset_imports=[h.make_opsetid('', opset)])
    MODELS[name] = onnx.shape_inference.infer_shapes(m)


def c(name, val):
    return nh.from_array(np.array(val, dtype=np.float32), name)


def i64(name, val):
    return nh.from_array(np.array(val, dtype=np.int64), name)


save('conv_dil_group', [h.make_node('Conv',['a','w'],['y'],dilations=[2,2],group=2,pads=[2,2,2,2])],[W('w',(8,4,3,3))])
save('conv_stride3_asym', [h.make_node('Conv',['a','w'],['y'],strides=[3,3],pads=[0,1,2,0])],[W('w',(8,8,3,3))])
save('conv_1x5', [h.make_node('Conv',['a','w'],['y'],pads=[0,2,0,2])],[W('w',(8,8,1,5))])
save('convT_dil', [h.make_node('ConvTranspose',['a','w'],['y'],strides=[2,2],dilations=[2,2])],[W('w',(8,8,3,3))])
save('convT_k1s2', [h.make_node('ConvTranspose',['a','w'],['y'],strides=[2,2])],[W('w',(8,8,1,1))])
save('convT_outpad', [h.make_node('ConvTranspose',['a','w'],['y'],strides=[2,2],pads=[1,1,1,1],output_padding=[1,1])],[W('w',(8,8,3,3))])
save('maxpool_ceil', [h.make_node('MaxPool',['a'],['y'],kernel_shape=[3,3],strides=[2,2],ceil_mode=1)],[])
save('maxpool_dil', [h.make_node('MaxPool',['a'],['y'],kernel_shape=[2,2],strides=[1,1],dilations=[2,2])],[])
save('avgpool_pad_incl', [h.make_node('AveragePool',['a'],['y'],kernel_shape=[3,3],strides=[1,1],pads=[1,1,1,1],count_include_pad=1)],[])
save('avgpool_pad_excl', [h.make_node('AveragePool',['a'],['y'],kernel_shape=[3,3],strides=[2,2],pads=[1,1,1,1])],[])
save('globalmax', [h.make_node('GlobalMaxPool',['a'],['y'])],[])
save('lppool', [h.make_node('LpPool',['a'],['y'],kernel_shape=[2,2],strides=[2,2],p=2)],[])
save('prelu_ch', [h.make_node('Conv',['a','w'],['b']),h.make_node('PRelu',['b','sl'],['y'])],[W('w',(8,8,1,1)),c('sl',(rng.random((8,1,1))*0.3))])
save('leaky', [h.make_node('Conv',['a','w'],['b']),h.make_node('LeakyRelu',['b'],['y'],alpha=0.2)],[W('w',(8,8,1,1))])
for op in ['Sigmoid','Tanh','Elu','Selu','Softplus','HardSigmoid','HardSwish','Exp','Abs','Neg','Sqrt','Reciprocal','Erf','Softsign','Mish']:
    pre=[h.make_node('Conv',['a','w'],['b'])]
    save('u_'+op.lower(), pre+[h.make_node(op,['b'],['y'])],[W('w',(8,8,1,1))])
save('gelu_erf', [h.make_node('Conv',['a','w'],['b']),h.make_node('Div',['b','s2'],['d']),h.make_node('Erf',['d'],['e']),h.make_node('Add',['e','one'],['f']),h.make_node('Mul',['b','f'],['g']),h.make_node('Mul',['g','half'],['y'])],[W('w',(8,8,1,1)),c('s2',1.4142135),c('one',1.0),c('half',0.5)])
save('add_bcast_c11', [h.make_node('Add',['a','bc'],['y'])],[c('bc',rng.random((1,8,1,1)))])
save('add_bcast_1hw', [h.make_node('Add',['a','bc'],['y'])],[c('bc',rng.random((1,1,16,16)))])
save('mul_tensor_bcast', [h.make_node('GlobalAveragePool',['a'],['p']),h.make_node('Sigmoid',['p'],['s']),h.make_node('Mul',['a','s'],['y'])],[])
save('sub_div_const', [h.make_node('Sub',['a','k'],['b']),h.make_node('Div',['b','k2'],['y'])],[c('k',0.5),c('k2',3.0)])
save('minmax_const', [h.make_node('Max',['a','k'],['b']),h.make_node('Min',['b','k2'],['y'])],[c('k',0.1),c('k2',2.0)])
save('max_two', [h.make_node('Conv',['a','w'],['b']),h.make_node('Max',['a','b'],['y'])],[W('w',(8,8,1,1))])
save('concat_split', [h.make_node('Conv',['a','w'],['b']),h.make_node('Concat',['a','b'],['cc'],axis=1),h.make_node('Split',['cc','sp'],['y1','y2'],axis=1),h.make_node('Add',['y1','y2'],['y'])],[W('w',(8,8,1,1)),i64('sp',[8,8])])
save('slice_step', [h.make_node('Slice',['a','st','en','ax','sp'],['y'])],[i64('st',[0,1]),i64('en',[16,16]),i64('ax',[2,3]),i64('sp',[2,2])])
save('pad_reflect', [h.make_node('Pad',['a','pd'],['y'],mode='reflect')],[i64('pd',[0,0,2,2,0,0,2,2])])
save('pad_edge', [h.make_node('Pad',['a','pd'],['y'],mode='edge')],[i64('pd',[0,0,1,1,0,0,1,1])])
save('transpose_nhwc', [h.make_node('Transpose',['a'],['t'],perm=[0,2,3,1]),h.make_node('Transpose',['t'],['y'],perm=[0,3,1,2])],[])
save('d2s', [h.make_node('DepthToSpace',['a'],['y'],blocksize=2)],[])
save('s2d', [h.make_node('SpaceToDepth',['a'],['y'],blocksize=2)],[])
save('resize_nearest', [h.make_node('Resize',['a','','sc'],['y'],mode='nearest')],[c('sc',[1,1,2,2])])
save('resize_linear_ac', [h.make_node('Resize',['a','','sc'],['y'],mode='linear',coordinate_transformation_mode='align_corners')],[c('sc',[1,1,2,2])])
save('resize_down', [h.make_node('Resize',['a','','sc'],['y'],mode='nearest')],[c('sc',[1,1,0.5,0.5])])
save('softmax_c', [h.make_node('Softmax',['a'],['y'],axis=1)],[])
save('reducemean_hw', [h.make_node('ReduceMean',['a'],['y'],axes=[2,3],keepdims=1)],[])
save('lrn', [h.make_node('LRN',['a'],['y'],size=5,alpha=1e-4,beta=0.75,bias=1.0)],[])
save('instnorm', [h.make_node('InstanceNormalization',['a','sc','bi'],['y'])],[c('sc',rng.random(8)+0.5),c('bi',rng.random(8))])
save('bn_standalone', [h.make_node('MaxPool',['a'],['p'],kernel_shape=[2,2],strides=[2,2]),h.make_node('BatchNormalization',['p','sc','bi','mu','va'],['y'])],[c('sc',rng.random(8)+0.5),c('bi',rng.random(8)),c('mu',rng.random(8)),c('va',rng.random(8)+0.5)])
save('flatten_gemm', [h.make_node('GlobalAveragePool',['a'],['p']),h.make_node('Flatten',['p'],['f']),h.make_node('Gemm',['f','w','b'],['y'],transB=1)],[W('w',(10,8)),c('b',rng.random(10))])
save('gemm_transA', [h.make_node('GlobalAveragePool',['a'],['p']),h.make_node('Flatten',['p'],['f']),h.make_node('Transpose',['f'],['ft'],perm=[1,0]),h.make_node('Gemm',['ft','w'],['y'],transA=1)],[W('w',(8,10))])
save('clip_min_only', [h.make_node('Conv',['a','w'],['b']),h.make_node('Clip',['b','lo'],['y'])],[W('w',(8,8,1,1)),c('lo',-0.5)])
save('conv1d', [h.make_node('Reshape',['a','sh'],['r']),h.make_node('Conv',['r','w'],['y'],pads=[1,1])],[i64('sh',[1,8,256]),W('w',(8,8,3))])
save('pow2', [h.make_node('Pow',['a','two'],['y'])],[c('two',2.0)])
save('where_mask', [h.make_node('Greater',['a','k'],['m']),h.make_node('Where',['m','a','z'],['y'])],[c('k',0.3),c('z',0.0)])
# Where choosing between two computed tensors (a gate: the larger branch where a > conv(a)).
save('where_two', [h.make_node('Conv',['a','w'],['b']),h.make_node('Greater',['a','b'],['m']),h.make_node('Where',['m','a','b'],['y'])],[W('w',(8,8,1,1))])
save('tile', [h.make_node('GlobalAveragePool',['a'],['p']),h.make_node('Tile',['p','rp'],['y'])],[i64('rp',[1,1,4,4])])
save('expand', [h.make_node('GlobalAveragePool',['a'],['p']),h.make_node('Expand',['p','sh'],['e']),h.make_node('Add',['e','a'],['y'])],[i64('sh',[1,8,16,16])])
save('sum3', [h.make_node('Conv',['a','w'],['b']),h.make_node('Sum',['a','b','a'],['y'])],[W('w',(8,8,1,1))])
save('mean2', [h.make_node('Conv',['a','w'],['b']),h.make_node('Mean',['a','b'],['y'])],[W('w',(8,8,1,1))])
save('identity_dropout', [h.make_node('Dropout',['a'],['d']),h.make_node('Identity',['d'],['y'])],[])
save('groupnorm_pattern', [h.make_node('Reshape',['a','sh'],['r']),h.make_node('InstanceNormalization',['r','sc','bi'],['n']),h.make_node('Reshape',['n','sh2'],['y'])],[i64('sh',[1,2,-1]),c('sc',[1.0,1.0]),c('bi',[0.0,0.0]),i64('sh2',[1,8,16,16])])
save('layernorm', [h.make_node('LayerNormalization',['a','sc','bi'],['y'],axis=1)],[c('sc',rng.random((8,16,16))+0.5),c('bi',rng.random((8,16,16)))])


ENGINES = [("systolic", []), ("sparse", ["--threads", "1"]), ("broadcast", []),
           ("stream", ["--preset", "large"])]


def run(nnaccel, path, engine, extra, report):
    cmd = [nnaccel, "simulate", path, "--arch", engine, "--report", report] + extra
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    lines = (p.stdout + p.stderr).strip().splitlines()
    if any(line.startswith("VERIFIED") for line in lines):
        with open(report) as f:
            layers = json.load(f)["layers"]
        host = [l["name"] for l in layers if l["host_fallback"]]
        return "ok", f"host {len(host)}" if host else "ok"
    errors = [line for line in lines if line.startswith("error")]
    if p.returncode == 1 and len(errors) == 1:
        return "refused", errors[0][len("error: "):]
    return "bad", f"exit {p.returncode}: {' | '.join(lines[-3:])}"


def main():
    nnaccel, work = sys.argv[1:3]
    strict = "--strict" in sys.argv[3:]
    common = ["--asymmetric"] if "--asymmetric" in sys.argv[3:] else []
    os.makedirs(work, exist_ok=True)
    bad = 0
    counts = {e: {"ok": 0, "host": 0, "refused": 0} for e, _ in ENGINES}
    for name, model in sorted(MODELS.items()):
        path = os.path.join(work, name + ".onnx")
        onnx.save(model, path)
        cells = []
        for engine, extra in ENGINES:
            kind, text = run(nnaccel, path, engine, extra + common,
                             os.path.join(work, "report.json"))
            bad += kind == "bad"
            if kind == "ok":
                counts[engine]["host" if text != "ok" else "ok"] += 1
            elif kind == "refused":
                counts[engine]["refused"] += 1
            cells.append(f"{engine}: {text if kind != 'refused' else 'refused'}")
        print(f"{name:20} " + "; ".join(cells))
    for engine, n in counts.items():
        print(f"{engine}: {n['ok']} on the engine, {n['host']} with host layers, "
              f"{n['refused']} refused, of {len(MODELS)}")
    return 1 if strict and bad else 0


if __name__ == "__main__":
    sys.exit(main())
