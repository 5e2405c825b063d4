/// \file
/// Tests of the stream compiler's upsampling layers beyond nearest Expand, run through the
/// simulator and checked bit-exact against the int8 reference:
/// - transposed convolutions (TransposeLowering.cpp): stride phases on the kernel tiles, then
///   depth to space on the producing aux tile (2x2, 3x3 and 4x4 kernels at stride 2, with and
///   without padding, a fused Relu, a batch of frames, phases on sets narrower than 16 lanes,
///   grouped and depthwise);
/// - linear Resize (AuxLowering.cpp): Interpolate on an aux tile (x2 and x4, half-pixel and
///   align-corners tables, one axis only);
/// and the cases the 1-up buses cannot carry refused with their reason.
#include "LayerSpecGraphs.h"
#include "nnaccel/arch/stream/Session.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/support/Error.h"
#include "nnaccel/zoo/GraphBuilder.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace nnaccel::arch::stream {
namespace {

/// conv 3 -> 16, Relu, a \p pool x \p pool max pool (P = pool^2), then \p up on the pooled
/// stream, on \p side x \p side frames.
ir::Graph pooledThen(const zoo::ConvTransposeSpec& up, int64_t side, int64_t pool,
                     bool relu = false) {
  zoo::GraphBuilder b("transposed", 11);
  ir::ValueId x = b.input("input", {1, 3, side, side});
  x = b.relu("r0", b.conv("c0", x, {.outChannels = 16, .kernel = 3, .pad = 1}));
  if (pool > 1)
    x = b.maxPool("pool", x, {.kernel = pool, .stride = pool});
  x = b.convTranspose("up", x, up);
  if (relu)
    x = b.relu("r1", x);
  b.output(x, "output");
  ir::Graph g = b.finish();
  driver::prepareGraph(g);
  return g;
}

SessionResult simulate(const ir::Graph& g, StreamConfig c, int64_t frames = 1) {
  SessionOptions o;
  o.inputs = testing::sparseInputs(g, 1.0, 3);
  o.frames = frames;
  return simulateModel(g, c, o);
}

const Layer& upLayer(const Program& p) {
  for (const Layer& l : p.layers)
    if (l.name == "up")
      return l;
  throw std::runtime_error("no layer 'up'");
}

int64_t depthToSpaceTiles(const Program& p) {
  int64_t n = 0;
  for (const AuxTile& t : p.auxTiles)
    n += t.function == AuxFunction::DepthToSpace ? 1 : 0;
  return n;
}

TEST(StreamUpsampling, StrideTwoKernelsRunAsPhasesThenDepthToSpace) {
  struct Case {
    int64_t kernel, pad, outputPadding, window;
  };
  // 2x2 (U-Net, DBNet): every phase one tap, a 1x1 window; 4x4 pad 1 (DCGAN): two taps per
  // axis at offsets {-1, 0} or {0, 1}, a 3x3 union window; 3x3 pad 1 + output padding 1.
  for (const Case& k : {Case{2, 0, 0, 1}, Case{4, 1, 0, 3}, Case{3, 1, 1, 2}}) {
    SCOPED_TRACE(fmt::format("kernel {} pad {}", k.kernel, k.pad));
    const zoo::ConvTransposeSpec up{.outChannels = 8,
                                    .kernel = k.kernel,
                                    .stride = 2,
                                    .pad = k.pad,
                                    .outputPadding = k.outputPadding};
    const ir::Graph g = pooledThen(up, 12, 2, true);
    const SessionResult r = simulate(g, streamPreset("large"), 2);
    ASSERT_TRUE(r.report.verdict.checked);
    EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
    const Layer& l = upLayer(r.program);
    EXPECT_EQ(l.out.frame.rows, 12);
    EXPECT_EQ(l.out.frame.channels, 8);
    EXPECT_EQ(l.out.cyclesPerPosition, 1); // P 4 -> 1: four output positions per input one
    EXPECT_EQ(depthToSpaceTiles(r.program), 1);
    // Useful MACs are the operator's own (every input times every tap), whatever the window.
    EXPECT_EQ(l.usefulMacs, 6 * 6 * 16 * 8 * k.kernel * k.kernel);
    for (const KernelTile& t : r.program.kernelTiles)
      if (t.layer == "up") {
        EXPECT_EQ(t.subRows, k.window);
        EXPECT_EQ(t.subCols, k.window);
      }
  }
}

TEST(StreamUpsampling, GroupedAndDepthwiseTransposedConvolutionsRunAsOnePhaseConvolution) {
  // The phases of a grouped one are one ungrouped phase convolution whose weights between
  // groups are zero (docs/arch/Stream.md): bit-exact, and its useful MACs are the operator's
  // own (the grouped count), not the multiply-select cells it occupies.
  for (int64_t group : {2, 16}) {
    SCOPED_TRACE(fmt::format("group {}", group));
    const zoo::ConvTransposeSpec up{
        .outChannels = 16, .kernel = 4, .stride = 2, .pad = 1, .group = group};
    const ir::Graph g = pooledThen(up, 12, 2);
    const SessionResult r = simulate(g, streamPreset("large"));
    ASSERT_TRUE(r.report.verdict.checked);
    EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
    const Layer& l = upLayer(r.program);
    EXPECT_EQ(l.usefulMacs, 6 * 6 * 16 * (16 / group) * 4 * 4);
    EXPECT_EQ(depthToSpaceTiles(r.program), 1);
  }
}

TEST(StreamUpsampling, PhasesOnSetsNarrowerThanSixteenLanes) {
  // One group pair per tile keeps T at 1: 4 phases x 8 channels need two 16-lane sets, each
  // carrying the 4 phases of 4 channels; they leave as two sets of 4 channels (ragged), which
  // the next convolution reads with their own channel ranges.
  zoo::GraphBuilder b("narrow", 13);
  ir::ValueId x = b.input("input", {1, 3, 8, 8});
  x = b.relu("r0", b.conv("c0", x, {.outChannels = 16, .kernel = 3, .pad = 1}));
  x = b.maxPool("pool", x, {.kernel = 2, .stride = 2});
  x = b.convTranspose("up", x, {.outChannels = 8, .kernel = 2, .stride = 2});
  b.output(b.conv("c1", x, {.outChannels = 4, .kernel = 3, .pad = 1}), "output");
  ir::Graph g = b.finish();
  driver::prepareGraph(g);
  StreamConfig c = streamPreset("large");
  c.weightStorePairs = 1;
  const SessionResult r = simulate(g, c);
  EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
  const Layer& l = upLayer(r.program);
  EXPECT_EQ(l.outSets.size(), 2u);
  EXPECT_EQ(l.out.tm, 1);
}

/// \p g must be refused on `large` with a message naming node 'up' and holding \p part.
void refused(const ir::Graph& g, const std::string& part) {
  try {
    simulate(g, streamPreset("large"));
    ADD_FAILURE() << "not refused";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'up'"), std::string::npos) << e.what();
  }
}

TEST(StreamUpsampling, StreamsTheBusesCannotCarryAreRefused) {
  // A full-rate stream: four output positions per input cycle would need N-up sets.
  refused(pooledThen({.outChannels = 8, .kernel = 2, .stride = 2}, 8, 1),
          "needs a multiple of 4 cycles per input position");
  // 3x3 stride 2 pad 1 without output padding: 2H - 1 outputs, the phases are uneven.
  refused(pooledThen({.outChannels = 8, .kernel = 3, .stride = 2, .pad = 1}, 12, 2),
          "is not stride 2 x input 6");
  // Stride 3: nine phases do not split a 16-lane set.
  refused(pooledThen({.outChannels = 8, .kernel = 3, .stride = 3}, 12, 3),
          "does not split into 9 phases");
}

/// conv 3 -> 16, Relu, max pools down by \p pool (a power of 2), then a linear Resize to \p rows x
/// \p cols
/// (\p mode: pytorch_half_pixel, half_pixel or align_corners) and a 3x3 convolution.
ir::Graph pooledThenLinear(int64_t side, int64_t pool, int64_t rows, int64_t cols,
                           const std::string& mode) {
  zoo::GraphBuilder b("bilinear", 17);
  ir::ValueId x = b.input("input", {1, 3, side, side});
  x = b.relu("r0", b.conv("c0", x, {.outChannels = 16, .kernel = 3, .pad = 1}));
  for (int64_t p = 1; p < pool; p *= 2) // 2x2 pools: the aux tiles' patch is at most 3x3
    x = b.maxPool(fmt::format("pool{}", p), x, {.kernel = 2, .stride = 2});
  x = b.resize("up", x, rows, cols, zoo::ResizeMode::Bilinear);
  b.output(b.conv("c1", x, {.outChannels = 8, .kernel = 3, .pad = 1}), "output");
  ir::Graph g = b.finish();
  for (ir::NodeId id = 0; id < static_cast<ir::NodeId>(g.numNodes()); ++id)
    if (g.node(id).op == ir::OpKind::Resize)
      g.node(id).attrs.set("coordinate_transformation_mode", mode);
  driver::prepareGraph(g);
  return g;
}

TEST(StreamUpsampling, LinearResizeIsInterpolateOnAnAuxTile) {
  struct Case {
    int64_t pool, rows, cols;
    const char* mode;
  };
  for (const Case& k : {Case{2, 12, 12, "half_pixel"}, Case{2, 12, 12, "align_corners"},
                        Case{4, 12, 12, "pytorch_half_pixel"}, Case{2, 6, 12, "half_pixel"}}) {
    SCOPED_TRACE(fmt::format("pool {} to {}x{} {}", k.pool, k.rows, k.cols, k.mode));
    const ir::Graph g = pooledThenLinear(12, k.pool, k.rows, k.cols, k.mode);
    const SessionResult r = simulate(g, streamPreset("large"), 2);
    ASSERT_TRUE(r.report.verdict.checked);
    EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
    int64_t tiles = 0;
    for (const AuxTile& t : r.program.auxTiles)
      tiles += t.function == AuxFunction::Interpolate ? 1 : 0;
    EXPECT_EQ(tiles, 1);
    const Layer& l = upLayer(r.program);
    EXPECT_EQ(l.out.frame.rows, k.rows);
    EXPECT_EQ(l.out.cyclesPerPosition,
              k.pool * k.pool * (12 / k.pool) * (12 / k.pool) / (k.rows * k.cols));
  }
}

TEST(StreamUpsampling, LinearResizesTheBusesCannotCarryAreRefused) {
  // x4 after a 2x2 pool: 16 output positions per input one at P = 4.
  refused(pooledThenLinear(12, 2, 24, 24, "half_pixel"),
          "Interpolate by 4x4 needs 16 cycles per input position");
  // 6 -> 9: not a whole factor.
  refused(pooledThenLinear(12, 2, 9, 9, "half_pixel"), "only whole upsampling factors");
}

} // namespace
} // namespace nnaccel::arch::stream
