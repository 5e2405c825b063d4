/// \file
/// The default graph pipeline run on every imported or built model before execution.
///
/// inferShapes -> foldConstants -> canonicalizeOperands -> fuseWrittenActivations -> foldBatchNorm
/// -> foldConstantAffine -> eliminateIdentity -> removeDeadNodes -> fuseActivations -> inferShapes
/// -> verify. The result computes the same function as the input graph (up to the fp32 rounding of
/// the affine folding, see FoldBatchNorm.h), has static shapes everywhere, and carries
/// activation-fusion marks for the engines.
#pragma once

#include "nnaccel/ir/Graph.h"

namespace nnaccel::passes {

/// Runs the default pipeline; throws nnaccel::Error (naming the node) on invalid graphs.
void runDefaultPipeline(ir::Graph& g);

} // namespace nnaccel::passes
