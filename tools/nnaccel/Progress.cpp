/// \file
/// The progress line (Progress.h).
#include "Progress.h"

#include "Command.h"

#include <cstdio>
#include <fmt/format.h>
#include <unistd.h>

namespace nnaccel::cli {

ProgressLine::~ProgressLine() {
  if (printed_ && isatty(STDERR_FILENO) != 0)
    fmt::print(stderr, "\n");
}

void ProgressLine::operator()(const std::string& what, size_t done, size_t total) {
  show(what, static_cast<double>(done), total, "");
}

void ProgressLine::layerFraction(size_t layer, size_t layers, double fraction) {
  show("simulating", static_cast<double>(layer) + fraction, layers,
       fmt::format("layer {}/{} {:.0f} %", layer + 1, layers, 100 * fraction));
}

void ProgressLine::show(const std::string& what, double done, size_t total,
                        const std::string& position) {
  const auto now = std::chrono::steady_clock::now();
  // A phase's first step began when the previous call returned (the end of the last phase).
  if (what != callPhase_) {
    callPhase_ = what;
    phaseStart_ = lastCall_;
  }
  lastCall_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (elapsed < 1.0)
    return;
  const bool tty = isatty(STDERR_FILENO) != 0;
  const double since = std::chrono::duration<double>(now - last_).count();
  if (what == phase_ && since < (tty ? 0.1 : 2.0) && done != static_cast<double>(total))
    return;
  last_ = now;
  phase_ = what;
  printed_ = true;
  const double inPhase = std::chrono::duration<double>(now - phaseStart_).count();
  const std::string at = position.empty() ? fmt::format("layer {:.0f}/{}", done, total) : position;
  const std::string line = total > 1
                               ? fmt::format("[nnaccel] {}{}: {} ({:.1f} s{})", prefix_, what, at,
                                             elapsed, remainingText(inPhase, done, total))
                               : fmt::format("[nnaccel] {}{} ({:.1f} s)", prefix_, what, elapsed);
  if (tty)
    fmt::print(stderr, "\r{:<78}", line);
  else
    fmt::print(stderr, "{}\n", line);
  std::fflush(stderr);
}

} // namespace nnaccel::cli
