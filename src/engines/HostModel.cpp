/// \file
/// The host-fallback cost model (HostModel.h): link transfers plus a roofline host, charged to
/// the host layers of a report.
#include "nnaccel/engines/HostModel.h"

#include "nnaccel/support/Error.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <iterator>

namespace nnaccel::engines {

namespace {

/// \p nanoseconds of wall time as whole cycles of a \p clockMhz clock, rounded up; a
/// relative 1e-12 absorbs the binary rounding of exact products (2 x 1000 ns at 1 GHz is
/// 2000 cycles, not 2001).
/// A cost that does not fit the 64-bit cycle count (a host model far slower than any host, on a
/// large layer) is refused naming the host model, never wrapped.
int64_t cyclesOf(double nanoseconds, double clockMhz) {
  const double cycles = std::ceil(nanoseconds * clockMhz / 1000.0 * (1.0 - 1e-12));
  if (!(cycles < 0x1p62))
    throw Error(ErrorKind::Config, ErrorContext{.key = "host"},
                fmt::format("a host-fallback layer would take {:.3g} cycles, beyond the 64-bit "
                            "cycle count; raise the host model's rates (--host)",
                            cycles));
  return static_cast<int64_t>(cycles);
}

} // namespace

HostCost hostCost(const HostModel& host, double clockMhz, int64_t bytes, int64_t macs) {
  NNACCEL_ASSERT(clockMhz > 0 && bytes >= 0 && macs >= 0) << "host cost inputs";
  NNACCEL_ASSERT(host.linkBytesPerSecond > 0 && host.hostMacsPerSecond > 0 &&
                 host.hostMemoryBytesPerSecond > 0)
      << "host model rates";
  const auto b = static_cast<double>(bytes);
  const auto m = static_cast<double>(macs);
  HostCost c;
  c.linkCycles = cyclesOf(2.0 * host.linkLatencyNs + 1e9 * b / host.linkBytesPerSecond, clockMhz);
  c.computeCycles = cyclesOf(
      1e9 * std::max(m / host.hostMacsPerSecond, b / host.hostMemoryBytesPerSecond), clockMhz);
  c.linkPj = b * host.linkPjPerByte;
  c.hostPj = b * host.hostDramPjPerByte + m * host.hostPjPerMac;
  return c;
}

namespace {

/// Adds \p c to \p l: cycles and energy, attributed to the host cause and energy part; and,
/// since the chip waits for the host, its clock network and leakage over those cycles (as
/// RunReport::finalize charges them).
void addHostCost(report::LayerStats& l, const HostCost& c, const report::RunReport& r) {
  l.cycles += c.cycles();
  l.causes.host += c.cycles();
  l.addBreakdown("host.link", c.linkCycles);
  l.addBreakdown("host.compute", c.computeCycles);
  const double clockPj = r.technology.clockPj(c.cycles());
  l.energyPj += c.energyPj() + clockPj;
  l.energy.host += c.energyPj();
  l.energy.clock += clockPj;
  if (r.clockMhz > 0)
    l.staticEnergyPj += r.technology.leakageW * 1e6 * static_cast<double>(c.cycles()) / r.clockMhz;
}

} // namespace

void chargeHostLayers(report::RunReport& r, const HostModel& host) {
  // The total is updated in place, not re-finalized: an engine's total-row figures (metrics set
  // after finalize) stay as they are.
  for (report::LayerStats& l : r.layers) {
    if (!l.hostFallback)
      continue;
    const HostCost c = hostCost(host, r.clockMhz, l.hostBytes, l.usefulMacs);
    addHostCost(l, c, r);
    addHostCost(r.total, c, r);
    l.utilization = r.utilizationOf(l);
    r.total.utilization = r.utilizationOf(r.total);
  }
}

namespace {

/// Every host-model value is at most this (rates per second, nanoseconds, picojoules), so that
/// sums of costs stay finite.
constexpr double kMaxHostValue = 1e18;

/// One settable field: its key, its member, and whether 0 is allowed (rates must be > 0).
struct HostKey {
  const char* key;
  double HostModel::*field;
  bool zeroAllowed;
};
constexpr HostKey kHostKeys[] = {
    {"link_bytes_per_second", &HostModel::linkBytesPerSecond, false},
    {"link_latency_ns", &HostModel::linkLatencyNs, true},
    {"link_pj_per_byte", &HostModel::linkPjPerByte, true},
    {"host_macs_per_second", &HostModel::hostMacsPerSecond, false},
    {"host_memory_bytes_per_second", &HostModel::hostMemoryBytesPerSecond, false},
    {"host_dram_pj_per_byte", &HostModel::hostDramPjPerByte, true},
    {"host_pj_per_mac", &HostModel::hostPjPerMac, true},
};

} // namespace

std::vector<std::string> hostModelKeys() {
  std::vector<std::string> keys;
  for (const HostKey& k : kHostKeys)
    keys.emplace_back(k.key);
  return keys;
}

void setHostModelKey(HostModel& m, const std::string& key, const std::string& value) {
  const auto* k = std::find_if(std::begin(kHostKeys), std::end(kHostKeys),
                               [&](const HostKey& h) { return key == h.key; });
  auto fail = [&](const std::string& why) {
    throw Error(ErrorKind::Usage, ErrorContext{.key = "host." + key}, why);
  };
  if (k == std::end(kHostKeys))
    fail(fmt::format("unknown host-model key (expected one of {})",
                     fmt::join(hostModelKeys(), ", ")));
  double v = 0;
  const char* end = value.data() + value.size();
  const auto [ptr, ec] = std::from_chars(value.data(), end, v);
  if (ec != std::errc{} || ptr != end || value.empty())
    fail(fmt::format("expected a number, got '{}'", value));
  if (!std::isfinite(v) || v < 0 || (v == 0 && !k->zeroAllowed))
    fail(fmt::format("must be {} and finite (got {})", k->zeroAllowed ? ">= 0" : "> 0", value));
  if (v > kMaxHostValue)
    fail(fmt::format("must be <= {:g} (got {})", kMaxHostValue, value));
  m.*(k->field) = v;
}

} // namespace nnaccel::engines
