/// \file
/// SCALE-Sim v2's per-layer numbers (single_layer_sim.py): read streams first (they never depend
/// on time), then one pass over the demand lines where something happens (an ofmap write, a read
/// that waits for a prefetch, a line whose cycle a report needs), accumulating stalls as
/// double_buffered_scratchpad.service_memory_requests does.
#include "nnaccel/scalesim/Simulator.h"

#include "Folds.h"
#include "ReadBuffers.h"
#include "WriteBuffer.h"
#include "nnaccel/support/Error.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <limits>

namespace nnaccel::scalesim {

namespace {

using detail::Folds;
using detail::LayerMatrices;
using detail::Operand;
using detail::ReadStream;

void checkConfig(const Config& c) {
  auto require = [](bool ok, const char* key, int64_t value, int64_t minimum) {
    if (!ok) {
      throw Error(ErrorKind::Config, ErrorContext{.key = key},
                  fmt::format("expected an integer >= {}, got {}", minimum, value));
    }
  };
  require(c.arrayRows >= 1, "ArrayHeight", c.arrayRows, 1);
  require(c.arrayCols >= 1, "ArrayWidth", c.arrayCols, 1);
  require(c.ifmapSramKiB >= 1, "IfmapSramSzkB", c.ifmapSramKiB, 1);
  require(c.filterSramKiB >= 1, "FilterSramSzkB", c.filterSramKiB, 1);
  require(c.ofmapSramKiB >= 1, "OfmapSramSzkB", c.ofmapSramKiB, 1);
  constexpr int64_t kMaxKiB = int64_t{1} << 30;
  if (std::max({c.ifmapSramKiB, c.filterSramKiB, c.ofmapSramKiB}) > kMaxKiB ||
      std::max(c.arrayRows, c.arrayCols) > (int64_t{1} << 20)) {
    throw Error(ErrorKind::Config, {}, "array or SRAM size out of range");
  }
  if (c.bandwidthMode == BandwidthMode::User &&
      (c.userBandwidthWordsPerCycle.empty() || c.userBandwidthWordsPerCycle.front() < 1)) {
    throw Error(ErrorKind::Config, ErrorContext{.key = "Bandwidth"},
                "USER mode needs a first bandwidth of at least 1 word per cycle");
  }
}

void checkLayer(const Layer& l) {
  const ErrorContext where{.node = l.name};
  const int64_t dims[] = {l.ifmapHeight, l.ifmapWidth, l.filterHeight, l.filterWidth,
                          l.channels,    l.numFilters, l.strideHeight, l.strideWidth};
  for (int64_t d : dims) {
    if (d < 1) {
      throw Error(ErrorKind::Model, where, "layer dimensions and strides must be positive");
    }
  }
  if (l.filterHeight > l.ifmapHeight || l.filterWidth > l.ifmapWidth) {
    throw Error(ErrorKind::Model, where, "filter larger than the ifmap");
  }
  // Address ids and the per-address state are held in arrays: keep them addressable.
  constexpr double kMaxWords = double(int64_t{1} << 31);
  const double ifmapWords = double(l.ifmapHeight) * double(l.ifmapWidth) * double(l.channels);
  const double window = double(l.filterHeight) * double(l.filterWidth) * double(l.channels);
  const double pixels = double(l.ofmapHeight()) * double(l.ofmapWidth());
  if (ifmapWords > kMaxWords || window * double(l.numFilters) > kMaxWords ||
      pixels * window > kMaxWords * 8 || pixels * double(l.numFilters) > kMaxWords * 8) {
    throw Error(ErrorKind::Unsupported, where,
                "layer too large to simulate (more than 2^31 ifmap or filter words)");
  }
}

/// The SRAM reads and writes SCALE-Sim's compute module counts (its ofmap count includes
/// rows + columns per fold in os, and partial sums once per row fold in ws and is).
struct SramCounts {
  int64_t ifmapReads = 0, filterReads = 0, ofmapWrites = 0;
};

SramCounts sramCounts(const LayerMatrices& m, const Folds& f) {
  const int64_t p = m.pixels(), k = m.window(), n = m.filters();
  switch (f.dataflow) {
  case Dataflow::OutputStationary:
    return {f.colFolds * p * k, f.rowFolds * k * n,
            p * n + f.numFolds() * (f.arrayRows + f.arrayCols)};
  case Dataflow::WeightStationary:
    return {f.colFolds * p * k, k * n, f.rowFolds * p * n};
  case Dataflow::InputStationary:
    return {k * p, f.colFolds * k * n, f.rowFolds * p * n};
  }
  return {};
}

/// Cycles of a line where the cycle loop has to stop, and what it found there.
struct LineCycles {
  int64_t line = -1;
  int64_t cycle = 0;    ///< the line's issue cycle (line + stalls so far)
  int64_t outCycle = 0; ///< the cycle the reads of the line complete
};

/// The one pass over the demand lines where something happens (an ofmap write, a read that
/// waits for a prefetch, a line whose cycle a report needs): stalls accumulated as
/// double_buffered_scratchpad.service_memory_requests does, ofmap writes through the write
/// buffer, and the cycles of the lines the reports need.
class LineWalk {
public:
  LineWalk(const Folds& f, const ReadStream& ifmap, const ReadStream& filter,
           detail::WriteBuffer& ofmapBuffer);
  LineWalk(const LineWalk&) = delete;
  LineWalk& operator=(const LineWalk&) = delete;

  void run() {
    for (int64_t fold = 0; fold < f_.numFolds(); ++fold)
      walkFold(fold);
  }

  int64_t stallCycles = 0, totalCycles = 0;
  int64_t ofmapSramStart = -1, ofmapSramStop = -1;
  // Lines whose cycles the reports need.
  LineCycles ifmapFirst, ifmapLast, filterFirst, filterLast, ifmapRefill, filterRefill;

private:
  void walkFold(int64_t fold);
  int64_t nextLine(int64_t base, int64_t l, int64_t ofmapFirst, int64_t ofmapLast) const;
  void visit(int64_t line, int64_t ofmapWords);
  static int64_t readStall(const ReadStream& s, size_t& next, int64_t line, int64_t cycle) {
    if (next < s.stalls.size() && s.stalls[next].line == line) {
      return std::max<int64_t>(0, s.stalls[next++].lastPrefetchCycle - cycle - 1);
    }
    return int64_t{0};
  }

  const Folds& f_;
  const ReadStream& ifmap_;
  const ReadStream& filter_;
  detail::WriteBuffer& ofmapBuffer_;
  const int64_t lastLine_;
  LineCycles* const marked_[6] = {&ifmapFirst, &ifmapLast,   &filterFirst,
                                  &filterLast, &ifmapRefill, &filterRefill};
  std::vector<int64_t> marks_; ///< the marked lines and the last one, sorted, unique
  size_t nextIfmapStall_ = 0, nextFilterStall_ = 0, nextMark_ = 0;
};

LineWalk::LineWalk(const Folds& f, const ReadStream& ifmap, const ReadStream& filter,
                   detail::WriteBuffer& ofmapBuffer)
    : ifmapFirst{ifmap.firstLine}, ifmapLast{ifmap.lastLine}, filterFirst{filter.firstLine},
      filterLast{filter.lastLine}, ifmapRefill{ifmap.lastRefillLine},
      filterRefill{filter.lastRefillLine}, f_(f), ifmap_(ifmap), filter_(filter),
      ofmapBuffer_(ofmapBuffer), lastLine_(f.totalLines() - 1) {
  marks_ = {lastLine_};
  for (const LineCycles* lc : marked_) {
    if (lc->line >= 0) {
      marks_.push_back(lc->line);
    }
  }
  std::sort(marks_.begin(), marks_.end());
  marks_.erase(std::unique(marks_.begin(), marks_.end()), marks_.end());
}

void LineWalk::walkFold(int64_t fold) {
  const int64_t linesPerFold = f_.linesPerFold;
  const Folds::OfmapShape shape = f_.ofmapShape(fold / f_.rowFolds, fold % f_.rowFolds);
  const int64_t base = fold * linesPerFold;
  const int64_t ofmapFirst = shape.firstLine();
  const int64_t ofmapLast = std::min(shape.lastLine(), linesPerFold - 1);
  int64_t l = 0;
  while (true) {
    const int64_t next = nextLine(base, l, ofmapFirst, ofmapLast);
    if (next >= base + linesPerFold) {
      break;
    }
    const int64_t inFold = next - base;
    visit(next, inFold >= ofmapFirst && inFold <= ofmapLast ? shape.count(inFold) : 0);
    while (nextMark_ < marks_.size() && marks_[nextMark_] <= next) {
      ++nextMark_;
    }
    l = inFold + 1;
  }
}

/// The next line of the fold starting at line \p base, from its line \p l on, where anything
/// happens (the fold's end when nothing does).
int64_t LineWalk::nextLine(int64_t base, int64_t l, int64_t ofmapFirst, int64_t ofmapLast) const {
  int64_t next = base + f_.linesPerFold;
  if (l <= ofmapLast) {
    next = std::min(next, base + std::max(l, ofmapFirst));
  }
  if (nextIfmapStall_ < ifmap_.stalls.size()) {
    next = std::min(next, ifmap_.stalls[nextIfmapStall_].line);
  }
  if (nextFilterStall_ < filter_.stalls.size()) {
    next = std::min(next, filter_.stalls[nextFilterStall_].line);
  }
  if (nextMark_ < marks_.size()) {
    next = std::min(next, marks_[nextMark_]);
  }
  return next;
}

void LineWalk::visit(int64_t line, int64_t ofmapWords) {
  const int64_t cycle = line + stallCycles;
  const int64_t ifmapStall = readStall(ifmap_, nextIfmapStall_, line, cycle);
  const int64_t filterStall = readStall(filter_, nextFilterStall_, line, cycle);
  const int64_t ofmapStall = ofmapWords > 0 ? ofmapBuffer_.write(ofmapWords, cycle) : 0;
  if (ofmapWords > 0) {
    if (ofmapSramStart < 0) {
      ofmapSramStart = cycle + ofmapStall;
    }
    ofmapSramStop = cycle + ofmapStall;
  }
  for (LineCycles* lc : marked_) {
    if (lc->line == line) {
      lc->cycle = cycle;
      const bool isIfmap = lc == &ifmapFirst || lc == &ifmapLast || lc == &ifmapRefill;
      lc->outCycle = cycle + 1 + (isIfmap ? ifmapStall : filterStall);
    }
  }
  if (line == lastLine_) {
    totalCycles = cycle + ofmapStall;
  }
  stallCycles += std::max({ifmapStall, filterStall, ofmapStall});
}

/// Per-fold mapping efficiency and compute utilization, averaged in fold order as Python sums,
/// and the overall utilization over \p r's total cycles.
void setUtilization(LayerReport& r, const LayerMatrices& m, const Folds& f) {
  const int64_t macUnits = f.arrayRows * f.arrayCols;
  const int64_t numCompute = m.pixels() * m.filters() * m.window();
  r.overallUtilPct = double(numCompute * 100) / double(r.totalCycles * macUnits);
  const int64_t foldCycles = f.dataflow == Dataflow::OutputStationary
                                 ? f.temporal + f.arrayRows + f.arrayCols - 2
                                 : 2 * f.arrayRows + 2 * f.arrayCols + f.temporal - 3;
  double mappingSum = 0, computeSum = 0;
  for (int64_t fc = 0; fc < f.colFolds; ++fc) {
    for (int64_t fr = 0; fr < f.rowFolds; ++fr) {
      const int64_t used = f.rowsUsed(fr) * f.colsUsed(fc);
      mappingSum += double(used) / double(macUnits);
      computeSum += double(used * f.temporal) / double(macUnits * foldCycles);
    }
  }
  r.mappingEfficiencyPct = mappingSum / double(f.numFolds()) * 100;
  r.computeUtilPct = computeSum / double(f.numFolds()) * 100;
}

/// The SRAM figures: reads and writes, their average bandwidths, and their first and last
/// cycles from \p walk.
void setSram(LayerReport& r, const LayerMatrices& m, const Folds& f, const LineWalk& walk) {
  const SramCounts sram = sramCounts(m, f);
  r.ifmapSramReads = sram.ifmapReads;
  r.filterSramReads = sram.filterReads;
  r.ofmapSramWrites = sram.ofmapWrites;
  r.avgIfmapSramBw = double(sram.ifmapReads) / double(r.totalCycles);
  r.avgFilterSramBw = double(sram.filterReads) / double(r.totalCycles);
  r.avgOfmapSramBw = double(sram.ofmapWrites) / double(r.totalCycles);
  r.ifmapSramStartCycle = walk.ifmapFirst.outCycle;
  r.ifmapSramStopCycle = walk.ifmapLast.outCycle;
  r.filterSramStartCycle = walk.filterFirst.outCycle;
  r.filterSramStopCycle = walk.filterLast.outCycle;
  r.ofmapSramStartCycle = walk.ofmapSramStart;
  r.ofmapSramStopCycle = walk.ofmapSramStop;
}

/// The DRAM window of read stream \p s: USER mode's own, else from the cycles of its first and
/// last refill lines (none when it was never refilled).
void dramCycles(bool user, const ReadStream& s, const LineCycles& first, const LineCycles& refill,
                int64_t& start, int64_t& stop) {
  if (user) {
    start = s.userDramStartCycle;
    stop = s.userDramStopCycle;
  } else if (s.refilled) {
    start = first.cycle - s.calcLeadCycles;
    stop = refill.cycle + 1;
  } else {
    start = -s.calcLeadCycles;
    stop = -1;
  }
}

double dramRate(int64_t words, int64_t start, int64_t stop) {
  return double(words) / double(stop - start + 1);
}

/// The DRAM figures: each operand's reads or writes, their first and last cycles and rates.
void setDram(LayerReport& r, bool user, const ReadStream& ifmap, const ReadStream& filter,
             const LineWalk& walk, const detail::WriteBuffer& ofmapBuffer) {
  dramCycles(user, ifmap, walk.ifmapFirst, walk.ifmapRefill, r.ifmapDramStartCycle,
             r.ifmapDramStopCycle);
  dramCycles(user, filter, walk.filterFirst, walk.filterRefill, r.filterDramStartCycle,
             r.filterDramStopCycle);
  r.ifmapDramReads = ifmap.dramReads;
  r.filterDramReads = filter.dramReads;
  r.ofmapDramStartCycle = ofmapBuffer.firstDrainCycle();
  r.ofmapDramStopCycle = ofmapBuffer.lastDrainCycle();
  r.ofmapDramWrites = ofmapBuffer.dramWrites();
  r.avgIfmapDramBw = dramRate(r.ifmapDramReads, r.ifmapDramStartCycle, r.ifmapDramStopCycle);
  r.avgFilterDramBw = dramRate(r.filterDramReads, r.filterDramStartCycle, r.filterDramStopCycle);
  r.avgOfmapDramBw = dramRate(r.ofmapDramWrites, r.ofmapDramStartCycle, r.ofmapDramStopCycle);
}

} // namespace

LayerReport simulateLayer(const Layer& layer, const Config& config) {
  checkConfig(config);
  checkLayer(layer);
  const LayerMatrices m(layer);
  const Folds f(m, config);
  const ReadStream ifmap = detail::simulateReads(m, f, Operand::Ifmap, config);
  const ReadStream filter = detail::simulateReads(m, f, Operand::Filter, config);
  const bool user = config.bandwidthMode == BandwidthMode::User;
  detail::WriteBuffer ofmapBuffer(1024 * config.ofmapSramKiB,
                                  user ? config.userBandwidthWordsPerCycle.front()
                                       : config.arrayCols);
  LineWalk walk(f, ifmap, filter, ofmapBuffer);
  walk.run();
  ofmapBuffer.drainAll(walk.totalCycles);

  LayerReport r;
  r.totalCycles = walk.totalCycles;
  r.stallCycles = walk.stallCycles;
  setUtilization(r, m, f);
  setSram(r, m, f, walk);
  setDram(r, user, ifmap, filter, walk, ofmapBuffer);
  return r;
}

std::vector<LayerReport> simulateTopology(const Topology& topology, const Config& config) {
  std::vector<LayerReport> out;
  out.reserve(topology.layers.size());
  for (const Layer& l : topology.layers) {
    out.push_back(simulateLayer(l, config));
  }
  return out;
}

std::string formatPythonFloat(double value) {
  if (value != value) {
    return "nan";
  }
  if (value == std::numeric_limits<double>::infinity()) {
    return "inf";
  }
  if (value == -std::numeric_limits<double>::infinity()) {
    return "-inf";
  }
  // Shortest round-trip digits, as repr() chooses them; then repr()'s layout: positional for
  // decimal exponents -4..15, scientific with a signed two-digit exponent otherwise.
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  std::string sign;
  if (sci[0] == '-') {
    sign = "-";
    sci.erase(0, 1);
  }
  const size_t e = sci.find('e');
  std::string digits = sci.substr(0, e);
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  const int exponent = std::stoi(sci.substr(e + 1));
  if (exponent < -4 || exponent >= 16) {
    const std::string_view rest = std::string_view(digits).substr(1);
    return fmt::format("{}{}{}{}e{}{:02d}", sign, digits[0], rest.empty() ? "" : ".", rest,
                       exponent < 0 ? '-' : '+', exponent < 0 ? -exponent : exponent);
  }
  if (exponent < 0) {
    return fmt::format("{}0.{}{}", sign, std::string(static_cast<size_t>(-exponent - 1), '0'),
                       digits);
  }
  const size_t intDigits = static_cast<size_t>(exponent) + 1;
  if (digits.size() <= intDigits) {
    return fmt::format("{}{}{}.0", sign, digits, std::string(intDigits - digits.size(), '0'));
  }
  return fmt::format("{}{}.{}", sign, std::string_view(digits).substr(0, intDigits),
                     std::string_view(digits).substr(intDigits));
}

namespace {

/// A cycle SCALE-Sim holds as a numpy float: printed with ".0".
std::string cycleText(int64_t cycle) {
  return formatPythonFloat(double(cycle));
}

template <typename Row>
std::string formatReport(const char* header, const std::vector<LayerReport>& reports, Row&& row) {
  std::string out = header;
  for (size_t i = 0; i < reports.size(); ++i) {
    out += fmt::format("{}, {},\n", i, fmt::join(row(reports[i]), ", "));
  }
  return out;
}

} // namespace

std::string formatComputeReport(const std::vector<LayerReport>& reports) {
  return formatReport("LayerID, Total Cycles, Stall Cycles, Overall Util %, Mapping Efficiency "
                      "%, Compute Util %,\n",
                      reports, [](const LayerReport& r) {
                        return std::vector<std::string>{std::to_string(r.totalCycles),
                                                        std::to_string(r.stallCycles),
                                                        formatPythonFloat(r.overallUtilPct),
                                                        formatPythonFloat(r.mappingEfficiencyPct),
                                                        formatPythonFloat(r.computeUtilPct)};
                      });
}

std::string formatBandwidthReport(const std::vector<LayerReport>& reports) {
  return formatReport(
      "LayerID, Avg IFMAP SRAM BW, Avg FILTER SRAM BW, Avg OFMAP SRAM BW, Avg IFMAP DRAM BW, "
      "Avg FILTER DRAM BW, Avg OFMAP DRAM BW,\n",
      reports, [](const LayerReport& r) {
        return std::vector<std::string>{
            formatPythonFloat(r.avgIfmapSramBw),  formatPythonFloat(r.avgFilterSramBw),
            formatPythonFloat(r.avgOfmapSramBw),  formatPythonFloat(r.avgIfmapDramBw),
            formatPythonFloat(r.avgFilterDramBw), formatPythonFloat(r.avgOfmapDramBw)};
      });
}

std::string formatDetailedAccessReport(const std::vector<LayerReport>& reports) {
  return formatReport(
      "LayerID, SRAM IFMAP Start Cycle, SRAM IFMAP Stop Cycle, SRAM IFMAP Reads, SRAM Filter "
      "Start Cycle, SRAM Filter Stop Cycle, SRAM Filter Reads, SRAM OFMAP Start Cycle, SRAM "
      "OFMAP Stop Cycle, SRAM OFMAP Writes, DRAM IFMAP Start Cycle, DRAM IFMAP Stop Cycle, DRAM "
      "IFMAP Reads, DRAM Filter Start Cycle, DRAM Filter Stop Cycle, DRAM Filter Reads, DRAM "
      "OFMAP Start Cycle, DRAM OFMAP Stop Cycle, DRAM OFMAP Writes,\n",
      reports, [](const LayerReport& r) {
        return std::vector<std::string>{
            cycleText(r.ifmapSramStartCycle),  cycleText(r.ifmapSramStopCycle),
            std::to_string(r.ifmapSramReads),  cycleText(r.filterSramStartCycle),
            cycleText(r.filterSramStopCycle),  std::to_string(r.filterSramReads),
            cycleText(r.ofmapSramStartCycle),  cycleText(r.ofmapSramStopCycle),
            std::to_string(r.ofmapSramWrites), cycleText(r.ifmapDramStartCycle),
            cycleText(r.ifmapDramStopCycle),   std::to_string(r.ifmapDramReads),
            cycleText(r.filterDramStartCycle), cycleText(r.filterDramStopCycle),
            std::to_string(r.filterDramReads), cycleText(r.ofmapDramStartCycle),
            cycleText(r.ofmapDramStopCycle),   std::to_string(r.ofmapDramWrites)};
      });
}

std::string writeReports(const std::string& outDir, const Config& config,
                         const std::vector<LayerReport>& reports) {
  namespace fs = std::filesystem;
  const fs::path dir =
      config.runName.empty() ? fs::path(outDir) : fs::path(outDir) / config.runName;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    throw Error(ErrorKind::Io, ErrorContext{.file = dir.string()},
                fmt::format("cannot create the report directory{}{}", ec ? ": " : "",
                            ec ? ec.message() : ""));
  }
  const std::pair<const char*, std::string> files[] = {
      {"COMPUTE_REPORT.csv", formatComputeReport(reports)},
      {"BANDWIDTH_REPORT.csv", formatBandwidthReport(reports)},
      {"DETAILED_ACCESS_REPORT.csv", formatDetailedAccessReport(reports)},
  };
  for (const auto& [name, text] : files) {
    const fs::path path = dir / name;
    std::ofstream out(path, std::ios::binary);
    out << text;
    out.close();
    if (!out) {
      throw Error(ErrorKind::Io, ErrorContext{.file = path.string()}, "cannot write the report");
    }
  }
  return dir.string();
}

} // namespace nnaccel::scalesim
