/// \file
/// Tests of the measured input densities of an int8 run (quant/ActivationDensity.h): a Relu
/// before a convolution leaves exactly the input's positive share non-zero, a matrix product
/// counts its input the same way, and layers whose input is a graph constant or that multiply
/// nothing are left out.
#include "nnaccel/quant/ActivationDensity.h"

#include "QuantTestUtil.h"
#include "nnaccel/quant/QuantizedModel.h"

#include <gtest/gtest.h>

namespace nnaccel::quant::test {
namespace {

using ir::OpKind;

TEST(ActivationDensity, CountsTheCodesThatAreNotRealZero) {
  std::mt19937_64 rng(3);
  GraphBuilder b;
  const auto x = b.input("x", {1, 4, 6, 6});
  const auto r = b.op(OpKind::Relu, "relu", {x});
  const auto w = b.constant("w", randomTensor({3, 4, 3, 3}, rng, -0.5f, 0.5f));
  const auto y = b.op(OpKind::Conv, "conv", {r, w}, attrs({{"pads", Dims{1, 1, 1, 1}}}));
  const auto f = b.op(OpKind::Flatten, "flatten", {y});
  const auto m = b.constant("m", randomTensor({108, 5}, rng, -0.5f, 0.5f));
  const auto z = b.op(OpKind::MatMul, "fc", {f, m});
  const ir::Graph g = finish(b, {z});
  // An input with exactly 36 of its 144 values positive (those codes are non-zero after the
  // Relu; a positive value well above the int8 step never rounds to 0).
  Tensor in(DType::F32, {1, 4, 6, 6});
  auto v = in.values<float>();
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = i % 4 == 0 ? 0.5f + 0.001f * static_cast<float>(i) : -0.5f;
  const QuantizedModel model = quantize(g, {{in}});
  Int8Executor executor(model);
  executor.run({in});
  const std::map<std::string, double> d = inputDensities(model, executor);
  ASSERT_EQ(d.size(), 2u); // the conv and the matrix product; the Relu multiplies nothing
  EXPECT_DOUBLE_EQ(d.at("conv"), 36.0 / 144.0);
  // The matrix product's input is the conv's output: its own share of non-zero codes.
  const QuantTensor yq = executor.value(y);
  int64_t nonZero = 0;
  for (int8_t q : yq.data.values<int8_t>())
    nonZero += q != yq.zeroPoint ? 1 : 0;
  EXPECT_DOUBLE_EQ(d.at("fc"), static_cast<double>(nonZero) / 108.0);
}

} // namespace
} // namespace nnaccel::quant::test
