/// \file
/// What the cross-engine contract suite needs to know of each engine beyond the registry: the
/// presets its shared-layer and conformance cases run on, the per-engine options a run needs,
/// and its skip list, one reason per entry. An engine without a profile (e.g. one registered by
/// a test) runs every case on its default preset.
///
/// Why a table here rather than in the engines: the skip lists are test knowledge (which shared
/// case an engine cannot run, and why), the way Glow keeps per-backend blacklists beside its
/// backend-parameterised operator tests.
#pragma once

#include "nnaccel/engines/Engine.h"

#include <map>
#include <string>
#include <vector>

namespace nnaccel::contract {

struct Profile {
  /// Presets the shared layers and the conformance cases run on (empty: the default preset).
  std::vector<std::string> presets;
  /// Per-engine options every run of the suite gives (OptionSpec names).
  std::map<std::string, int64_t> engineOptions;
  /// Shared cases ("layer:NAME", "model:NAME", "conformance:CASE") the engine skips, with why.
  std::map<std::string, std::string> skips;
  /// The fewest ONNX conformance runs (cases x presets x loaders) that must verify bit-exact
  /// when the test data is installed; the rest may be refused with a one-line reason.
  int minConformanceRuns = 0;
  /// Why the engine refuses a model with activation zero points (an asymmetric QDQ model), or
  /// "" when it runs them bit-exactly.
  std::string refusesZeroPoints;
};

inline Profile profileOf(const std::string& engine) {
  static const std::map<std::string, Profile> kProfiles = {
      {"systolic", {{"small", "edge"}, {}, {}, 40}},
      {"sparse", {{"scnn", "tiny"}, {}, {}, 40}},
      {"broadcast", {{"npu", "fig8"}, {}, {}, 40}},
      {"stream",
       {{"fig44"},
        {{"chips", 2}},
        {{"layer:gemm",
          "the stream ASIC streams one NCHW image in raster order; a graph whose input "
          "is a 1x32 matrix has no image stream, and the compiler refuses it naming "
          "the input (a Gemm after convolutions runs on the dense patch)"},
         {"model:normalizations",
          "LRN's sum over neighbouring channels is a pool across the channels of one pixel, "
          "which no aux tile computes (issue 25); the compiler refuses it naming the window"},
         {"model:qdq",
          "its classifier multiplies each channel's 4x4 plane by one 16x5 matrix (a MatMul "
          "over [1, 8, 16]); the dense patch takes one vector per frame, and the compiler "
          "refuses it naming the node"},
         {"model:gemm-transA",
          "its Gemm reads a 15-row A (one row per pixel); the dense patch takes one vector "
          "per frame, and the compiler refuses it naming the node (stream's EngineTest "
          "checks the message)"},
         {"model:attention",
          "the stream chip has no unit for a MatMul of two computed tensors, nor for the "
          "per-head Transpose of a token sequence; the compiler refuses it naming the node"}},
        6}},
  };
  const auto it = kProfiles.find(engine);
  return it == kProfiles.end() ? Profile{} : it->second;
}

/// The presets of \p engine's profile, or its default preset.
inline std::vector<std::string> presetsOf(const engines::Engine& engine) {
  std::vector<std::string> p = profileOf(engine.name()).presets;
  if (p.empty())
    p.push_back(engine.defaultPreset());
  return p;
}

/// The reason \p engine skips \p key ("" when it runs it).
inline std::string skipReason(const engines::Engine& engine, const std::string& key) {
  const Profile p = profileOf(engine.name());
  const auto it = p.skips.find(key);
  return it == p.skips.end() ? "" : it->second;
}

/// Run options of the suite for \p engine: verified, with the profile's engine options.
inline engines::RunOptions runOptionsOf(const engines::Engine& engine) {
  engines::RunOptions o;
  o.engineOptions = profileOf(engine.name()).engineOptions;
  return o;
}

} // namespace nnaccel::contract
