// Upgrade of a graph imported at ONNX opset 6 to opset-7 semantics, so the rest of nnaccel only
// ever sees opsets 7-17. Private to the ONNX frontend (see docs/OnnxImport.md).
#pragma once

#include "nnaccel/ir/Graph.h"

namespace nnaccel::frontend::detail {

/// Rewrites the few ops whose meaning changed between opset 6 and 7, in place:
///  - Add/Sub/Mul/Div: the legacy `broadcast`/`axis` attributes are dropped; a constant operand
///    aligned at a middle axis gets trailing 1-dims so numpy broadcasting means the same;
///  - Gemm: `broadcast` is dropped (numpy broadcasting of C covers it);
///  - PRelu: a constant 1-D slope of C > 1 values, applied per channel (axis 1) in opset 6, is
///    reshaped to [C, 1, ...] so it still applies per channel under numpy broadcasting;
///  - BatchNormalization/Dropout: `is_test` (must be 1: inference) is dropped.
/// Nodes must be in topological order; each is shape-inferred (ir::inferNode) after its rewrite
/// because later rewrites need their inputs' ranks. Throws nnaccel::Error naming the node for
/// legacy forms with no opset-7 equivalent (training mode, non-constant legacy operands).
void upgradeOpset6To7(ir::Graph& g);

} // namespace nnaccel::frontend::detail
