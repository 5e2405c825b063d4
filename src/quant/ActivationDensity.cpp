/// \file
/// Measured input-activation densities of an int8 run (ActivationDensity.h).
#include "nnaccel/quant/ActivationDensity.h"

namespace nnaccel::quant {

std::map<std::string, double> inputDensities(const QuantizedModel& model,
                                             const Int8Executor& executor) {
  std::map<std::string, double> out;
  const ir::Graph& g = model.graph;
  for (const ir::Node& n : g.nodes()) {
    const bool array = n.op == ir::OpKind::Conv || n.op == ir::OpKind::ConvTranspose ||
                       n.op == ir::OpKind::Gemm || n.op == ir::OpKind::MatMul;
    if (!array || n.inputs.empty() || g.isConstant(n.inputs[0]))
      continue;
    const QuantTensor v = executor.value(n.inputs[0]);
    if (!v.isQuantized() || v.data.numElements() == 0)
      continue;
    const int8_t* q = v.data.data<int8_t>();
    int64_t nonZero = 0;
    for (int64_t i = 0; i < v.data.numElements(); ++i)
      nonZero += q[i] != v.zeroPoint ? 1 : 0;
    out[n.name] = static_cast<double>(nonZero) / static_cast<double>(v.data.numElements());
  }
  return out;
}

} // namespace nnaccel::quant
