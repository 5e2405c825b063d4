// Seeded random model inputs and .npy input files checked against the graph's inputs.
#include "nnaccel/driver/Inputs.h"

#include "nnaccel/quant/QuantizedModel.h"
#include "nnaccel/tensor/Npy.h"

#include <fmt/format.h>

namespace nnaccel::driver {

std::vector<Tensor> randomInputs(const ir::Graph& g, uint64_t seed) {
  for (ir::ValueId id : g.inputs) {
    const ir::Value& v = g.value(id);
    if (v.dtype != DType::F32) {
      throw Error(ErrorKind::Unsupported, ErrorContext{.file = g.sourcePath},
                  fmt::format("input '{}' is {}: random inputs are generated for f32 inputs "
                              "only; pass it with --input",
                              v.name, dtypeName(v.dtype)));
    }
  }
  return quant::makeCalibrationInputs(g, 1, seed).front();
}

Tensor readInputFile(const ir::Graph& g, size_t inputIndex, const std::string& path) {
  NNACCEL_ASSERT(inputIndex < g.inputs.size()) << "input index " << inputIndex << " out of range";
  const ir::Value& v = g.value(g.inputs[inputIndex]);
  Tensor t = readNpy(path);
  if (t.dtype() != v.dtype || t.shape() != v.shape) {
    throw Error(ErrorKind::Io, ErrorContext{.file = path},
                fmt::format("holds {} {} but model input '{}' is {} {}", dtypeName(t.dtype()),
                            dimsToString(t.shape()), v.name, dtypeName(v.dtype),
                            dimsToString(v.shape)));
  }
  return t;
}

} // namespace nnaccel::driver
