// Tests for folding a zero spatial Pad into the Conv nodes that read it: the asymmetric
// TensorFlow form folds (bit-identical outputs, pads added to auto_pad's), and every case that
// must not fold stays.
#include "nnaccel/passes/FoldPad.h"

#include "PassTestUtil.h"
#include "nnaccel/ir/OpParams.h"

#include <gtest/gtest.h>

using namespace nnaccel;
using namespace nnaccel::ir;
using namespace nnaccel::ir::test;
using namespace nnaccel::passes;
using namespace nnaccel::passes::test;

namespace {

/// x [1, 2, 7, 7] -> Pad(pads) -> Conv 3x3 (\p convAttrs) -> y; returns the builder.
GraphBuilder padThenConv(const std::vector<int64_t>& pads, AttrMap convAttrs,
                         const std::string& mode = "constant") {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {1, 2, 7, 7});
  const ValueId p =
      b.op(OpKind::Pad, "pad", {x, b.ints("pads", pads)}, attrs({{"mode", std::string(mode)}}));
  const int64_t channels = 2 + pads[1] + pads[5];
  const ValueId y = b.op(OpKind::Conv, "conv",
                         {p, b.floats("w", {3, channels, 3, 3}, pseudoRandom(3 * channels * 9, 1))},
                         std::move(convAttrs));
  b.g.outputs = {y};
  inferShapes(b.g);
  return b;
}

} // namespace

TEST(FoldPad, AsymmetricPadBeforeStridedValidConvFolds) {
  GraphBuilder b = padThenConv({0, 0, 0, 0, 0, 0, 1, 1}, attrs({{"strides", Dims{2, 2}}}));
  Graph before = b.g;
  const Tensor input = randomTensor({1, 2, 7, 7}, 5);
  const std::vector<Tensor> ref = runGraph(before, {input});
  ASSERT_EQ(foldPadIntoConv(b.g), 1u);
  EXPECT_EQ(countOps(b.g, OpKind::Pad), 0u);
  ASSERT_EQ(b.g.numNodes(), 1u);
  const ConvParams c = convParams(b.g, 0);
  EXPECT_EQ(c.padsBegin, (Dims{0, 0}));
  EXPECT_EQ(c.padsEnd, (Dims{1, 1}));
  EXPECT_EQ(b.g.node(0).inputs[0], b.g.inputs[0]);
  const std::vector<Tensor> got = runGraph(b.g, {input});
  // The same function; fp32 differs by summation order at most (the convolution kernel may
  // take another path for other pads).
  EXPECT_LE(maxAbsDiff(got[0], ref[0]), 1e-5f);
}

TEST(FoldPad, PadsAddToTheConvsResolvedAutoPad) {
  GraphBuilder b =
      padThenConv({0, 0, 1, 2, 0, 0, 1, 0}, attrs({{"auto_pad", std::string("SAME_UPPER")}}));
  Graph before = b.g;
  const Tensor input = randomTensor({1, 2, 7, 7}, 6);
  const std::vector<Tensor> ref = runGraph(before, {input});
  ASSERT_EQ(foldPadIntoConv(b.g), 1u);
  const ConvParams c = convParams(b.g, 0);
  EXPECT_EQ(c.padsBegin, (Dims{2, 3}));
  EXPECT_EQ(c.padsEnd, (Dims{2, 1}));
  EXPECT_FALSE(b.g.node(0).attrs.has("auto_pad"));
  EXPECT_LE(maxAbsDiff(runGraph(b.g, {input})[0], ref[0]), 1e-5f);
}

TEST(FoldPad, PadsThatAreNotZeroSpatialOrOnlyForConvsStay) {
  // Reflect padding, a crop, channel padding: not a convolution's zero padding.
  GraphBuilder reflect = padThenConv({0, 0, 1, 1, 0, 0, 1, 1}, {}, "reflect");
  EXPECT_EQ(foldPadIntoConv(reflect.g), 0u);
  GraphBuilder crop = padThenConv({0, 0, -1, 0, 0, 0, 1, 1}, {});
  EXPECT_EQ(foldPadIntoConv(crop.g), 0u);
  GraphBuilder channels = padThenConv({0, 1, 0, 0, 0, 0, 0, 0}, {});
  EXPECT_EQ(foldPadIntoConv(channels.g), 0u);
  // A non-zero fill value.
  GraphBuilder v(13);
  const ValueId x = v.input("x", {1, 2, 7, 7});
  const ValueId p = v.op(OpKind::Pad, "pad",
                         {x, v.ints("pads", {0, 0, 1, 1, 0, 0, 1, 1}), v.floats("c", {}, {1.0f})});
  v.g.outputs = {v.op(OpKind::Conv, "conv", {p, v.floats("w", {1, 2, 1, 1}, {1.0f, 1.0f})})};
  inferShapes(v.g);
  EXPECT_EQ(foldPadIntoConv(v.g), 0u);
  // The padded tensor is also a graph output, or read by something other than a Conv.
  GraphBuilder o(13);
  const ValueId xo = o.input("x", {1, 2, 7, 7});
  const ValueId po = o.op(OpKind::Pad, "pad", {xo, o.ints("pads", {0, 0, 1, 1, 0, 0, 1, 1})});
  const ValueId yo = o.op(OpKind::Conv, "conv", {po, o.floats("w", {1, 2, 1, 1}, {1.0f, 1.0f})});
  const ValueId ro = o.op(OpKind::Relu, "relu", {po});
  o.g.outputs = {yo, ro};
  inferShapes(o.g);
  EXPECT_EQ(foldPadIntoConv(o.g), 0u);
  o.g.outputs = {yo, po};
  EXPECT_EQ(foldPadIntoConv(o.g), 0u);
}
