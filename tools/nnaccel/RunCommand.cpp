// `nnaccel run MODEL`: runs a model on the reference executor in fp32 or through the int8 path
// (calibrate, quantize, Int8Executor), prints each output's shape and a short summary, the
// int8-versus-fp32 agreement, and optionally writes the outputs as .npy files.
#include "Command.h"
#include "nnaccel/driver/Inputs.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/quant/Agreement.h"
#include "nnaccel/quant/Int8Executor.h"
#include "nnaccel/quant/QuantizedModel.h"
#include "nnaccel/reference/Executor.h"
#include "nnaccel/tensor/Npy.h"

#include <algorithm>
#include <fmt/core.h>

namespace nnaccel::cli {

namespace {

/// Elements shown per output.
constexpr int64_t kShownValues = 8;
/// Batch rows whose top-1 class is shown.
constexpr size_t kShownRows = 8;

std::string valueText(double v) {
  return fmt::format("{:.6g}", v);
}

void printOutput(const ir::Value& v, const Tensor& t) {
  const int64_t n = t.numElements();
  fmt::print("output '{}': {} {}\n", v.name, dtypeName(t.dtype()), dimsToString(t.shape()));
  if (n == 0) {
    return;
  }
  double lo = t.elementAsDouble(0);
  double hi = lo;
  double sum = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const double x = t.elementAsDouble(i);
    lo = std::min(lo, x);
    hi = std::max(hi, x);
    sum += x;
  }
  fmt::print("  min {}  max {}  mean {}\n", valueText(lo), valueText(hi),
             valueText(sum / static_cast<double>(n)));
  std::string first;
  for (int64_t i = 0; i < std::min(n, kShownValues); ++i) {
    first += (i > 0 ? " " : "") + valueText(t.elementAsDouble(i));
  }
  fmt::print("  first {}: {}{}\n", std::min(n, kShownValues), first,
             n > kShownValues ? " ..." : "");
  if (t.dtype() == DType::F32 && quant::isClassifierOutput(t.shape())) {
    const std::vector<int64_t> best = quant::argmaxPerRow(t);
    for (size_t row = 0; row < std::min(best.size(), kShownRows); ++row) {
      const int64_t flat = static_cast<int64_t>(row) * t.dim(1) + best[row];
      fmt::print("  top-1{}: class {} ({})\n", best.size() > 1 ? fmt::format(" [{}]", row) : "",
                 best[row], valueText(t.elementAsDouble(flat)));
    }
  }
}

void printAgreement(const ir::Value& v, const Tensor& fp32, const Tensor& int8) {
  if (fp32.dtype() != DType::F32) {
    fmt::print("int8 vs fp32 '{}': {} output, {}\n", v.name, dtypeName(fp32.dtype()),
               fp32 == int8 ? "identical" : "different");
    return;
  }
  const quant::Agreement a = quant::measureAgreement(fp32, int8);
  std::string line = fmt::format("int8 vs fp32 '{}': max abs error {}, cosine similarity {:.6f}",
                                 v.name, valueText(a.maxAbsError), a.cosineSimilarity);
  if (a.top1Agreement) {
    line += fmt::format(", top-1 agreement {:.1f}%", *a.top1Agreement * 100.0);
  }
  fmt::print("{}\n", line);
}

class RunCommand final : public Command {
public:
  void configure(CLI::App& app) override {
    app.add_option("MODEL", model_, kModelHelp)->required();
    app.add_option("--input", inputs_,
                   "a .npy file for each model input, in order (default: a seeded random input, "
                   "uniform in [-1, 1))");
    app.add_option("--output", outputs_,
                   "write the model outputs, in order, to these .npy files (int8: dequantized)");
    app.add_option("--dtype", dtype_,
                   "f32: fp32 reference executor; int8: calibrate, quantize, run the int8 "
                   "executor and compare with fp32")
        ->check(CLI::IsMember({"f32", "int8"}))
        ->capture_default_str();
    app.add_option("--seed", seed_, "seed of the random input (without --input)")
        ->check(seedValidator())
        ->capture_default_str();
    calibOption_ = app.add_option("--calib-samples", calibSamples_,
                                  "int8 without --input: number of seeded random calibration "
                                  "inputs (with --input, the inputs are the calibration set)")
                       ->check(CLI::Range(1, 10000))
                       ->capture_default_str();
  }

  void run() override {
    const ir::Graph g = driver::loadModel(model_);
    checkCounts(g);
    const std::vector<Tensor> inputs = readOrMakeInputs(g);
    reference::Executor executor(g);
    const std::vector<Tensor> fp32 = executor.run(inputs);
    std::vector<Tensor> shown = fp32;
    if (dtype_ == "int8") {
      shown = runInt8(g, inputs);
      for (size_t i = 0; i < fp32.size(); ++i) {
        printAgreement(g.value(g.outputs[i]), fp32[i], shown[i]);
      }
    }
    for (size_t i = 0; i < shown.size(); ++i) {
      printOutput(g.value(g.outputs[i]), shown[i]);
    }
    for (size_t i = 0; i < outputs_.size(); ++i) {
      writeNpy(outputs_[i], shown[i]);
      fmt::print("wrote output '{}' to {}\n", g.value(g.outputs[i]).name, outputs_[i]);
    }
  }

private:
  void checkCounts(const ir::Graph& g) const {
    if (!inputs_.empty() && inputs_.size() != g.inputs.size()) {
      throw Error(ErrorKind::Usage, {},
                  fmt::format("model '{}' has {} input(s) but {} --input file(s) were given",
                              model_, g.inputs.size(), inputs_.size()));
    }
    if (outputs_.size() > g.outputs.size()) {
      throw Error(ErrorKind::Usage, {},
                  fmt::format("model '{}' has {} output(s) but {} --output file(s) were given",
                              model_, g.outputs.size(), outputs_.size()));
    }
    if (calibOption_->count() > 0 && dtype_ != "int8") {
      throw Error(ErrorKind::Usage, {}, "--calib-samples applies only to --dtype int8");
    }
    if (calibOption_->count() > 0 && !inputs_.empty()) {
      throw Error(ErrorKind::Usage, {},
                  "--calib-samples applies only without --input (the inputs are the "
                  "calibration set)");
    }
  }

  std::vector<Tensor> readOrMakeInputs(const ir::Graph& g) const {
    std::vector<Tensor> inputs;
    if (inputs_.empty()) {
      inputs = driver::randomInputs(g, seed_);
    } else {
      for (size_t i = 0; i < inputs_.size(); ++i) {
        inputs.push_back(driver::readInputFile(g, i, inputs_[i]));
      }
    }
    for (size_t i = 0; i < inputs.size(); ++i) {
      const ir::Value& v = g.value(g.inputs[i]);
      fmt::print("input '{}': {} {} ({})\n", v.name, dtypeName(v.dtype), dimsToString(v.shape),
                 inputs_.empty() ? fmt::format("random, seed {}", seed_) : inputs_[i]);
    }
    return inputs;
  }

  /// Calibrates (on the given inputs, or on seeded random inputs drawn with the fixed
  /// calibration seed, so the quantized model does not depend on --seed), quantizes and runs the
  /// int8 executor; returns the dequantized outputs.
  std::vector<Tensor> runInt8(const ir::Graph& g, const std::vector<Tensor>& inputs) const {
    std::vector<std::vector<Tensor>> calibration;
    if (inputs_.empty()) {
      calibration = quant::makeCalibrationInputs(g, calibSamples_, quant::kDefaultCalibrationSeed);
      fmt::print("int8: calibrated on {} random input set(s)\n", calibSamples_);
    } else {
      calibration.push_back(inputs);
      std::string files;
      for (size_t i = 0; i < inputs_.size(); ++i) {
        files += (i > 0 ? ", " : "") + inputs_[i];
      }
      fmt::print("int8: calibrated on {}\n", files);
    }
    const quant::QuantizedModel model = quant::quantize(g, calibration);
    quant::Int8Executor executor(model);
    return executor.run(inputs).dequantized;
  }

  std::string model_;
  std::vector<std::string> inputs_;
  std::vector<std::string> outputs_;
  std::string dtype_ = "f32";
  uint64_t seed_ = 0;
  int calibSamples_ = quant::kDefaultCalibrationCount;
  CLI::Option* calibOption_ = nullptr;
};

} // namespace

std::unique_ptr<Command> makeRunCommand() {
  return std::make_unique<RunCommand>();
}

} // namespace nnaccel::cli
