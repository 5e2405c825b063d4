/// \file
/// The broadcast machine model: executes a Program (and nothing else) and produces the values,
/// the common report's per-layer statistics and the broadcast engine's own per-layer detail
/// (reads, register-file writes, broadcasts, re-use histogram, PE busy/idle) for the method and
/// its two baselines. docs/arch/BroadcastCycleModel.md gives every rule.
///
/// Per Conv layer, work items (output row, operand block, filter block) go to the broadcast
/// groups (earliest free first). For each pass (channel chunk, kernel row r, vector v, x class)
/// the group's weight-RF segment is loaded over its lanes, then the data read module streams
/// the pass's activations slot by slot (Schedule.h): one read into the reader PE's input RF,
/// broadcast over the PE-to-PE links to the other PEs whose operands hold it; a PE multiplies a
/// complete operand with its weight segment (one MAC lane slot per non-zero weight, lanes per
/// cycle) into its output RF, the input RF policy stalling reads that would overwrite an
/// operand still in use. After the last pass the outputs drain through the column buffer with
/// bias, requantization and the clamp. The baselines (conventional 1x1 decomposition; 1xN
/// without broadcasting) are timed on the same machine by the same model. The program's memory
/// plan (LayerMemory) then splits each layer's reads and writes between the global buffer and
/// memory 310 (DRAM), whose bandwidths bound the layer and whose energies are charged apart.
#pragma once

#include "nnaccel/arch/broadcast/Program.h"
#include "nnaccel/quant/QuantizedModel.h"
#include "nnaccel/report/Report.h"
#include "nnaccel/tensor/Tensor.h"

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace nnaccel::arch::broadcast {

/// What one variant (method or a baseline) of one Conv layer did.
struct VariantStats {
  int64_t cycles = 0;
  int64_t activationReads = 0; ///< data-read-module reads of one activation (a channel chunk)
  int64_t activationReadBytes = 0;
  int64_t weightReadBytes = 0; ///< weight segments (values + bitmap bits) into weight RFs
  int64_t inputRfWrites = 0;   ///< activations written into input RFs
  int64_t inputRfWriteBytes = 0;
  int64_t broadcasts = 0; ///< of those, PE-to-PE transfers (writes - reads)
  int64_t broadcastBytes = 0;
  int64_t weightRfWriteBytes = 0;
  int64_t macs = 0;                ///< MAC lane slots used (non-zero, non-dummy, inside input)
  int64_t peBusyCycles = 0;        ///< summed over PEs: cycles with MACs in flight
  int64_t peCycles = 0;            ///< PEs x cycles
  int64_t readStallCycles = 0;     ///< reads held back by a full input RF (RfPolicy)
  int64_t memoryWaitCycles = 0;    ///< first-access latency + bandwidth beyond the PEs' end
  int64_t peWaitOperandCycles = 0; ///< summed over PEs: idle, waiting for an operand's reads
  int64_t peWaitWeightsOutputCycles = 0; ///< summed over PEs: idle, waiting for weights/output RF
  int64_t outputBytes = 0;               ///< drained from the column buffers
  int64_t columnBufferBytes = 0;         ///< written into and read from the column buffers
  int64_t outputRfBytes = 0;             ///< partial sums read and written in output RFs
  std::vector<int64_t> reuseHistogram;   ///< [r]: reads delivered to r PEs
  /// The reads and writes above (and staging copies) by level: what crosses memory 310 (DRAM)
  /// and what the global buffer serves (LayerMemory decides which).
  report::Traffic dram, buffer;
  double dramActivations = 0; ///< rows memory 310's transfers open (the row-buffer model; else 0)
  double energyPj = 0;
  double writesPerRead() const;
  VariantStats& operator+=(const VariantStats& o);
};

enum Variant : size_t { kMethod = 0, kConventional = 1, kNoBroadcast = 2, kVariants = 3 };
/// energyPj's terms by component (RF reads with each MAC and the global buffer are on-chip,
/// memory 310 is DRAM).
report::EnergyParts energyParts(const VariantStats& s, const EnergyPrices& e);
std::string_view variantName(Variant v);

/// The broadcast engine's view of one layer (beyond the common LayerStats).
struct LayerDetail {
  std::array<VariantStats, kVariants> variants; ///< Conv layers; zero otherwise
  bool timed[kVariants] = {false, false, false};
};

struct SimOptions {
  /// Compute the values. False: the array layers' timing and counts only (host layers are
  /// not evaluated and their traffic is not counted; value() is empty).
  bool functional = true;
  bool baselines = true; ///< also time the two baselines of every Conv layer
  /// Called after every layer (in program order) with its index; for progress.
  std::function<void(size_t layer)> onLayerDone;
};

/// Energy of \p s under \p e, picojoules.
double energyPj(const VariantStats& s, const EnergyPrices& e);

class Simulator {
public:
  /// \p qm supplies the host layers' semantics (quant::evalQuantizedNode) and the value scales.
  Simulator(const Program& program, const quant::QuantizedModel& qm);
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  /// Graph input \p i (fp32; quantized with the value's scale).
  void setInput(size_t i, const Tensor& value);
  void run(const SimOptions& options = {});
  /// The int8 value the machine produced for graph value \p v (s8, the graph's shape).
  const Tensor& value(ir::ValueId v) const;
  const std::vector<report::LayerStats>& layerStats() const;
  const std::vector<LayerDetail>& layerDetails() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace nnaccel::arch::broadcast
