/// \file
/// A user's request to stop a long run (Ctrl-C in `nnaccel simulate`), and the exception that
/// carries it out of the run loop.
///
/// Why a flag and an exception: a signal handler may only store to a lock-free atomic, so the
/// CLI's SIGINT handler calls requestInterrupt(); the engines' run loops look at the flag at their
/// progress points (between layers, arch/common/Session.h) and throw Interrupted, which an
/// engine's session catches to report the layers it finished.
#pragma once

#include <exception>

namespace nnaccel {

/// Thrown at a progress point once requestInterrupt() was called.
class Interrupted : public std::exception {
public:
  const char* what() const noexcept override { return "interrupted"; }
};

/// Asks the running simulation to stop at its next progress point. Async-signal-safe.
void requestInterrupt() noexcept;
/// True after requestInterrupt() until clearInterrupt().
bool interruptRequested() noexcept;
void clearInterrupt() noexcept;

} // namespace nnaccel
