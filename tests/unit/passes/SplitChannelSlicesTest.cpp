// Tests for splitting a convolution at the channel slices its readers keep: M-LSD's head shape
// (Conv -> Resize -> two channel Slices) and a channel Split become one convolution per slice
// with the same outputs, dead channels are dropped, and every shape that must not split stays.
#include "nnaccel/passes/SplitChannelSlices.h"

#include "PassTestUtil.h"

#include <gtest/gtest.h>

using namespace nnaccel;
using namespace nnaccel::ir;
using namespace nnaccel::ir::test;
using namespace nnaccel::passes;
using namespace nnaccel::passes::test;

namespace {

constexpr int64_t kChannels = 16;

/// x [1, 4, 5, 5] -> Conv 3x3 pad 1, 16 channels, with bias -> y.
ValueId conv16(GraphBuilder& b, ValueId x, AttrMap extra = {}) {
  extra.set("pads", Dims{1, 1, 1, 1});
  return b.op(OpKind::Conv, "head",
              {x, b.floats("w", {kChannels, 4, 3, 3}, pseudoRandom(kChannels * 36, 1)),
               b.floats("bias", {kChannels}, pseudoRandom(kChannels, 2))},
              std::move(extra));
}

/// Slice of \p v along axis 1, [begin, end) with \p step.
ValueId channelSlice(GraphBuilder& b, ValueId v, const std::string& name, int64_t begin,
                     int64_t end, int64_t step = 1) {
  return b.op(OpKind::Slice, name,
              {v, b.ints(name + "/s", {begin}), b.ints(name + "/e", {end}),
               b.ints(name + "/a", {1}), b.ints(name + "/st", {step})});
}

/// The M-LSD head: Conv -> Resize (sizes, bilinear x2) -> Slice [7, 8) and Slice [8, 12).
GraphBuilder mlsdHead() {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {1, 4, 5, 5});
  const ValueId y = conv16(b, x);
  const ValueId none = b.floats("empty", {});
  const ValueId r = b.op(OpKind::Resize, "up", {y, none, none, b.ints("sizes", {1, 16, 10, 10})},
                         attrs({{"mode", std::string("linear")}}));
  b.g.outputs = {channelSlice(b, r, "scores", 7, 8), channelSlice(b, r, "offsets", 8, 12)};
  inferShapes(b.g);
  return b;
}

/// Output channel counts of the graph's Conv nodes, in node order.
std::vector<int64_t> convWidths(const Graph& g) {
  std::vector<int64_t> widths;
  for (const Node& n : g.nodes())
    if (n.op == OpKind::Conv)
      widths.push_back(g.value(n.inputs[1]).shape[0]);
  return widths;
}

/// Runs \p b's graph before and after the pass on one input; expects \p splits and equal outputs.
void expectSameFunctionAfterSplit(GraphBuilder& b, size_t splits) {
  Graph before = b.g;
  const Tensor input = randomTensor({1, 4, 5, 5}, 9);
  const std::vector<Tensor> ref = runGraph(before, {input});
  ASSERT_EQ(splitConvAtChannelSlices(b.g), splits);
  const std::vector<Tensor> got = runGraph(b.g, {input});
  ASSERT_EQ(got.size(), ref.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_LE(maxAbsDiff(got[i], ref[i]), 1e-5f) << "output " << i;
}

} // namespace

TEST(SplitChannelSlices, MlsdHeadBecomesOneConvolutionPerSlice) {
  GraphBuilder b = mlsdHead();
  expectSameFunctionAfterSplit(b, 1);
  EXPECT_EQ(countOps(b.g, OpKind::Slice), 0u);
  EXPECT_EQ(countOps(b.g, OpKind::Resize), 2u);
  // 5 of the 16 channels computed: the other 11 were never read.
  EXPECT_EQ(convWidths(b.g), (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(b.g.value(b.g.outputs[0]).shape, (Dims{1, 1, 10, 10}));
  EXPECT_EQ(b.g.value(b.g.outputs[1]).shape, (Dims{1, 4, 10, 10}));
  // The graph outputs keep their names.
  EXPECT_EQ(b.g.value(b.g.outputs[1]).name, "offsets");
}

TEST(SplitChannelSlices, SplitAlongChannelsDropsItsUnusedOutput) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {1, 4, 5, 5});
  const ValueId y = conv16(b, x);
  const ValueId relu = b.op(OpKind::Relu, "relu", {y});
  const NodeId split = b.node(OpKind::Split, "split", {relu, b.ints("parts", {2, 6, 8})},
                              {"a", "unused", "c"}, attrs({{"axis", int64_t{1}}}));
  b.g.outputs = {b.g.node(split).outputs[0], b.g.node(split).outputs[2]};
  inferShapes(b.g);
  expectSameFunctionAfterSplit(b, 1);
  EXPECT_EQ(convWidths(b.g), (std::vector<int64_t>{2, 8}));
  EXPECT_EQ(countOps(b.g, OpKind::Relu), 2u);
}

TEST(SplitChannelSlices, OneSliceOfSomeChannelsDropsTheRest) {
  GraphBuilder b(13);
  const ValueId y = conv16(b, b.input("x", {1, 4, 5, 5}));
  b.g.outputs = {channelSlice(b, y, "keep", 4, 10)};
  inferShapes(b.g);
  expectSameFunctionAfterSplit(b, 1);
  EXPECT_EQ(convWidths(b.g), (std::vector<int64_t>{6}));
}

TEST(SplitChannelSlices, ShapesThatMustNotSplitStay) {
  const auto unchanged = [](GraphBuilder& b) {
    inferShapes(b.g);
    const size_t nodes = b.g.numNodes();
    EXPECT_EQ(splitConvAtChannelSlices(b.g), 0u);
    EXPECT_EQ(b.g.numNodes(), nodes);
  };
  { // A slice with step 2 on the channels.
    GraphBuilder b(13);
    b.g.outputs = {channelSlice(b, conv16(b, b.input("x", {1, 4, 5, 5})), "s", 0, 16, 2)};
    unchanged(b);
  }
  { // A slice that covers every channel: nothing to gain.
    GraphBuilder b(13);
    b.g.outputs = {channelSlice(b, conv16(b, b.input("x", {1, 4, 5, 5})), "s", 0, 16)};
    unchanged(b);
  }
  { // The convolution's output is also a graph output.
    GraphBuilder b(13);
    const ValueId y = conv16(b, b.input("x", {1, 4, 5, 5}));
    b.g.outputs = {y, channelSlice(b, y, "s", 0, 4)};
    unchanged(b);
  }
  { // A spatial slice as well.
    GraphBuilder b(13);
    const ValueId y = conv16(b, b.input("x", {1, 4, 5, 5}));
    b.g.outputs = {b.op(OpKind::Slice, "s",
                        {y, b.ints("s/s", {0, 1}), b.ints("s/e", {4, 3}), b.ints("s/a", {1, 2})})};
    unchanged(b);
  }
  { // A grouped convolution.
    GraphBuilder b(13);
    const ValueId x = b.input("x", {1, 4, 5, 5});
    const ValueId y = b.op(OpKind::Conv, "g", {x, b.floats("w", {8, 2, 1, 1}, pseudoRandom(16, 3))},
                           attrs({{"group", int64_t{2}}}));
    b.g.outputs = {channelSlice(b, y, "s", 0, 4), channelSlice(b, y, "t", 4, 8)};
    unchanged(b);
  }
  { // A reader that is neither channel-local nor a slice (Add of the whole map).
    GraphBuilder b(13);
    const ValueId y = conv16(b, b.input("x", {1, 4, 5, 5}));
    b.g.outputs = {channelSlice(b, y, "s", 0, 4), b.op(OpKind::Add, "add", {y, y})};
    unchanged(b);
  }
}

TEST(SplitChannelSlices, QdqWeightsKeepTheirScalesAndStay) {
  GraphBuilder b(13);
  const ValueId y = conv16(b, b.input("x", {1, 4, 5, 5}));
  b.g.outputs = {channelSlice(b, y, "s", 0, 4), channelSlice(b, y, "t", 4, 8)};
  b.g.value(b.g.node(0).inputs[1]).dequantizedFrom = QdqParams{};
  inferShapes(b.g);
  EXPECT_EQ(splitConvAtChannelSlices(b.g), 0u);
}
