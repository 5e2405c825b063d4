/// \file
/// The broadcast engine's compiler: turns an int8-quantized model into a Program for a
/// BroadcastConfig (docs/arch/BroadcastCompiler.md).
///
/// Every convolution-like node (Conv and Gemm/MatMul with constant weights; any stride, padding
/// and dilation; standard, grouped and depthwise) becomes a Conv layer: the kernel decomposing
/// module picks N (the config's, a per-layer override, or the one minimizing the cycle estimate
/// below), expands or transposes the kernel and emits the weight operands with their bitmaps;
/// the tiling fits operands, filters and channels into the register files. 1x1 kernels and
/// N = 1 use the conventional 1x1 decomposition explicitly. Row-major views alias; everything
/// else runs on the host with its reason in the layer note.
#pragma once

#include "nnaccel/arch/broadcast/Config.h"
#include "nnaccel/arch/broadcast/Program.h"
#include "nnaccel/quant/QuantizedModel.h"

#include <functional>

namespace nnaccel::arch::broadcast {

/// The compiler's closed-form estimate of one layer under \p t, used to choose N: the cycles
/// are the larger of the MAC time (operand MACs over the PEs' lanes, weight sparsity included)
/// and the read time (activation and weight reads over the groups' lanes) per pass; the bytes
/// are the activation and weight reads of the data read module. Not the simulator's counts.
struct Estimate {
  int64_t cycles = 0;
  int64_t memoryReadBytes = 0;
};
Estimate estimate(const ConvLayer& c, const Tiling& t, const BroadcastConfig& config);
int64_t estimateCycles(const ConvLayer& c, const Tiling& t, const BroadcastConfig& config);

/// Compiles \p qm's graph (shape-inferred, passes applied, quantized) for \p config. Throws
/// nnaccel::Error (Config) naming the layer for a per-layer N the kernel cannot take; operators
/// the engine does not cover become host layers, never errors.
/// \p progress, when set, is called after each node with (nodes done, nodes of the graph): the
/// session's "compiling" progress, and a point where a run can be interrupted.
Program compile(const quant::QuantizedModel& qm, const BroadcastConfig& config,
                const std::function<void(size_t, size_t)>& progress = nullptr);

} // namespace nnaccel::arch::broadcast
