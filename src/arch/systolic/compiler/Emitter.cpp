/// \file
/// Hazard tracking and semaphore insertion for the systolic compiler (see Emitter.h).
#include "Emitter.h"

#include "nnaccel/support/Error.h"

#include <algorithm>

namespace nnaccel::arch::systolic {
namespace {

int engineIndex(Engine e) {
  switch (e) {
  case Engine::Dma:
    return 0;
  case Engine::Pe:
    return 1;
  case Engine::Act:
    return 2;
  case Engine::Pool:
    return 3;
  case Engine::Host:
  case Engine::Control:
    break;
  }
  return -1;
}

bool overlaps(const Range& a, const Range& b) {
  return a.space == b.space && a.lo < b.hi && b.lo < a.hi;
}

} // namespace

void Emitter::addDeps(const Range& r, bool isWrite, int self,
                      std::array<int64_t, kEngines>& need) const {
  auto raise = [&](int engine, int64_t ordinal, bool raw) {
    if (engine < 0 || ordinal == 0 || (engine == self && !(raw && self == 0)))
      return;
    auto& n = need[static_cast<size_t>(engine)];
    n = std::max(n, ordinal);
  };
  for (const Record& rec : records(r.space)) {
    if (!overlaps(rec.range, r))
      continue;
    raise(rec.writer.engine, rec.writer.ordinal, !isWrite);
    if (isWrite)
      for (int e = 0; e < kEngines; ++e)
        raise(e, rec.readers[static_cast<size_t>(e)], false);
  }
}

int64_t Emitter::emit(Op op, const std::vector<Range>& reads, const std::vector<Range>& writes) {
  const int self = engineIndex(engineOf(op));
  NNACCEL_ASSERT(self >= 0) << "emit() is for engine instructions; fences use emitFence()";
  std::array<int64_t, kEngines> need{};
  for (const Range& r : reads)
    addDeps(r, false, self, need);
  for (const Range& r : writes)
    addDeps(r, true, self, need);

  Instruction inst{std::move(op), {}};
  size_t w = 0;
  for (int e = 0; e < kEngines; ++e) {
    const auto idx = static_cast<size_t>(e);
    if (need[idx] == 0)
      continue;
    NNACCEL_ASSERT(w < inst.sync.waits.size()) << "more waits than the instruction holds";
    inst.sync.waits[w++] = SemWait{e, need[idx]};
  }
  inst.sync.signal = self;
  const int64_t ordinal = ++issued_[static_cast<size_t>(self)];
  const Ticket me{self, ordinal};

  for (const Range& r : reads)
    for (Record& rec : records(r.space))
      if (overlaps(rec.range, r))
        rec.readers[static_cast<size_t>(self)] =
            std::max(rec.readers[static_cast<size_t>(self)], ordinal);
  for (const Range& r : writes) {
    std::erase_if(records(r.space),
                  [&](const Record& rec) { return rec.range.lo >= r.lo && rec.range.hi <= r.hi; });
    records(r.space).push_back(Record{r, me, {}});
  }
  program_.instructions.push_back(std::move(inst));
  return size() - 1;
}

int64_t Emitter::emitFence(Op op) {
  const Engine e = engineOf(op);
  NNACCEL_ASSERT(e == Engine::Host || e == Engine::Control) << "not a fence";
  program_.instructions.push_back(Instruction{std::move(op), {}});
  for (auto& list : records_)
    list.clear();
  return size() - 1;
}

} // namespace nnaccel::arch::systolic
