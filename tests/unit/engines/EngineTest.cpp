/// \file
/// Tests of the engine registry: every engine's presets load by name, overrides go through the
/// engine's schema (and are rejected with the key when they are wrong), resources count each
/// engine's multipliers and SRAM, and one model runs verified on every engine through the one
/// simulate entry point.
#include "nnaccel/engines/Engine.h"

#include "nnaccel/arch/broadcast/Config.h"
#include "nnaccel/arch/systolic/Config.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/support/Error.h"

#include <gtest/gtest.h>
#include <string>

namespace {

using namespace nnaccel;
using namespace nnaccel::engines;

TEST(EngineRegistry, ListsTheFourEnginesWithTheirPresets) {
  ASSERT_EQ(engineNames().size(), 4u);
  for (const std::string& e : engineNames()) {
    EXPECT_TRUE(isEngine(e));
    const EngineConfig c = loadPreset(e);
    EXPECT_EQ(c.engine(), e);
    EXPECT_EQ(c.name(), defaultPreset(e));
    for (const std::string& p : presetNames(e))
      EXPECT_EQ(loadPreset(e, p).name(), p);
  }
  EXPECT_FALSE(isEngine("tpu"));
}

TEST(EngineRegistry, UnknownEngineOrPresetIsAUsageError) {
  try {
    loadPreset("tpu");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    EXPECT_NE(std::string(e.what()).find("unknown engine 'tpu'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(loadPreset("systolic", "nope"), Error);
}

TEST(EngineRegistry, OverridesGoThroughTheEngineSchema) {
  const EngineConfig base = loadPreset("systolic", "small");
  const EngineConfig c = applyOverrides(
      base, {parseOverride("array.rows=32"), parseOverride("dram.bytes_per_cycle=4.5")}, "--param");
  const auto& s = c.as<arch::systolic::SystolicConfig>();
  EXPECT_EQ(s.peRows, 32);
  EXPECT_EQ(s.dramBytesPerCycle, 4.5);
  EXPECT_EQ(s.peCols, base.as<arch::systolic::SystolicConfig>().peCols);
  EXPECT_EQ(c.name(), "small");
  EXPECT_EQ(applyOverrides(base, {}, "--param"), base);
}

TEST(EngineRegistry, BadOverridesNameTheKey) {
  const EngineConfig base = loadPreset("sparse");
  for (const char* text : {"pe.rows", "=4", "pe.rows="}) {
    try {
      parseOverride(text);
      FAIL() << text;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Usage) << text;
    }
  }
  try {
    applyOverrides(base, {parseOverride("pe.nope=3")}, "--param");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Config);
    EXPECT_NE(std::string(e.what()).find("'pe': unknown key"), std::string::npos) << e.what();
  }
  try {
    applyOverrides(loadPreset("systolic"), {parseOverride("array.rows=0")}, "--param");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("array.rows"), std::string::npos) << e.what();
  }
}

TEST(EngineRegistry, ResourcesCountMultipliersAndSram) {
  const Resources sys = resources(loadPreset("systolic", "server"));
  EXPECT_EQ(sys.multipliers, 128 * 64);
  const EngineConfig server = loadPreset("systolic", "server");
  const auto& s = server.as<arch::systolic::SystolicConfig>();
  EXPECT_EQ(sys.sramBytes, s.sbufBytesPerPartition * 128 + s.psumEntriesPerColumn * 64 * 4);
  // The server preset's HBM2 stack: 8 channels x 32 GB/s at 1.4 GHz.
  EXPECT_DOUBLE_EQ(sys.dramBytesPerCycle, s.dramFigures().bytesPerCycle);
  EXPECT_NEAR(sys.dramBytesPerCycle, 8 * 32.0 / 1.4, 1e-9);

  const Resources sp = resources(loadPreset("sparse", "scnn"));
  EXPECT_EQ(sp.multipliers, 64 * 16); // 8x8 PEs of 4x4 multipliers
  const Resources bc = resources(loadPreset("broadcast", "npu"));
  const EngineConfig npu = loadPreset("broadcast", "npu");
  const auto& b = npu.as<arch::broadcast::BroadcastConfig>();
  EXPECT_EQ(bc.multipliers, b.macsPerCycle());
  EXPECT_EQ(bc.dramBytesPerCycle, b.memoryBytesPerCycle);
  const Resources st = resources(loadPreset("stream", "fig44"));
  EXPECT_EQ(st.multipliers, 24 * 9 * 16 * 16);
  EXPECT_EQ(st.dramBytesPerCycle, 0);
  for (const std::string& e : engineNames()) {
    const Resources r = resources(loadPreset(e));
    EXPECT_GT(r.sramBytes, 0) << e;
    EXPECT_GT(r.clockMhz, 0) << e;
  }
}

TEST(EngineRegistry, SimulatesOneModelVerifiedOnEveryEngine) {
  const ir::Graph g = driver::loadModel("lenet5", {});
  for (const std::string& e : engineNames()) {
    RunOptions o;
    o.engineOptions = {{"chips", 2}}; // LeNet-5 needs two fig44 chips (stream's option)
    const report::RunReport r = simulate(g, loadPreset(e), o);
    EXPECT_EQ(r.engine, e);
    EXPECT_TRUE(r.verdict.checked) << e;
    EXPECT_TRUE(r.verdict.passed) << e << ": " << r.verdict.detail;
    EXPECT_FALSE(r.layers.empty()) << e;
    // The common report's attribution: causes sum to the cycles, the engine attributes its
    // energy to components (nothing significant left in `other`), the roofline is described.
    for (const report::LayerStats& l : r.layers) {
      EXPECT_EQ(l.causes.sum(), l.cycles) << e << " " << l.name;
      EXPECT_LE(l.energy.other, 1e-6 * l.energyPj + 1e-3) << e << " " << l.name;
    }
    EXPECT_GT(r.total.causes.compute, 0) << e;
    // Systolic, sparse and broadcast attribute every cycle from their own counters (up to the
    // rounding of slots or per-PE sums to whole cycles; docs/report-schema.md).
    if (e != "stream") {
      EXPECT_LE(r.total.causes.other, r.total.cycles / 100) << e;
    }
    EXPECT_GT(r.peakMacsPerCycle, 0) << e;
    EXPECT_FALSE(r.configYaml.empty()) << e;
  }
}

} // namespace
