// --json/--csv of the listing commands (ListOutput.h).
#include "ListOutput.h"

#include "nnaccel/report/Report.h"

#include <algorithm>
#include <fmt/format.h>

namespace nnaccel::cli {
namespace {

std::string csvCell(const nlohmann::ordered_json& v) {
  if (v.is_string())
    return report::csvField(v.get<std::string>());
  if (v.is_null())
    return "";
  if (v.is_array()) {
    std::vector<std::string> parts;
    for (const auto& e : v)
      parts.push_back(e.is_string() ? e.get<std::string>() : e.dump());
    return report::csvField(fmt::format("{}", fmt::join(parts, "x")));
  }
  return v.dump();
}

} // namespace

void ListOutput::configure(CLI::App& app, const std::string& what) {
  auto* json = app.add_flag("--json", json_, fmt::format("print {} as a JSON array", what));
  app.add_flag("--csv", csv_, fmt::format("print {} as CSV", what))->excludes(json);
}

void ListOutput::print(const nlohmann::ordered_json& records) const {
  if (json_) {
    fmt::print("{}\n", records.dump(2));
    return;
  }
  if (records.empty())
    return;
  std::vector<std::string> header; // every record's keys, in the order first seen
  for (const auto& record : records)
    for (const auto& [key, value] : record.items())
      if (std::find(header.begin(), header.end(), key) == header.end())
        header.push_back(key);
  fmt::print("{}\n", fmt::join(header, ","));
  for (const auto& record : records) {
    std::vector<std::string> cells;
    for (const std::string& key : header)
      cells.push_back(record.contains(key) ? csvCell(record[key]) : "");
    fmt::print("{}\n", fmt::join(cells, ","));
  }
}

} // namespace nnaccel::cli
