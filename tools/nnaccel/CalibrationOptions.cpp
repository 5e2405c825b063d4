// The calibration options of `run` and `simulate` (see CalibrationOptions.h).
#include "CalibrationOptions.h"

#include "Command.h"
#include "nnaccel/driver/Inputs.h"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>

namespace nnaccel::cli {

void CalibrationOptions::configure(CLI::App& app) {
  app_ = &app;
  const std::string group = "int8 calibration";
  folderOption_ = app.add_option("--calib", folder_,
                                 "calibrate on every .npy, PNG and JPEG file of this folder (one "
                                 "input set each, in name order) instead of the --input files")
                      ->check(CLI::ExistingDirectory)
                      ->group(group);
  methodOption_ = app.add_option("--calib-method", method_,
                                 "how activation ranges are chosen: minmax, percentile, mse or "
                                 "entropy (docs/Quantization.md)")
                      ->check(oneOf({"minmax", "percentile", "mse", "entropy"}))
                      ->capture_default_str()
                      ->group(group);
  percentileOption_ = app.add_option("--percentile", percentile_,
                                     "--calib-method percentile: the share of |x| kept, in %")
                          ->check(CLI::Range(1e-6, 100.0))
                          ->capture_default_str()
                          ->group(group);
  equalizeOption_ = app.add_flag("--equalize", equalize_,
                                 "equalize the channels between convolutions before calibrating "
                                 "(the fp32 function is unchanged; docs/Quantization.md)")
                        ->group(group);
  asymmetricOption_ = app.add_flag("--asymmetric", asymmetric_,
                                   "asymmetric activations: each calibrated range over all 256 "
                                   "int8 codes with a zero point (docs/Quantization.md)")
                          ->group(group);
  biasCorrectionOption_ =
      app.add_flag("--bias-correction", biasCorrection_,
                   "after calibrating, shift each integer layer's bias by its channels' mean int8 "
                   "error on the calibration inputs (docs/Quantization.md)")
          ->group(group);
}

std::vector<const CLI::Option*> CalibrationOptions::options() const {
  return {folderOption_,   methodOption_,     percentileOption_,
          equalizeOption_, asymmetricOption_, biasCorrectionOption_};
}

void CalibrationOptions::check() const {
  if (percentileOption_->count() > 0 && method_ != "percentile")
    throw usageError(*app_, "--percentile applies only to --calib-method percentile");
}

quant::CalibrationOptions CalibrationOptions::method() const {
  quant::CalibrationOptions o;
  o.method = *quant::calibrationMethodFromName(method_);
  o.percentile = percentile_;
  o.equalize = equalize_;
  o.asymmetric = asymmetric_;
  o.biasCorrection = biasCorrection_;
  return o;
}

std::string CalibrationOptions::methodText() const {
  return method_ == "percentile" ? fmt::format("percentile ({}%)", percentile_) : method_;
}

std::vector<std::vector<Tensor>>
CalibrationOptions::readFolder(const ir::Graph& g, const std::string& model,
                               const ImagePreprocess& images) const {
  namespace fs = std::filesystem;
  if (g.inputs.size() != 1)
    throw usageError(*app_, fmt::format("--calib takes one file per input set, but model '{}' "
                                        "has {} inputs",
                                        model, g.inputs.size()));
  std::vector<std::string> files;
  for (const fs::directory_entry& e : fs::directory_iterator(folder_)) {
    const std::string path = e.path().string();
    if (e.is_regular_file() && (e.path().extension() == ".npy" || isImageFile(path)))
      files.push_back(path);
  }
  std::sort(files.begin(), files.end());
  if (files.empty())
    throw Error(ErrorKind::Usage, ErrorContext{.file = folder_},
                "--calib: the folder has no .npy, PNG or JPEG file");
  std::vector<std::vector<Tensor>> sets;
  for (const std::string& f : files) {
    sets.push_back({driver::readInputFile(g, 0, f, images)});
    quant::checkCalibrationInputs(g, sets.back(), {f});
  }
  return sets;
}

} // namespace nnaccel::cli
