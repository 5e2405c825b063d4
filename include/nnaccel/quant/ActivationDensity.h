/// \file
/// The measured activation densities of an int8 run: for each convolution and matrix product,
/// the share of its input's codes that are not the code of real 0 (its zero point). A trained
/// network on a real image has the densities a sparse accelerator sees (the SCNN paper's
/// Fig. 1: "we instrumented the Caffe framework to inspect the activations between the
/// convolutional layers"); `nnaccel run --dtype int8 --densities-out FILE` writes them as the
/// per-layer JSON `simulate --activation-densities` and `validate` read.
#pragma once

#include "nnaccel/quant/Int8Executor.h"

#include <map>
#include <string>

namespace nnaccel::quant {

/// After \p executor ran \p model: each Conv, ConvTranspose, Gemm and MatMul node's input
/// density (the non-zero share of its first input's int8 codes), by node name.
std::map<std::string, double> inputDensities(const QuantizedModel& model,
                                             const Int8Executor& executor);

} // namespace nnaccel::quant
