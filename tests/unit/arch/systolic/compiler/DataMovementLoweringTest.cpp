/// \file
/// The systolic compiler's data movement (src/arch/systolic/compiler/DataMovementLowering.cpp):
/// an NHWC input's Transpose, a Slice with steps, a zero Pad and a 5-D Transpose run as
/// DMA_COPY patterns (a Pad's border as a zero fill), bit-exact against the int8 reference; a
/// negative-step Slice stays on the host with its reason.
#include "../../../ir/GraphBuilder.h"
#include "nnaccel/arch/systolic/Session.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/ir/ShapeInference.h"

#include <gtest/gtest.h>

namespace nnaccel::arch::systolic {
// Named, not anonymous: the unity build compiles this file with its siblings.
namespace data_movement_test {

using ir::OpKind;
using ir::test::attrs;

ir::Graph prepared(ir::test::GraphBuilder& b, ir::ValueId out) {
  b.g.outputs = {out};
  driver::prepareGraph(b.g);
  return b.g;
}

const Layer& layerNamed(const Program& p, const std::string& name) {
  for (const Layer& l : p.layers)
    if (l.name == name)
      return l;
  throw std::runtime_error("no layer " + name);
}

int64_t copiesOf(const Program& p, const Layer& l, bool fill) {
  int64_t n = 0;
  for (int64_t i = l.firstInstr; i < l.endInstr; ++i)
    if (const auto* c = std::get_if<DmaCopy>(&p.instructions[static_cast<size_t>(i)].op))
      n += c->fillZero == fill ? 1 : 0;
  return n;
}

TEST(SystolicDataMovement, TransposeSliceAndPadAreDmaPatterns) {
  ir::test::GraphBuilder b(13);
  const ir::ValueId x = b.input("x", {1, 6, 7, 5}); // NHWC
  const ir::ValueId nchw =
      b.op(OpKind::Transpose, "to_nchw", {x}, attrs({{"perm", Dims{0, 3, 1, 2}}}));
  const ir::ValueId cut = b.op(OpKind::Slice, "cut",
                               {nchw, b.ints("st", {1, 0, 1}), b.ints("en", {5, 6, 7}),
                                b.ints("ax", {1, 2, 3}), b.ints("sp", {2, 2, 3})});
  const ir::ValueId padded =
      b.op(OpKind::Pad, "pad", {cut, b.ints("pads", {0, 0, 1, 2, 0, 1, 0, 0})});
  const ir::ValueId r5 = b.op(OpKind::Reshape, "r5", {padded, b.ints("s5", {1, 3, 2, 2, 4})});
  const ir::ValueId t5 =
      b.op(OpKind::Transpose, "t5", {r5}, attrs({{"perm", Dims{0, 4, 3, 2, 1}}}));
  const ir::Graph g = prepared(b, t5);
  const SessionResult r = simulateModel(g, systolicPreset("small"), {});
  EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
  for (const char* name : {"to_nchw", "cut", "pad", "t5"}) {
    SCOPED_TRACE(name);
    const Layer& l = layerNamed(r.program, name);
    EXPECT_EQ(l.unit, LayerUnit::Vector);
    EXPECT_GT(copiesOf(r.program, l, false), 0);
  }
  EXPECT_EQ(copiesOf(r.program, layerNamed(r.program, "pad"), true), 1); // the border
}

TEST(SystolicDataMovement, ANegativeStepSliceStaysOnTheHost) {
  ir::test::GraphBuilder b(13);
  const ir::ValueId x = b.input("x", {1, 2, 4, 4});
  const ir::ValueId rev =
      b.op(OpKind::Slice, "reverse",
           {x, b.ints("st", {3}), b.ints("en", {-5}), b.ints("ax", {3}), b.ints("sp", {-1})});
  const ir::Graph g = prepared(b, rev);
  const SessionResult r = simulateModel(g, systolicPreset("small"), {});
  EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
  const Layer& l = layerNamed(r.program, "reverse");
  EXPECT_EQ(l.unit, LayerUnit::Host);
  EXPECT_EQ(l.note, "Slice has no unit on the systolic engine: a negative-step slice (DMA "
                    "patterns step forward)");
}

} // namespace data_movement_test
} // namespace nnaccel::arch::systolic
