/// \file
/// Magnitude pruning: zero the smallest-magnitude weights of each layer down to a density.
///
/// Why: the sparse engine (SCNN, seed 001) skips zero weights, and its speed-up depends on the
/// weight density of each layer. The zoo's weights are dense, so `nnaccel prune` (and tests)
/// make pruned models the way pruning papers do: per layer, keep the largest-|w| weights.
///
/// Rules (per layer, one layer = one Conv / ConvTranspose / Gemm / MatMul node whose weight,
/// input 1, is an f32 constant):
///  - the layer's density d comes from PruneSpec::perLayer[name], else PruneSpec::density; a
///    layer with neither is left unchanged (and still reported);
///  - exactly min(round(d x count), non-zeros) non-zeros remain (round half away from zero):
///    already-zero weights count as pruned, pruning never revives a weight;
///  - the kept weights are the largest |w|; among equal magnitudes the lower flat index is kept
///    (deterministic); a NaN weight counts as the largest magnitude; pruned weights become +0;
///  - biases (and every other input) are never touched;
///  - a weight constant used only by this layer is replaced in place (its name is kept); one
///    shared with other nodes gets a new constant named "<weight>_pruned", so other users keep
///    their weights.
/// The layer's name is Node::name, or its first output's name when the node has none.
#pragma once

#include "nnaccel/ir/Graph.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nnaccel::passes {

/// Which densities to prune to. A density is the fraction of a layer's weights that remain
/// non-zero, in (0, 1].
struct PruneSpec {
  /// Density of every prunable layer not listed in perLayer; nullopt leaves them unchanged.
  std::optional<double> density;
  /// Densities by layer name.
  std::map<std::string, double> perLayer;
  /// The file perLayer (and density, from its "default") was read from; errors about perLayer
  /// name it. Empty for a spec built in code.
  std::string source;
};

/// Parses per-layer densities from JSON: an object {"layer name": density, ...} with an
/// optional "default" entry (which sets PruneSpec::density). Throws Error (Usage) naming
/// \p file and, where there is one, the key: invalid JSON, a non-object, a value that is not a
/// number, a density outside (0, 1], a key written twice.
PruneSpec parsePruneSpecJson(const std::string& jsonText, const std::string& file);
/// Reads and parses the JSON file at \p path (Io error naming the path if it cannot be read).
PruneSpec readPruneSpecFile(const std::string& path);

/// One pruned (or prunable) layer.
struct LayerPruneResult {
  std::string name; ///< layer name (see the file comment)
  ir::OpKind op = ir::OpKind::Conv;
  int64_t weights = 0; ///< elements of the weight tensor
  int64_t nonZerosBefore = 0;
  int64_t kept = 0;                    ///< non-zeros after pruning
  std::optional<double> targetDensity; ///< nullopt: the spec left this layer unchanged
  double densityBefore = 0.0;          ///< nonZerosBefore / weights (0 for an empty weight)
  double densityAfter = 0.0;           ///< kept / weights
};

struct PruneReport {
  std::vector<LayerPruneResult> layers; ///< every prunable layer, in node order

  int64_t totalWeights() const;
  int64_t totalNonZerosBefore() const;
  int64_t totalKept() const;
  /// totalKept() / totalWeights() (0 when there are no weights).
  double densityAfter() const;
  double densityBefore() const;
};

/// True if node \p id is a prunable layer (see the file comment).
bool isPrunableLayer(const ir::Graph& g, ir::NodeId id);
/// The name layer \p id is known by in reports and in PruneSpec::perLayer.
std::string layerName(const ir::Graph& g, ir::NodeId id);

/// Throws Error (Usage) when a density of \p spec is outside (0, 1] (key "density" or the layer
/// name) or a perLayer name matches no prunable layer of \p g (naming spec.source and the key):
/// the checks magnitudePrune makes before changing anything.
void checkPruneSpec(const ir::Graph& g, const PruneSpec& spec);

/// Prunes \p g per \p spec and reports every prunable layer. Throws Error (Usage) before
/// changing anything when a density is outside (0, 1] (key "density" or the layer name) or a
/// perLayer name matches no prunable layer (naming spec.source and the key).
PruneReport magnitudePrune(ir::Graph& g, const PruneSpec& spec);

} // namespace nnaccel::passes
