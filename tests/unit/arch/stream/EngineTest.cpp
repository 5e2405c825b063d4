/// \file
/// Tests of the stream compiler, simulator and session (Compiler.h, Simulator.h, Session.h):
/// single layers and small chains composed onto the fig44 ASIC (3x3 tiles; 5x5, 7x7 and 9x9
/// kernels from 3x3 blocks; channel ganging beyond 16; strided and "valid" convolutions as a
/// convolution plus Sample; pooling; time multiplexing after downsampling) bit-exact against
/// the int8 reference with a consistent timing plan, and the compiler's errors.
#include "LayerSpecGraphs.h"
#include "nnaccel/arch/stream/Session.h"
#include "nnaccel/support/Error.h"

#include <gtest/gtest.h>

namespace nnaccel::arch::stream {
namespace {

namespace testing = nnaccel::testing;
using testing::buildLayerGraph;
using testing::conv;
using testing::LayerSpec;

SessionResult run(const ir::Graph& g, const StreamConfig& c, int64_t frames = 1) {
  SessionOptions o;
  o.inputs = testing::sparseInputs(g, 1.0, 7);
  o.frames = frames;
  return simulateModel(g, c, o);
}

void expectExact(const LayerSpec& s, const StreamConfig& c) {
  SCOPED_TRACE(s.describe());
  const ir::Graph g = buildLayerGraph(s);
  const SessionResult r = run(g, c);
  EXPECT_TRUE(r.report.verdict.checked);
  EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
}

StreamConfig big() {
  StreamConfig c = streamPreset("large");
  c.inputBusSets = 2;
  c.primaryOutputSets = 4;
  return c;
}

TEST(StreamEngine, SingleConvolutions) {
  const StreamConfig c = streamPreset("fig44");
  expectExact(conv(3, 8, 9, 11, 3, 1), c);
  expectExact(conv(3, 16, 6, 7, 1, 0), c);
  expectExact(conv(5, 7, 10, 9, 5, 2), c);
  expectExact(conv(2, 3, 12, 13, 7, 3), c);
}

TEST(StreamEngine, GangedAndComposite) {
  const StreamConfig c = big();
  expectExact(conv(20, 40, 8, 9, 3, 1), c);
  expectExact(conv(3, 5, 14, 12, 9, 4), c);
  LayerSpec v = conv(4, 6, 9, 10, 5, 0); // "valid": a Sample crops
  expectExact(v, c);
  LayerSpec s = conv(3, 6, 12, 12, 3, 1);
  s.sh = s.sw = 2;
  expectExact(s, c);
  LayerSpec r = conv(3, 6, 12, 12, 3, 1);
  r.relu = true;
  r.chainChannels = 20;
  expectExact(r, c);
}

TEST(StreamEngine, Pooling) {
  const StreamConfig c = big();
  LayerSpec p;
  p.kind = LayerSpec::Kind::MaxPool;
  p.inChannels = 5;
  p.h = 8;
  p.w = 9;
  p.kh = p.kw = 2;
  p.sh = p.sw = 2;
  expectExact(p, c);
  p.kind = LayerSpec::Kind::AveragePool;
  p.kh = p.kw = 3;
  p.padTop = p.padLeft = p.padBottom = p.padRight = 1;
  expectExact(p, c);
}

} // namespace
} // namespace nnaccel::arch::stream
