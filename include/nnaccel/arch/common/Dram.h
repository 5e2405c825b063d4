/// \file
/// DRAM as a part of an engine config (docs/Technology.md "DRAM"): the standard its `dram:`
/// section names (tech/Dram.h), how many channels, and whether the row-buffer model counts the
/// rows each access pattern opens. With a named standard the engine's bandwidth, latency and
/// DRAM energies are derived (`auto`) from it; `custom` keeps them as the config's numbers.
#pragma once

#include "nnaccel/arch/common/Technology.h"
#include "nnaccel/config/ConfigReader.h"
#include "nnaccel/engines/Engine.h"
#include "nnaccel/tech/Dram.h"

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nnaccel::arch::common {

inline constexpr std::string_view kCustomDram = "custom";

struct DramPart {
  std::string standard{kCustomDram}; ///< a tech::dramStandardNames() name, or "custom"
  int64_t channels = 1;
  bool rowBuffer = false; ///< count row activations by the access pattern

  bool operator==(const DramPart&) const = default;
};

inline constexpr config::IntRange kDramChannels{1, 1024};
/// The `energy:` keys of a DRAM part's read, write and activation events (systolic, sparse).
inline constexpr std::array<std::string_view, 3> kDramEnergyKeys{
    "dram_read_pj_per_byte", "dram_write_pj_per_byte", "dram_activate_pj"};

/// The part's keys inside an engine's DRAM section.
template <typename Visitor, typename T> void walkDramPart(Visitor& v, T& d) {
  v.text("standard", d.standard);
  v.integer("channels", d.channels, kDramChannels);
  v.boolean("row_buffer", d.rowBuffer);
}

/// What an engine derives from its part; a key given as a number keeps the number.
struct DramSettings {
  std::optional<double> bytesPerCycle;
  std::optional<int64_t> latencyCycles;
  std::optional<double> readPjPerByte, writePjPerByte, activatePj;
};

/// The standard \p d names (nullptr: custom). Checks the section \p section against \p checker:
/// a known standard; with custom, every setting a number and no row-buffer model (it needs a
/// standard's rows and banks). \p energyKeys are the read, write and activate keys of the
/// config's `energy:` section.
const tech::DramStandard* checkDramPart(const DramPart& d, const DramSettings& s,
                                        const config::ConfigPath& checker, std::string_view section,
                                        const std::array<std::string_view, 3>& energyKeys);
/// The standard of a validated part (nullptr: custom).
const tech::DramStandard* dramStandardOf(const DramPart& d);

/// The part's figures at \p clockMhz, a setting's number where given.
struct DramFigures {
  const tech::DramStandard* standard = nullptr;
  int64_t channels = 1;
  bool rowBuffer = false;
  double bytesPerCycle = 0;
  int64_t latencyCycles = 0;
  double activationCycles = 0; ///< one activation's share of the channels' bank time
};
DramFigures dramFigures(const DramPart& d, const DramSettings& s, double clockMhz);

/// The three energy events of a part: read and write per byte (the standard's array energy and
/// interface, plus, without the row-buffer model, a row's activation shared by its bytes) and one
/// activation (0 without the row-buffer model: it is in the per-byte figures then).
std::array<engines::CostTable::Event, 3> dramEvents(const DramPart& d, const DramSettings& s,
                                                    const std::array<std::string_view, 3>& keys);

/// An engine's energy events followed by its DRAM part's (dramEvents), and the part's prices
/// read back from such a list (its last three events).
void appendDramEvents(std::vector<engines::CostTable::Event>& events, const DramPart& d,
                      const DramSettings& s, const std::array<std::string_view, 3>& keys);
struct DramPrices {
  double readPjPerByte = 0, writePjPerByte = 0, activatePj = 0;
};
DramPrices dramPricesOf(const std::vector<engines::CostTable::Event>& events);
/// An engine's DRAM events: their `energy:` keys (read, write, activate) and the simulator's price
/// members they fill.
template <typename Prices> struct DramEvents {
  std::array<std::string_view, 3> keys;
  std::array<double Prices::*, 3> prices;
};
/// The DRAM events of an engine whose keys are kDramEnergyKeys and whose prices are named
/// dramReadPjPerByte, dramWritePjPerByte and dramActivatePj.
template <typename Prices> const DramEvents<Prices>& dramEventsOfDramKeys() {
  static const DramEvents<Prices> events{
      kDramEnergyKeys,
      {&Prices::dramReadPjPerByte, &Prices::dramWritePjPerByte, &Prices::dramActivatePj}};
  return events;
}

/// priceEvents (Technology.h) of an engine whose DRAM is part \p d: its on-chip events, then
/// the part's three.
template <typename Config, typename Table, typename Prices>
std::vector<engines::CostTable::Event>
priceEventsWithDram(const Inventory& inv, const Config& c, const Table& e,
                    const std::vector<EventRule<Config, Table, Prices>>& rules, const DramPart& d,
                    const DramSettings& s, const DramEvents<Prices>& dram) {
  std::vector<engines::CostTable::Event> events = priceEvents(inv, c, e, rules);
  appendDramEvents(events, d, s, dram.keys);
  return events;
}

/// pricesOf (Technology.h) for priceEventsWithDram's \p events.
template <typename Config, typename Table, typename Prices>
Prices pricesWithDram(const std::vector<EventRule<Config, Table, Prices>>& rules,
                      const DramEvents<Prices>& dram,
                      const std::vector<engines::CostTable::Event>& events) {
  Prices p = pricesOf(rules, events);
  const DramPrices d = dramPricesOf(events);
  p.*dram.prices[0] = d.readPjPerByte;
  p.*dram.prices[1] = d.writePjPerByte;
  p.*dram.prices[2] = d.activatePj;
  return p;
}

/// The rate of a long sequential stream: the bus, or with the row-buffer model the rate at
/// which the banks open whole rows when that is lower.
double dramStreamBytesPerCycle(const DramFigures& f);

/// The settings implied by \p given on a config whose DRAM section \p section names
/// \p baseStandard: when \p given names a standard in place of a custom part, the section's
/// bytes_per_cycle and latency_cycles and the energy keys \p energyKeys become `auto` (the
/// standard's), each unless \p given sets it. From one named standard to another nothing is
/// implied: numbers set on a standard were set on purpose.
std::vector<engines::Override> impliedByStandard(std::string_view section,
                                                 const std::array<std::string_view, 3>& energyKeys,
                                                 const std::string& baseStandard,
                                                 const std::vector<engines::Override>& given);

/// What a run did with its DRAM part, for the report's `DRAM` summary line.
struct DramUse {
  int64_t activations = 0; ///< rows opened (the layers' dram_row_activations)
  int64_t hits = -1;       ///< bursts that hit an open row (-1: the engine does not count them)
  /// The bandwidth the run achieved (0: not measured).
  double effectiveBytesPerCycle = 0;
  /// The engine moves whole tensors at dramStreamBytesPerCycle (sparse, broadcast): that is
  /// what it achieved when effectiveBytesPerCycle is not measured.
  bool wholeTensorStreams = true;
};
/// Adds the `DRAM` summary line of a run on part \p f (nothing for a custom part): the standard,
/// its channels and peak (and the configured bandwidth when \p configured), and with the
/// row-buffer model the rows opened, the hit rate where counted and the bandwidth achieved.
/// Returns the bandwidth the run's roofline uses.
double summarizeDram(const DramFigures& f, bool configured, double clockMhz, const DramUse& use,
                     report::RunReport& rep);
/// The layers' sum of count \p key.
int64_t sumOfCount(const report::RunReport& rep, std::string_view key);

/// Cycles \p bytes take with \p activations rows opened: the data bus at bytesPerCycle, or the
/// banks' row cycles when activations dominate (the part without a standard: the bus only).
double dramTransferCycles(const DramFigures& f, double bytes, double activations);

} // namespace nnaccel::arch::common
