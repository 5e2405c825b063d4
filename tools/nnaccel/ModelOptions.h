/// \file
/// The MODEL argument and the options that say how to load it, shared by every command that
/// loads a model (`info`, `run`): `--dim NAME=VALUE` (repeatable) binds a named symbolic ONNX
/// dimension (dim_param), `--batch N` binds every other symbolic dimension (default 1). They go
/// to the importer through driver::LoadOptions; a zoo model has fixed shapes, so they are a
/// usage error there.
#pragma once

#include "nnaccel/driver/ModelLoader.h"

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace nnaccel::cli {

/// Largest value --dim and --batch accept (the importer rejects inputs above 2^40 elements).
inline constexpr int64_t kMaxSymbolicDim = int64_t{1} << 40;

class ModelOptions {
public:
  /// Adds MODEL, --dim and --batch to \p app.
  void configure(CLI::App& app);

  const std::string& model() const { return model_; }

  /// The load options for MODEL. Throws Error(Usage) with the pointer to the command's --help
  /// when a --dim name is given twice or --dim/--batch are given for a zoo model.
  driver::LoadOptions loadOptions() const;

  /// The bindings the user gave, for the command's header: "symbolic dims: N=4, seq=16, any
  /// other 2" or "symbolic dims: any 4"; empty when neither --dim nor --batch was given.
  std::string bindingsText() const;

private:
  CLI::App* app_ = nullptr;
  std::string model_;
  std::vector<std::string> dims_; ///< NAME=VALUE as given (validated by the parser)
  int64_t batch_ = 1;
  CLI::Option* batchOption_ = nullptr;
};

} // namespace nnaccel::cli
