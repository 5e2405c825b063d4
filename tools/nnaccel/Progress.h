/// \file
/// The progress line of a long run on stderr (`simulate`, each engine of `compare`): printed
/// once the run has taken more than a second, one line per phase change and at most one line
/// every two seconds otherwise (a carriage-return update on a terminal), with the time left in
/// the phase at its rate so far; inside a long layer (layerFraction) it says how much of the
/// layer is done. A phase that reports nothing for a while (the quantizer's calibration, a long
/// compile) still gets a line with the time so far: a ticker thread repeats the last position
/// every kHeartbeatTerminalSeconds on a terminal, kHeartbeatLogSeconds otherwise.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

namespace nnaccel::cli {

class ProgressLine {
public:
  /// \p prefix opens every line after "[nnaccel] " ("engine 2/4 sparse: " in `compare`).
  explicit ProgressLine(std::string prefix = "");
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  /// engines::RunOptions::progress: phase \p what at \p done of \p total steps.
  void operator()(const std::string& what, size_t done, size_t total);
  /// engines::RunOptions::layerProgress: layer \p layer of \p layers is \p fraction done.
  void layerFraction(size_t layer, size_t layers, double fraction);

  static constexpr double kHeartbeatTerminalSeconds = 0.5, kHeartbeatLogSeconds = 5.0;

private:
  /// One update of phase \p what at \p done of \p total steps; \p position replaces the
  /// "layer done/total" text when it is not empty.
  void show(const std::string& what, double done, size_t total, const std::string& position);
  /// Prints \p line (a terminal overwrites the previous one). Holds mutex_.
  void print(const std::string& line);
  /// The ticker thread: repeats the last position with the time so far while nothing else
  /// prints.
  void tick();

  std::string prefix_;
  const bool tty_;
  std::mutex mutex_;
  std::condition_variable stop_;
  bool stopping_ = false;
  std::string lastPosition_; ///< "simulating: layer 3/12": the last call's phase and position
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_{},
                                        phaseStart_ = start_, lastCall_ = start_;
  std::string phase_, callPhase_; ///< the phase last printed; the phase of the last call
  bool printed_ = false;
  std::thread ticker_; ///< last: starts once every member above is set
};

} // namespace nnaccel::cli
