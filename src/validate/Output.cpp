/// \file
/// What `nnaccel validate` prints and writes: the published and measured figures side by side
/// with their ratio and agreement, each run's one-line outcome, and the `--report` JSON (the
/// `rows` array of {name, published, measured, unit, source} the issue tracker and the
/// benchmark read).
#include "nnaccel/report/TextTable.h"
#include "nnaccel/validate/Validation.h"

#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace nnaccel::validate {
namespace {

/// A figure with as many digits as it needs: whole numbers grouped, others to 4 significant.
std::string figure(double v) {
  if (!std::isfinite(v))
    return "n/a";
  if (v == std::round(v) && std::abs(v) < 9e15)
    return report::groupThousands(static_cast<int64_t>(v));
  return fmt::format("{:.4g}", v);
}

std::string ratioText(const RowResult& r) {
  if (!r.ratio)
    return "";
  return std::isfinite(*r.ratio) ? fmt::format("{:.3f}", *r.ratio) : "n/a";
}

std::string verdictText(const RowResult& r) {
  if (r.skipped)
    return "full size only";
  if (!r.spec.published)
    return r.agrees ? "holds" : "does not hold";
  return r.agrees ? "within" : "OUTSIDE";
}

std::string sizeName(Size s) {
  return s == Size::Full ? "full" : "reduced";
}

std::string runLine(const RunResult& r) {
  const report::RunReport& rep = r.report;
  std::string verdict = "not verified (timing only)";
  if (rep.verdict.checked)
    verdict = rep.verdict.passed ? "VERIFIED" : "MISMATCH";
  return fmt::format("  {}: {} on {} '{}': {} cycles, {:.3f} uJ; {}", r.spec.name, rep.model,
                     rep.engine, rep.config, report::groupThousands(rep.total.cycles),
                     rep.energyPerInferencePj() / 1e6, verdict);
}

} // namespace

std::string formatResult(const ValidationResult& r) {
  using Align = report::TextTable::Align;
  const Validation& v = *r.validation;
  std::string out =
      fmt::format("validation '{}' ({} size): {}\n", v.name, sizeName(r.size), v.title);
  out += "runs:\n";
  for (const RunResult& run : r.runs)
    out += runLine(run) + "\n";
  report::TextTable table({{"figure", Align::Left},
                           {"published", Align::Right},
                           {"measured", Align::Right},
                           {"unit", Align::Left},
                           {"ratio", Align::Right},
                           {"tolerance", Align::Right},
                           {"", Align::Left},
                           {"source", Align::Left}});
  for (const RowResult& row : r.rows) {
    const RowSpec& s = row.spec;
    table.addRow({s.name, s.published ? figure(*s.published) : "(" + s.claim + ")",
                  figure(row.measured), s.unit, ratioText(row),
                  s.published ? fmt::format("{:g}%", 100 * s.tolerance) : "", verdictText(row),
                  s.source});
  }
  out += table.render();
  out += fmt::format("{} of {} figures agree with the source{}{}\n", r.agreeing(), r.measured(),
                     r.measured() < static_cast<int>(r.rows.size())
                         ? fmt::format(" ({} measured at full size only)",
                                       r.rows.size() - static_cast<size_t>(r.measured()))
                         : "",
                     r.verified() ? "; every verified run is bit-exact"
                                  : "; a run did NOT match its reference");
  for (const RowResult& row : r.rows)
    if (!row.agrees && !row.skipped && !row.spec.note.empty())
      out += fmt::format("  {}: {}\n", row.spec.name, row.spec.note);
  return out;
}

std::string resultJson(const ValidationResult& r) {
  using nlohmann::ordered_json;
  ordered_json j;
  j["validation"] = r.validation->name;
  j["title"] = r.validation->title;
  j["size"] = sizeName(r.size);
  j["runs"] = ordered_json::array();
  for (const RunResult& run : r.runs) {
    const report::RunReport& rep = run.report;
    j["runs"].push_back({{"name", run.spec.name},
                         {"model", rep.model},
                         {"engine", rep.engine},
                         {"config", rep.config},
                         {"cycles", rep.total.cycles},
                         {"energy_per_inference_pj", rep.energyPerInferencePj()},
                         {"verified", rep.verdict.checked && rep.verdict.passed}});
  }
  j["rows"] = ordered_json::array();
  for (const RowResult& row : r.rows) {
    const RowSpec& s = row.spec;
    ordered_json o;
    o["name"] = s.name;
    o["published"] = s.published ? ordered_json(*s.published) : ordered_json(nullptr);
    o["measured"] = std::isfinite(row.measured) ? ordered_json(row.measured) : nullptr;
    o["unit"] = s.unit;
    o["source"] = s.source;
    o["ratio"] = row.ratio && std::isfinite(*row.ratio) ? ordered_json(*row.ratio) : nullptr;
    o["tolerance"] = s.tolerance;
    o["claim"] = s.claim;
    o["agrees"] = row.agrees;
    o["note"] = s.note;
    o["skipped"] = row.skipped;
    j["rows"].push_back(std::move(o));
  }
  j["agreeing"] = r.agreeing();
  j["verified"] = r.verified();
  return j.dump(2) + "\n";
}

std::string listText() {
  using Align = report::TextTable::Align;
  report::TextTable table({{"name", Align::Left},
                           {"runs", Align::Right},
                           {"figures", Align::Right},
                           {"what it reproduces", Align::Left}});
  for (const Validation& v : builtinValidations())
    table.addRow({v.name, std::to_string(v.runs.size()), std::to_string(v.rows.size()), v.title});
  return table.render() + "run one with 'nnaccel validate NAME' (--size reduced for the test "
                          "suite's smaller runs, --report FILE for JSON)\n";
}

} // namespace nnaccel::validate
