// The shared int8 pooling of the sparse PPUs and the broadcast PE array: max (dilated too) and
// average pooling over a batch equal the int8 executor's, and the pooling nodes a whole-layer unit
// cannot run say why.
#include "nnaccel/arch/common/Pooling.h"

#include "../../quant/QuantTestUtil.h"
#include "nnaccel/quant/Int8Executor.h"

#include <gtest/gtest.h>

namespace nnaccel::arch::common {
namespace {

using ir::OpKind;
using quant::test::attrs;
using quant::test::finish;
using quant::test::GraphBuilder;
using quant::test::nodeNamed;

TEST(Pooling, MaxAndAverageOverABatchMatchTheInt8Executor) {
  GraphBuilder b;
  const auto x = b.input("x", {2, 3, 7, 6});
  const auto mx = b.op(
      OpKind::MaxPool, "max", {x},
      attrs({{"kernel_shape", Dims{3, 3}}, {"strides", Dims{2, 2}}, {"pads", Dims{1, 1, 1, 1}}}));
  const auto avg = b.op(OpKind::AveragePool, "avg", {x},
                        attrs({{"kernel_shape", Dims{2, 3}}, {"strides", Dims{2, 1}}}));
  const auto gap = b.op(OpKind::GlobalAveragePool, "gap", {x});
  const auto dil = b.op(
      OpKind::MaxPool, "max_dilated", {x},
      attrs({{"kernel_shape", Dims{2, 2}}, {"dilations", Dims{2, 3}}, {"pads", Dims{1, 0, 0, 1}}}));
  const ir::Graph g = finish(b, {mx, avg, gap, dil});
  const quant::QuantizedModel qm = quant::quantize(g, {});
  quant::Int8Executor ex(qm);
  ex.run(quant::makeCalibrationInputs(g, 1, 3)[0]);
  for (const char* name : {"max", "avg", "gap", "max_dilated"}) {
    SCOPED_TRACE(name);
    const ir::NodeId id = nodeNamed(g, name);
    const ir::PoolParams p = ir::poolParams(g, id);
    EXPECT_EQ(poolObstacle(g, id, p, "2-D only"), "");
    const Tensor got = poolInt8(p, ex.value(x).data, qm.node(id).countMultipliers);
    EXPECT_EQ(got.reshaped(g.value(g.node(id).outputs[0]).shape),
              ex.value(g.node(id).outputs[0]).data);
  }
  EXPECT_EQ(poolWindowOps(ir::poolParams(g, nodeNamed(g, "gap"))), 2 * 3 * 7 * 6);
}

TEST(Pooling, ObstaclesNameTheirReason) {
  GraphBuilder b;
  const auto x1 = b.input("x1", {1, 2, 6});
  const auto one = b.op(OpKind::MaxPool, "one_d", {x1}, attrs({{"kernel_shape", Dims{2}}}));
  const ir::Graph g = finish(b, {one});
  auto why = [&](const char* name) {
    const ir::NodeId id = nodeNamed(g, name);
    return poolObstacle(g, id, ir::poolParams(g, id), "the unit tiles 2-D planes");
  };
  EXPECT_EQ(why("one_d"), "1-D pooling (the unit tiles 2-D planes)");
}

} // namespace
} // namespace nnaccel::arch::common
