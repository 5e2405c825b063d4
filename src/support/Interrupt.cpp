/// \file
/// The process-wide interrupt request (support/Interrupt.h).
#include "nnaccel/support/Interrupt.h"

#include <atomic>

namespace nnaccel {
namespace {

std::atomic<bool> gInterruptRequested{false};
static_assert(std::atomic<bool>::is_always_lock_free, "stored from a signal handler");

} // namespace

void requestInterrupt() noexcept {
  gInterruptRequested.store(true, std::memory_order_relaxed);
}

bool interruptRequested() noexcept {
  return gInterruptRequested.load(std::memory_order_relaxed);
}

void clearInterrupt() noexcept {
  gInterruptRequested.store(false, std::memory_order_relaxed);
}

} // namespace nnaccel
