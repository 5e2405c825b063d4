/// \file
/// The MODEL argument and the options that say how to load it, shared by every command that
/// loads a model (`info`, `run`): `--dim NAME=VALUE` (repeatable) binds a named symbolic ONNX
/// dimension (dim_param), the command's `--input` files bind the dimensions of their inputs
/// by their shapes, and `--batch N` binds a leading (batch) dimension (default 1); any other
/// symbolic dimension is an error naming it (frontend::ImportOptions). They go to the importer
/// through driver::LoadOptions; a zoo model has fixed shapes, so --dim is a usage error there.
#pragma once

#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/tensor/Image.h"

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

  /// The load options for MODEL, with the shapes of \p inputFiles (.npy or images as \p image
  /// preprocesses them, one per runtime input in order) binding symbolic dimensions. Throws
  /// Error(Usage) with the pointer to the command's --help when a --dim name is given twice or
  /// --dim is given for a zoo model, and Error(Io) naming an input file that cannot be read.
  driver::LoadOptions loadOptions(const std::vector<std::string>& inputFiles = {},
                                  const ImagePreprocess& image = {}) const;

  /// How the symbolic dimensions of \p g were bound, for the command's header: "symbolic dims:
  /// H=96 (--dim), W=128 (from x.npy), N=1 (batch, default 1 ...)"; empty when it has none.
  static std::string bindingsText(const ir::Graph& g);

private:
  CLI::App* app_ = nullptr;
  std::string model_;
  std::vector<std::string> dims_; ///< NAME=VALUE as given (validated by the parser)
  int64_t batch_ = 1;
  CLI::Option* batchOption_ = nullptr;
};

} // namespace nnaccel::cli
