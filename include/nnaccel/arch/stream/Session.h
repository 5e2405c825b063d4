/// \file
/// One complete stream-engine run, as `nnaccel simulate --arch stream` does it: quantize
/// (int8), compile the model onto the ASIC, stream frames through the configured tiles, check
/// every layer's output bit for bit against the int8 reference executor and fill the common
/// report with the pipeline's figures (tiles, FIFO bits, first-output latency, frame rate, the
/// multiplies a Sample discards) and the baseline the patent improves on.
#pragma once

#include "nnaccel/arch/common/Session.h"
#include "nnaccel/arch/stream/Compiler.h"
#include "nnaccel/arch/stream/Program.h"
#include "nnaccel/arch/stream/Simulator.h"

namespace nnaccel::arch::stream {

struct SessionOptions : common::RunOptions {
  int64_t frames = 1; ///< frames streamed back to back
  int64_t chips = 0;  ///< chained ASICs (0: the config's, or the smallest chain that fits)
};

/// Whole-model figures of a run.
struct Totals {
  int64_t kernelTiles = 0, auxTiles = 0, bypassTiles = 0;
  int64_t rowsUsed = 0, chipsUsed = 1;
  int64_t fifoBits = 0;
  int64_t usefulMacs = 0, issuedMacs = 0, discardedMacs = 0;
  int64_t firstOutputCycles = 0; ///< first input position -> first primary output value
  int64_t framePeriodCycles = 0; ///< one frame every this many cycles, back to back
  double framesPerSecond = 0;    ///< at the configured clock
  double firstOutputMicros = 0;
  /// The baseline (digest §1): an output-centric engine with the same multiply-accumulators
  /// (the chips' peak MACs per cycle) that re-reads its inputs for every kernel position, one
  /// layer after another: sum of the layers' MACs / (MACs per cycle), and the input values it
  /// re-reads.
  int64_t baselineCycles = 0;
  /// The same engine as a frame-buffer accelerator: each layer reads its input frame and its
  /// weights from DRAM (baseline.dram) and writes its output frame there, int8, one byte a
  /// value; a layer takes max(its compute, its DRAM time).
  int64_t frameBufferCycles = 0;
  int64_t baselineInputReads = 0; ///< activation reads of the output-centric order
  int64_t streamInputReads = 0;   ///< every input value used once, on arrival
  double discardedShare() const;  ///< discardedMacs / issuedMacs
};

using SessionResult = common::SessionResult<Program, LayerDetail, Totals>;

/// Runs \p g (shape-inferred, passes applied) on \p config. Throws nnaccel::Error for a model
/// the ASIC cannot run (unsupported op, does not fit); a verification failure or a timing
/// inconsistency is reported in report.verdict.
SessionResult simulateModel(const ir::Graph& g, const StreamConfig& config,
                            const SessionOptions& options);

/// A human-readable table of the placement: which layer on which tiles and rows, mux selects,
/// FIFO delays (what `nnaccel map` prints).
std::string placementTable(const Program& p);

} // namespace nnaccel::arch::stream
