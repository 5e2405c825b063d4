// Tests of the Executor and evalNode on hand-built graphs: node parameters resolved through
// OpParams (auto_pad, opset differences) reach the kernels, a small CNN runs end to end with
// hand-checkable values, repeated runs are bit-identical, folded nodes are skipped, the cached
// per-node state of an Executor gives the same bits as one-off evalNode calls (zoo models), and
// every error path (input mismatches, unsupported constructs, kernel errors with node context)
// gives its one-line message.
#include "nnaccel/reference/Executor.h"

#include "TestUtil.h"
#include "nnaccel/ir/ShapeInference.h"
#include "nnaccel/ir/Verifier.h"
#include "nnaccel/reference/Kernels.h"
#include "nnaccel/support/Rng.h"
#include "nnaccel/zoo/Zoo.h"

#include <cmath>
#include <cstring>
#include <gtest/gtest.h>

using namespace nnaccel;
using namespace nnaccel::ir;
using namespace nnaccel::reference;
using nnaccel::reference::test::expectTensorNear;
using nnaccel::reference::test::seqTensor;
using nnaccel::reference::test::tensorOf;
using nnaccel::reference::test::valuesOf;

namespace {
/// Appends node \p name = op(inputs) with one output per name in \p outputs (shape inferred).
NodeId addNode(Graph& g, OpKind op, const std::string& name, std::vector<ValueId> inputs,
               const std::vector<std::string>& outputs, AttrMap attrs = {}, int64_t opset = 13) {
  Node n;
  n.op = op;
  n.name = name;
  n.opset = opset;
  n.inputs = std::move(inputs);
  for (const std::string& o : outputs) {
    n.outputs.push_back(o.empty() ? kNoValue : g.addValue(o, DType::F32));
  }
  n.attrs = std::move(attrs);
  return g.addNode(std::move(n));
}

ValueId out(const Graph& g, NodeId id, size_t i = 0) {
  return g.node(id).outputs[i];
}

AttrMap attrs(std::initializer_list<std::pair<const std::string, AttrValue>> kv) {
  AttrMap m;
  for (const auto& [k, v] : kv) {
    m.set(k, v);
  }
  return m;
}

/// x[1,2,6,6] -> Conv 3x3 (4 filters, SAME_UPPER, stride 2) -> Relu -> MaxPool 2x2 ->
/// Flatten -> Gemm (transB) -> Softmax: a small CNN exercising the main kernels.
Graph smallCnn() {
  Graph g;
  g.sourcePath = "cnn.onnx";
  const ValueId x = g.addValue("x", DType::F32, {1, 2, 6, 6});
  g.inputs = {x};
  const ValueId w = g.addConstant("w", seqTensor({4, 2, 3, 3}, 2));
  const ValueId b = g.addConstant("b", seqTensor({4}, 3));
  const NodeId conv = addNode(
      g, OpKind::Conv, "conv", {x, w, b}, {"c"},
      attrs({{"auto_pad", std::string("SAME_UPPER")}, {"strides", std::vector<int64_t>{2, 2}}}));
  const NodeId relu = addNode(g, OpKind::Relu, "relu", {out(g, conv)}, {"r"});
  const NodeId pool = addNode(g, OpKind::MaxPool, "pool", {out(g, relu)}, {"p"},
                              attrs({{"kernel_shape", std::vector<int64_t>{2, 2}},
                                     {"strides", std::vector<int64_t>{1, 1}}}));
  const NodeId flat = addNode(g, OpKind::Flatten, "flat", {out(g, pool)}, {"f"});
  const ValueId fcW = g.addConstant("fc_w", seqTensor({3, 16}, 4));
  const ValueId fcB = g.addConstant("fc_b", seqTensor({3}, 5));
  const NodeId fc = addNode(g, OpKind::Gemm, "fc", {out(g, flat), fcW, fcB}, {"logits"},
                            attrs({{"transB", int64_t{1}}}));
  const NodeId sm = addNode(g, OpKind::Softmax, "softmax", {out(g, fc)}, {"prob"});
  g.outputs = {out(g, sm)};
  inferShapes(g);
  verify(g);
  return g;
}

void expectError(const std::function<void()>& f, ErrorKind kind, const std::string& message) {
  try {
    f();
    FAIL() << "expected an error: " << message;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind);
    EXPECT_EQ(std::string(e.what()), message);
  }
}
} // namespace

TEST(Executor, SmallCnnMatchesKernelComposition) {
  const Graph g = smallCnn();
  Executor ex(g);
  const Tensor x = seqTensor({1, 2, 6, 6}, 1);
  const std::vector<Tensor> y = ex.run({x});
  ASSERT_EQ(y.size(), 1u);
  ASSERT_EQ(y[0].shape(), (Dims{1, 3}));
  // SAME_UPPER with stride 2 on 6: output 3, total pad (3-1)*2+3-6 = 1 -> pads (0, 1).
  ir::ConvParams cp;
  cp.batch = 1;
  cp.inChannels = 2;
  cp.outChannels = 4;
  cp.kernel = {3, 3};
  cp.inSpatial = {6, 6};
  cp.outSpatial = {3, 3};
  cp.strides = {2, 2};
  cp.dilations = {1, 1};
  cp.padsBegin = {0, 0};
  cp.padsEnd = {1, 1};
  const Tensor b = seqTensor({4}, 3);
  const Tensor c = conv(cp, x, seqTensor({4, 2, 3, 3}, 2), &b);
  EXPECT_EQ(ex.values()[static_cast<size_t>(*g.findValue("c"))], c);
  // The softmax output is a distribution over 3 classes.
  float sum = 0;
  for (float v : y[0].values<float>()) {
    EXPECT_GT(v, 0.0f);
    sum += v;
  }
  EXPECT_NEAR(sum, 1.0f, 1e-6f);
  // values() holds every intermediate but no copy of the constants; value() reads both.
  const auto w = static_cast<size_t>(*g.findValue("w"));
  EXPECT_EQ(ex.values()[w].sizeBytes(), 0u);
  EXPECT_EQ(ex.value(static_cast<ir::ValueId>(w)), seqTensor({4, 2, 3, 3}, 2));
  EXPECT_EQ(ex.values()[static_cast<size_t>(*g.findValue("f"))].shape(), (Dims{1, 16}));
}

TEST(Executor, MaxPoolIndicesOutput) {
  // MaxPool with its Indices output: shape inference gives s64 with Y's shape; both outputs
  // computed (x is 1x1x2x2 -> one 2x2 window, maximum 7 at flat position 2).
  Graph g;
  const ValueId x = g.addValue("x", DType::F32, {1, 1, 2, 2});
  g.inputs = {x};
  const NodeId pool = addNode(g, OpKind::MaxPool, "pool", {x}, {"y", "idx"},
                              attrs({{"kernel_shape", std::vector<int64_t>{2, 2}}}));
  g.outputs = {out(g, pool, 0), out(g, pool, 1)};
  inferShapes(g);
  verify(g);
  EXPECT_EQ(g.value(out(g, pool, 1)).dtype, DType::I64);
  EXPECT_EQ(g.value(out(g, pool, 1)).shape, (Dims{1, 1, 1, 1}));
  Executor exec(g);
  const std::vector<Tensor> y = exec.run({tensorOf<float>({1, 1, 2, 2}, {1, -3, 7, 2})});
  EXPECT_EQ(valuesOf<float>(y[0]), (std::vector<float>{7}));
  EXPECT_EQ(valuesOf<int64_t>(y[1]), (std::vector<int64_t>{2}));
}

TEST(Executor, DnnlIsaIsCappedAtAvx2) {
  // The reference caps oneDNN at AVX2 so fp32 bits do not depend on the machine.
  const std::string isa = dnnlIsaName();
  if (__builtin_cpu_supports("avx2")) {
    EXPECT_EQ(isa, "avx2");
  } else {
    EXPECT_EQ(isa.find("avx512"), std::string::npos) << isa;
  }
}

TEST(Executor, RepeatedRunsAreBitIdentical) {
  // Large enough for oneDNN to use its JIT kernels and both threads.
  Graph g;
  const ValueId x = g.addValue("x", DType::F32, {2, 16, 20, 20});
  g.inputs = {x};
  const ValueId w = g.addConstant("w", seqTensor({32, 16, 3, 3}, 6));
  const NodeId conv = addNode(g, OpKind::Conv, "conv", {x, w}, {"c"},
                              attrs({{"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
  const NodeId gap = addNode(g, OpKind::GlobalAveragePool, "gap", {out(g, conv)}, {"p"});
  const NodeId flat = addNode(g, OpKind::Flatten, "flat", {out(g, gap)}, {"f"});
  const ValueId m = g.addConstant("m", seqTensor({32, 300}, 7));
  const NodeId mm = addNode(g, OpKind::MatMul, "mm", {out(g, flat), m}, {"y"});
  g.outputs = {out(g, conv), out(g, mm)};
  inferShapes(g);
  verify(g);
  Tensor input(DType::F32, {2, 16, 20, 20});
  for (int64_t i = 0; i < input.numElements(); ++i) {
    input.data<float>()[i] = static_cast<float>((i * 7919) % 1009) / 1009.0f - 0.5f;
  }
  Executor first(g);
  const std::vector<Tensor> a = first.run({input});
  const std::vector<Tensor> b = first.run({input});
  Executor second(g);
  const std::vector<Tensor> c = second.run({input});
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].sizeBytes(), b[i].sizeBytes());
    EXPECT_EQ(std::memcmp(a[i].rawData(), b[i].rawData(), a[i].sizeBytes()), 0) << i;
    EXPECT_EQ(std::memcmp(a[i].rawData(), c[i].rawData(), a[i].sizeBytes()), 0) << i;
  }
}

bool sameBits(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && a.sizeBytes() == b.sizeBytes() &&
         std::memcmp(a.rawData(), b.rawData(), a.sizeBytes()) == 0;
}

/// Every computed node output of \p ex's last run equals, bit for bit, a one-off evalNode of
/// that node on the same inputs (fresh oneDNN primitives, weights reordered again).
void expectRunMatchesEvalNode(const Graph& g, const Executor& ex) {
  for (size_t nid = 0; nid < g.numNodes(); ++nid) {
    const auto id = static_cast<NodeId>(nid);
    const Node& n = g.node(id);
    if (g.isConstant(n.outputs[0])) {
      continue;
    }
    std::vector<const Tensor*> args;
    for (ValueId in : n.inputs) {
      args.push_back(in == kNoValue ? nullptr : &ex.value(in));
    }
    const std::vector<Tensor> once = evalNode(g, id, args);
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      if (n.outputs[k] != kNoValue) {
        EXPECT_TRUE(sameBits(once[k], ex.value(n.outputs[k])))
            << "node '" << n.name << "' (" << opName(n.op) << ") output " << k;
      }
    }
  }
}

TEST(Executor, CachedRunsMatchOneOffEvalNodeOnZooModels) {
  // The Executor keeps each node's oneDNN primitive, its weights in the primitive's layout and
  // its output buffer between runs. Zoo graphs without the pass pipeline (BatchNormalization
  // still a node) cover Conv (grouped, dilated), ConvTranspose, BatchNormalization, pooling,
  // activations on oneDNN and on loops, Add, Concat, Resize, Gemm. Two inputs: the second run
  // reuses everything the first built, and its values must be what evalNode computes.
  for (const char* name : {"lenet5", "dcgan", "aspp", "unet", "mobilenetv2"}) {
    SCOPED_TRACE(name);
    const zoo::ZooModel& m = *zoo::findZooModel(name);
    Graph g = m.build(zoo::kDefaultSeed);
    inferShapes(g);
    Tensor a(DType::F32, m.inputShape), b(DType::F32, m.inputShape);
    nnaccel::Rng::forStream(1, "a").fillUniform(a.values<float>(), -1.0f, 1.0f);
    nnaccel::Rng::forStream(1, "b").fillUniform(b.values<float>(), -1.0f, 1.0f);
    Executor ex(g);
    const std::vector<Tensor> first = ex.run({a});
    const std::vector<Tensor> second = ex.run({b});
    ASSERT_FALSE(sameBits(first[0], second[0]));
    expectRunMatchesEvalNode(g, ex);
    const std::vector<Tensor> again = ex.run({a});
    EXPECT_TRUE(sameBits(first[0], again[0]));
    EXPECT_TRUE(sameBits(first[0], Executor(g).run({a})[0]));
  }
}

TEST(Executor, WeightsComputedAtRunTimeAreNotCached) {
  // Conv weights that are a graph input change between runs: the executor must convert them
  // again on every run (only graph constants are converted once).
  Graph g;
  const ValueId x = g.addValue("x", DType::F32, {1, 16, 12, 12});
  const ValueId w = g.addValue("w", DType::F32, {32, 16, 3, 3});
  g.inputs = {x, w};
  const NodeId conv = addNode(g, OpKind::Conv, "conv", {x, w}, {"c"});
  g.outputs = {out(g, conv)};
  inferShapes(g);
  verify(g);
  const Tensor xv = seqTensor({1, 16, 12, 12}, 1);
  const Tensor w1 = seqTensor({32, 16, 3, 3}, 2);
  const Tensor w2 = seqTensor({32, 16, 3, 3}, 3);
  Executor ex(g);
  const Tensor y1 = ex.run({xv, w1})[0];
  const Tensor y2 = ex.run({xv, w2})[0];
  EXPECT_TRUE(sameBits(y1, evalNode(g, conv, {&xv, &w1})[0]));
  EXPECT_TRUE(sameBits(y2, evalNode(g, conv, {&xv, &w2})[0]));
  EXPECT_FALSE(sameBits(y1, y2));
}

TEST(Executor, ByteGraphRunsEndToEnd) {
  // u8 through MaxPool, Add (wrapping modulo 256), Clip with u8 bounds and GlobalMaxPool, as the
  // ONNX uint8 node tests use them.
  Graph g;
  const ValueId x = g.addValue("x", DType::U8, {1, 1, 2, 4});
  g.inputs = {x};
  const NodeId pool = addNode(g, OpKind::MaxPool, "pool", {x}, {"p"},
                              attrs({{"kernel_shape", std::vector<int64_t>{2, 2}},
                                     {"strides", std::vector<int64_t>{2, 2}}}));
  const NodeId add =
      addNode(g, OpKind::Add, "add",
              {out(g, pool), g.addConstant("ten", tensorOf<uint8_t>({1}, {10}))}, {"a"});
  const NodeId clip = addNode(g, OpKind::Clip, "clip",
                              {out(g, add), g.addConstant("lo", tensorOf<uint8_t>({}, {5})),
                               g.addConstant("hi", tensorOf<uint8_t>({}, {65}))},
                              {"c"});
  const NodeId gmp = addNode(g, OpKind::GlobalMaxPool, "gmp", {out(g, clip)}, {"m"});
  g.outputs = {out(g, add), out(g, clip), out(g, gmp)};
  inferShapes(g);
  verify(g);
  Executor ex(g);
  const std::vector<Tensor> y =
      ex.run({tensorOf<uint8_t>({1, 1, 2, 4}, {10, 250, 3, 7, 40, 5, 60, 2})});
  EXPECT_EQ(valuesOf<uint8_t>(y[0]), (std::vector<uint8_t>{4, 70})); // 250 + 10 wraps to 4
  EXPECT_EQ(valuesOf<uint8_t>(y[1]), (std::vector<uint8_t>{5, 65}));
  EXPECT_EQ(valuesOf<uint8_t>(y[2]), (std::vector<uint8_t>{65}));
}

TEST(Executor, IntegerClipReadsItsBoundsExactly) {
  // 2^40 + 1 is not representable in float (ActivationParams' type): the executor reads s64
  // bound inputs as integers.
  const int64_t big = (int64_t{1} << 40) + 1;
  Graph g;
  const ValueId x = g.addValue("x", DType::I64, {3});
  g.inputs = {x};
  const NodeId clip = addNode(g, OpKind::Clip, "clip",
                              {x, g.addConstant("lo", tensorOf<int64_t>({}, {big})),
                               g.addConstant("hi", tensorOf<int64_t>({}, {big}))},
                              {"c"});
  g.outputs = {out(g, clip)};
  inferShapes(g);
  verify(g);
  const std::vector<Tensor> y = Executor(g).run({tensorOf<int64_t>({3}, {0, big, big + 5})});
  EXPECT_EQ(valuesOf<int64_t>(y[0]), (std::vector<int64_t>{big, big, big}));
}

TEST(Executor, OpsetDependentParametersReachKernels) {
  // Softmax-11 coerces to 2-D at axis 1; Softmax-13 normalizes along axis 1 only.
  for (int64_t opset : {11, 13}) {
    Graph g;
    const ValueId x = g.addValue("x", DType::F32, {1, 2, 2});
    g.inputs = {x};
    const NodeId sm =
        addNode(g, OpKind::Softmax, "sm", {x}, {"y"}, attrs({{"axis", int64_t{1}}}), opset);
    g.outputs = {out(g, sm)};
    inferShapes(g);
    Executor ex(g);
    const Tensor y = ex.run({tensorOf<float>({1, 2, 2}, {0, 0, 0, 0})})[0];
    const float expected = opset == 11 ? 0.25f : 0.5f;
    expectTensorNear(y, {1, 2, 2}, {expected, expected, expected, expected});
  }
}

TEST(Executor, DataMovementAndShapeOps) {
  Graph g;
  const ValueId x = g.addValue("x", DType::F32, {2, 3});
  g.inputs = {x};
  const NodeId tr = addNode(g, OpKind::Transpose, "tr", {x}, {"t"});
  const ValueId axes = g.addConstant("axes", tensorOf<int64_t>({1}, {0}));
  const NodeId unsq = addNode(g, OpKind::Unsqueeze, "unsq", {out(g, tr), axes}, {"u"});
  const NodeId sq = addNode(g, OpKind::Squeeze, "sq", {out(g, unsq), axes}, {"s"});
  const ValueId shape = g.addConstant("shape", tensorOf<int64_t>({2}, {-1, 2}));
  const NodeId rs = addNode(g, OpKind::Reshape, "rs", {out(g, sq), shape}, {"r"});
  const NodeId drop = addNode(g, OpKind::Dropout, "drop", {out(g, rs)}, {"d", "mask"});
  const NodeId id = addNode(g, OpKind::Identity, "id", {out(g, drop)}, {"i"});
  const NodeId shp = addNode(g, OpKind::Shape, "shp", {out(g, id)}, {"shape_of"});
  g.outputs = {out(g, id), out(g, drop, 1), out(g, shp)};
  inferShapes(g);
  verify(g);
  Executor ex(g);
  const std::vector<Tensor> y = ex.run({tensorOf<float>({2, 3}, {1, 2, 3, 4, 5, 6})});
  EXPECT_EQ(y[0].shape(), (Dims{3, 2}));
  EXPECT_EQ(valuesOf<float>(y[0]), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(valuesOf<bool>(y[1]), std::vector<bool>(6, true));
  // Shape's output was folded by shape inference; the executor keeps the constant.
  EXPECT_EQ(valuesOf<int64_t>(y[2]), (std::vector<int64_t>{3, 2}));
}

TEST(Executor, EvalNodeComputesFoldableNodes) {
  // evalNode itself evaluates shape arithmetic (used by constant folding).
  Graph g;
  const ValueId x = g.addValue("x", DType::F32, {2, 5, 3});
  const NodeId shp = addNode(g, OpKind::Shape, "shp", {x}, {"s"});
  const ValueId idx = g.addConstant("idx", tensorOf<int64_t>({}, {-2}));
  const NodeId gat = addNode(g, OpKind::Gather, "gat", {out(g, shp), idx}, {"d"});
  const ValueId two = g.addConstant("two", tensorOf<int64_t>({}, {2}));
  const NodeId mul = addNode(g, OpKind::Mul, "mul", {out(g, gat), two}, {"m"});
  const NodeId cast =
      addNode(g, OpKind::Cast, "cast", {out(g, mul)}, {"c"}, attrs({{"to", int64_t{1}}}));
  g.inputs = {x};
  g.outputs = {out(g, cast)};
  inferShapes(g);
  const Tensor xv(DType::F32, {2, 5, 3});
  const Tensor s = evalNode(g, shp, {&xv})[0];
  EXPECT_EQ(valuesOf<int64_t>(s), (std::vector<int64_t>{2, 5, 3}));
  const Tensor d = evalNode(g, gat, {&s, g.value(idx).constant.get()})[0];
  EXPECT_EQ(valuesOf<int64_t>(d), (std::vector<int64_t>{5}));
  const Tensor m = evalNode(g, mul, {&d, g.value(two).constant.get()})[0];
  EXPECT_EQ(valuesOf<int64_t>(m), (std::vector<int64_t>{10}));
  const Tensor c = evalNode(g, cast, {&m})[0];
  EXPECT_EQ(valuesOf<float>(c), (std::vector<float>{10.0f}));
}

TEST(Executor, ACastToFloat16RoundsToHalfPrecisionInFp32) {
  // float16 is held as fp32 (tensor/Half.h): a cast to it (to = 10) rounds each value to the
  // nearest half, ties to even, beyond 65504 to infinity; arithmetic after it stays fp32.
  Graph g;
  const ValueId x = g.addValue("x", DType::F32, {4});
  const NodeId cast = addNode(g, OpKind::Cast, "cast", {x}, {"h"}, attrs({{"to", int64_t{10}}}));
  g.inputs = {x};
  g.outputs = {out(g, cast)};
  inferShapes(g);
  EXPECT_EQ(g.value(out(g, cast)).dtype, DType::F32);
  Executor ex(g);
  const float third = 1.0f / 3.0f, tie = 1.0f + 1.0f / 2048.0f;
  const std::vector<Tensor> y = ex.run({tensorOf<float>({4}, {third, tie, 7e4f, -2.5f})});
  EXPECT_EQ(valuesOf<float>(y[0]), (std::vector<float>{0.333251953125f, 1.0f, INFINITY, -2.5f}));
}

TEST(Executor, InputMismatchesAreUsageErrors) {
  const Graph g = smallCnn();
  Executor ex(g);
  expectError([&] { ex.run({}); }, ErrorKind::Usage, "cnn.onnx: expected 1 inputs, got 0");
  expectError(
      [&] {
        ex.run({Tensor(DType::F32, {1, 2, 5, 6})});
      },
      ErrorKind::Usage, "cnn.onnx: input 'x': expected f32 1x2x6x6, got f32 1x2x5x6");
  expectError(
      [&] {
        ex.run({Tensor(DType::I8, {1, 2, 6, 6})});
      },
      ErrorKind::Usage, "cnn.onnx: input 'x': expected f32 1x2x6x6, got s8 1x2x6x6");
}

TEST(Executor, KernelErrorsNameTheNode) {
  Graph g;
  g.sourcePath = "m.onnx";
  // The graph is f32 (shape inference accepts it); evalNode is handed an s8 tensor, as the
  // int8 executor might, and the kernel's refusal gets the node's context.
  const ValueId x = g.addValue("x", DType::F32, {1, 1, 4});
  const ValueId w = g.addConstant("w", Tensor(DType::F32, {1, 1, 2}));
  const NodeId conv = addNode(g, OpKind::Conv, "conv3", {x, w}, {"y"});
  g.inputs = {x};
  g.outputs = {out(g, conv)};
  inferShapes(g);
  const Tensor xv(DType::I8, {1, 1, 4});
  expectError(
      [&] {
        evalNode(g, conv, {&xv, g.value(w).constant.get()});
      },
      ErrorKind::Unsupported,
      "m.onnx: node 'conv3' (Conv, opset 13): Conv on s8 input is not supported "
      "(expected f32)");
}

TEST(Executor, RuntimeGatherIndexOutOfRange) {
  Graph g;
  g.sourcePath = "m.onnx";
  const ValueId data = g.addValue("data", DType::F32, {3, 2});
  const ValueId idx = g.addValue("idx", DType::I64, {1});
  g.inputs = {data, idx};
  const NodeId gat = addNode(g, OpKind::Gather, "g", {data, idx}, {"y"});
  g.outputs = {out(g, gat)};
  inferShapes(g);
  Executor ex(g);
  expectError(
      [&] {
        ex.run({Tensor(DType::F32, {3, 2}), tensorOf<int64_t>({1}, {-4})});
      },
      ErrorKind::Model,
      "m.onnx: node 'g' (Gather, opset 13): gather index -4 is out of range for axis 0 "
      "of extent 3");
}

TEST(Executor, UnsupportedConstructsAreReportedNotComputed) {
  Graph g;
  g.sourcePath = "m.onnx";
  const ValueId x = g.addValue("x", DType::F32, {1, 2, 2, 2});
  g.inputs = {x};
  std::vector<ValueId> stats;
  for (const char* n : {"s", "b", "mean", "var"}) {
    stats.push_back(g.addConstant(n, tensorOf<float>({2}, {1, 1})));
  }
  const NodeId bn = addNode(g, OpKind::BatchNormalization, "bn",
                            {x, stats[0], stats[1], stats[2], stats[3]}, {"y", "rm", "rv"}, {}, 9);
  const Tensor xv(DType::F32, {1, 2, 2, 2});
  std::vector<const Tensor*> args{&xv};
  for (ValueId s : stats) {
    args.push_back(g.value(s).constant.get());
  }
  expectError([&] { evalNode(g, bn, args); }, ErrorKind::Unsupported,
              "m.onnx: node 'bn' (BatchNormalization, opset 9): training-mode outputs (running "
              "mean/variance) are not supported");
  const ValueId training = g.addValue("training", DType::Bool, {});
  const NodeId drop = addNode(g, OpKind::Dropout, "drop", {x, kNoValue, training}, {"d"});
  const Tensor yes = tensorOf<bool>({}, {true});
  expectError(
      [&] {
        evalNode(g, drop, {&xv, nullptr, &yes});
      },
      ErrorKind::Unsupported,
      "m.onnx: node 'drop' (Dropout, opset 13): training_mode=true is not supported");
}
