/// \file
/// The systolic machine model: executes a Program (and nothing else) functionally and/or with
/// its cycle model, and produces the common report's per-layer statistics.
///
/// Functional execution runs the instructions in program order on DRAM / SBUF / PSUM / tables
/// (bit-exact integer arithmetic for s8 programs). The cycle model runs each engine's queue in
/// order, concurrently, with the semaphore waits; docs/arch/SystolicCycleModel.md gives every
/// timing rule. The exact mode (SimOptions::exact) replaces the closed-form PE-array timing and
/// arithmetic by a cycle-by-cycle step of every PE's weight, input and partial-sum registers;
/// it must give identical outputs and cycle counts (tested) and is meant for small layers.
#pragma once
#include "nnaccel/arch/systolic/Program.h"
#include "nnaccel/report/Report.h"
#include "nnaccel/tensor/Tensor.h"

#include <functional>
#include <vector>

namespace nnaccel::quant {
struct QuantizedModel;
}
namespace nnaccel::ir {
class Graph;
}

namespace nnaccel::arch::systolic {

struct SimOptions {
  bool functional = true; ///< false: cycle model only (no data is touched)
  bool exact = false;     ///< step the PE grid cycle by cycle (small layers only)
  /// Called after every layer (in program order) with its index; for verification and progress.
  std::function<void(size_t layer)> onLayerDone;
};

/// Host fallbacks need the graph semantics: an s8 program's HostOps run
/// quant::evalQuantizedNode on \p int8Model, an f32 program's run reference::evalNode on
/// \p graph. Either may be null when the program has no HostOp.
struct HostContext {
  const quant::QuantizedModel* int8Model = nullptr;
  const ir::Graph* graph = nullptr;
};

class Simulator {
public:
  Simulator(const Program& program, HostContext host);
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  /// Writes graph input \p i (fp32; quantized with the tensor's scale for s8 programs) into
  /// DRAM. Inputs are the program tensors with Role::Input, in graph-input order.
  void setInput(size_t i, const Tensor& value);
  /// Runs the whole program. Throws nnaccel::Error (Model) on a semaphore wait no earlier
  /// instruction can satisfy, or an access outside a memory.
  void run(const SimOptions& options = {});

  /// Contents of program tensor \p index (s8 or f32 as stored in DRAM).
  Tensor readTensor(int32_t index) const;
  /// Per-layer statistics of the last run (one per Program::layers entry) and the total
  /// cycle count.
  const std::vector<report::LayerStats>& layerStats() const;
  int64_t totalCycles() const;

private:
  struct Impl;
  Impl* impl_;
};

} // namespace nnaccel::arch::systolic
