/// \file
/// floatValues(t): an f32 tensor's elements as a std::vector, for comparing with
/// ElementsAre/expected lists in the tests.
#pragma once

#include "nnaccel/tensor/Tensor.h"

#include <vector>

namespace nnaccel::test {

inline std::vector<float> floatValues(const Tensor& t) {
  const auto v = t.values<float>();
  return {v.begin(), v.end()};
}

} // namespace nnaccel::test
