/// \file
/// The stream compiler: maps an int8-quantized model graph onto the fixed ASIC of seed 002
/// (Fig. 44) and emits the full configuration (Program.h). Convolutions of any kernel size are
/// composed from 3x3 tiles in blocks with their exact delays (digest §8.5); channel counts above
/// 16 are ganged through the tiles' auxiliary inputs (Fig. 45); strided and "valid"
/// convolutions become a "same" convolution followed by a Sample; activations, requantization,
/// pooling, residual adds and alignment delays go on auxiliary tiles; channels are time
/// multiplexed once downsampling frees cycles per position (§8.4). Tiles are placed left to right
/// and row by row in topological order, obeying the forward-only bus rule, with bypass tiles
/// carrying sets down to later rows. The rules and choices are in docs/arch/StreamCompiler.md.
#pragma once

#include "nnaccel/arch/stream/Program.h"
#include "nnaccel/quant/QuantizedModel.h"

#include <cstdint>

namespace nnaccel::arch::stream {

struct CompileOptions {
  /// Chips chained when the model does not fit on one (0: the config's `chips`).
  int64_t chips = 0;
  /// The run did not fix the chips (no --chips): a model that outgrows them takes the
  /// smallest chain that fits (Program::chipsUsed) instead of failing.
  bool chooseChips = false;
};

/// Compiles \p qm for \p config. Throws nnaccel::Error: Unsupported for an op the ASIC has no
/// unit for (naming the node), Config when the model does not fit the fixed chips (what it
/// needs against what the chip has, and the --chips that would fit it).
Program compile(const quant::QuantizedModel& qm, const StreamConfig& config,
                const CompileOptions& options = {});

/// The stream ASIC compiles one frame and streams a batch's images back to back through the
/// same tiles. For a model whose graph input has batch N > 1, returns N and sets \p perFrame to
/// the batch-1 form of \p qm (same nodes, values, scales and int8 weights; every shape
/// re-inferred with a leading 1); returns 1 and leaves \p perFrame alone for batch 1. Throws
/// nnaccel::Error (Unsupported, naming the value) when some value's shape does not carry the
/// batch as its leading dimension (e.g. a Reshape to a constant shape that folds it away).
int64_t perFrameModel(const quant::QuantizedModel& qm, quant::QuantizedModel& perFrame);

/// The row split of a K-long kernel axis into blocks of at most 3 (5: 3+2, 7: 3+2+2,
/// 9: 3+3+3), as (first index, length) pairs.
std::vector<std::pair<int64_t, int64_t>> kernelBlocks(int64_t k);

/// Latency in positions of the block partial (r0, h) x (q0, w) of a kernel with anchor
/// (ay, ax) on an array `cols` wide: output (i, j) of the block is complete that many positions
/// after input (i, j) arrives, (r0 + h - 1 - ay) * cols + (q0 + w - 1 - ax) (digest §8.5; may be
/// negative for blocks above or left of the anchor).
int64_t blockLatencyPositions(int64_t r0, int64_t h, int64_t q0, int64_t w, int64_t ay, int64_t ax,
                              int64_t cols);

} // namespace nnaccel::arch::stream
