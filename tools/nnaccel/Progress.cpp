/// \file
/// The progress line (Progress.h).
#include "Progress.h"

#include "Command.h"

#include <cstdio>
#include <fmt/format.h>
#include <unistd.h>

namespace nnaccel::cli {

ProgressLine::ProgressLine(std::string prefix)
    : prefix_(std::move(prefix)), tty_(isatty(STDERR_FILENO) != 0), ticker_([this] { tick(); }) {}

ProgressLine::~ProgressLine() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  stop_.notify_all();
  ticker_.join();
  if (printed_ && tty_)
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
  const std::lock_guard<std::mutex> lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  // A phase's first step began when the previous call returned (the end of the last phase).
  if (what != callPhase_) {
    callPhase_ = what;
    phaseStart_ = lastCall_;
  }
  lastCall_ = now;
  const std::string at = position.empty() ? fmt::format("layer {:.0f}/{}", done, total) : position;
  lastPosition_ = total > 1 ? fmt::format("{}: {}", what, at) : what;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (elapsed < 1.0)
    return;
  const double since = std::chrono::duration<double>(now - last_).count();
  if (what == phase_ && since < (tty_ ? 0.1 : 2.0) && done != static_cast<double>(total))
    return;
  phase_ = what;
  const double inPhase = std::chrono::duration<double>(now - phaseStart_).count();
  print(fmt::format("[nnaccel] {}{} ({:.1f} s{})", prefix_, lastPosition_, elapsed,
                    total > 1 ? remainingText(inPhase, done, total) : ""));
}

void ProgressLine::print(const std::string& line) {
  last_ = std::chrono::steady_clock::now();
  printed_ = true;
  if (tty_)
    fmt::print(stderr, "\r{:<78}", line);
  else
    fmt::print(stderr, "{}\n", line);
  std::fflush(stderr);
}

void ProgressLine::tick() {
  const double heartbeat = tty_ ? kHeartbeatTerminalSeconds : kHeartbeatLogSeconds;
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_.wait_for(lock, std::chrono::milliseconds(250), [this] { return stopping_; })) {
    const auto now = std::chrono::steady_clock::now();
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const double since = std::chrono::duration<double>(now - std::max(last_, lastCall_)).count();
    if (elapsed >= 1.0 && since >= heartbeat && !lastPosition_.empty())
      print(fmt::format("[nnaccel] {}{} ({:.1f} s)", prefix_, lastPosition_, elapsed));
  }
}

} // namespace nnaccel::cli
