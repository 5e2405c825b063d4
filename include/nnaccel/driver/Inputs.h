/// \file
/// Model inputs and outputs for `nnaccel run` and for tests: seeded random inputs, checked .npy
/// input files, and output paths checked before a run.
///
/// The random input is the documented default when the user gives no --input. It is the same
/// generator the int8 calibration uses (quant::makeCalibrationInputs), so the project has one
/// definition of "a seeded random model input": every f32 element is uniform in [-1, 1) as
/// 2u - 1 with u = (top 24 bits of an nnaccel::Rng draw) * 2^-24 (exact in f32; nnaccel::Rng,
/// support/Rng.h, gives the same bits on every platform).
#pragma once

#include "nnaccel/ir/Graph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace nnaccel::driver {

/// One random tensor per graph input (Graph::inputs order), drawn from nnaccel::Rng(\p seed),
/// input by input, element by element: quant::makeCalibrationInputs(g, 1, seed).
/// Throws Error(Unsupported) naming the input when an input is not f32.
std::vector<Tensor> randomInputs(const ir::Graph& g, uint64_t seed);

/// Reads \p path (a .npy file) as the value of graph input \p inputIndex. Throws Error(Io)
/// naming the file when it cannot be read or its dtype/shape differ from the input's.
Tensor readInputFile(const ir::Graph& g, size_t inputIndex, const std::string& path);

/// Checks, before any work is done, that \p path can be written: an existing file must be
/// writable and not a directory, a new file's directory must exist and be writable. Throws
/// Error(Io) naming the file, in the style of the file writers:
/// `y.npy: cannot open file for writing (No such file or directory)`.
void checkWritable(const std::string& path);

} // namespace nnaccel::driver
