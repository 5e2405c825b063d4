#!/usr/bin/python3
"""Regenerates the malformed-ONNX corpus in this directory (run with Debian's /usr/bin/python3,
which has the onnx 1.12 package): `/usr/bin/python3 make_corpus.py`.

Each file is small and deliberately broken in one way; expected.txt (written here too) maps each
file to the stage that must reject it and a substring of the nnaccel::Error message. The unit
test tests/unit/frontend/OnnxMalformedCorpusTest.cpp imports every file and checks that.
Everything is deterministic (fixed seeds), so re-running gives byte-identical files.
"""
import os
import random

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
F = TensorProto.FLOAT

# name -> (stage, expected message substring, bytes). stage: "import" (importOnnxFile rejects
# it) or "infer" (imports; ir::inferShapes / ir::verify reject it).
corpus = {}


def add(name, stage, expected, data):
    if isinstance(data, onnx.ModelProto):
        data = data.SerializeToString()
    corpus[name] = (stage, expected, data)


def model(nodes, inputs, outputs, initializers=(), opset=13, ir_version=8, extra_opsets=()):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    imports = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v) for d, v in extra_opsets]
    m = helper.make_model(graph, opset_imports=imports, producer_name="make_corpus")
    m.ir_version = ir_version
    return m


def vi(name, shape, elem=F):
    return helper.make_tensor_value_info(name, elem, shape)


def conv_model(channels=4, group=1, name="conv1"):
    w = numpy_helper.from_array(np.linspace(-1, 1, 8 * (channels // group) * 9, dtype=np.float32)
                                .reshape(8, channels // group, 3, 3), "W")
    node = helper.make_node("Conv", ["x", "W"], ["y"], name=name, kernel_shape=[3, 3],
                            pads=[1, 1, 1, 1], group=group)
    return model([node], [vi("x", [1, channels, 6, 6])], [vi("y", None)], [w])


def relu_model(**kw):
    return model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [vi("x", [1, 4])],
                 [vi("y", None)], **kw)


def with_initializer(tensor):
    m = relu_model()
    m.graph.initializer.append(tensor)
    return m


def raw_tensor(name, elem, dims, raw):
    t = TensorProto()
    t.name, t.data_type, t.raw_data = name, elem, raw
    t.dims.extend(dims)
    return t


valid = conv_model().SerializeToString()
rng = random.Random(20240611)

# --- byte-level damage ----------------------------------------------------------------------
add("empty.onnx", "import", "not a valid ONNX model (the file is empty)", b"")
add("truncated.onnx", "import", "not a valid ONNX model (protobuf parse failed)",
    valid[: len(valid) - 40])
garbage = bytes(rng.randrange(256) for _ in range(512))
add("garbage.onnx", "import", "not a valid ONNX model (protobuf parse failed)", garbage)
# One flipped bit turns the tag of the attribute's name field (1) into an unknown field (9): the
# file still parses, but the attribute has lost its name.
flipped = bytearray(valid)
pos = valid.index(b"kernel_shape") - 2  # the tag byte of AttributeProto.name
flipped[pos] ^= 0x40
add("bitflip.onnx", "import", "node 'conv1' (Conv, opset 13): attribute with an empty name",
    bytes(flipped))
# A flipped high bit in the length of the weight tensor's raw_data: it now runs past the end.
flipped = bytearray(valid)
raw = onnx.load_from_string(valid).graph.initializer[0].raw_data
pos = valid.index(raw) - 2  # low byte of the two-byte varint length
flipped[pos + 1] ^= 0x02  # 1152 -> 1408 bytes
add("bitflip_length.onnx", "import", "not a valid ONNX model (protobuf parse failed)",
    bytes(flipped))
shape = onnx.TensorShapeProto()
shape.dim.add().dim_value = 3
add("not_a_model.onnx", "import", "not a valid ONNX model (no graph)", shape.SerializeToString())
no_ir = conv_model()
no_ir.ClearField("ir_version")
add("no_ir_version.onnx", "import", "not a valid ONNX model (no ir_version)", no_ir)

# --- opsets, domains, ops -------------------------------------------------------------------
add("opset0.onnx", "import", "default-domain opset 0 is outside the supported range 1..17",
    relu_model(opset=0, ir_version=3))
add("opset99.onnx", "import", "default-domain opset 99 is outside the supported range 1..17",
    relu_model(opset=99))
no_opset = relu_model()
del no_opset.opset_import[:]
add("no_opset.onnx", "import", "model declares no default-domain (ai.onnx) opset", no_opset)
add("unknown_op.onnx", "import", "node 'lstm_1' (LSTM, opset 13): unsupported op",
    model([helper.make_node("LSTM", ["x", "w", "r"], ["y"], name="lstm_1", hidden_size=2)],
          [vi("x", [1, 1, 2]), vi("w", [1, 8, 2]), vi("r", [1, 8, 2])], [vi("y", None)]))
add("other_domain.onnx", "import",
    "node 'fc' (FusedConv, opset 1): op domain 'com.microsoft' is not supported",
    model([helper.make_node("FusedConv", ["x"], ["y"], name="fc", domain="com.microsoft")],
          [vi("x", [1, 4])], [vi("y", None)], extra_opsets=[("com.microsoft", 1)]))
add("op_not_in_opset.onnx", "import", "node 'hs' (HardSwish, opset 13): op is not defined in opset 13",
    model([helper.make_node("HardSwish", ["x"], ["y"], name="hs")], [vi("x", [4])], [vi("y", None)]))
add("deprecated_op.onnx", "import", "node 'up' (Upsample, opset 10): op is deprecated in opset 10",
    model([helper.make_node("Upsample", ["x", "s"], ["y"], name="up")],
          [vi("x", [1, 1, 2, 2])], [vi("y", None)],
          [numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "s")], opset=10))
add("schema_arity.onnx", "import", "node 'add' (Add, opset 13): does not match the onnx schema",
    model([helper.make_node("Add", ["x"], ["y"], name="add")], [vi("x", [4])], [vi("y", None)]))
bad_attr = conv_model()
for a in bad_attr.graph.node[0].attribute:
    if a.name == "group":
        a.type, a.f = onnx.AttributeProto.FLOAT, 1.0
        a.ClearField("i")
add("attr_wrong_type.onnx", "import", "Mismatched attribute type", bad_attr)
untyped = conv_model()
for a in untyped.graph.node[0].attribute:
    if a.name == "group":
        a.type, a.f = onnx.AttributeProto.UNDEFINED, 2.0
add("attr_no_type.onnx", "import", "'group': attribute has no type", untyped)
graph_attr = conv_model()
graph_attr.graph.node[0].attribute.append(
    helper.make_attribute("body", helper.make_graph([], "sub", [], [])))
add("graph_attribute.onnx", "import", "'body': graph attributes (subgraphs) are not supported",
    graph_attr)
add("constant_string.onnx", "import", "'value_string': string constants are not supported",
    model([helper.make_node("Constant", [], ["y"], name="k", value_string="hi")], [], [vi("y", None)]))

# --- graph structure ------------------------------------------------------------------------
add("missing_input.onnx", "import",
    "node 'relu' (Relu, opset 13): input 'nowhere' is not produced by any node",
    model([helper.make_node("Relu", ["nowhere"], ["y"], name="relu")], [vi("x", [4])],
          [vi("y", None)]))
add("duplicate_output.onnx", "import", "output 'y' is already produced by node 'first'",
    model([helper.make_node("Relu", ["x"], ["y"], name="first"),
           helper.make_node("Sigmoid", ["x"], ["y"], name="second")],
          [vi("x", [4])], [vi("y", None)]))
add("cycle.onnx", "import", "graph has a cycle through this node",
    model([helper.make_node("Add", ["x", "b"], ["a"], name="na"),
           helper.make_node("Relu", ["a"], ["b"], name="nb")], [vi("x", [4])], [vi("b", None)]))
add("output_not_produced.onnx", "import", "graph output 'ghost' is not produced",
    model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [vi("x", [4])],
          [vi("ghost", None)]))
add("no_outputs.onnx", "import", "graph has no outputs",
    model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [vi("x", [4])], []))

# --- graph inputs ---------------------------------------------------------------------------
add("negative_dim.onnx", "import", "graph input 'x' has dimension 1 = -2",
    model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                              [vi("x", [1, -2])], [vi("y", None)]))
add("zero_dim.onnx", "import", "graph input 'x' has dimension 0 = 0",
    model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [vi("x", [0, 4])],
          [vi("y", None)]))
add("huge_input.onnx", "import", "graph input 'x' has more than 2^40 elements",
    model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
          [vi("x", [1 << 30, 1 << 30, 4])], [vi("y", None)]))
add("double_input.onnx", "import", "graph input 'x' has element type double",
    model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
          [vi("x", [4], TensorProto.DOUBLE)], [vi("y", None)]))
seq = relu_model()
seq.graph.input[0].type.CopyFrom(helper.make_sequence_type_proto(
    helper.make_tensor_type_proto(F, [4])))
add("sequence_input.onnx", "import", "graph input 'x' is not a tensor", seq)
no_shape = relu_model()
no_shape.graph.input[0].type.tensor_type.ClearField("shape")
add("input_no_shape.onnx", "import", "graph input 'x' has no shape", no_shape)

# --- tensors --------------------------------------------------------------------------------
add("raw_data_short.onnx", "import",
    "initializer 'w' has 20 bytes of raw_data, expected 24 for f32 shape 2x3",
    with_initializer(raw_tensor("w", F, [2, 3], b"\0" * 20)))
add("initializer_negative_dim.onnx", "import", "initializer 'w' has dimension 0 = -4",
    with_initializer(raw_tensor("w", F, [-4], b"")))
add("initializer_dims_overflow.onnx", "import", "whose element count overflows",
    with_initializer(raw_tensor("w", F, [1 << 40, 1 << 40, 1 << 40], b"")))
# float16 is widened to fp32 (docs/IR.md); a float16 tensor whose bytes do not fit is malformed.
add("float16_initializer.onnx", "import",
    "initializer 'h' has 3 bytes of raw_data, expected 4 for float16 shape 2",
    with_initializer(raw_tensor("h", TensorProto.FLOAT16, [2], b"\0" * 3)))
add("double_initializer.onnx", "import", "initializer 'd' has element type double",
    with_initializer(raw_tensor("d", TensorProto.DOUBLE, [1], b"\0" * 8)))
ext = raw_tensor("e", F, [4], b"")
ext.ClearField("raw_data")
ext.data_location = TensorProto.EXTERNAL
entry = ext.external_data.add()
entry.key, entry.value = "location", "weights.bin"
add("external_data.onnx", "import", "initializer 'e' uses external data", with_initializer(ext))
typed = TensorProto(name="t", data_type=F, dims=[3], float_data=[1.0])
add("typed_count.onnx", "import", "initializer 't' has 1 values in float_data, expected 3",
    with_initializer(typed))
# Found by the fuzzer: typed data checked only after allocating what the dims claim (2^56 floats).
huge_typed = TensorProto(name="big", data_type=F, dims=[1 << 28, 1 << 28], float_data=[1.0])
add("typed_huge_dims.onnx", "import",
    "initializer 'big' has 1 values in float_data, expected 72057594037927936",
    with_initializer(huge_typed))
i8 = TensorProto(name="q", data_type=TensorProto.INT8, dims=[2], int32_data=[1, 300])
add("int8_out_of_range.onnx", "import", "int32_data value 1 is 300, outside the range of s8",
    with_initializer(i8))
add("bool_bad_byte.onnx", "import", "has bool element 0 = 7 in raw_data",
    with_initializer(raw_tensor("b", TensorProto.BOOL, [1], b"\x07")))
sparse = relu_model()
sp = sparse.graph.sparse_initializer.add()
sp.values.CopyFrom(raw_tensor("sp", F, [1], b"\0" * 4))
sp.dims.extend([4])
add("sparse_initializer.onnx", "import", "sparse initializer 'sp' is not supported", sparse)

# --- shape-level errors, found by ir::inferShapes / ir::verify after import -----------------
add("conv_bad_group.onnx", "infer", "node 'conv3' (Conv, opset 13): group=3 does not divide", model(
        [helper.make_node("Conv", ["x", "W"], ["y"], name="conv3", kernel_shape=[3, 3], group=3)],
        [vi("x", [1, 64, 8, 8])], [vi("y", None)],
        [numpy_helper.from_array(np.zeros((6, 21, 3, 3), np.float32), "W")]))
add("reshape_bad_count.onnx", "infer", "node 'rs' (Reshape, opset 13)",
    model([helper.make_node("Reshape", ["x", "s"], ["y"], name="rs")], [vi("x", [2, 3])],
          [vi("y", None)], [numpy_helper.from_array(np.array([4, 2], np.int64), "s")]))
add("matmul_mismatch.onnx", "infer", "node 'mm' (MatMul, opset 13)",
    model([helper.make_node("MatMul", ["a", "b"], ["y"], name="mm")],
          [vi("a", [2, 3]), vi("b", [4, 5])], [vi("y", None)]))
add("add_no_broadcast.onnx", "infer", "node 'add' (Add, opset 13)",
    model([helper.make_node("Add", ["a", "b"], ["y"], name="add")],
          [vi("a", [2, 3]), vi("b", [4])], [vi("y", None)]))
# Found by the fuzzer: the element count of a huge Reshape target overflowed int64.
add("reshape_huge_shape.onnx", "infer", "node 'rs' (Reshape, opset 13)",
    model([helper.make_node("Reshape", ["x", "s"], ["y"], name="rs")], [vi("x", [2, 3])],
          [vi("y", None)],
          [numpy_helper.from_array(np.array([1 << 40, 1 << 40, 1 << 20], np.int64), "s")]))
add("conv_kernel_too_big.onnx", "infer", "node 'big' (Conv, opset 13)",
    model([helper.make_node("Conv", ["x", "W"], ["y"], name="big", kernel_shape=[5, 5])],
          [vi("x", [1, 1, 3, 3])], [vi("y", None)],
          [numpy_helper.from_array(np.zeros((1, 1, 5, 5), np.float32), "W")]))
# A rank-13 MatMul operand: valid ONNX, but beyond the 12 dimensions of oneDNN's tensors (it
# reached an internal assertion in the executor before shape inference rejected it).
add("matmul_rank13.onnx", "infer",
    "node 'mm' (MatMul, opset 13): input 'a' of shape 1x1x1x1x1x1x1x1x1x1x1x2x3: rank 13 exceeds "
    "the 12 dimensions nnaccel supports",
    model([helper.make_node("MatMul", ["a", "b"], ["y"], name="mm")],
          [vi("a", [1] * 11 + [2, 3]), vi("b", [3, 4])], [vi("y", None)]))
# 10^12 f32 elements (4 TB): rejected by shape inference before constant folding could try to
# allocate it (it used to end in std::bad_alloc).
add("constant_of_shape_huge.onnx", "infer",
    "node 'cos' (ConstantOfShape, opset 13): output 'y' has shape 1000000x1000000, more than the "
    "2^32 elements per tensor nnaccel supports",
    model([helper.make_node("ConstantOfShape", ["dims"], ["y"], name="cos")], [],
          [vi("y", None)],
          [numpy_helper.from_array(np.array([1000000, 1000000], np.int64), "dims")]))
# The declared output shape contradicts what the graph computes.
add("output_shape_mismatch.onnx", "infer",
    "node 'fc' (MatMul, opset 13): output 'y' is declared 7x7 but infers to 1x10",
    model([helper.make_node("MatMul", ["x", "W"], ["y"], name="fc")], [vi("x", [1, 8])],
          [vi("y", [7, 7])],
          [numpy_helper.from_array(np.zeros((8, 10), np.float32), "W")]))
add("output_negative_dim.onnx", "import",
    "graph output 'y' has dimension 1 = -2; declared dimensions must be >= 0",
    model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [vi("x", [1, 4])],
          [vi("y", [1, -2])]))


README_HEAD = """# Malformed ONNX corpus

Small ONNX files, each broken in one way, that nnaccel must reject with an `nnaccel::Error` (never
a crash). `make_corpus.py` generates all of them deterministically, together with `expected.txt`
(the manifest the test reads: `file<TAB>stage<TAB>message substring`) and this README; regenerate
with `/usr/bin/python3 make_corpus.py` (Debian's python3 has the onnx package).

`tests/unit/frontend/OnnxMalformedCorpusTest.cpp` imports every file; files of stage `infer`
must import fine and are then rejected by `ir::inferShapes` / `ir::verify`. The same files seed
the fuzzer (docs/Fuzzing.md); `typed_huge_dims.onnx` and `reshape_huge_shape.onnx` are crashes
the fuzzer found, kept as regression cases.

Generated list (do not edit by hand):

| file | stage | the error message contains |
| --- | --- | --- |"""


def main():
    # Sanity: every file meant to fail later than protobuf parsing must parse. (Whether the
    # byte-level ones fail is checked by the C++ test: Python's parser is more lenient.)
    for name, (stage, expected, data) in corpus.items():
        if "protobuf parse failed" not in expected and data:
            onnx.ModelProto().ParseFromString(data)
    for old in os.listdir(HERE):
        if old.endswith(".onnx"):
            os.remove(os.path.join(HERE, old))
    lines = ["# file<TAB>stage<TAB>expected message substring (generated by make_corpus.py)"]
    for name in sorted(corpus):
        stage, expected, data = corpus[name]
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(data)
        lines.append(f"{name}\t{stage}\t{expected}")
    with open(os.path.join(HERE, "expected.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    readme = [README_HEAD]
    for name in sorted(corpus):
        stage, expected, _ = corpus[name]
        readme.append(f"| `{name}` | {stage} | `{expected}` |")
    with open(os.path.join(HERE, "README.md"), "w") as f:
        f.write("\n".join(readme) + "\n")
    print(f"wrote {len(corpus)} files")


if __name__ == "__main__":
    main()
