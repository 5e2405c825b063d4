/// \file
/// Binding the symbolic dimensions of a model's graph inputs (private to the ONNX importer):
/// a dim_param named by ImportOptions::dimParams (--dim) takes that value; otherwise a
/// dimension takes the extent of the data file given for its input (ImportOptions::inputData,
/// from --input), a leading (batch) dimension takes defaultSymbolicDim (--batch); anything
/// else is unbound, and an unbound dimension is an error naming every one of them and how to
/// bind it, never a silent 1. The bindings are recorded for `nnaccel info`.
#pragma once

#include "nnaccel/frontend/Onnx.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace nnaccel::frontend::detail {

class DimBinder {
public:
  DimBinder(const ImportOptions& options, std::string file)
      : options_(options), file_(std::move(file)) {}

  /// Before the first pass, for each runtime input with a shape: the dims it declares (-1 where
  /// symbolic), which an InputData::shapeFor turns into the data's shape.
  void declare(size_t runtimeIndex, const Dims& declared);

  /// First pass, over every symbolic dimension: notes the extent the data file of runtime
  /// input \p runtimeIndex gives a named dimension \p param (empty: unnamed), so that a
  /// dimension shared by several inputs is bound by whichever has a file.
  void observe(size_t runtimeIndex, size_t axis, size_t rank, const std::string& param);

  /// Second pass: the extent of axis \p axis of runtime input \p runtimeIndex (named \p input)
  /// whose dimension is symbolic, named \p param or unnamed when \p param is empty; 0 while
  /// unbound (finish() then throws).
  int64_t bind(const std::string& input, size_t runtimeIndex, size_t axis, size_t rank,
               const std::string& param);

  /// Throws Error(Usage) naming every --dim name no input has, data files that give one
  /// dimension two values, and every unbound dimension.
  void finish() const;

  /// "NAME=VALUE (how)" per bound symbolic dimension, in the order bound.
  const std::vector<std::string>& bindings() const { return bindings_; }

private:
  /// The file's extent for this axis when a data file of the input's rank was given.
  std::optional<int64_t> fileExtent(size_t runtimeIndex, size_t axis, size_t rank) const;

  struct FromFile {
    int64_t value = 0;
    std::string file;
  };
  const ImportOptions& options_;
  std::string file_;
  std::map<size_t, Dims> dataShapes_;         ///< runtime input -> its data's shape
  std::map<std::string, FromFile> fromFiles_; ///< named dimension -> the first file's extent
  std::map<std::string, int64_t> bound_;      ///< named dimension -> value, once bound
  std::set<std::string> usedParams_;          ///< dimParams entries some input has
  std::set<std::string> notBatch_;            ///< named dimensions some input has off axis 0
  std::vector<std::string> unbound_, conflicts_, bindings_;
};

} // namespace nnaccel::frontend::detail
