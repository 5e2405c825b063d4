/// \file
/// The sparse engine's compiler: turns an int8-quantized model into a Program for a
/// SparseConfig (docs/arch/SparseCompiler.md).
///
/// Every convolution-like node (Conv, ConvTranspose, Gemm, MatMul with constant weights; any
/// stride, padding, dilation, groups) becomes a Conv layer through one mapping: input planes
/// (stride phases), weight displacements, a planar tiling over the PE grid whose halos reach
/// only neighbours, Kc from the accumulator capacity, and the compressed weight tile streams.
/// Pooling becomes a Pool layer; row-major views alias; everything else runs on the host with
/// its reason in the layer note.
#pragma once

#include "nnaccel/arch/sparse/Config.h"
#include "nnaccel/arch/sparse/Program.h"
#include "nnaccel/quant/QuantizedModel.h"

#include <functional>

namespace nnaccel::arch::sparse {

/// The code tables the config selects (weights and activations).
formats::CodeTable weightCodeTable(const SparseConfig& c);
formats::CodeTable activationCodeTable(const SparseConfig& c);
/// The code frames (wrap rules) used for a layer's weights and for an activation tile.
formats::Frame weightFrame(const SparseConfig& c, int64_t extentX, int64_t extentY);
formats::Frame activationFrame(const SparseConfig& c, int64_t tileW, int64_t tileH);

/// Compiles \p qm's graph (shape-inferred, passes applied, quantized) for \p config. Throws
/// nnaccel::Error for a config the program cannot be built for; operators the engine does not
/// cover become host layers, never errors.
/// \p progress, when set, is called after each node with (nodes done, nodes of the graph): the
/// session's "compiling" progress, and a point where a run can be interrupted.
Program compile(const quant::QuantizedModel& qm, const SparseConfig& config,
                const std::function<void(size_t, size_t)>& progress = nullptr);

} // namespace nnaccel::arch::sparse
