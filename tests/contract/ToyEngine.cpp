/// \file
/// A fifth engine registered from inside tests/ with no change to src/: the proof that the
/// engine contract is open. "toy" runs every layer of the int8 model on a row of identical
/// multipliers (cycles = ceil(MACs / multipliers), a simple bound, not a patent's design), keeps
/// its own presets and YAML schema, declares a budget knob and a run option, and verifies every
/// layer against the int8 reference executor. Linked into the contract suite and into a copy of
/// the CLI (nnaccel_with_toy_engine), on which the CLI tests run arch list, simulate, compare and
/// sweep with --arch toy.
#include "nnaccel/arch/common/Lowering.h"
#include "nnaccel/arch/common/Session.h"
#include "nnaccel/arch/common/Verify.h"
#include "nnaccel/config/ConfigReader.h"
#include "nnaccel/config/Presets.h"
#include "nnaccel/engines/TypedEngine.h"
#include "nnaccel/quant/Kernels.h"
#include "nnaccel/quant/QuantizedModel.h"

#include <algorithm>
#include <fmt/format.h>
#include <set>

namespace nnaccel::toy {
namespace {

struct ToyConfig {
  std::string name = "custom";
  int64_t multipliers = 64;
  double clockMhz = 500;
  bool operator==(const ToyConfig&) const = default;
};

template <typename Visitor, typename Config> void walkSchema(Visitor& v, Config& c) {
  v.text("name", c.name);
  v.integer("multipliers", c.multipliers, {1, int64_t{1} << 20});
  v.real("clock_mhz", c.clockMhz, {0.0, true});
}

ToyConfig parseOver(const ToyConfig& base, const std::string& yamlText, const std::string& file) {
  return config::parseConfigOver(
      base, yamlText, file, [](auto& reader, ToyConfig& c) { walkSchema(reader, c); },
      [](const ToyConfig&, const std::string&) {});
}

std::string toYaml(const ToyConfig& c) {
  config::ConfigWriter writer("toy engine (tests/contract/ToyEngine.cpp)");
  walkSchema(writer, c);
  return writer.yaml();
}

std::vector<std::string> presetNames() {
  return {"one", "wide"};
}

ToyConfig preset(const std::string& name) {
  if (name == "one")
    return ToyConfig{"one", 64, 500};
  if (name == "wide")
    return ToyConfig{"wide", 1024, 1000};
  throw Error(ErrorKind::Usage, {},
              fmt::format("no toy preset named '{}' (presets: one, wide)", name));
}

ToyConfig loadFile(const std::string& path) {
  return parseOver(ToyConfig{}, config::readConfigFile(path), path);
}

/// Output elements x reduction length of node \p id: its MACs on a row of multipliers.
int64_t macsOf(const quant::QuantizedModel& qm, ir::NodeId id) {
  const ir::Node& n = qm.graph.node(id);
  int64_t outputs = 0;
  for (ir::ValueId v : n.outputs)
    if (v != ir::kNoValue)
      outputs += numElements(qm.graph.value(v).shape);
  int64_t reduction = 1;
  if (n.inputs.size() > 1 && n.inputs[1] != ir::kNoValue && qm.graph.isConstant(n.inputs[1])) {
    const Dims& w = qm.graph.value(n.inputs[1]).shape;
    for (size_t i = 1; i < w.size(); ++i)
      reduction *= w[i];
  }
  return outputs * reduction;
}

class ToyEngine final : public engines::EngineFor<ToyConfig> {
public:
  ToyEngine()
      : EngineFor("toy", "one",
                  {toy::presetNames, toy::preset, toy::loadFile, toy::parseOver, toy::toYaml}) {}

  std::string description() const override { return "a row of multipliers (test engine)"; }
  int listOrder() const override { return 1000; }

  engines::PresetSummary presetSummary() const override {
    return summarize({"multipliers", "clock MHz"}, [](const std::string&, const ToyConfig& c) {
      return std::vector<std::string>{std::to_string(c.multipliers),
                                      report::numberText(c.clockMhz)};
    });
  }

  std::vector<engines::BudgetKnob> budgetKnobs() const override {
    return {{"preset", engines::BudgetKnob::Kind::Preset, "one", 0, "the row's clock"}};
  }

  engines::EngineConfig
  deriveFromBudget(const engines::BudgetFigures& b,
                   const std::vector<engines::BudgetKnob>& knobs) const override {
    return engines::deriveFromPreset(*this, b, engines::knob(knobs, "preset").text,
                                     {{"multipliers", engines::overrideValue(b.multipliers)},
                                      {"clock_mhz", engines::overrideValue(b.clockMhz)}});
  }

  std::vector<engines::OptionSpec> runOptions() const override {
    return {{"toy-slowdown", "toy: multiply every layer's cycles by this factor",
             engines::OptionSpec::Kind::Integer, 1, 16, 1}};
  }

  std::string fp32Unavailable() const override { return "multiplies int8 values only"; }

  report::RunReport compileAndSimulate(const ir::Graph& model, const engines::EngineConfig& config,
                                       const engines::RunOptions& o) const override {
    const auto so = arch::common::sessionOptions<arch::common::RunOptions>(o);
    const ToyConfig& c = config.as<ToyConfig>();
    const quant::QuantizedModel qm =
        arch::common::quantizeForRun(model, so, "toy", arch::common::ZeroPointSupport::Asymmetric);
    const ir::Graph& g = qm.graph; // ids of the quantized model (a QDQ model's pairs absorbed)
    const arch::common::Int8Run run(g, qm, so, so.verify);
    std::vector<Tensor> values(g.numValues());
    for (size_t i = 0; i < run.inputs.size(); ++i) {
      const ir::ValueId v = g.inputs[i];
      const Tensor& x = run.inputs[i];
      values[static_cast<size_t>(v)] = x.dtype() == DType::F32 ? qm.quantizeInput(x, v).data : x;
    }
    report::RunReport r;
    arch::common::LayerVerifier verifier(g, r.verdict, so.verify);
    const int64_t slowdown = o.engineOption("toy-slowdown", 1);
    size_t planned = 0;
    arch::common::forEachLoweredNode(qm, std::set<ir::NodeId>{}, [&](ir::NodeId) { ++planned; });
    const bool interrupted = arch::common::runUntilInterrupted([&] {
      arch::common::forEachLoweredNode(qm, std::set<ir::NodeId>{}, [&](ir::NodeId id) {
        report::LayerStats s;
        s.name = g.node(id).name;
        s.op = std::string(ir::opName(g.node(id).op));
        s.unit = "row";
        arch::common::runHostNode(qm, id, values, s);
        s.hostFallback = false; // the toy's row runs it: nothing crosses the host link
        s.hostBytes = 0;
        s.usefulMacs = s.issuedMacs = macsOf(qm, id);
        s.cycles =
            slowdown * std::max<int64_t>(1, (s.usefulMacs + c.multipliers - 1) / c.multipliers);
        s.causes.compute = s.cycles;
        s.energyPj = static_cast<double>(s.usefulMacs); // 1 pJ per MAC: a toy figure
        s.energy.compute = s.energyPj;
        for (ir::ValueId v : g.node(id).outputs)
          if (v != ir::kNoValue && run.reference && verifier.active())
            verifier.check(r.layers.size(), s.name, s.op, v, values[static_cast<size_t>(v)],
                           run.reference->value(v).data);
        r.layers.push_back(std::move(s));
        so.reportProgress("simulating", r.layers.size(), planned);
      });
    });
    if (interrupted)
      r.markInterrupted(r.layers.size(), planned);
    r.engine = name();
    r.config = c.name;
    r.model = g.name;
    r.dtype = "int8";
    r.peCount = c.multipliers;
    r.peakMacsPerCycle = c.multipliers;
    r.clockMhz = c.clockMhz;
    r.finalize();
    engines::describeMachine(r, config);
    return r;
  }

  std::vector<engines::LayerCoverage> coverage(const ir::Graph& g,
                                               const engines::EngineConfig&) const override {
    std::vector<engines::LayerCoverage> out;
    for (const ir::Node& n : g.nodes())
      out.push_back({n.name, std::string(ir::opName(n.op)), true, ""});
    return out;
  }

protected:
  engines::Resources resourcesOf(const ToyConfig& c) const override {
    return {.multipliers = c.multipliers, .sramBytes = 1024, .clockMhz = c.clockMhz};
  }
};

} // namespace

NNACCEL_REGISTER_ENGINE(ToyEngine)

} // namespace nnaccel::toy
