/// \file
/// The DRAM part of an engine config (Dram.h): its checks, its figures at a clock, and the
/// energy events it prices.
#include "nnaccel/arch/common/Dram.h"

#include "nnaccel/report/TextTable.h"
#include "nnaccel/support/Error.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace nnaccel::arch::common {

namespace {

std::string keyIn(std::string_view section, std::string_view key) {
  return fmt::format("{}.{}", section, key);
}

} // namespace

const tech::DramStandard* checkDramPart(const DramPart& d, const DramSettings& s,
                                        const config::ConfigPath& checker, std::string_view section,
                                        const std::array<std::string_view, 3>& energyKeys) {
  if (d.standard != kCustomDram) {
    try {
      return &tech::dramStandard(d.standard);
    } catch (const Error& e) {
      checker.fail(keyIn(section, "standard"), e.reason());
    }
  }
  const std::string why =
      fmt::format("auto needs a DRAM standard ({}.standard is {})", section, kCustomDram);
  if (!s.bytesPerCycle)
    checker.fail(keyIn(section, "bytes_per_cycle"), why);
  if (!s.latencyCycles)
    checker.fail(keyIn(section, "latency_cycles"), why);
  if (!s.readPjPerByte)
    checker.fail(keyIn("energy", energyKeys[0]), why);
  if (!s.writePjPerByte)
    checker.fail(keyIn("energy", energyKeys[1]), why);
  if (d.rowBuffer)
    checker.fail(keyIn(section, "row_buffer"),
                 fmt::format("the row-buffer model needs a DRAM standard's rows and banks "
                             "({}.standard is {})",
                             section, kCustomDram));
  return nullptr;
}

const tech::DramStandard* dramStandardOf(const DramPart& d) {
  return d.standard == kCustomDram ? nullptr : &tech::dramStandard(d.standard);
}

DramFigures dramFigures(const DramPart& d, const DramSettings& s, double clockMhz) {
  DramFigures f;
  f.standard = dramStandardOf(d);
  f.channels = d.channels;
  f.rowBuffer = d.rowBuffer;
  const double nsPerCycle = 1e3 / clockMhz;
  if (f.standard) {
    const auto channels = static_cast<double>(d.channels);
    f.bytesPerCycle =
        s.bytesPerCycle.value_or(f.standard->peakBytesPerNs() * channels * nsPerCycle);
    f.latencyCycles = s.latencyCycles.value_or(
        static_cast<int64_t>(std::ceil(f.standard->rowMissLatencyNs() / nsPerCycle)));
    // Activations overlap across every bank of every channel: each holds one for a row cycle.
    f.activationCycles =
        f.standard->tRcNs() / nsPerCycle / (static_cast<double>(f.standard->banks) * channels);
  } else {
    NNACCEL_ASSERT(s.bytesPerCycle && s.latencyCycles) << "custom DRAM without figures";
    f.bytesPerCycle = *s.bytesPerCycle;
    f.latencyCycles = *s.latencyCycles;
  }
  return f;
}

std::array<engines::CostTable::Event, 3> dramEvents(const DramPart& d, const DramSettings& s,
                                                    const std::array<std::string_view, 3>& keys) {
  const tech::DramStandard* standard = dramStandardOf(d);
  const auto event = [&](size_t i, const std::optional<double>& configured, double derived,
                         std::string basis) -> engines::CostTable::Event {
    if (configured)
      return {std::string(keys[i]), *configured, "configured"};
    NNACCEL_ASSERT(standard != nullptr) << keys[i] << ": auto without a DRAM standard";
    return {std::string(keys[i]), derived, std::move(basis)};
  };
  if (!standard)
    return {event(0, s.readPjPerByte, 0, ""), event(1, s.writePjPerByte, 0, ""),
            event(2, s.activatePj.value_or(0.0), 0, "")};
  const double perRow =
      d.rowBuffer ? 0 : standard->activatePj / static_cast<double>(standard->rowBytes);
  const std::string shared =
      d.rowBuffer ? "" : fmt::format(" + activation / {} B row", standard->rowBytes);
  const auto perByte = [&](double pjPerBit, const char* what) {
    return std::pair{8 * pjPerBit + perRow,
                     fmt::format("{} {} + I/O + PHY, 8 bits{}", standard->name, what, shared)};
  };
  const auto [readPj, readBasis] = perByte(standard->readTotalPjPerBit(), "read");
  const auto [writePj, writeBasis] = perByte(standard->writeTotalPjPerBit(), "write");
  return {event(0, s.readPjPerByte, readPj, readBasis),
          event(1, s.writePjPerByte, writePj, writeBasis),
          event(2, s.activatePj, d.rowBuffer ? standard->activatePj : 0.0,
                d.rowBuffer ? fmt::format("{} activation + precharge", standard->name)
                            : "in the per-byte figures (row_buffer off)")};
}

void appendDramEvents(std::vector<engines::CostTable::Event>& events, const DramPart& d,
                      const DramSettings& s, const std::array<std::string_view, 3>& keys) {
  for (engines::CostTable::Event& e : dramEvents(d, s, keys))
    events.push_back(std::move(e));
}

DramPrices dramPricesOf(const std::vector<engines::CostTable::Event>& events) {
  NNACCEL_ASSERT(events.size() >= 3) << "no DRAM events";
  const size_t at = events.size() - 3;
  return {events[at].pj, events[at + 1].pj, events[at + 2].pj};
}

double dramStreamBytesPerCycle(const DramFigures& f) {
  if (!f.rowBuffer || !f.standard || f.activationCycles <= 0)
    return f.bytesPerCycle;
  return std::min(f.bytesPerCycle, static_cast<double>(f.standard->rowBytes) / f.activationCycles);
}

double dramTransferCycles(const DramFigures& f, double bytes, double activations) {
  const double bus = bytes / f.bytesPerCycle;
  return f.rowBuffer ? std::max(bus, activations * f.activationCycles) : bus;
}

std::vector<engines::Override> impliedByStandard(std::string_view section,
                                                 const std::array<std::string_view, 3>& energyKeys,
                                                 const std::string& baseStandard,
                                                 const std::vector<engines::Override>& given) {
  const auto set = [&](const std::string& key) {
    return std::find_if(given.begin(), given.end(),
                        [&](const engines::Override& o) { return o.key == key; });
  };
  // Only a custom part's numbers are the part's own: on a named standard they were given on
  // purpose (a preset's or an earlier --set's), and stay.
  const auto standard = set(fmt::format("{}.standard", section));
  if (baseStandard != kCustomDram || standard == given.end() || standard->value == kCustomDram)
    return {};
  std::vector<std::string> keys = {fmt::format("{}.bytes_per_cycle", section),
                                   fmt::format("{}.latency_cycles", section)};
  for (std::string_view k : energyKeys)
    keys.push_back(fmt::format("energy.{}", k));
  std::vector<engines::Override> implied;
  for (const std::string& key : keys)
    if (set(key) == given.end())
      implied.push_back({key, "auto"});
  return implied;
}

int64_t sumOfCount(const report::RunReport& rep, std::string_view key) {
  int64_t n = 0;
  for (const report::LayerStats& l : rep.layers)
    for (const auto& [name, count] : l.counts)
      n += name == key ? count : 0;
  return n;
}

double summarizeDram(const DramFigures& f, bool configured, double clockMhz, const DramUse& use,
                     report::RunReport& rep) {
  if (!f.standard)
    return f.bytesPerCycle;
  const double peak =
      f.standard->peakBytesPerNs() * static_cast<double>(f.channels) * 1e3 / clockMhz;
  std::string line =
      configured ? fmt::format("{} x {} channel(s), {:.1f} B/cycle configured (its peak: {:.1f})",
                               f.standard->name, f.channels, f.bytesPerCycle, peak)
                 : fmt::format("{} x {} channel(s), peak {:.1f} B/cycle", f.standard->name,
                               f.channels, f.bytesPerCycle);
  if (!f.rowBuffer) {
    rep.summary.emplace_back("DRAM", line + "; row-buffer model off");
    return f.bytesPerCycle;
  }
  line += fmt::format("; {} row activations", report::groupThousands(use.activations));
  if (use.hits >= 0)
    line += fmt::format(", {:.1f}% of bursts hit an open row",
                        100.0 * static_cast<double>(use.hits) /
                            static_cast<double>(std::max<int64_t>(1, use.hits + use.activations)));
  if (use.effectiveBytesPerCycle <= 0 && !use.wholeTensorStreams) {
    rep.summary.emplace_back("DRAM", line + "; no transfer held DRAM");
    return f.bytesPerCycle;
  }
  const double achieved =
      use.effectiveBytesPerCycle > 0 ? use.effectiveBytesPerCycle : dramStreamBytesPerCycle(f);
  line += use.effectiveBytesPerCycle > 0
              ? fmt::format("; effective {:.1f} B/cycle", achieved)
              : fmt::format("; whole tensors stream at {:.1f} B/cycle (the bus, or the banks' "
                            "row rate if lower)",
                            achieved);
  rep.summary.emplace_back("DRAM", line);
  return achieved;
}

} // namespace nnaccel::arch::common
