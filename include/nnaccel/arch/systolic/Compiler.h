/// \file
/// The systolic compiler: lowers a shape-inferred graph (and, for int8, its QuantizedModel) to a
/// Program for one SystolicConfig.
///
/// Structure (seed 000 FIG. 8, three stages): (1) layer selection: every node becomes a layer
/// on the PE array (Conv, ConvTranspose, Gemm, MatMul with a fused Relu/Clip), the pooling
/// engine (MaxPool, AveragePool, global pools), a view (reshape of a contiguous tensor) or a
/// host fallback that is reported per layer; (2) tiling: output tiles from the PSUM capacity,
/// input-channel blocks of peRows accumulated into the same tile, output-channel blocks of
/// peCols, state-buffer windows with double buffering and spills; (3) instruction emission with
/// semaphores between DMA and compute. docs/arch/SystolicCompiler.md describes each choice.
#pragma once
#include "nnaccel/arch/systolic/Config.h"
#include "nnaccel/arch/systolic/Program.h"
#include "nnaccel/ir/Graph.h"

namespace nnaccel::quant {
struct QuantizedModel;
}

namespace nnaccel::arch::systolic {

struct CompileOptions {
  DType dtype = DType::I8; ///< I8 (needs the QuantizedModel) or F32
  /// Lower transposed convolutions by zero insertion + a rotated weight copy (seed 000 FIG. 3)
  /// and dilated convolutions with a zero-inserted kernel, to measure what the patents save.
  bool baseline = false;
};

/// Compiles \p g. For S8, \p qm must be quantize(g, ...). Throws nnaccel::Error (Config) when
/// the config does not support the dtype or a layer cannot fit on chip even with the smallest
/// tile, naming the node. Ops the machine cannot run become HostOps (never an error).
Program compile(const ir::Graph& g, const quant::QuantizedModel* qm, const SystolicConfig& config,
                const CompileOptions& options = {});

} // namespace nnaccel::arch::systolic
