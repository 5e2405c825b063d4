// Parameter-input table and static specialization of parameter graph inputs.
#include "nnaccel/ir/InputRoles.h"

namespace nnaccel::ir {

bool isParameterInput(OpKind op, size_t index) {
  switch (op) {
  case OpKind::Reshape:
  case OpKind::Upsample:
  case OpKind::Squeeze:
  case OpKind::Unsqueeze:
  case OpKind::Expand: // shape
  case OpKind::Tile:   // repeats
    return index == 1;
  case OpKind::Resize:           // roi, scales, sizes
  case OpKind::Pad:              // pads, constant_value, axes
  case OpKind::Slice:            // starts, ends, axes, steps
  case OpKind::Split:            // split
  case OpKind::ReduceSum:        // axes
  case OpKind::Clip:             // min, max
  case OpKind::Dropout:          // ratio, training_mode
  case OpKind::QuantizeLinear:   // scale, zero point
  case OpKind::DequantizeLinear: // scale, zero point
    return index >= 1;
  case OpKind::ConvInteger:   // zero points
  case OpKind::MatMulInteger: // zero points
    return index >= 2;
  case OpKind::QLinearConv:   // scales and zero points (not x, w, B)
  case OpKind::QLinearMatMul: // scales and zero points (not a, b)
    return index != 0 && index != 3 && index != 8;
  case OpKind::ConstantOfShape:
    return index == 0;
  default:
    return false;
  }
}

std::vector<Tensor> bindParameterInputs(Graph& g, const std::vector<Tensor>& values) {
  NNACCEL_ASSERT(values.size() == g.inputs.size())
      << "bindParameterInputs: " << values.size() << " values for " << g.inputs.size() << " inputs";
  std::vector<ValueId> keptInputs;
  std::vector<Tensor> keptValues;
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const ValueId in = g.inputs[i];
    const std::vector<NodeId> users = g.users(in);
    bool onlyParameters = !users.empty();
    for (NodeId u : users) {
      const Node& n = g.node(u);
      for (size_t k = 0; k < n.inputs.size(); ++k) {
        if (n.inputs[k] == in && !isParameterInput(n.op, k)) {
          onlyParameters = false;
        }
      }
    }
    bool isOutput = false;
    for (ValueId out : g.outputs) {
      isOutput = isOutput || out == in;
    }
    if (onlyParameters && !isOutput) {
      Value& v = g.value(in);
      v.constant = std::make_shared<const Tensor>(values[i]);
      v.dtype = values[i].dtype();
      v.shape = values[i].shape();
      v.shapeKnown = true;
    } else {
      keptInputs.push_back(in);
      keptValues.push_back(values[i]);
    }
  }
  g.inputs = std::move(keptInputs);
  return keptValues;
}

} // namespace nnaccel::ir
