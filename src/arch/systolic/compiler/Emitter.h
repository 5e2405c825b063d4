/// \file
/// Instruction emission with automatic synchronisation: the compiler says which memory ranges
/// an instruction reads and writes, and the emitter adds the semaphore waits that order it
/// after every conflicting earlier instruction on another engine (RAW, WAR, WAW).
///
/// Why: the machine runs its DMA, PE, activation and pooling queues concurrently, so
/// double-buffering only works if every buffer reuse waits for exactly the instructions that
/// still use it. Doing that by hand per layer is error prone; here it is one mechanism. One
/// semaphore per waitable engine counts that engine's completed instructions (engines retire in
/// order, Isa.h), so "instruction X is done" is "semaphore[engine(X)] >= ordinal(X)".
#pragma once
#include "nnaccel/arch/systolic/Program.h"

#include <array>
#include <cstdint>
#include <vector>

namespace nnaccel::arch::systolic {

/// Address spaces the emitter tracks.
enum class Space : uint8_t { Sbuf, Psum, ActTable, PoolTable, Dram, LookupTable };

/// A byte (or entry) interval [lo, hi) of one space; SBUF and lookup-table ranges cover every
/// partition (the compiler carves them by address, the same range in all partitions).
struct Range {
  Space space = Space::Sbuf;
  int64_t lo = 0, hi = 0;
};

class Emitter {
public:
  explicit Emitter(Program& program) : program_(program) {}

  /// Appends \p op, waiting for the earlier instructions that conflict with \p reads and
  /// \p writes, and records its own accesses. Returns the instruction index.
  int64_t emit(Op op, const std::vector<Range>& reads, const std::vector<Range>& writes);
  /// Appends a fence (HOST or BARRIER): everything before it completes first, so the tracked
  /// state is cleared.
  int64_t emitFence(Op op);

  int64_t size() const { return static_cast<int64_t>(program_.instructions.size()); }

private:
  static constexpr int kEngines = 4; // Dma, Pe, Act, Pool: the engines that signal
  struct Ticket {
    int engine = -1;
    int64_t ordinal = 0;
  };
  struct Record {
    Range range;
    Ticket writer;
    std::array<int64_t, kEngines> readers{}; ///< highest reader ordinal per engine
  };
  /// Raises need[e] to the ordinals this access must wait for. A DMA never waits for its own
  /// engine except on read-after-write (its queue is in order, but a later descriptor may read
  /// before an earlier one's data has landed); selfRaw collects that case.
  void addDeps(const Range& r, bool isWrite, int self, std::array<int64_t, kEngines>& need) const;
  std::vector<Record>& records(Space s) { return records_[static_cast<size_t>(s)]; }
  const std::vector<Record>& records(Space s) const { return records_[static_cast<size_t>(s)]; }

  Program& program_;
  std::array<int64_t, kEngines> issued_{};
  std::array<std::vector<Record>, 6> records_; ///< per Space
};

} // namespace nnaccel::arch::systolic
