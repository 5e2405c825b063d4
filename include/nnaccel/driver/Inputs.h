/// \file
/// Model inputs and outputs for `nnaccel run`, `simulate` and tests: checked .npy input files,
/// and output paths checked before a run. (The seeded random input used when the user gives no
/// --input is quant::randomInputs: the calibration generator, one definition for the project.)
#pragma once

#include "nnaccel/ir/Graph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace nnaccel::driver {

/// Reads \p path (a .npy file) as the value of graph input \p inputIndex. Throws Error(Io)
/// naming the file when it cannot be read or its dtype/shape differ from the input's.
Tensor readInputFile(const ir::Graph& g, size_t inputIndex, const std::string& path);

/// Checks, before any work is done, that \p path can be written: an existing file must be
/// writable and not a directory, a new file's directory must exist and be writable. Throws
/// Error(Io) naming the file, in the style of the file writers:
/// `y.npy: cannot open file for writing (No such file or directory)`.
void checkWritable(const std::string& path);

} // namespace nnaccel::driver
