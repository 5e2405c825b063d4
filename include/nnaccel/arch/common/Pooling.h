/// \file
/// int8 pooling as the engines' pooling units compute it: max over the in-plane window
/// positions (padding never wins; an empty window gives 0) and average through the quantizer's
/// per-count multipliers (quant::averagePool). One implementation for the engines whose
/// pooling layer is a whole-layer operation (sparse PPUs, broadcast PE array); the systolic
/// pooling engine executes its own instructions.
#pragma once

#include "nnaccel/ir/OpParams.h"
#include "nnaccel/quant/Kernels.h"
#include "nnaccel/tensor/Tensor.h"

#include <span>
#include <string>
#include <string_view>

namespace nnaccel::arch::common {

/// Pools the s8 tensor \p x ([N, C, H, W], 2-D, undilated) by \p p; average pooling with the
/// input's and output's zero points \p z (quant::averagePool). Max pooling compares codes.
Tensor poolInt8(const ir::PoolParams& p, const Tensor& x,
                std::span<const quant::CountMultiplier> countMultipliers, quant::ZeroPoints z = {});

/// Why a whole-layer pooling unit cannot run pooling node \p id (its parameters \p p): a
/// spatial rank other than 2 ("N-D pooling (" + \p why2D + ")"), dilation, or a used MaxPool
/// indices output. Empty when it can.
std::string poolObstacle(const ir::Graph& g, ir::NodeId id, const ir::PoolParams& p,
                         std::string_view why2D);

/// Element operations of the pooling: one per window position of every output (all images).
int64_t poolWindowOps(const ir::PoolParams& p);

} // namespace nnaccel::arch::common
