// Upgrade of a graph imported at ONNX opset 1-6 to opset-7 semantics, so the rest of nnaccel only
// ever sees opsets 7-17. Private to the ONNX frontend (see docs/OnnxImport.md).
#pragma once

#include "nnaccel/ir/Graph.h"

namespace nnaccel::frontend::detail {

/// Rewrites the few ops whose meaning changed before opset 7, in place (\p opset is the
/// model's declared default-domain opset, 1-6):
///  - every op: the memory-planning hint `consumed_inputs` (opsets 1-5) is dropped;
///  - Reshape-1: the `shape` attribute becomes a constant second input;
///  - Pad-1: `paddings` is renamed `pads` (same layout);
///  - Concat-1: a missing `axis` becomes the old default 1;
///  - Cast-1 (string `to`) and Upsample-1 (experimental) are rejected as Unsupported;
///  - Add/Sub/Mul/Div: the legacy `broadcast`/`axis` attributes are dropped; a constant operand
///    aligned at a middle axis gets trailing 1-dims so numpy broadcasting means the same;
///  - Gemm: `broadcast` is dropped (numpy broadcasting of C covers it);
///  - PRelu: a constant 1-D slope of C > 1 values, applied per channel (axis 1) in opset 6, is
///    reshaped to [C, 1, ...] so it still applies per channel under numpy broadcasting;
///  - BatchNormalization/Dropout: `is_test` (must be 1: inference) is dropped.
/// Nodes must be in topological order; each is shape-inferred (ir::inferNode) after its rewrite
/// because later rewrites need their inputs' ranks. Sets Graph::sourceOpset = \p opset, so
/// errors about the upgraded nodes (from this inference or any later stage) show the opset the
/// file declares rather than 7. Throws nnaccel::Error naming the node for legacy forms with no
/// opset-7 equivalent (training mode, non-constant legacy operands) and for shapes that do not
/// infer.
void upgradeLegacyOpset(ir::Graph& g, int64_t opset);

} // namespace nnaccel::frontend::detail
