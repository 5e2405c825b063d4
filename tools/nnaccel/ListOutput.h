/// \file
/// `--json` and `--csv` for the listing commands (`zoo list`, `arch list`): the records a
/// listing prints as a table, as a JSON array of objects or as CSV rows with one column per key.
#pragma once
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>

namespace nnaccel::cli {

class ListOutput {
public:
  /// Adds the two flags (mutually exclusive) to \p app, which lists \p what.
  void configure(CLI::App& app, const std::string& what);
  /// True when neither flag was given: the command prints its table.
  bool table() const { return !json_ && !csv_; }
  /// Prints \p records (JSON objects) as the flag asked: JSON as it is; CSV with every key of
  /// every record as a column (first seen first; empty where a record lacks it), an array as
  /// its elements joined by 'x' (a shape) and a string quoted where it must be.
  void print(const nlohmann::ordered_json& records) const;

private:
  bool json_ = false, csv_ = false;
};

} // namespace nnaccel::cli
