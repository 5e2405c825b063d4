/// \file
/// The exact PE-array model (private to the simulator): a peRows x peCols grid stepped cycle by
/// cycle, each PE holding a weight, a shadow weight, an input register that moves one PE right
/// per cycle and a partial-sum register that moves one PE down per cycle, each with the tag
/// (instruction, vector index) of the data it holds. The bottom row delivers the column sums.
///
/// Why it exists: the closed-form model (CycleModel.h) is what every run uses; this one is the
/// slow, obviously-literal model users run on small layers to trust the fast one. The
/// simulator checks (tests) that both give the same PSUM contents and the same cycles.
///
/// Instructions arrive in program order with the cycle their semaphore waits hold, and the
/// grid derives their start from its own state (stream port free, weights loaded, shadow
/// swapped out, array drained). Because a later weight load may start before cycles the grid
/// has already stepped to answer an earlier question, the grid keeps a checkpoint at the last
/// cycle no future instruction can precede and replays from it (docs/arch/SystolicCycleModel.md).
#pragma once
#include "CycleModel.h"
#include "nnaccel/arch/systolic/Program.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace nnaccel::arch::systolic::detail {

/// Largest number of PE-cycle steps (PE updates) the exact mode accepts for one program.
inline constexpr int64_t kExactStepLimit = 2'000'000'000;

/// Upper estimate of the PE updates the exact mode performs for \p p (every MATMUL's vectors
/// crossing the whole grid plus every weight load's shifts).
int64_t exactStepEstimate(const Program& p);

/// The grid. \p Acc is int32_t (s8 programs: int8 values, int32 partial sums, wrapping adds)
/// or float (f32 programs).
template <class Acc> class ExactArray {
public:
  explicit ExactArray(const SystolicConfig& config);
  ~ExactArray();
  ExactArray(const ExactArray&) = delete;
  ExactArray& operator=(const ExactArray&) = delete;

  /// LOAD_WEIGHTS (instruction \p index): \p weights holds peRows x peCols values, PE (p, m)
  /// at p * peCols + m (zeros outside the instruction's rows x cols).
  PeTiming loadWeights(int64_t index, std::vector<Acc> weights, int64_t readyCycle);
  /// MATMUL: \p inputs holds \p vectors x peRows values (vector k, row p at k * peRows + p;
  /// zeros on rows the instruction does not use). Fills \p sums with vectors x cols column
  /// sums (vector k, column m at k * cols + m) as the bottom row delivered them.
  PeTiming matmul(int64_t index, int64_t vectors, int64_t cols, std::vector<Acc> inputs,
                  int64_t readyCycle, std::vector<Acc>& sums);
  /// PSUM_RESET: occupies the stream port for \p cycles.
  PeTiming psumReset(int64_t index, int64_t cycles, int64_t readyCycle);

  /// PE updates performed so far (replays included).
  int64_t peSteps() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

extern template class ExactArray<int32_t>;
extern template class ExactArray<float>;

} // namespace nnaccel::arch::systolic::detail
