// `nnaccel run MODEL`: runs a model on the reference executor in fp32 or through the int8 path
// (calibrate, quantize, Int8Executor), prints each output's shape and a short summary, the
// int8-versus-fp32 agreement (over seeded evaluation inputs that were not used for calibration,
// and on the run's own input), and optionally writes the outputs as .npy files. --repeat N
// times the executor alone (after the first run as warm-up): the median and minimum latency a
// user would measure with ONNX Runtime's perf tool.
#include "CalibrationOptions.h"
#include "Command.h"
#include "ImageOptions.h"
#include "ModelOptions.h"
#include "TextTable.h"
#include "nnaccel/driver/Inputs.h"
#include "nnaccel/quant/ActivationDensity.h"
#include "nnaccel/quant/Agreement.h"
#include "nnaccel/quant/Int8Executor.h"
#include "nnaccel/quant/QuantizedModel.h"
#include "nnaccel/quant/Sensitivity.h"
#include "nnaccel/reference/Executor.h"
#include "nnaccel/tensor/Npy.h"

#include <algorithm>
#include <chrono>
#include <fmt/core.h>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

namespace nnaccel::cli {

namespace {

/// The cosine to fp32 that `run --sensitivity`'s precision-fallback curve aims at: issue 19's
/// target for detector and segmenter outputs (docs/Quantization.md, "Sensitivity").
constexpr double kFallbackTargetCosine = 0.99;

/// Elements shown per output.
constexpr int64_t kShownValues = 8;

/// Times \p runOnce \p repeat times (the caller has run it once already: the warm-up) and
/// prints the median and minimum wall time of \p what.
template <typename F> void printLatency(const std::string& what, int repeat, F&& runOnce) {
  std::vector<double> ms;
  ms.reserve(static_cast<size_t>(repeat));
  for (int i = 0; i < repeat; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    runOnce();
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  const size_t n = ms.size();
  const double median = n % 2 == 1 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
  fmt::print("latency of the {} alone: median {:.3f} ms, min {:.3f} ms over {} run(s) after one "
             "warm-up run\n",
             what, median, ms.front(), n);
}
/// Batch rows whose top-1 class is shown.
constexpr size_t kShownRows = 8;

void printOutput(const ir::Value& v, const Tensor& t) {
  const int64_t n = t.numElements();
  fmt::print("output '{}': {}\n", v.name, typeText(t.dtype(), t.shape()));
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
  fmt::print("  min {}  max {}  mean {}\n", numberText(lo), numberText(hi),
             numberText(sum / static_cast<double>(n)));
  std::string first;
  for (int64_t i = 0; i < std::min(n, kShownValues); ++i) {
    first += (i > 0 ? " " : "") + numberText(t.elementAsDouble(i));
  }
  fmt::print("  first {}: {}{}\n", std::min(n, kShownValues), first,
             n > kShownValues ? " ..." : "");
  if (t.dtype() == DType::F32 && quant::isClassifierOutput(t.shape())) {
    const std::vector<int64_t> best = quant::argmaxPerRow(t);
    for (size_t row = 0; row < std::min(best.size(), kShownRows); ++row) {
      const int64_t flat = static_cast<int64_t>(row) * t.dim(1) + best[row];
      fmt::print("  top-1{}: class {} ({})\n", best.size() > 1 ? fmt::format(" [{}]", row) : "",
                 best[row], numberText(t.elementAsDouble(flat)));
    }
  }
}

/// "int8 vs fp32 'output' (WHAT): max abs error ..., mean abs error ..., cosine similarity ...
/// [(worst input ...)], top-1 agreement 7/8 (87.5%)".
void printAgreement(const std::string& name, const std::string& what, const quant::Agreement& a) {
  // Classifier outputs: top-1 first, what a classifier's user compares; others: cosine and the
  // relative L2 error.
  std::string line = fmt::format("int8 vs fp32 '{}' ({}): ", name, what);
  if (a.top1Agreement) {
    line += fmt::format("top-1 agreement {}/{} ({:.1f}%), ", a.top1Matches, a.top1Rows,
                        *a.top1Agreement * 100.0);
  }
  line += fmt::format("cosine similarity {:.6f}", a.cosineSimilarity);
  if (a.samples > 1) {
    line += fmt::format(" (worst input {:.6f})", a.minCosineSimilarity);
  }
  line += fmt::format(", relative error {}, max abs error {}, mean abs error {}",
                      numberText(a.relativeError), numberText(a.maxAbsError),
                      numberText(a.meanAbsError));
  fmt::print("{}\n", line);
  if (a.referenceMaxAbs < quant::kNearZeroOutput) {
    fmt::print("warning: fp32 output '{}' is near zero everywhere (max |x| {}): its cosine and "
               "relative error say little\n",
               name, numberText(a.referenceMaxAbs));
  }
}

/// "1 random input set", "4 random input sets".
std::string counted(int64_t n, const std::string& noun) {
  return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s");
}

/// The first graph input that is not f32 (random inputs cannot be generated for it), if any.
const ir::Value* nonFloatInput(const ir::Graph& g) {
  for (ir::ValueId id : g.inputs) {
    if (g.value(id).dtype != DType::F32) {
      return &g.value(id);
    }
  }
  return nullptr;
}

class RunCommand final : public Command {
public:
  void configure(CLI::App& app) override {
    app_ = &app;
    modelOptions_.configure(app);
    images_.configure(app);
    app.add_option("--input", inputs_,
                   "a .npy file or a PNG/JPEG image for each model input, in order (default: a "
                   "seeded random input, "
                   "uniform in [-1, 1))");
    app.add_option("--output", outputs_,
                   "write the model outputs, in order, to these .npy files (int8: dequantized)");
    app.add_option("--dtype", dtype_,
                   "f32: fp32 reference executor; int8: calibrate, quantize, run the int8 "
                   "executor and compare with fp32")
        ->check(oneOf({"f32", "int8"}))
        ->capture_default_str();
    app.add_option("--seed", seed_, "seed of the random input (without --input)")
        ->check(seedValidator())
        ->capture_default_str();
    calibOption_ = app.add_option("--calib-samples", calibSamples_,
                                  "int8 without --input: number of seeded random calibration "
                                  "inputs (with --input, the inputs are the calibration set)")
                       ->check(CLI::Range(1, 10000))
                       ->capture_default_str();
    calibration_.configure(app);
    sensitivityOption_ =
        app.add_flag("--sensitivity", sensitivity_,
                     "int8: also rank the layers by how much their int8 rounding alone costs the "
                     "outputs (each value fake-quantized alone, the rest fp32), worst first, and "
                     "show how many of the worst must stay fp32 for an output cosine of 0.99");
    evalOption_ = app.add_option("--eval-samples", evalSamples_,
                                 "int8: number of seeded random inputs, none of them a "
                                 "calibration input, on which the agreement with fp32 is "
                                 "measured (0: only on the run's own input)")
                      ->check(CLI::Range(0, 10000))
                      ->capture_default_str();
    densitiesOption_ =
        app.add_option("--densities-out", densitiesOut_,
                       "int8: write each convolution's and matrix product's measured input "
                       "density (the share of its int8 codes that are not real 0) as JSON "
                       "{\"layer\": density, ...}, the file simulate --activation-densities "
                       "reads");
    app.add_option("--repeat", repeat_,
                   "also time the executor alone: N more runs on the same input after the "
                   "first (the warm-up), printing the median and minimum latency (int8: the "
                   "int8 executor, not calibration)")
        ->check(CLI::Range(1, 100000));
  }

  void run() override {
    checkOptions();
    const ir::Graph g = driver::loadModel(modelOptions_.model(),
                                          modelOptions_.loadOptions(inputs_, images_.preprocess()));
    checkCounts(g);
    for (const std::string& path : outputs_) {
      driver::checkWritable(path); // before the run, not after it
    }
    if (!densitiesOut_.empty())
      driver::checkWritable(densitiesOut_);
    if (const std::string bindings = ModelOptions::bindingsText(g); !bindings.empty()) {
      fmt::print("{}\n", bindings);
    }
    if (dtype_ == "int8" && calibration_.hasFolder()) // before any output: its errors are usage
      calibrationSets_ = calibration_.readFolder(g, modelOptions_.model(), images_.preprocess());
    const std::vector<Tensor> inputs = readOrMakeInputs(g);
    reference::Executor executor(g);
    const std::vector<Tensor> fp32 = executor.run(inputs);
    const std::vector<Tensor> shown = dtype_ == "int8" ? runInt8(g, inputs, fp32) : fp32;
    for (size_t i = 0; i < shown.size(); ++i) {
      printOutput(g.value(g.outputs[i]), shown[i]);
    }
    if (repeat_ > 0 && dtype_ == "f32")
      printLatency("fp32 reference executor", repeat_, [&] { executor.run(inputs); });
    for (size_t i = 0; i < outputs_.size(); ++i) {
      writeNpy(outputs_[i], shown[i]);
      fmt::print("wrote output '{}' to {}\n", g.value(g.outputs[i]).name, outputs_[i]);
    }
  }

private:
  /// Options that do not go together (checked before the model is loaded).
  void checkOptions() const {
    std::vector<const CLI::Option*> int8Only = calibration_.options();
    int8Only.insert(int8Only.end(),
                    {calibOption_, evalOption_, sensitivityOption_, densitiesOption_});
    for (const CLI::Option* option : int8Only) {
      if (option->count() > 0 && dtype_ != "int8") {
        throw usageError(*app_, option->get_name() + " applies only to --dtype int8");
      }
    }
    if (calibOption_->count() > 0 && (!inputs_.empty() || calibration_.hasFolder())) {
      throw usageError(*app_, "--calib-samples applies only without --input and --calib (those "
                              "are the calibration set)");
    }
    calibration_.check();
  }

  void checkCounts(const ir::Graph& g) const {
    if (!inputs_.empty() && inputs_.size() != g.inputs.size()) {
      throw usageError(*app_,
                       fmt::format("model '{}' has {} input(s) but {} --input file(s) were given",
                                   modelOptions_.model(), g.inputs.size(), inputs_.size()));
    }
    if (outputs_.size() > g.outputs.size()) {
      throw usageError(*app_,
                       fmt::format("model '{}' has {} output(s) but {} --output file(s) were given",
                                   modelOptions_.model(), g.outputs.size(), outputs_.size()));
    }
  }

  /// Where the run's input comes from, for the input lines and the agreement on it.
  std::string inputOrigin(const ir::Graph& g, size_t i) const {
    return inputs_.empty() ? fmt::format("random, seed {}", seed_)
                           : driver::describeInputFile(g, i, inputs_[i], images_.preprocess());
  }

  std::vector<Tensor> readOrMakeInputs(const ir::Graph& g) const {
    std::vector<Tensor> inputs;
    if (inputs_.empty()) {
      inputs = quant::randomInputs(g, seed_);
    } else {
      for (size_t i = 0; i < inputs_.size(); ++i) {
        inputs.push_back(driver::readInputFile(g, i, inputs_[i], images_.preprocess()));
      }
    }
    for (size_t i = 0; i < inputs.size(); ++i) {
      const ir::Value& v = g.value(g.inputs[i]);
      fmt::print("input '{}': {} ({})\n", v.name, typeText(v.dtype, v.shape), inputOrigin(g, i));
    }
    return inputs;
  }

  /// Calibrates (on the given inputs, or on seeded random inputs drawn with the fixed
  /// calibration seed, so the quantized model does not depend on --seed), quantizes, prints the
  /// agreement with fp32 on --eval-samples evaluation inputs (another fixed seed: none is a
  /// calibration input) and on the run's input \p inputs (whose fp32 outputs are \p fp32), and
  /// returns the dequantized int8 outputs on \p inputs.
  std::vector<Tensor> runInt8(const ir::Graph& g, const std::vector<Tensor>& inputs,
                              const std::vector<Tensor>& fp32) const {
    std::vector<std::vector<Tensor>> calibration;
    if (calibration_.hasFolder()) {
      calibration = calibrationSets_;
      fmt::print("int8: calibrated on {} in {}\n",
                 counted(static_cast<int64_t>(calibration.size()), "file"), calibration_.folder());
    } else if (inputs_.empty()) {
      calibration = quant::makeCalibrationInputs(g, calibSamples_, quant::kDefaultCalibrationSeed);
      fmt::print("int8: calibrated on {} (calibration seed {:#x})\n",
                 counted(calibSamples_, "random input set"), quant::kDefaultCalibrationSeed);
    } else {
      quant::checkCalibrationInputs(g, inputs, inputs_);
      calibration.push_back(inputs);
      std::string files;
      for (size_t i = 0; i < inputs_.size(); ++i) {
        files += (i > 0 ? ", " : "") + inputs_[i];
      }
      fmt::print("int8: calibrated on {}\n", files);
    }
    const quant::QuantizedModel model = quant::quantize(g, calibration, calibration_.method());
    fmt::print("int8: activation ranges by {}\n", calibration_.methodText());
    if (calibration_.method().asymmetric)
      fmt::print("int8: asymmetric activations: each range over the 256 codes with a zero point "
                 "(docs/Quantization.md)\n");
    if (calibration_.method().equalize)
      fmt::print("int8: channels equalized after {} (docs/Quantization.md)\n",
                 counted(model.equalizedGroups, "convolution"));
    if (calibration_.method().biasCorrection)
      fmt::print("int8: bias corrected in {} (docs/Quantization.md)\n",
                 counted(model.correctedBiasChannels, "output channel"));
    printEvaluation(model, g);
    quant::Int8Executor executor(model);
    std::vector<Tensor> int8 = executor.run(inputs).dequantized;
    if (!densitiesOut_.empty())
      writeDensities(quant::inputDensities(model, executor));
    if (repeat_ > 0)
      printLatency("int8 executor", repeat_, [&] { executor.run(inputs); });
    const std::string what = inputs_.empty() || calibration_.hasFolder()
                                 ? "this input"
                                 : "this input, the calibration set";
    for (size_t i = 0; i < fp32.size(); ++i) {
      const std::string& name = g.value(g.outputs[i]).name;
      if (fp32[i].dtype() == DType::F32) {
        printAgreement(name, what, quant::measureAgreement(fp32[i], int8[i]));
      } else {
        fmt::print("int8 vs fp32 '{}' ({}): {} output, {}\n", name, what,
                   dtypeName(fp32[i].dtype()), fp32[i] == int8[i] ? "identical" : "different");
      }
    }
    if (sensitivity_)
      printSensitivity(model, inputs);
    return int8;
  }

  /// --densities-out: the measured input densities as a per-layer JSON object.
  void writeDensities(const std::map<std::string, double>& densities) const {
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    for (const auto& [layer, density] : densities)
      j[layer] = density;
    std::ofstream out(densitiesOut_);
    out << j.dump(2) << "\n";
    if (!out)
      throw Error(ErrorKind::Io, ErrorContext{.file = densitiesOut_}, "cannot write the file");
    fmt::print("wrote {} layers' measured input densities to {}\n", densities.size(),
               densitiesOut_);
  }

  /// The --sensitivity table: the kSensitivityRows values whose int8 rounding alone costs the
  /// outputs most.
  void printSensitivity(const quant::QuantizedModel& model,
                        const std::vector<Tensor>& inputs) const {
    constexpr size_t kSensitivityRows = 15;
    constexpr size_t kMaxSensitivityRows = 64;
    const std::vector<Tensor> fake = quant::runFakeQuantized(model, inputs);
    reference::Executor fp32(model.graph);
    const std::vector<Tensor> clean = fp32.run(inputs);
    for (size_t i = 0; i < fake.size(); ++i)
      if (clean[i].dtype() == DType::F32)
        printAgreement(model.graph.value(model.graph.outputs[i]).name,
                       "every value fake-quantized at once, fp32 arithmetic",
                       quant::measureAgreement(clean[i], fake[i]));
    const std::vector<quant::ValueSensitivity> rows = quant::measureSensitivity(model, inputs);
    const std::vector<quant::FallbackStep> fallback =
        quant::measureFallback(model, inputs, rows, kFallbackTargetCosine);
    // Every value the fallback needed is listed, so the user sees which layers they are.
    const size_t listed =
        std::min(std::max(kSensitivityRows, fallback.back().keptInFp32), kMaxSensitivityRows);
    fmt::print("int8 sensitivity on this input ({} values, each alone at int8, the rest fp32; "
               "worst first; spread: largest channel's max|x| over the median channel's):\n",
               rows.size());
    fmt::print("  {:>4}  {:<40} {:<18} {:>10} {:>9} {:>8} {:>12} {:>10}  {}\n", "rank", "value",
               "op", "scale", "clipped", "spread", "out cosine", "rel error", "worst output");
    for (size_t i = 0; i < std::min(rows.size(), listed); ++i) {
      const quant::ValueSensitivity& r = rows[i];
      fmt::print("  {:>4}  {:<40} {:<18} {:>10} {:>8.3f}% {:>8.1f} {:>12.6f} {:>10}  {}\n", i + 1,
                 r.name.size() > 40 ? "..." + r.name.substr(r.name.size() - 37) : r.name, r.op,
                 numberText(r.scale), 100.0 * r.clippedFraction, r.channelSpread,
                 r.worstOutput.cosineSimilarity, numberText(r.worstOutput.relativeError),
                 r.worstOutputName);
    }
    printFallback(fallback, rows.size());
  }

  /// The precision-fallback curve: the worst output's cosine with the k most sensitive values
  /// left in fp32.
  static void printFallback(const std::vector<quant::FallbackStep>& steps, size_t values) {
    fmt::print("int8 with the most sensitive values (ranked above) left in fp32, the rest at "
               "int8 (fake-quantized; worst output's cosine):\n");
    for (const quant::FallbackStep& s : steps)
      fmt::print("  {:>4} of {} in fp32: cosine {:.6f} ({})\n", s.keptInFp32, values,
                 s.worstOutput.cosineSimilarity, s.worstOutputName);
    const quant::FallbackStep& last = steps.back();
    if (last.keptInFp32 == 0)
      fmt::print("  cosine {} reached at int8 alone\n", kFallbackTargetCosine);
    else
      fmt::print("  cosine {} {} with values ranked 1-{} in fp32\n", kFallbackTargetCosine,
                 last.worstOutput.cosineSimilarity >= kFallbackTargetCosine ? "reached"
                                                                            : "not reached",
                 last.keptInFp32);
  }

  /// The agreement over --eval-samples seeded random input sets.
  /// \p model's outputs are named as in \p user, the graph the user gave (a QDQ model's
  /// quantized graph has its output Quantize/Dequantize pair absorbed).
  void printEvaluation(const quant::QuantizedModel& model, const ir::Graph& user) const {
    const ir::Graph& g = model.graph;
    if (evalSamples_ == 0) {
      return;
    }
    if (const ir::Value* v = nonFloatInput(g)) {
      fmt::print("int8: no random evaluation inputs (input '{}' is {}; random inputs are f32 "
                 "only)\n",
                 v->name, dtypeName(v->dtype));
      return;
    }
    fmt::print("int8: agreement measured on {} (evaluation seed {:#x}; none is a calibration "
               "input)\n",
               counted(evalSamples_, "other random input set"), quant::kDefaultEvaluationSeed);
    const auto agreements = quant::measureModelAgreement(
        model, quant::makeCalibrationInputs(g, evalSamples_, quant::kDefaultEvaluationSeed));
    const std::string what = counted(evalSamples_, "evaluation input");
    for (size_t i = 0; i < agreements.size(); ++i) {
      const ir::Value& out = user.value(user.outputs[i]);
      if (agreements[i]) {
        printAgreement(out.name, what, *agreements[i]);
      } else {
        fmt::print("int8 vs fp32 '{}' ({}): {} output, not compared\n", out.name, what,
                   dtypeName(out.dtype));
      }
    }
  }

  CLI::App* app_ = nullptr;
  ModelOptions modelOptions_;
  ImageOptions images_;
  std::vector<std::string> inputs_;
  std::vector<std::string> outputs_;
  std::string dtype_ = "f32";
  uint64_t seed_ = 0;
  int calibSamples_ = quant::kDefaultCalibrationCount;
  int evalSamples_ = quant::kDefaultEvaluationCount;
  CalibrationOptions calibration_;
  std::vector<std::vector<Tensor>> calibrationSets_; ///< --calib's files, read before the run
  bool sensitivity_ = false;
  int repeat_ = 0; ///< --repeat: timed runs after the warm-up (0: none)
  std::string densitiesOut_;
  CLI::Option* densitiesOption_ = nullptr;
  CLI::Option* calibOption_ = nullptr;
  CLI::Option* sensitivityOption_ = nullptr;
  CLI::Option* evalOption_ = nullptr;
};

} // namespace

std::unique_ptr<Command> makeRunCommand() {
  return std::make_unique<RunCommand>();
}

} // namespace nnaccel::cli
