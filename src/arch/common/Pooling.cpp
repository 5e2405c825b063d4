// int8 max / average pooling for the engines' pooling units (Pooling.h).
#include "nnaccel/arch/common/Pooling.h"

#include "nnaccel/support/Error.h"

#include <algorithm>
#include <fmt/format.h>

namespace nnaccel::arch::common {

namespace {

void maxPool(const ir::PoolParams& p, const int8_t* in, int8_t* out) {
  const int64_t ih = p.inSpatial[0], iw = p.inSpatial[1];
  const int64_t oh = p.outSpatial[0], ow = p.outSpatial[1];
  for (int64_t c = 0; c < p.batch * p.channels; ++c) // every plane of every image
    for (int64_t oy = 0; oy < oh; ++oy)
      for (int64_t ox = 0; ox < ow; ++ox) {
        int32_t m = quant::kInt8Min;
        bool any = false;
        for (int64_t ky = 0; ky < p.kernel[0]; ++ky)
          for (int64_t kx = 0; kx < p.kernel[1]; ++kx) {
            const int64_t y = oy * p.strides[0] - p.padsBegin[0] + ky * p.dilations[0];
            const int64_t x = ox * p.strides[1] - p.padsBegin[1] + kx * p.dilations[1];
            if (y < 0 || y >= ih || x < 0 || x >= iw)
              continue;
            m = std::max<int32_t>(m, in[(c * ih + y) * iw + x]);
            any = true;
          }
        out[(c * oh + oy) * ow + ox] = static_cast<int8_t>(any ? m : 0);
      }
}

} // namespace

Tensor poolInt8(const ir::PoolParams& p, const Tensor& x,
                std::span<const quant::CountMultiplier> countMultipliers, quant::ZeroPoints z) {
  NNACCEL_ASSERT(p.spatialRank == 2) << "poolInt8 wants 2-D pooling";
  if (p.kind == ir::PoolParams::Kind::Average)
    return quant::averagePool(p, x, countMultipliers, z);
  Tensor out(DType::I8, {p.batch, p.channels, p.outSpatial[0], p.outSpatial[1]});
  maxPool(p, x.data<int8_t>(), out.data<int8_t>());
  return out;
}

std::string poolObstacle(const ir::Graph& g, ir::NodeId id, const ir::PoolParams& p,
                         std::string_view why2D) {
  const ir::Node& n = g.node(id);
  if (p.spatialRank != 2)
    return fmt::format("{}-D pooling ({})", p.spatialRank, why2D);
  if (p.kind == ir::PoolParams::Kind::Average &&
      std::any_of(p.dilations.begin(), p.dilations.end(), [](int64_t d) { return d != 1; }))
    return "dilated average pooling";
  if (n.outputs.size() > 1 && n.outputs[1] != ir::kNoValue && !g.users(n.outputs[1]).empty())
    return "MaxPool indices output";
  return {};
}

int64_t poolWindowOps(const ir::PoolParams& p) {
  return p.batch * p.channels * p.outSpatial[0] * p.outSpatial[1] * p.kernel[0] * p.kernel[1];
}

} // namespace nnaccel::arch::common
