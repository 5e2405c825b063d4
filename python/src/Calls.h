/// \file
/// What the Python package calls (python/README.md): each function is one CLI command's work
/// on already-parsed arguments, returning Python objects (reports as their JSON text, which the
/// pure-Python layer wraps). The GIL is released while nnaccel computes; progress callbacks
/// and Ctrl-C are served between layers (Interruptible).
#pragma once
#include "nnaccel/ir/Graph.h"

#include <map>
#include <memory>
#include <optional>
#include <pybind11/pybind11.h>
#include <string>
#include <vector>

namespace nnaccel::python {

/// A loaded model: the graph every call runs, ready (shapes inferred, passes applied).
struct Model {
  std::string source; ///< what the user named: a file path or a zoo model
  std::shared_ptr<const ir::Graph> graph;
};

/// driver::loadModel with the CLI's binding rules: \p dims by name, the shapes of \p inputs
/// (numpy arrays, one per graph input) for the other symbolic dims, \p batch for a batch dim.
Model load(const std::string& model, const std::map<std::string, int64_t>& dims,
           std::optional<int64_t> batch, const pybind11::handle& inputs);
/// The model's inputs/outputs and per-layer summary: `nnaccel info --json`'s text.
std::string infoJson(const Model& m);

/// The int8 options shared by run and simulate.
struct Int8Options {
  pybind11::object calibration; ///< None or a list of input sets (each a list of arrays)
  std::string method = "minmax";
  double percentile = 99.99;
  bool equalize = false;
  bool asymmetric = false;     ///< quant::CalibrationOptions::asymmetric
  bool biasCorrection = false; ///< quant::CalibrationOptions::biasCorrection
};

/// `nnaccel run`: the fp32 reference's outputs, or the int8 executor's dequantized outputs.
pybind11::list run(const Model& m, const pybind11::handle& inputs, const std::string& dtype,
                   uint64_t seed, const Int8Options& int8);

struct SimulateOptions {
  std::string arch;                   ///< a registered engine name
  std::string preset;                 ///< "" with config empty: the engine's default
  std::string config;                 ///< a YAML config file
  std::vector<std::string> overrides; ///< "key=value"
  std::string dtype = "int8";
  bool timingOnly = false;
  bool baseline = false;
  std::vector<std::string> host; ///< "key=value" of the host model
  std::map<std::string, int64_t> engineOptions;
  int threads = 1;
};

/// `nnaccel simulate`: the run report's JSON.
std::string simulate(const Model& m, const pybind11::handle& inputs, const SimulateOptions& o,
                     const Int8Options& int8, const pybind11::object& progress);
/// `nnaccel compare`: the comparison's JSON (compare::comparisonJson).
std::string compare(const Model& m, const std::string& budgetFile,
                    const std::vector<std::string>& engines, bool timingOnly,
                    const pybind11::object& progress);
/// `nnaccel sweep`: the points as dicts (the CSV's columns), ranked.
pybind11::list sweep(const Model& m, const SimulateOptions& base,
                     const std::vector<std::string>& params, const std::string& objective,
                     const std::vector<std::string>& paretoAxes, int threads,
                     const pybind11::object& progress);

/// The registered engines: name, description, presets, default preset.
pybind11::list engines();
/// The effective config of \p arch (preset or file, overrides applied) as YAML.
std::string configYaml(const std::string& arch, const std::string& preset,
                       const std::string& config, const std::vector<std::string>& overrides);
/// The zoo: one dict per model.
pybind11::list zooList();
/// Writes zoo model \p name as ONNX to \p path.
void zooExport(const std::string& name, const std::string& path, uint64_t seed);

} // namespace nnaccel::python
