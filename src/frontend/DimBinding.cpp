// Binding the symbolic dimensions of graph inputs (DimBinding.h).
#include "DimBinding.h"

#include "nnaccel/support/Error.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace nnaccel::frontend::detail {

void DimBinder::declare(size_t runtimeIndex, const Dims& declared) {
  if (runtimeIndex >= options_.inputData.size())
    return;
  const InputData& d = options_.inputData[runtimeIndex];
  dataShapes_[runtimeIndex] = d.shapeFor ? d.shapeFor(declared) : d.shape;
}

std::optional<int64_t> DimBinder::fileExtent(size_t runtimeIndex, size_t axis, size_t rank) const {
  const auto it = dataShapes_.find(runtimeIndex);
  if (it == dataShapes_.end() || it->second.size() != rank)
    return std::nullopt; // the input's own check names the mismatch later
  if (it->second[axis] < 0)
    return std::nullopt; // left to the other rules (an image's batch)
  return it->second[axis];
}

void DimBinder::observe(size_t runtimeIndex, size_t axis, size_t rank, const std::string& param) {
  if (!param.empty() && axis != 0)
    notBatch_.insert(param); // a name used off the leading axis is no batch size
  const std::optional<int64_t> extent = fileExtent(runtimeIndex, axis, rank);
  if (param.empty() || !extent)
    return;
  const std::string& file = options_.inputData[runtimeIndex].file;
  auto [it, fresh] = fromFiles_.try_emplace(param, FromFile{*extent, file});
  if (!fresh && it->second.value != *extent && !options_.dimParams.contains(param))
    conflicts_.push_back(fmt::format("'{}' is {} in {} but {} in {}", param, *extent, file,
                                     it->second.value, it->second.file));
}

int64_t DimBinder::bind(const std::string& input, size_t runtimeIndex, size_t axis, size_t rank,
                        const std::string& param) {
  if (!param.empty() && bound_.contains(param))
    return bound_.at(param);
  // A dim with neither a value nor a dim_param is named INPUT[AXIS], for --dim too.
  const std::string name = param.empty() ? fmt::format("{}[{}]", input, axis) : param;
  std::optional<int64_t> value;
  std::string how;
  if (auto it = options_.dimParams.find(name); it != options_.dimParams.end()) {
    usedParams_.insert(name);
    value = it->second;
    how = "--dim";
  } else if (auto f = fromFiles_.find(param); !param.empty() && f != fromFiles_.end()) {
    value = f->second.value;
    how = "from " + f->second.file;
  } else if (const auto own = fileExtent(runtimeIndex, axis, rank); param.empty() && own) {
    value = own;
    how = "from " + options_.inputData[runtimeIndex].file;
  } else if (axis == 0 && !notBatch_.contains(param)) {
    value = options_.defaultSymbolicDim;
    how = options_.batchGiven ? "--batch" : "the batch default; --batch sets it";
  }
  if (!value) {
    unbound_.push_back(fmt::format("'{}' ({}axis {} of '{}')", name,
                                   param.empty() ? "unnamed, " : "", axis, input));
    return 0;
  }
  bindings_.push_back(fmt::format("{}={} ({})", name, *value, how));
  if (!param.empty())
    bound_[param] = *value;
  return *value;
}

void DimBinder::finish() const {
  const ErrorContext where{.file = file_};
  for (const auto& [name, value] : options_.dimParams)
    if (!usedParams_.contains(name))
      throw Error(ErrorKind::Usage, where,
                  "no graph input has the symbolic dimension (dim_param) '" + name + "'");
  if (!conflicts_.empty())
    throw Error(ErrorKind::Usage, where,
                fmt::format("the input files disagree on a symbolic dimension: {}",
                            fmt::join(conflicts_, "; ")));
  if (!unbound_.empty())
    throw Error(ErrorKind::Usage, where,
                fmt::format("{} symbolic input dimension{} nothing binds: {}; bind {} with --dim "
                            "NAME=VALUE or give --input files whose shapes have {}",
                            unbound_.size(), unbound_.size() == 1 ? "" : "s",
                            fmt::join(unbound_, ", "), unbound_.size() == 1 ? "it" : "them",
                            unbound_.size() == 1 ? "it" : "them"));
}

} // namespace nnaccel::frontend::detail
