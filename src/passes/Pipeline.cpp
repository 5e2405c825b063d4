// The default pass pipeline (see Pipeline.h).
#include "nnaccel/passes/Pipeline.h"

#include "nnaccel/ir/ShapeInference.h"
#include "nnaccel/ir/Verifier.h"
#include "nnaccel/passes/CanonicalizeOperands.h"
#include "nnaccel/passes/ConstantFolding.h"
#include "nnaccel/passes/EliminateIdentity.h"
#include "nnaccel/passes/ExpandFunctions.h"
#include "nnaccel/passes/FoldBatchNorm.h"
#include "nnaccel/passes/FoldPad.h"
#include "nnaccel/passes/FuseActivation.h"
#include "nnaccel/passes/FuseWrittenActivations.h"
#include "nnaccel/passes/SplitChannelSlices.h"

namespace nnaccel::passes {

void runDefaultPipeline(ir::Graph& g) {
  ir::inferShapes(g);
  foldConstants(g);
  if (expandFunctions(g) > 0)
    foldConstants(g); // an expanded QOperator node's weight DequantizeLinear folds
  canonicalizeOperands(g);
  fuseWrittenActivations(g);
  foldBatchNorm(g);
  foldConstantAffine(g);
  // Again: a BatchNormalization after a bias Add that foldConstantAffine has just absorbed into
  // its ConvTranspose/Conv (PaddlePaddle writes ConvTranspose, then Add of the bias, then BN).
  foldBatchNorm(g);
  eliminateIdentity(g);
  foldPadIntoConv(g);
  g.removeDeadNodes();
  ir::inferShapes(g); // the splitting below reads the shapes the folds left
  splitConvAtChannelSlices(g);
  fuseActivations(g);
  ir::inferShapes(g);
  ir::verify(g);
}

} // namespace nnaccel::passes
