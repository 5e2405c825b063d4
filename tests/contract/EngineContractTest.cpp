/// \file
/// The cross-engine contract suite: every registered engine, through the registry only, must
/// describe itself, round-trip its presets through its YAML schema, name the key of a bad
/// override, derive a config from the default compare budget or refuse it naming itself, run a
/// shared set of small layers and models bit-exact against the int8 reference executor, give
/// identical reports on two runs, and keep the common report's invariants (causes sum to the
/// cycles, energy parts to the energy). Parameterised over engines::engineNames(), so an engine
/// added to the registry is tested without a line here (skip lists: Profiles.h).
#include "../support/AttentionGraph.h"
#include "../support/DenseGraphs.h"
#include "../support/LayerSpecGraphs.h"
#include "../support/QdqGraph.h"
#include "../support/SourcePaths.h"
#include "Profiles.h"
#include "nnaccel/compare/Budget.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/engines/Engine.h"
#include "nnaccel/support/Error.h"
#include "nnaccel/support/Interrupt.h"

#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>

namespace {

using namespace nnaccel;
using engines::Engine;
using engines::EngineConfig;

class EngineContract : public ::testing::TestWithParam<std::string> {
protected:
  const Engine& engine() const { return engines::engineNamed(GetParam()); }

  /// A scratch file under the test's temporary directory holding \p text.
  std::string scratchFile(const std::string& name, const std::string& text) const {
    const auto dir = std::filesystem::temp_directory_path() / ("nnaccel_contract_" + GetParam());
    std::filesystem::create_directories(dir);
    const auto path = dir / name;
    std::ofstream(path) << text;
    return path.string();
  }

  /// The Error \p action throws (a test failure when it throws none).
  template <typename Action> static Error errorOf(Action&& action) {
    try {
      action();
    } catch (const Error& e) {
      return e;
    }
    ADD_FAILURE() << "expected an nnaccel::Error";
    return Error(ErrorKind::Usage, {}, "none thrown");
  }
};

TEST_P(EngineContract, DescribesItselfAndItsPresets) {
  const Engine& e = engine();
  EXPECT_EQ(e.name(), GetParam());
  EXPECT_FALSE(e.description().empty());
  const std::vector<std::string> presets = e.presetNames();
  ASSERT_FALSE(presets.empty());
  EXPECT_NE(std::find(presets.begin(), presets.end(), e.defaultPreset()), presets.end());
  const engines::PresetSummary summary = e.presetSummary();
  ASSERT_EQ(summary.rows.size(), presets.size());
  for (const auto& row : summary.rows)
    EXPECT_EQ(row.size(), summary.columns.size());
  for (const std::string& p : presets) {
    const EngineConfig c = e.preset(p);
    EXPECT_EQ(c.engine(), e.name());
    EXPECT_EQ(c.name(), p);
    const engines::Resources r = e.resources(c);
    EXPECT_GT(r.multipliers, 0) << p;
    EXPECT_GT(r.sramBytes, 0) << p;
    EXPECT_GT(r.clockMhz, 0) << p;
    EXPECT_GE(r.dramBytesPerCycle, 0) << p;
  }
  EXPECT_EQ(e.preset("").name(), e.defaultPreset());
}

TEST_P(EngineContract, EveryPresetRoundTripsThroughItsYaml) {
  const Engine& e = engine();
  for (const std::string& p : e.presetNames()) {
    SCOPED_TRACE(p);
    const EngineConfig c = e.preset(p);
    const std::string yaml = c.toYaml();
    // Over another preset (every key is written) and from a file.
    EXPECT_EQ(e.parseOver(e.preset(e.presetNames().back()), yaml, "roundtrip.yaml"), c);
    EXPECT_EQ(e.loadFile(scratchFile(p + ".yaml", yaml)), c);
    EXPECT_EQ(e.loadFile(scratchFile(p + ".yaml", yaml)).toYaml(), yaml);
  }
}

TEST_P(EngineContract, ShippedPresetFilesAreTheEmbeddedOnes) {
  const Engine& e = engine();
  const auto dir = nnaccel::test::sourceDir() / "configs" / e.name();
  if (!std::filesystem::exists(dir))
    GTEST_SKIP() << "no configs/" << e.name() << " (an engine registered by a test)";
  for (const std::string& p : e.presetNames())
    EXPECT_EQ(e.loadFile((dir / (p + ".yaml")).string()).toYaml(), e.preset(p).toYaml()) << p;
}

TEST_P(EngineContract, UnknownPresetIsAUsageErrorListingThePresets) {
  const Error err = errorOf([&] { engine().preset("no-such-preset"); });
  EXPECT_EQ(err.kind(), ErrorKind::Usage);
  std::string list;
  for (const std::string& p : engine().presetNames())
    list += (list.empty() ? "" : ", ") + p;
  EXPECT_EQ(std::string(err.what()),
            fmt::format("no {} preset named 'no-such-preset' (presets: {})", GetParam(), list));
}

TEST_P(EngineContract, BadOverridesAndFilesNameTheKeyOrFile) {
  const EngineConfig base = engine().preset("");
  Error err = errorOf(
      [&] { engines::applyOverrides(base, {engines::parseOverride("no_such_key=1")}, "--param"); });
  EXPECT_EQ(err.kind(), ErrorKind::Config) << err.what();
  EXPECT_EQ(err.context().file, "--param");
  EXPECT_EQ(err.context().key, "no_such_key") << err.what();
  err = errorOf([&] {
    engines::applyOverrides(base, {engines::parseOverride("no_such_section.rows=1")}, "--param");
  });
  EXPECT_EQ(err.kind(), ErrorKind::Config) << err.what();
  EXPECT_NE(err.context().key.find("no_such_section"), std::string::npos) << err.what();
  // A malformed file names itself (and the line); a missing one is an I/O error naming it.
  const std::string bad = scratchFile("bad.yaml", "name: [unclosed\n");
  err = errorOf([&] { engine().loadFile(bad); });
  EXPECT_EQ(err.kind(), ErrorKind::Config) << err.what();
  EXPECT_EQ(err.context().file, bad);
  EXPECT_NE(std::string(err.what()).find("invalid YAML at line"), std::string::npos) << err.what();
  err = errorOf([&] { engine().loadFile(bad + ".missing"); });
  EXPECT_EQ(err.kind(), ErrorKind::Io) << err.what();
  EXPECT_EQ(err.context().file, bad + ".missing");
}

TEST_P(EngineContract, DefaultBudgetDerivesAConfigOrRefusesNamingTheEngine) {
  const compare::Budget b = compare::defaultBudget();
  const compare::Budget::EngineSection& section = b.section(GetParam());
  EXPECT_EQ(section.knobs, engine().budgetKnobs());
  try {
    const EngineConfig c = compare::deriveConfig(b, GetParam());
    EXPECT_EQ(c.engine(), GetParam());
    EXPECT_NE(c.name().find("@budget:default"), std::string::npos) << c.name();
    EXPECT_EQ(engine().resources(c).multipliers, b.multipliers);
    EXPECT_EQ(engine().resources(c).clockMhz, b.clockMhz);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Config) << e.what();
    EXPECT_EQ(e.context().key, GetParam()) << e.what();
  }
}

/// The shared small layers every engine runs (names are the skip-list keys "layer:NAME").
std::vector<std::pair<std::string, nnaccel::testing::LayerSpec>> sharedLayers() {
  using nnaccel::testing::LayerSpec;
  std::vector<std::pair<std::string, LayerSpec>> out;
  out.emplace_back("conv3x3", nnaccel::testing::conv(3, 8, 9, 10, 3, 1));
  LayerSpec pointwise = nnaccel::testing::conv(16, 12, 6, 7, 1, 0);
  pointwise.relu = true;
  out.emplace_back("conv1x1-relu", pointwise);
  LayerSpec strided = nnaccel::testing::conv(4, 6, 11, 9, 3, 1);
  strided.sh = strided.sw = 2;
  out.emplace_back("conv3x3-s2", strided);
  LayerSpec depthwise = nnaccel::testing::conv(8, 8, 8, 8, 3, 1);
  depthwise.group = 8;
  out.emplace_back("depthwise3x3", depthwise);
  LayerSpec chain = nnaccel::testing::conv(3, 8, 8, 8, 3, 1);
  chain.relu = true;
  chain.chainChannels = 6;
  out.emplace_back("conv-chain", chain);
  LayerSpec pool;
  pool.kind = LayerSpec::Kind::MaxPool;
  pool.inChannels = pool.outChannels = 4;
  pool.h = pool.w = 8;
  pool.kh = pool.kw = pool.sh = pool.sw = 2;
  out.emplace_back("maxpool2x2", pool);
  LayerSpec gemm;
  gemm.kind = LayerSpec::Kind::Gemm;
  gemm.inChannels = 32;
  gemm.outChannels = 10;
  gemm.h = 1;
  out.emplace_back("gemm", gemm);
  return out;
}

/// Checks the common report's invariants on \p r, a verified run of \p engine.
void expectReportInvariants(const report::RunReport& r, const std::string& engine) {
  EXPECT_EQ(r.engine, engine);
  EXPECT_TRUE(r.verdict.checked);
  EXPECT_TRUE(r.verdict.passed) << r.verdict.detail;
  EXPECT_FALSE(r.layers.empty());
  for (const report::LayerStats& l : r.layers) {
    EXPECT_EQ(l.causes.sum(), l.cycles) << l.name;
    EXPECT_NEAR(l.energy.sum(), l.energyPj, 1e-6 * std::fabs(l.energyPj) + 1e-3) << l.name;
    // Nothing is free: a host layer moves its data over the link and costs time and energy
    // (engines/HostModel.h); only host layers have the host cause.
    if (l.hostFallback) {
      EXPECT_GT(l.hostBytes, 0) << l.name;
      EXPECT_GT(l.causes.host, 0) << l.name;
      EXPECT_GT(l.energy.host, 0) << l.name;
    } else {
      EXPECT_EQ(l.causes.host, 0) << l.name;
      EXPECT_EQ(l.hostBytes, 0) << l.name;
    }
  }
  EXPECT_EQ(r.total.causes.sum(), r.total.cycles);
  EXPECT_GT(r.peakMacsPerCycle, 0);
  EXPECT_GT(r.peCount, 0);
  EXPECT_LE(r.peCount, r.peakMacsPerCycle);
  // One utilization: the operator's MACs over the peak multiplies of the cycles taken.
  if (r.total.cycles > 0) {
    EXPECT_NEAR(r.total.utilization,
                static_cast<double>(r.total.usefulMacs) /
                    (static_cast<double>(r.peakMacsPerCycle) * static_cast<double>(r.total.cycles)),
                1e-12);
  }
  EXPECT_FALSE(r.configYaml.empty());
}

TEST_P(EngineContract, SharedLayersAreBitExactOnEveryProfilePreset) {
  const Engine& e = engine();
  for (const auto& [name, spec] : sharedLayers()) {
    SCOPED_TRACE(name + ": " + spec.describe());
    if (const std::string why = contract::skipReason(e, "layer:" + name); !why.empty()) {
      std::printf("[ skip     ] %s layer:%s: %s\n", GetParam().c_str(), name.c_str(), why.c_str());
      continue;
    }
    const ir::Graph g = nnaccel::testing::buildLayerGraph(spec);
    for (const std::string& preset : contract::presetsOf(e)) {
      SCOPED_TRACE(preset);
      expectReportInvariants(e.simulate(g, e.preset(preset), contract::runOptionsOf(e)),
                             GetParam());
    }
  }
}

TEST_P(EngineContract, ModelReportsAreIdenticalAcrossRunsAndKeepTheInvariants) {
  const Engine& e = engine();
  if (const std::string why = contract::skipReason(e, "model:lenet5"); !why.empty())
    GTEST_SKIP() << why;
  const ir::Graph g = driver::loadModel("lenet5", {});
  const EngineConfig c = e.preset("");
  const report::RunReport a = e.simulate(g, c, contract::runOptionsOf(e));
  expectReportInvariants(a, GetParam());
  EXPECT_EQ(a.toJson(), e.simulate(g, c, contract::runOptionsOf(e)).toJson())
      << "not deterministic";
  // Timing does not depend on checking: a timing-only run reports the same cycles.
  engines::RunOptions timing = contract::runOptionsOf(e);
  timing.verify = false;
  EXPECT_EQ(e.simulate(g, c, timing).total.cycles, a.total.cycles);
}

// An engine priced through the technology model (issue 21) reports the area and leakage of
// its `arch cost` table, by group, and static energy for every layer that takes time; one that
// is not yet reports no technology at all (never a partial one).
TEST_P(EngineContract, ATechnologyPricedEngineReportsItsCostTablesArea) {
  const Engine& e = engine();
  if (const std::string why = contract::skipReason(e, "model:lenet5"); !why.empty())
    GTEST_SKIP() << why;
  const EngineConfig c = e.preset("");
  const report::RunReport r =
      e.simulate(driver::loadModel("lenet5", {}), c, contract::runOptionsOf(e));
  const std::optional<engines::CostTable> t = e.costTable(c);
  if (!t) {
    EXPECT_FALSE(r.technology.present());
    EXPECT_EQ(r.total.staticEnergyPj, 0.0);
    return;
  }
  ASSERT_TRUE(r.technology.present());
  EXPECT_EQ(r.technology.node, t->node);
  double areaMm2 = 0, leakageW = 0;
  for (const engines::CostTable::Component& part : t->components) {
    areaMm2 += part.areaUm2 * static_cast<double>(part.count) * 1e-6;
    leakageW += part.leakageW * static_cast<double>(part.count);
  }
  // The run prices the machine it used: the table's, or a chain of whole copies of it (an
  // engine that chains chips when the model outgrows one).
  const double copies = std::round(r.technology.areaMm2 / areaMm2);
  EXPECT_GE(copies, 1.0);
  EXPECT_NEAR(r.technology.areaMm2, copies * areaMm2, 1e-9 * copies * areaMm2);
  EXPECT_NEAR(r.technology.leakageW, copies * leakageW, 1e-9 * copies * leakageW);
  double groups = 0;
  for (const auto& [name, mm2] : r.technology.areaMm2ByComponent)
    groups += mm2;
  EXPECT_NEAR(groups, r.technology.areaMm2, 1e-9 * areaMm2);
  EXPECT_GT(r.total.staticEnergyPj, 0.0);
  EXPECT_FALSE(t->events.empty());
}

TEST_P(EngineContract, AnInterruptedRunReportsTheLayersItFinished) {
  // Ctrl-C in `simulate` asks the run to stop (support/Interrupt.h); the next progress point
  // stops it, and the report holds the layers verified so far, marked interrupted.
  const Engine& e = engine();
  if (const std::string why = contract::skipReason(e, "model:lenet5"); !why.empty())
    GTEST_SKIP() << why;
  struct ClearAfter {
    ~ClearAfter() { nnaccel::clearInterrupt(); }
  } clear;
  engines::RunOptions o = contract::runOptionsOf(e);
  o.progress = [](const std::string& what, size_t done, size_t) {
    if (what == "simulating" && done == 2)
      nnaccel::requestInterrupt();
  };
  const report::RunReport r = e.simulate(driver::loadModel("lenet5", {}), e.preset(""), o);
  EXPECT_TRUE(r.interrupted);
  ASSERT_EQ(r.layers.size(), 3u); // stopped at the progress point after the third layer
  EXPECT_GT(r.layersPlanned, 3);
  EXPECT_TRUE(r.verdict.checked && r.verdict.passed) << r.verdict.detail;
  int64_t cycles = 0;
  for (const report::LayerStats& l : r.layers)
    cycles += l.cycles;
  EXPECT_EQ(r.total.cycles, cycles);
  EXPECT_NE(r.formatTable().find(fmt::format("INTERRUPTED after 3 of {} layers", r.layersPlanned)),
            std::string::npos)
      << r.formatTable();
  EXPECT_NE(r.toJson().find("\"layers_done\": 3"), std::string::npos);
  nnaccel::clearInterrupt();
  EXPECT_FALSE(e.simulate(driver::loadModel("lenet5", {}), e.preset(""), contract::runOptionsOf(e))
                   .interrupted);
}

/// conv -> LRN -> conv -> InstanceNormalization -> conv -> LayerNormalization over (C, H, W) ->
/// ReduceL2 over the channels: the normalizations of AlexNet/GoogLeNet, style-transfer and
/// embedding networks, which the default pipeline writes out (passes/ExpandFunctions.h).
ir::Graph normalizationGraph() {
  using nnaccel::testing::detail::addNode;
  using nnaccel::testing::detail::sparseWeights;
  ir::Graph g;
  g.name = "normalizations";
  Rng rng(21);
  const ir::ValueId x = g.addValue("x", DType::F32, {1, 3, 10, 10});
  g.inputs = {x};
  const auto conv = [&](ir::ValueId in, int64_t cin, int64_t cout, const std::string& name) {
    ir::AttrMap a;
    a.set("kernel_shape", std::vector<int64_t>{3, 3});
    a.set("pads", std::vector<int64_t>{1, 1, 1, 1});
    const ir::ValueId w = g.addConstant(name + ".w", sparseWeights(rng, {cout, cin, 3, 3}, 1.0));
    return addNode(g, ir::OpKind::Relu, name + ".relu",
                   {addNode(g, ir::OpKind::Conv, name, {in, w}, a)});
  };
  ir::AttrMap lrn;
  lrn.set("size", int64_t{5});
  lrn.set("alpha", 1e-2f);
  lrn.set("bias", 2.0f);
  ir::ValueId y = addNode(g, ir::OpKind::LRN, "lrn", {conv(x, 3, 8, "c1")}, lrn);
  const auto affine = [&](const std::string& name, Dims shape, float base) {
    std::vector<float> v(static_cast<size_t>(numElements(shape)));
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = base + 0.05f * static_cast<float>(i % 7);
    return g.addConstant(name, Tensor::fromVector<float>(shape, v));
  };
  y = addNode(g, ir::OpKind::InstanceNormalization, "in",
              {conv(y, 8, 6, "c2"), affine("in.s", {6}, 0.8f), affine("in.b", {6}, -0.1f)});
  ir::AttrMap ln;
  ln.set("axis", int64_t{1});
  y = conv(y, 6, 4, "c3");
  y = addNode(g, ir::OpKind::LayerNormalization, "ln",
              {y, affine("ln.s", {4, 10, 10}, 0.9f), affine("ln.b", {4, 10, 10}, 0.0f)}, ln);
  g.node(static_cast<ir::NodeId>(g.numNodes()) - 1).opset = 17;
  ir::AttrMap l2;
  l2.set("axes", std::vector<int64_t>{1});
  g.outputs = {addNode(g, ir::OpKind::ReduceL2, "l2", {y}, l2)};
  driver::prepareGraph(g);
  return g;
}

TEST_P(EngineContract, NormalizationsRunOnTheEngineBitExactly) {
  const Engine& e = engine();
  if (const std::string why = contract::skipReason(e, "model:normalizations"); !why.empty())
    GTEST_SKIP() << why;
  const report::RunReport r =
      e.simulate(normalizationGraph(), e.preset(""), contract::runOptionsOf(e));
  expectReportInvariants(r, GetParam());
  for (const report::LayerStats& l : r.layers)
    EXPECT_FALSE(l.hostFallback) << l.name << " (" << l.op << ") runs on the host";
}

/// Self-attention (Q K^T and P V multiply two computed tensors, one B broadcast over the heads):
/// bit-exact on every engine; every MatMul runs on the engine's array or says why not.
TEST_P(EngineContract, AttentionMatMulsOfTwoTensorsRunBitExactly) {
  const Engine& e = engine();
  if (const std::string why = contract::skipReason(e, "model:attention"); !why.empty())
    GTEST_SKIP() << why;
  for (bool softmax : {false, true}) {
    SCOPED_TRACE(softmax ? "softmax" : "relu");
    const report::RunReport r = e.simulate(nnaccel::testing::attentionGraph(softmax), e.preset(""),
                                           contract::runOptionsOf(e));
    expectReportInvariants(r, GetParam());
    int matmuls = 0;
    for (const report::LayerStats& l : r.layers) {
      if (!l.op.starts_with("MatMul"))
        continue;
      ++matmuls;
      if (l.hostFallback) {
        EXPECT_NE(l.note.find("computed"), std::string::npos) << l.name << ": " << l.note;
      }
    }
    EXPECT_EQ(matmuls, 6); // q, k, v, scores, context, mix
  }
}

/// A Gemm with transA whose A is computed (a 1x1 convolution over pixels written as a Gemm on
/// the channel-major [C, pixels] view, as converters emit it) runs on the engine, reading A in
/// its stored layout, bit-exactly. Before, sparse and broadcast sent it to the host.
TEST_P(EngineContract, GemmWithTransposedAOfAComputedTensorRunsOnTheEngine) {
  const Engine& e = engine();
  if (const std::string why = contract::skipReason(e, "model:gemm-transA"); !why.empty())
    GTEST_SKIP() << why;
  const ir::Graph g = nnaccel::testing::transposedGemmGraph();
  const report::RunReport r = e.simulate(g, e.preset(""), contract::runOptionsOf(e));
  expectReportInvariants(r, GetParam());
  bool ranGemm = false;
  for (const report::LayerStats& l : r.layers) {
    EXPECT_FALSE(l.hostFallback) << l.name << " (" << l.op << "): " << l.note;
    ranGemm = ranGemm || l.op.starts_with("Gemm");
  }
  EXPECT_TRUE(ranGemm);
}

/// A QDQ model (the model's own activation and weight scales, int8 codes and int32 biases) runs
/// bit-exactly with no Quantize/Dequantize layer left to execute.
TEST_P(EngineContract, QdqModelsRunWithTheirOwnScalesBitExactly) {
  const Engine& e = engine();
  if (const std::string why = contract::skipReason(e, "model:qdq"); !why.empty())
    GTEST_SKIP() << why;
  const report::RunReport r =
      e.simulate(nnaccel::testing::qdqGraph(), e.preset(""), contract::runOptionsOf(e));
  expectReportInvariants(r, GetParam());
  for (const report::LayerStats& l : r.layers) {
    EXPECT_FALSE(l.hostFallback) << l.name << " (" << l.op << "): " << l.note;
    EXPECT_EQ(l.op.find("QuantizeLinear"), std::string::npos) << l.name;
  }
}

/// The same model with ONNX Runtime's default asymmetric activations (uint8 zero points): run
/// bit-exactly by an engine whose datapath holds zero points, else refused with a one-line
/// error naming the asymmetric value, never run as if it were symmetric.
TEST_P(EngineContract, AsymmetricQdqModelsRunBitExactlyOrAreRefused) {
  const Engine& e = engine();
  if (const std::string why = contract::skipReason(e, "model:qdq"); !why.empty())
    GTEST_SKIP() << why;
  const ir::Graph g = nnaccel::testing::qdqGraph(true);
  if (!contract::profileOf(e.name()).refusesZeroPoints.empty()) {
    const Error err = errorOf([&] { e.simulate(g, e.preset(""), contract::runOptionsOf(e)); });
    EXPECT_EQ(err.kind(), ErrorKind::Unsupported);
    EXPECT_NE(err.reason().find("with zero point -8 (an asymmetric activation)"), std::string::npos)
        << err.reason();
    return;
  }
  const report::RunReport r = e.simulate(g, e.preset(""), contract::runOptionsOf(e));
  expectReportInvariants(r, GetParam());
  for (const report::LayerStats& l : r.layers)
    EXPECT_FALSE(l.hostFallback) << l.name << " (" << l.op << "): " << l.note;
}

/// A model nnaccel calibrates itself with asymmetric activations (zero points on every value):
/// bit-exact on an engine that holds zero points, refused naming the value otherwise.
TEST_P(EngineContract, AsymmetricCalibrationRunsBitExactlyOrIsRefused) {
  const Engine& e = engine();
  const ir::Graph g = driver::loadModel("lenet5", {});
  engines::RunOptions o = contract::runOptionsOf(e);
  o.calibrationAsymmetric = true;
  if (!contract::profileOf(e.name()).refusesZeroPoints.empty()) {
    const Error err = errorOf([&] { e.simulate(g, e.preset(""), o); });
    EXPECT_EQ(err.kind(), ErrorKind::Unsupported);
    EXPECT_NE(err.reason().find("(an asymmetric activation)"), std::string::npos) << err.reason();
    return;
  }
  expectReportInvariants(e.simulate(g, e.preset(""), o), GetParam());
}

/// A model whose biases calibration corrected (quant::CalibrationOptions::biasCorrection):
/// every engine reads the corrected int32 biases from the quantized model, bit-exact.
TEST_P(EngineContract, BiasCorrectedCalibrationRunsBitExactly) {
  const Engine& e = engine();
  const ir::Graph g = driver::loadModel("lenet5", {});
  engines::RunOptions o = contract::runOptionsOf(e);
  o.calibrationBiasCorrection = true;
  const report::RunReport r = e.simulate(g, e.preset(""), o);
  expectReportInvariants(r, GetParam());
  // A report that describes its int8 scales says so, with how many channels moved (the toy
  // engine's report has no such line).
  const auto scales = std::find_if(r.summary.begin(), r.summary.end(),
                                   [](const auto& kv) { return kv.first == "int8 scales"; });
  if (scales != r.summary.end()) {
    EXPECT_NE(scales->second.find("; bias corrected in "), std::string::npos) << scales->second;
  }
}

TEST_P(EngineContract, CoverageSaysWhyEveryHostLayerFallsBack) {
  const Engine& e = engine();
  const ir::Graph g = driver::loadModel("lenet5", {});
  const std::vector<engines::LayerCoverage> rows = e.coverage(g, e.preset(""));
  EXPECT_FALSE(rows.empty());
  for (const engines::LayerCoverage& row : rows) {
    EXPECT_FALSE(row.layer.empty());
    EXPECT_EQ(row.onEngine, row.reason.empty()) << row.layer << ": " << row.reason;
  }
}

TEST_P(EngineContract, OptionalCapabilitiesAreDeclaredConsistently) {
  const Engine& e = engine();
  for (const engines::OptionSpec& o : e.runOptions()) {
    EXPECT_FALSE(o.name.empty());
    EXPECT_FALSE(o.name.starts_with("-")) << "declared without dashes: " << o.name;
    EXPECT_FALSE(o.help.empty()) << o.name;
    if (o.kind == engines::OptionSpec::Kind::Integer) {
      EXPECT_LE(o.min, o.max) << o.name;
    }
  }
  if (e.fp32Unavailable().empty()) {
    // An engine with an fp32 path runs a layer in fp32 within its stated tolerance.
    engines::RunOptions o = contract::runOptionsOf(e);
    o.dtype = DType::F32;
    const report::RunReport r =
        e.simulate(nnaccel::testing::buildLayerGraph(nnaccel::testing::conv(3, 4, 6, 6, 3, 1)),
                   e.preset(""), o);
    EXPECT_TRUE(r.verdict.passed) << r.verdict.detail;
  }
}

INSTANTIATE_TEST_SUITE_P(Registered, EngineContract, ::testing::ValuesIn(engines::engineNames()),
                         [](const ::testing::TestParamInfo<std::string>& engine) {
                           return engine.param;
                         });

} // namespace
