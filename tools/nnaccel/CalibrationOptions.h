/// \file
/// How `run --dtype int8` and `simulate` calibrate the int8 model: `--calib DIR` (every .npy,
/// PNG and JPEG file of the folder, one input set each, in name order; default: the --input
/// files, else seeded random sets), `--calib-method minmax|percentile|mse|entropy` and
/// `--percentile P` (quant::CalibrationMethod, docs/Quantization.md).
#pragma once

#include "ImageOptions.h"
#include "nnaccel/ir/Graph.h"
#include "nnaccel/quant/QuantizedModel.h"

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace nnaccel::cli {

class CalibrationOptions {
public:
  /// Adds --calib, --calib-method and --percentile to \p app.
  void configure(CLI::App& app);
  /// The options given (their CLI::Option objects, for "applies only to ..." checks).
  std::vector<const CLI::Option*> options() const;
  /// Throws Error(Usage) when --percentile is given without --calib-method percentile.
  void check() const;
  /// The method and percentile.
  quant::CalibrationOptions method() const;
  /// "minmax", "percentile (99.99%)", ...
  std::string methodText() const;
  bool hasFolder() const { return !folder_.empty(); }
  const std::string& folder() const { return folder_; }
  /// One input set per file of --calib for the one-input model \p g, read as \p images says;
  /// Error(Usage) for a model with several inputs or a folder with no such file.
  std::vector<std::vector<Tensor>> readFolder(const ir::Graph& g, const std::string& model,
                                              const ImagePreprocess& images) const;

private:
  CLI::App* app_ = nullptr;
  std::string folder_, method_ = "minmax";
  double percentile_ = 99.99;
  bool equalize_ = false, asymmetric_ = false, biasCorrection_ = false;
  CLI::Option *folderOption_ = nullptr, *methodOption_ = nullptr, *percentileOption_ = nullptr,
              *equalizeOption_ = nullptr, *asymmetricOption_ = nullptr,
              *biasCorrectionOption_ = nullptr;
};

} // namespace nnaccel::cli
