/// \file
/// Model inputs for `nnaccel run` and for tests: seeded random inputs and checked .npy files.
///
/// The random input is the documented default when the user gives no --input. It is the same
/// generator the int8 calibration uses (quant::makeCalibrationInputs), so the project has one
/// definition of "a seeded random model input": every f32 element is uniform in [-1, 1) as
/// 2u - 1 with u = (top 24 bits of a std::mt19937_64 draw) * 2^-24 (exact in f32; the
/// mt19937_64 sequence is fixed by the C++ standard, so the values are the same everywhere).
#pragma once

#include "nnaccel/ir/Graph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace nnaccel::driver {

/// One random tensor per graph input (Graph::inputs order), drawn from std::mt19937_64 seeded
/// with \p seed, input by input, element by element: quant::makeCalibrationInputs(g, 1, seed).
/// Throws Error(Unsupported) naming the input when an input is not f32.
std::vector<Tensor> randomInputs(const ir::Graph& g, uint64_t seed);

/// Reads \p path (a .npy file) as the value of graph input \p inputIndex. Throws Error(Io)
/// naming the file when it cannot be read or its dtype/shape differ from the input's.
Tensor readInputFile(const ir::Graph& g, size_t inputIndex, const std::string& path);

} // namespace nnaccel::driver
