/// \file
/// The progress line of a long run on stderr (`simulate`, each engine of `compare`): printed
/// once the run has taken more than a second, one line per phase change and at most one line
/// every two seconds otherwise (a carriage-return update on a terminal), with the time left in
/// the phase at its rate so far; inside a long layer (layerFraction) it says how much of the
/// layer is done.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <utility>

namespace nnaccel::cli {

class ProgressLine {
public:
  /// \p prefix opens every line after "[nnaccel] " ("engine 2/4 sparse: " in `compare`).
  explicit ProgressLine(std::string prefix = "") : prefix_(std::move(prefix)) {}
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  /// engines::RunOptions::progress: phase \p what at \p done of \p total steps.
  void operator()(const std::string& what, size_t done, size_t total);
  /// engines::RunOptions::layerProgress: layer \p layer of \p layers is \p fraction done.
  void layerFraction(size_t layer, size_t layers, double fraction);

private:
  /// One update of phase \p what at \p done of \p total steps; \p position replaces the
  /// "layer done/total" text when it is not empty.
  void show(const std::string& what, double done, size_t total, const std::string& position);

  std::string prefix_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_{},
                                        phaseStart_ = start_, lastCall_ = start_;
  std::string phase_, callPhase_; ///< the phase last printed; the phase of the last call
  bool printed_ = false;
};

} // namespace nnaccel::cli
