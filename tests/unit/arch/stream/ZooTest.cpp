/// \file
/// Whole models on the stream engine (slow): every zoo model the ASIC's op set covers, compiled
/// onto chained chips, streams bit-exact against the int8 reference executor on every layer
/// with a timing plan the simulator confirms; the Fig. 54 model lands on the tile counts and
/// the P/T/H figures of digest_002 §8.6; the models the ASIC cannot take are refused with the
/// node or key that stops them. The figures are printed (docs/arch/Stream.md records them).
#include "nnaccel/zoo/Zoo.h"

#include "nnaccel/arch/stream/Session.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/support/Error.h"

#include <cstdio>
#include <gtest/gtest.h>
#include <tuple>

namespace nnaccel::arch::stream {
namespace {

struct ZooCase {
  const char* model;
  const char* preset;
  int64_t chips;
};

void PrintTo(const ZooCase& c, std::ostream* os) {
  *os << c.model << " on " << c.chips << "x " << c.preset;
}

SessionResult runChecked(const ZooCase& c) {
  SessionOptions o;
  o.chips = c.chips;
  const SessionResult r = simulateModel(driver::loadModel(c.model), streamPreset(c.preset), o);
  EXPECT_TRUE(r.report.verdict.checked);
  EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
  EXPECT_GT(r.report.verdict.comparedElements, 0);
  const Totals& t = r.totals;
  std::printf("%s on %lld x %s: %lld kernel + %lld aux tiles (%lld bypass), %lld rows, FIFO "
              "%.1f kbit, first output %lld cycles, one frame per %lld cycles (%.0f frames/s), "
              "%.1f%% of multiplies discarded\n",
              c.model, static_cast<long long>(t.chipsUsed), c.preset,
              static_cast<long long>(t.kernelTiles), static_cast<long long>(t.auxTiles),
              static_cast<long long>(t.bypassTiles), static_cast<long long>(t.rowsUsed),
              static_cast<double>(t.fifoBits) / 1000.0, static_cast<long long>(t.firstOutputCycles),
              static_cast<long long>(t.framePeriodCycles), t.framesPerSecond,
              100.0 * t.discardedShare());
  return r;
}

class StreamZoo : public ::testing::TestWithParam<ZooCase> {};

TEST_P(StreamZoo, BitExactWithConsistentTiming) {
  const SessionResult r = runChecked(GetParam());
  // The stream runs at its input rate: one frame per input position.
  // A copy: the loaded graph is a temporary (a reference into it dangled, and read zeros once).
  const Dims in = driver::loadModel(GetParam().model).value(r.program.inputValue).shape;
  EXPECT_EQ(r.totals.framePeriodCycles, in[2] * in[3]);
  EXPECT_LE(r.totals.chipsUsed, GetParam().chips);
}

INSTANTIATE_TEST_SUITE_P(
    All, StreamZoo,
    ::testing::Values(ZooCase{"lenet5", "fig44", 2}, ZooCase{"fig54", "large", 1},
                      ZooCase{"resnet18", "large", 3}, ZooCase{"resnet50", "large", 8},
                      ZooCase{"mobilenetv2", "large", 7}, ZooCase{"alexnet", "large", 4},
                      ZooCase{"vgg16", "large", 7}, ZooCase{"unet", "large", 3}),
    [](const auto& param) { return std::string(param.param.model); });

TEST(StreamZoo, Fig54MatchesThePatentsWorkedFigures) {
  // digest_002 §8.6: P in -> out, T and H per node, and the minimum kernel tiles of the §8.4
  // capacity rule (18, 8, 2, 2, 8, 32: 70 in all).
  const SessionResult r = runChecked(ZooCase{"fig54", "large", 1});
  struct Row {
    const char* layer;
    int64_t kernelTiles, P, T, H;
  };
  const Row want[] = {
      {"n5402", 18, 4, 1, 4},  {"n5404", 8, 4, 4, 1},    {"n5405", 0, 16, 4, 4},
      {"n5406", 2, 16, 8, 2},  {"n5407", 0, 64, 8, 8},   {"n5408", 2, 64, 16, 4},
      {"n5409", 0, 16, 16, 1}, {"n5410", 8, 16, 16, 1},  {"n5411", 0, 16, 16, 1},
      {"n5412", 0, 64, 16, 4}, {"n5413", 32, 64, 64, 1},
  };
  for (const Row& w : want) {
    SCOPED_TRACE(w.layer);
    const Layer* found = nullptr;
    for (const Layer& l : r.program.layers)
      if (l.name == w.layer)
        found = &l;
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(static_cast<int64_t>(found->kernelTiles.size()), w.kernelTiles);
    EXPECT_EQ(found->out.cyclesPerPosition, w.P);
    EXPECT_EQ(found->out.tm, w.T);
    EXPECT_EQ(found->out.holdCycles(), w.H);
  }
  EXPECT_EQ(r.totals.kernelTiles, 70);
  // 5411 is a bus arrangement plus the alignment of the short skip path (5406 -> 5410) to the
  // long one (5407 -> 5408 -> 5409): one FIFO tile.
  for (const Layer& l : r.program.layers) {
    if (l.name == "n5411") {
      EXPECT_EQ(l.outSets.size(), 2u);
      EXPECT_EQ(l.auxTiles.size(), 1u);
      EXPECT_GT(l.fifoValues, 0);
    }
  }
}

TEST(StreamZoo, ModelsOutsideTheOpSetAreRefusedWithTheReason) {
  // DCGAN's 100-channel latent and the ASPP head's 512-channel features do not fit the one-set
  // input bus (named by key).
  const std::tuple<const char*, const char*, const char*> refused[] = {
      {"dcgan", "'external.input_sets'", "100 channels"},
      {"aspp", "'external.input_sets'", "512 channels"}};
  for (const auto& [model, where, why] : refused) {
    SCOPED_TRACE(model);
    SessionOptions o;
    o.chips = 16;
    try {
      simulateModel(driver::loadModel(model), streamPreset("large"), o);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(where), std::string::npos) << what;
      EXPECT_NE(what.find(why), std::string::npos) << what;
    }
  }
}

} // namespace
} // namespace nnaccel::arch::stream
