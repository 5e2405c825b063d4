/// \file
/// Tests of a batch on the broadcast engine (Tiling::batchImages, docs/arch/BroadcastCompiler.md
/// §5 "Batches", BroadcastCycleModel.md "Batches"): the images whose sums fit the output RFs
/// beside one image's stream through each loaded weight slice, bit-exact; the weight bytes read
/// stay the batch-1 figure while the activation bytes scale with the images; a layer whose one
/// image fills the output RFs loads its weights per image and says why; determinism.
#include "LayerSpecGraphs.h"
#include "nnaccel/arch/broadcast/Session.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/zoo/GraphBuilder.h"

#include <gtest/gtest.h>
#include <string>

namespace nnaccel::arch::broadcast {
namespace {

/// Two convolutions on an input of \p batch images of \p channels x \p h x \p w: 3x3 (pad 1,
/// Relu) then 1x1, both to \p channels channels.
ir::Graph batchModel(int64_t batch, int64_t channels, int64_t h, int64_t w) {
  zoo::GraphBuilder b("batch", 5);
  ir::ValueId x = b.input("input", {batch, channels, h, w});
  x = b.relu("relu", b.conv("conv3", x, zoo::ConvSpec{channels, 3, 1, 1}));
  x = b.conv("conv1", x, zoo::ConvSpec{channels, 1, 1, 0});
  b.output(x, "output");
  ir::Graph g = b.finish();
  driver::prepareGraph(g);
  return g;
}

SessionResult simulateBatchModel(const ir::Graph& g) {
  SessionOptions o;
  o.inputs = testing::sparseInputs(g, 1.0, 7);
  o.baselines = true;
  return simulateModel(g, broadcastPreset("npu"), o);
}

/// The Conv layers' indices of \p r.
std::vector<size_t> convLayers(const SessionResult& r) {
  std::vector<size_t> out;
  for (size_t i = 0; i < r.program.layers.size(); ++i)
    if (r.program.layers[i].kind == LayerKind::Conv)
      out.push_back(i);
  return out;
}

TEST(BroadcastBatchTest, ImagesShareEachWeightSliceWhereTheirSumsFit) {
  // A 7 x 7 plane: one image's operand block is 7 operands, 2 per PE, so the output RFs hold
  // several images' sums: the 3x3 layer's 8 filters per block leave room for all 4 images, the
  // 1x1 layer's 16 for 2. Every variant (the baselines too, with their own blocks) loads each
  // weight slice once per run of images: the weight bytes are the batch-1 figure times the runs.
  const SessionResult one = simulateBatchModel(batchModel(1, 32, 7, 7));
  const SessionResult four = simulateBatchModel(batchModel(4, 32, 7, 7));
  EXPECT_TRUE(four.report.verdict.passed) << four.report.verdict.detail;
  ASSERT_EQ(convLayers(one), convLayers(four));
  ASSERT_EQ(convLayers(four).size(), 2U);
  EXPECT_EQ(four.program.layers[convLayers(four)[0]].conv.tiling.batchImages, 4);
  for (size_t i : convLayers(four)) {
    const Layer& l = four.program.layers[i];
    SCOPED_TRACE(l.name + ": " + four.report.layers[i].note);
    EXPECT_EQ(one.program.layers[i].conv.tiling.batchImages, 1);
    EXPECT_GT(l.conv.tiling.batchImages, 1);
    // The tiling is one image's: only the images per slice differ.
    Tiling single = l.conv.tiling;
    single.batchImages = 1;
    EXPECT_EQ(single, one.program.layers[i].conv.tiling);
    EXPECT_NE(four.report.layers[i].note.find("batch 4: each weight slice serves"),
              std::string::npos);
    const Tiling* tilings[kVariants] = {&l.conv.tiling, &l.conv.baselineConventional,
                                        &l.conv.baselineNoBroadcast};
    for (size_t v = 0; v < kVariants; ++v) {
      SCOPED_TRACE(variantName(static_cast<Variant>(v)));
      const VariantStats &a = one.details[i].variants[v], &b = four.details[i].variants[v];
      const int64_t runs = (4 + tilings[v]->batchImages - 1) / tilings[v]->batchImages;
      EXPECT_EQ(b.weightReadBytes, runs * a.weightReadBytes);
      EXPECT_EQ(b.weightRfWriteBytes, runs * a.weightRfWriteBytes);
      if (v == kMethod && tilings[v]->batchImages == 4) {
        EXPECT_EQ(b.weightReadBytes, a.weightReadBytes);
      }
      EXPECT_EQ(b.activationReadBytes, 4 * a.activationReadBytes);
      EXPECT_EQ(b.macs, 4 * a.macs);
      EXPECT_EQ(b.outputBytes, 4 * a.outputBytes);
      EXPECT_LE(b.cycles, 4 * a.cycles);
      EXPECT_GT(b.cycles, a.cycles);
    }
  }
}

TEST(BroadcastBatchTest, AnImageThatFillsTheOutputRfsLoadsItsOwnWeights) {
  // A 64-wide plane: one image's operand block fills the output RFs, so each image loads the
  // weight slices again (the batch-1 figures four times over), with the reason in the note.
  const SessionResult one = simulateBatchModel(batchModel(1, 16, 3, 64));
  const SessionResult four = simulateBatchModel(batchModel(4, 16, 3, 64));
  EXPECT_TRUE(four.report.verdict.passed) << four.report.verdict.detail;
  const size_t i = convLayers(four).front();
  SCOPED_TRACE(four.report.layers[i].note);
  EXPECT_EQ(four.program.layers[i].conv.tiling.batchImages, 1);
  EXPECT_NE(four.report.layers[i].note.find("batch 4: weights loaded for every image (one "
                                            "image's sums of"),
            std::string::npos);
  const VariantStats &a = one.details[i].variants[kMethod], &b = four.details[i].variants[kMethod];
  EXPECT_EQ(b.weightReadBytes, 4 * a.weightReadBytes);
  EXPECT_EQ(b.activationReadBytes, 4 * a.activationReadBytes);
  EXPECT_EQ(b.cycles - b.memoryWaitCycles, 4 * (a.cycles - a.memoryWaitCycles));
}

TEST(BroadcastBatchTest, ABatchRunIsDeterministic) {
  const ir::Graph g = batchModel(3, 32, 7, 7); // a run of 3 images
  const SessionResult a = simulateBatchModel(g), b = simulateBatchModel(g);
  EXPECT_TRUE(a.report.verdict.passed) << a.report.verdict.detail;
  ASSERT_EQ(a.report.layers.size(), b.report.layers.size());
  for (size_t i = 0; i < a.report.layers.size(); ++i) {
    EXPECT_EQ(a.report.layers[i].cycles, b.report.layers[i].cycles);
    EXPECT_EQ(a.report.layers[i].energyPj, b.report.layers[i].energyPj);
    EXPECT_EQ(a.report.layers[i].note, b.report.layers[i].note);
  }
}

} // namespace
} // namespace nnaccel::arch::broadcast
