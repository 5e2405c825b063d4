/// \file
/// `nnaccel compare`: one model on several engines under one equal-resource budget. Each
/// engine's config is derived from the budget (Budget.h), the model is compiled, simulated and
/// verified on it, and the results are put side by side per layer and in total: cycles,
/// utilization, DRAM bytes, energy and the verification verdict. An engine that cannot take the
/// budget or the model keeps its place in every output with the one-line reason; a layer an
/// engine runs on the host says so. Text, JSON, CSV and HTML forms share the run report's
/// schema (docs/report-schema.md).
#pragma once

#include "nnaccel/compare/Budget.h"
#include "nnaccel/engines/Engine.h"
#include "nnaccel/ir/Graph.h"
#include "nnaccel/report/Report.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace nnaccel::compare {

/// One engine's part of a comparison.
struct EngineRun {
  std::string engine;
  std::optional<engines::EngineConfig> config; ///< absent: the budget does not fit the engine
  engines::Resources resources;                ///< of config (zero when absent)
  BudgetCost cost;                             ///< of config: area and peak power
  std::optional<report::RunReport> report;     ///< absent: no config, or the model did not map
  std::string error;                           ///< why report is absent (one line)
  bool internalError = false;                  ///< the error is a bug in nnaccel, not a refusal
  /// Ctrl-C: the run stopped (report holds its finished layers) or never started (no report)
  bool interrupted = false;
};

struct Comparison {
  std::string model;
  Budget budget;
  std::vector<EngineRun> runs; ///< in the order asked for
};

/// Runs \p g on every engine of \p engineList under \p budget. Errors of one engine (budget,
/// compile) are recorded in its EngineRun, never thrown; \p options apply to every run.
/// \p onEngine, when set, is called before each engine starts.
Comparison compareModel(const ir::Graph& g, const Budget& budget,
                        const std::vector<std::string>& engineList,
                        const engines::RunOptions& options,
                        const std::function<void(const std::string&)>& onEngine = {});

/// The text form: the budget and each engine's derived resources, per-layer tables of cycles,
/// utilization, DRAM bytes and energy (one column per engine), the totals with verdicts, and
/// one line per engine or layer that did not map.
std::string formatComparison(const Comparison& c);
/// JSON: {schema, schema_version, model, budget, engines: [{engine, status, error, resources,
/// report}]} with each report in the run report's JSON form.
std::string comparisonJson(const Comparison& c);
/// CSV: report::RunReport::csvHeader() and every engine's rows; an engine without a report has
/// one row whose `verified` column gives the reason.
std::string comparisonCsv(const Comparison& c);
/// A self-contained HTML page: totals side by side, then every engine's standard sections.
std::string renderComparisonHtml(const Comparison& c);

} // namespace nnaccel::compare
