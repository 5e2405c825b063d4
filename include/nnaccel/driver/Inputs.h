/// \file
/// Model inputs and outputs for `nnaccel run`, `simulate` and tests: checked .npy input files,
/// PNG/JPEG photographs preprocessed into the input's shape (tensor/Image.h), and output paths
/// checked before a run. (The seeded random input used when the user gives no
/// --input is quant::randomInputs: the calibration generator, one definition for the project.)
#pragma once

#include "nnaccel/frontend/Onnx.h"
#include "nnaccel/ir/Graph.h"
#include "nnaccel/tensor/Image.h"

#include <cstdint>
#include <string>
#include <vector>

namespace nnaccel::driver {

/// Reads \p path as the value of graph input \p inputIndex: a .npy file, or a PNG or JPEG
/// image preprocessed by \p image into the input's shape (an f32 input of rank 4). Throws
/// Error(Io) naming the file when it cannot be read or an .npy's dtype/shape differ from the
/// input's, Error(Usage) when the image options do not fit the input.
Tensor readInputFile(const ir::Graph& g, size_t inputIndex, const std::string& path,
                     const ImagePreprocess& image = {});

/// What \p path tells the importer about its input's symbolic dimensions: an .npy file's shape,
/// or an image's size, channels and the layout \p image gives it. Throws Error(Io) naming a
/// file that cannot be read.
frontend::InputData inputData(const std::string& path, const ImagePreprocess& image = {});

/// One line on how input \p path became the input's value ("astronaut.png: 512x512 RGB,
/// bilinear to 224x224, NCHW, RGB, (x/255 - 0.485,0.456,0.406) / 0.229,0.224,0.225");
/// the path itself for an .npy file.
std::string describeInputFile(const ir::Graph& g, size_t inputIndex, const std::string& path,
                              const ImagePreprocess& image = {});

/// Checks, before any work is done, that \p path can be written: an existing file must be
/// writable and not a directory, a new file's directory must exist and be writable. Throws
/// Error(Io) naming the file, in the style of the file writers:
/// `y.npy: cannot open file for writing (No such file or directory)`.
void checkWritable(const std::string& path);

} // namespace nnaccel::driver
