/// \file
/// The sparse engine's studies (`nnaccel sweep NAME --arch sparse`, engines::Study): the
/// weight/activation density sweep against the dense baseline (DensityStudy.cpp), and the
/// per-layer densities of one of its points (densityPoint, for its tests).
#pragma once

#include "nnaccel/engines/Engine.h"
#include "nnaccel/passes/Prune.h"

#include <optional>

namespace nnaccel::arch::sparse {

/// `sweep density`: magnitude-pruned weights and synthetic activations at each point.
engines::Study densityStudy();

/// What `sweep density` sweeps. Each operand (weights, activations) has a per-layer profile:
/// its file (`--weight-densities`, `--activation-densities`, read by passes::readPruneSpecFile),
/// or, without one, 1.0 at every layer. The operands on the axis (`--axis`, both by default)
/// take profile x value at each point; an operand off the axis keeps its file as is, or,
/// without one, its own values (the model's weights, the activations the model computes).
struct DensityProfiles {
  std::optional<passes::PruneSpec> weights;
  std::optional<passes::PruneSpec> activations;
  bool sweepWeights = true;
  bool sweepActivations = true;

  /// True when the point's value multiplies a file's densities (the axis is a "scale"), false
  /// when it is the density itself of every layer of the swept operands ("density").
  bool scales() const;
};

/// The densities of one point of the sweep.
struct DensityPoint {
  /// What to prune the weights to; nullopt: leave them as the model has them.
  std::optional<passes::PruneSpec> weights;
  /// The array layers' synthetic activation densities; empty: the computed activations.
  engines::LayerDensities activations;
};

/// The point at \p value (in (0, 1]) of the sweep of \p profiles. A file's layers (and its
/// "default") are scaled; the layers a file neither names nor covers with "default" keep the
/// files' rule (weights unchanged, activations computed) at every point.
DensityPoint densityPoint(const DensityProfiles& profiles, double value);

} // namespace nnaccel::arch::sparse
