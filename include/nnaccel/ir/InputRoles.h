/// \file
/// Which node inputs are compile-time parameters rather than data, and static specialization.
///
/// nnaccel is a static-shape compiler: inputs such as Reshape's `shape`, Resize's `scales`,
/// Pad's `pads` or Clip's bounds must be constants. Models normally carry them as initializers;
/// some (for example the ONNX backend test cases) pass them as graph inputs. bindParameterInputs
/// turns such graph inputs into constants for a given set of values, which is what a user does
/// when they compile a model for one concrete input specification.
#pragma once

#include "nnaccel/ir/Graph.h"

namespace nnaccel::ir {

/// True if input \p index of an \p op node must be a compile-time constant.
bool isParameterInput(OpKind op, size_t index);

/// For every graph input whose every use is a parameter slot, replaces it by a constant holding
/// the corresponding element of \p values (given in Graph::inputs order) and removes it from
/// Graph::inputs. Returns the values of the inputs that remain runtime inputs, in order.
std::vector<Tensor> bindParameterInputs(Graph& g, const std::vector<Tensor>& values);

} // namespace nnaccel::ir
