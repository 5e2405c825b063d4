/// \file
/// How `run` and `simulate` turn PNG/JPEG --input files into model inputs (tensor/Image.h):
/// `--layout nchw|nhwc` (default: from the input's shape), `--size HxW` (for symbolic spatial
/// dims; default: the input's extents, else the image's own), `--norm unit|signed|raw|imagenet`
/// (default unit: x / 255), `--mean` and `--std` (one value or one per channel, on the [0, 1]
/// scale, overriding --norm) and `--channel-order rgb|bgr`.
#pragma once

#include "nnaccel/tensor/Image.h"

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace nnaccel::cli {

class ImageOptions {
public:
  /// Adds the image options to \p app, in the group "Image inputs".
  void configure(CLI::App& app);
  /// The preprocessing the options describe. Throws Error(Usage) naming the option when one
  /// does not parse or --mean and --std disagree in length.
  ImagePreprocess preprocess() const;

private:
  CLI::App* app_ = nullptr;
  std::string layout_ = "auto", size_, norm_ = "unit", order_ = "rgb";
  std::vector<float> mean_, std_;
};

} // namespace nnaccel::cli
