/// \file
/// The host-fallback cost model (engines/HostModel.h): hostCost against hand-computed figures,
/// and chargeHostLayers on a report: only host layers grow, by the cost, attributed to the
/// `host` cause and energy part, and the totals follow.
#include "nnaccel/engines/HostModel.h"

#include "nnaccel/support/Error.h"

#include <gtest/gtest.h>

namespace nnaccel::engines {
namespace {

TEST(HostModel, DefaultsAreTheCitedFigures) {
  const HostModel h;
  EXPECT_DOUBLE_EQ(h.linkBytesPerSecond, 15.753846153846155e9); // PCIe 3.0 x16, 128b/130b
  EXPECT_DOUBLE_EQ(h.hostMemoryBytesPerSecond, 25.6e9);         // DDR4-3200, one channel
  EXPECT_DOUBLE_EQ(h.hostMacsPerSecond, 128e9);                 // 64 MAC/cycle at 2 GHz
  EXPECT_DOUBLE_EQ(h.hostDramPjPerByte, 162.5);                 // 1.3 nJ per 64 bits
  EXPECT_DOUBLE_EQ(h.hostPjPerMac, 0.23);
}

TEST(HostModel, CostIsLinkPlusRoofline) {
  HostModel h;
  h.linkBytesPerSecond = 1e9; // 1 byte/ns
  h.linkLatencyNs = 1000;
  h.hostMemoryBytesPerSecond = 4e9;
  h.hostMacsPerSecond = 1e9;
  h.linkPjPerByte = 2;
  h.hostDramPjPerByte = 10;
  h.hostPjPerMac = 0.5;
  // 1 GHz clock: 1 cycle per ns. 4000 bytes: link 2 x 1000 ns + 4000 ns; memory-bound host
  // (4000 / 4 = 1000 ns against 0 MACs).
  HostCost c = hostCost(h, 1000.0, 4000, 0);
  EXPECT_EQ(c.linkCycles, 6000);
  EXPECT_EQ(c.computeCycles, 1000);
  EXPECT_DOUBLE_EQ(c.linkPj, 8000);
  EXPECT_DOUBLE_EQ(c.hostPj, 40000);
  // MAC-bound: 5000 MACs at 1 G/s = 5000 ns > 1000 ns of memory.
  c = hostCost(h, 1000.0, 4000, 5000);
  EXPECT_EQ(c.computeCycles, 5000);
  EXPECT_DOUBLE_EQ(c.hostPj, 40000 + 2500);
  EXPECT_EQ(c.cycles(), 11000);
  // A slower accelerator clock pays fewer of its own cycles for the same time; times round up.
  EXPECT_EQ(hostCost(h, 0.5, 4000, 0).linkCycles, 3);
  // Even an empty transfer pays the two latencies.
  EXPECT_EQ(hostCost(h, 1000.0, 0, 0).cycles(), 2000);
}

report::RunReport twoLayerReport() {
  report::RunReport r;
  r.clockMhz = 1000;
  r.peCount = 4;
  report::LayerStats conv;
  conv.name = "conv";
  conv.unit = "array";
  conv.cycles = 100;
  conv.causes.compute = 100;
  conv.energyPj = 50;
  conv.energy.compute = 50;
  report::LayerStats add;
  add.name = "add";
  add.unit = "host";
  add.hostFallback = true;
  add.hostBytes = 3000;
  r.layers = {conv, add};
  r.finalize();
  return r;
}

TEST(HostModel, ChargesOnlyHostLayersAndTheTotalsFollow) {
  report::RunReport r = twoLayerReport();
  const HostModel h;
  const HostCost c = hostCost(h, 1000.0, 3000, 0);
  ASSERT_GT(c.cycles(), 0);
  chargeHostLayers(r, h);
  EXPECT_EQ(r.layers[0].cycles, 100);
  EXPECT_EQ(r.layers[1].cycles, c.cycles());
  EXPECT_EQ(r.layers[1].causes.host, c.cycles());
  EXPECT_EQ(r.layers[1].causes.sum(), r.layers[1].cycles);
  EXPECT_DOUBLE_EQ(r.layers[1].energy.host, c.energyPj());
  EXPECT_DOUBLE_EQ(r.layers[1].energyPj, c.energyPj());
  EXPECT_EQ(r.total.cycles, 100 + c.cycles());
  EXPECT_EQ(r.total.causes.host, c.cycles());
  EXPECT_DOUBLE_EQ(r.total.energyPj, 50 + c.energyPj());
  // The chip waits for the host: its clock network and leakage run over the host's cycles too.
  report::RunReport priced = twoLayerReport();
  priced.technology = {.node = "16nm", .leakageW = 0.5, .clockPjPerCycle = 10};
  priced.finalize();
  chargeHostLayers(priced, h);
  const report::LayerStats& add = priced.layers[1];
  EXPECT_DOUBLE_EQ(add.energy.clock, 10.0 * static_cast<double>(c.cycles()));
  EXPECT_DOUBLE_EQ(add.energyPj, c.energyPj() + add.energy.clock);
  EXPECT_DOUBLE_EQ(add.staticEnergyPj, 0.5 * 1e6 * static_cast<double>(c.cycles()) / 1000.0);
  EXPECT_DOUBLE_EQ(priced.total.energy.clock, 10.0 * static_cast<double>(priced.total.cycles));
  const double before = priced.total.energyPj;
  priced.finalize(); // again: the same charges, nothing twice
  EXPECT_DOUBLE_EQ(priced.total.energyPj, before);
  const std::string table = r.formatTable();
  EXPECT_NE(table.find("HOST: 1 of 2 layers ran on the host, charged by the host model"),
            std::string::npos)
      << table;
}

TEST(HostModel, AReportWithoutHostLayersIsUnchanged) {
  report::RunReport r = twoLayerReport();
  r.layers.pop_back();
  r.finalize();
  const std::string before = r.toJson();
  chargeHostLayers(r, HostModel{});
  EXPECT_EQ(r.toJson(), before);
}

} // namespace
} // namespace nnaccel::engines

namespace nnaccel::engines {
namespace {

TEST(HostModel, KeysSetTheirFields) {
  HostModel m;
  setHostModelKey(m, "link_bytes_per_second", "1e9");
  setHostModelKey(m, "link_latency_ns", "0");
  setHostModelKey(m, "host_pj_per_mac", "0.5");
  EXPECT_DOUBLE_EQ(m.linkBytesPerSecond, 1e9);
  EXPECT_DOUBLE_EQ(m.linkLatencyNs, 0);
  EXPECT_DOUBLE_EQ(m.hostPjPerMac, 0.5);
  EXPECT_EQ(hostModelKeys().size(), 7u);
  for (const std::string& k : hostModelKeys())
    EXPECT_NO_THROW(setHostModelKey(m, k, "2")) << k;
}

TEST(HostModel, BadKeysAndValuesAreUsageErrorsNamingTheKey) {
  HostModel m;
  auto message = [&](const std::string& key, const std::string& value) {
    try {
      setHostModelKey(m, key, value);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Usage);
      EXPECT_EQ(e.context().key, "host." + key);
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message("link_gbps", "1")
                .find("unknown host-model key (expected one of "
                      "link_bytes_per_second, "),
            std::string::npos);
  EXPECT_NE(message("link_bytes_per_second", "0").find("must be > 0 and finite (got 0)"),
            std::string::npos);
  EXPECT_NE(message("host_dram_pj_per_byte", "-1").find("must be >= 0 and finite (got -1)"),
            std::string::npos);
  EXPECT_NE(message("host_macs_per_second", "inf").find("must be > 0 and finite"),
            std::string::npos);
  EXPECT_NE(message("link_latency_ns", "12ns").find("expected a number, got '12ns'"),
            std::string::npos);
  EXPECT_NE(message("link_latency_ns", "").find("expected a number, got ''"), std::string::npos);
  EXPECT_NE(message("host_pj_per_mac", "1e300").find("must be <= 1e+18 (got 1e300)"),
            std::string::npos);
  EXPECT_EQ(m, HostModel{}); // nothing was set
}

TEST(HostModel, ACostBeyondTheCycleCountIsAConfigErrorNotAWrappedCount) {
  // 1 TB over a link of one byte per second at 1 GHz is 10^21 cycles: refused, naming the host
  // model, where a cast would have wrapped it into a small or negative count.
  HostModel slow;
  slow.linkBytesPerSecond = 1;
  try {
    (void)hostCost(slow, 1000, int64_t{1} << 40, 0);
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Config);
    EXPECT_EQ(e.context().key, "host");
    EXPECT_NE(std::string(e.what()).find("beyond the 64-bit cycle count"), std::string::npos)
        << e.what();
  }
  EXPECT_GT(hostCost(slow, 1000, int64_t{1} << 20, 0).linkCycles, int64_t{1} << 40);
}

} // namespace
} // namespace nnaccel::engines
