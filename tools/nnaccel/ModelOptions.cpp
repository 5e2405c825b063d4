// MODEL, --dim NAME=VALUE and --batch N: parsing, validation and the header line that shows the
// bindings (shared by `nnaccel info` and `nnaccel run`).
#include "ModelOptions.h"

#include "Command.h"
#include "nnaccel/driver/Inputs.h"

#include <charconv>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <optional>
#include <utility>

namespace nnaccel::cli {

namespace {

/// NAME=VALUE split and checked: a non-empty NAME, VALUE a decimal in [1, kMaxSymbolicDim].
std::optional<std::pair<std::string, int64_t>> parseBinding(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == 0 || eq == std::string::npos) {
    return std::nullopt;
  }
  const char* first = text.data() + eq + 1;
  const char* last = text.data() + text.size();
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(first, last, value);
  if (ec != std::errc() || end != last || first == last || value < 1 || value > kMaxSymbolicDim) {
    return std::nullopt;
  }
  return std::make_pair(text.substr(0, eq), value);
}

CLI::Validator bindingValidator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (!parseBinding(text)) {
          return fmt::format("expected NAME=VALUE with VALUE an integer from 1 to {}, got '{}'",
                             kMaxSymbolicDim, text);
        }
        return {};
      },
      "NAME=VALUE");
}

} // namespace

void ModelOptions::configure(CLI::App& app) {
  app_ = &app;
  app.add_option("MODEL", model_, kModelHelp)->required();
  app.add_option("--dim", dims_,
                 "bind the symbolic (dim_param) input dimension NAME of an .onnx model to VALUE; "
                 "repeatable")
      ->check(bindingValidator());
  batchOption_ = app.add_option("--batch", batch_,
                                "batch size: the value of every symbolic input dimension of an "
                                ".onnx model that --dim does not bind, or a zoo model's batch")
                     ->check(CLI::Range(int64_t{1}, kMaxSymbolicDim))
                     ->capture_default_str();
}

driver::LoadOptions ModelOptions::loadOptions(const std::vector<std::string>& inputFiles,
                                              const ImagePreprocess& image) const {
  driver::LoadOptions options;
  options.import.defaultSymbolicDim = batch_;
  options.import.batchGiven = batchOption_->count() > 0;
  if (driver::modelSource(model_) == driver::ModelSource::File)
    for (const std::string& file : inputFiles)
      options.import.inputData.push_back(driver::inputData(file, image));
  for (const std::string& text : dims_) {
    const auto binding = parseBinding(text);
    NNACCEL_ASSERT(binding.has_value()) << "--dim '" << text << "' passed the validator";
    if (!options.import.dimParams.emplace(binding->first, binding->second).second) {
      throw usageError(*app_, fmt::format("--dim: '{}' is bound twice", binding->first));
    }
  }
  if (!dims_.empty() && driver::modelSource(model_) == driver::ModelSource::Zoo) {
    throw usageError(*app_, fmt::format("--dim applies only to .onnx files ('{}' is a zoo model "
                                        "with no named dimensions; --batch sets its batch)",
                                        model_));
  }
  return options;
}

std::string ModelOptions::bindingsText(const ir::Graph& g) {
  if (g.dimBindings.empty())
    return {};
  return fmt::format("symbolic dims: {}", fmt::join(g.dimBindings, ", "));
}

} // namespace nnaccel::cli
