/// \file
/// The engine registry: one table row per engine (its name, default preset, preset list, file
/// loader and session), and the engine-neutral operations on an EngineConfig (overrides,
/// resources, simulate) dispatched with std::visit over the config variant.
#include "nnaccel/engines/Engine.h"

#include "nnaccel/arch/broadcast/Session.h"
#include "nnaccel/arch/sparse/Session.h"
#include "nnaccel/arch/stream/Session.h"
#include "nnaccel/arch/systolic/Session.h"
#include "nnaccel/support/Error.h"

#include <algorithm>
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

namespace nnaccel::engines {

namespace systolic = arch::systolic;
namespace sparse = arch::sparse;
namespace broadcast = arch::broadcast;
namespace stream = arch::stream;

namespace {

/// What the registry knows of one engine; \p Config is its config type.
template <typename Config> struct EngineEntry {
  const char* name;
  const char* defaultPreset;
  std::vector<std::string> (*presetNames)();
  Config (*preset)(const std::string&);
  Config (*loadFile)(const std::string&);
  Config (*parseOver)(const Config&, const std::string&, const std::string&);
};

const EngineEntry<systolic::SystolicConfig> kSystolic{"systolic",
                                                      "server",
                                                      systolic::systolicPresetNames,
                                                      systolic::systolicPreset,
                                                      systolic::loadSystolicConfigFile,
                                                      systolic::parseSystolicConfigOver};
const EngineEntry<sparse::SparseConfig> kSparse{"sparse",
                                                "scnn",
                                                sparse::sparsePresetNames,
                                                sparse::sparsePreset,
                                                sparse::loadSparseConfigFile,
                                                sparse::parseSparseConfigOver};
const EngineEntry<broadcast::BroadcastConfig> kBroadcast{"broadcast",
                                                         "npu",
                                                         broadcast::broadcastPresetNames,
                                                         broadcast::broadcastPreset,
                                                         broadcast::loadBroadcastConfigFile,
                                                         broadcast::parseBroadcastConfigOver};
const EngineEntry<stream::StreamConfig> kStream{"stream",
                                                "fig44",
                                                stream::streamPresetNames,
                                                stream::streamPreset,
                                                stream::loadStreamConfigFile,
                                                stream::parseStreamConfigOver};

const EngineEntry<systolic::SystolicConfig>& entryOf(const systolic::SystolicConfig&) {
  return kSystolic;
}
const EngineEntry<sparse::SparseConfig>& entryOf(const sparse::SparseConfig&) {
  return kSparse;
}
const EngineEntry<broadcast::BroadcastConfig>& entryOf(const broadcast::BroadcastConfig&) {
  return kBroadcast;
}
const EngineEntry<stream::StreamConfig>& entryOf(const stream::StreamConfig&) {
  return kStream;
}

/// Calls \p f with the registry entry of \p engine; throws Error (Usage) for an unknown one.
template <typename F> decltype(auto) withEntry(const std::string& engine, F&& f) {
  if (engine == kSystolic.name)
    return f(kSystolic);
  if (engine == kSparse.name)
    return f(kSparse);
  if (engine == kBroadcast.name)
    return f(kBroadcast);
  if (engine == kStream.name)
    return f(kStream);
  throw Error(ErrorKind::Usage, {},
              fmt::format("unknown engine '{}' (expected one of: {})", engine,
                          fmt::join(engineNames(), ", ")));
}

/// Inserts \p value at the dotted \p key of \p root (sections become maps).
void setPath(const YAML::Node& root, const Override& o, const std::string& origin) {
  YAML::Node node = root;
  size_t start = 0;
  while (true) {
    const size_t dot = o.key.find('.', start);
    const std::string part = o.key.substr(start, dot == std::string::npos ? dot : dot - start);
    if (part.empty())
      throw Error(ErrorKind::Usage, ErrorContext{.file = origin, .key = o.key},
                  "empty section name in the key");
    if (dot == std::string::npos) {
      YAML::Node value;
      try {
        value = YAML::Load(o.value);
      } catch (const YAML::Exception& e) {
        throw Error(ErrorKind::Usage, ErrorContext{.file = origin, .key = o.key},
                    fmt::format("value '{}' is not a YAML value: {}", o.value, e.msg));
      }
      node[part] = value;
      return;
    }
    if (node[part] && !node[part].IsMap())
      throw Error(ErrorKind::Usage, ErrorContext{.file = origin, .key = o.key},
                  fmt::format("'{}' is set both as a value and as a section", part));
    YAML::Node child = node[part];
    if (!child)
      node[part] = YAML::Node(YAML::NodeType::Map);
    node.reset(node[part]); // yaml-cpp: reset rebinds; assignment would copy into the parent
    start = dot + 1;
  }
}

} // namespace

const std::vector<std::string>& engineNames() {
  static const std::vector<std::string> kNames = {kSystolic.name, kSparse.name, kBroadcast.name,
                                                  kStream.name};
  return kNames;
}

bool isEngine(const std::string& name) {
  const auto& names = engineNames();
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string defaultPreset(const std::string& engine) {
  return withEntry(engine, [](const auto& e) { return std::string(e.defaultPreset); });
}

std::vector<std::string> presetNames(const std::string& engine) {
  return withEntry(engine, [](const auto& e) { return e.presetNames(); });
}

const std::string& EngineConfig::engine() const {
  static const std::vector<std::string>& names = engineNames();
  return names[config_.index()];
}

const std::string& EngineConfig::name() const {
  return std::visit([](const auto& c) -> const std::string& { return c.name; }, config_);
}

std::string EngineConfig::toYaml() const {
  return std::visit(
      [](const auto& c) {
        using arch::broadcast::toYaml, arch::sparse::toYaml, arch::stream::toYaml,
            arch::systolic::toYaml;
        return toYaml(c);
      },
      config_);
}

EngineConfig loadPreset(const std::string& engine, const std::string& name) {
  return withEntry(engine, [&](const auto& e) {
    return EngineConfig(e.preset(name.empty() ? std::string(e.defaultPreset) : name));
  });
}

EngineConfig loadConfigFile(const std::string& engine, const std::string& path) {
  return withEntry(engine, [&](const auto& e) { return EngineConfig(e.loadFile(path)); });
}

Override parseOverride(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw Error(ErrorKind::Usage, {},
                fmt::format("'{}' is not a setting: expected KEY=VALUE, e.g. array.rows=64", text));
  return Override{text.substr(0, eq), text.substr(eq + 1)};
}

EngineConfig applyOverrides(const EngineConfig& base, const std::vector<Override>& overrides,
                            const std::string& origin) {
  if (overrides.empty())
    return base;
  YAML::Node doc(YAML::NodeType::Map);
  for (const Override& o : overrides)
    setPath(doc, o, origin);
  YAML::Emitter out;
  out << doc;
  return std::visit(
      [&](const auto& c) {
        auto result = entryOf(c).parseOver(c, out.c_str(), origin);
        return EngineConfig(std::move(result));
      },
      base.variant());
}

namespace {

Resources resourcesOf(const systolic::SystolicConfig& c) {
  return Resources{.multipliers = c.peRows * c.peCols,
                   .sramBytes =
                       c.sbufBytesPerPartition * c.peRows + c.psumEntriesPerColumn * c.peCols * 4,
                   .clockMhz = c.clockMhz,
                   .dramBytesPerCycle = c.dramBytesPerCycle};
}

Resources resourcesOf(const sparse::SparseConfig& c) {
  // Per PE: IA and OA RAMs, the weight FIFO (F values with their indices per entry) and the
  // accumulator banks (two sets when double-buffered).
  const int64_t fifoBytes =
      c.weightFifoEntries * c.weightsPerVector * (c.valueBits + c.indexBits) / 8;
  const int64_t accumulatorBytes =
      c.accumulatorEntries() * c.accumulatorBits / 8 * (c.doubleBufferedAccumulators ? 2 : 1);
  return Resources{.multipliers = c.peCount() * c.multipliersPerPe(),
                   .sramBytes =
                       c.peCount() * (c.iaRamBytes + c.oaRamBytes + fifoBytes + accumulatorBytes),
                   .clockMhz = c.clockMhz,
                   .dramBytesPerCycle = c.dramBytesPerCycle};
}

Resources resourcesOf(const broadcast::BroadcastConfig& c) {
  return Resources{.multipliers = c.macsPerCycle(),
                   .sramBytes = c.peCount() * (c.inputRfBytes + c.weightRfBytes + c.outputRfBytes) +
                                c.columns * c.columnBufferBytes,
                   .clockMhz = c.clockMhz,
                   .dramBytesPerCycle = c.memoryBytesPerCycle};
}

Resources resourcesOf(const stream::StreamConfig& c) {
  // FIFO capacity: each kernel tile's row FIFOs 4705 ((k - 1) array rows of every lane) and its
  // auxiliary-input FIFO 4706, each aux tile's FIFO 4902; values are accumulator-wide.
  const int64_t laneBytes = c.accumulatorBits / 8;
  const int64_t kernelTileBytes =
      ((c.kernelSize - 1) * c.maxArrayWidthPositions + c.auxFifoPositions) * c.lanes * laneBytes;
  const int64_t auxTileBytes = c.auxTileFifoPositions * c.lanes * laneBytes;
  return Resources{.multipliers = c.macsPerCycle(),
                   .sramBytes = c.chips * (c.kernelTileCount() * kernelTileBytes +
                                           c.auxTileCount() * auxTileBytes),
                   .clockMhz = c.clockMhz,
                   .dramBytesPerCycle = 0};
}

} // namespace

Resources resources(const EngineConfig& config) {
  return std::visit([](const auto& c) { return resourcesOf(c); }, config.variant());
}

namespace {

/// Copies the options every engine session shares.
template <typename SessionOptions> SessionOptions commonOptions(const RunOptions& o) {
  SessionOptions so;
  so.verify = o.verify;
  so.baselineRows = o.baselineRows;
  so.inputs = o.inputs;
  so.inputSeed = o.inputSeed;
  so.progress = o.progress;
  return so;
}

report::RunReport run(const ir::Graph& g, const systolic::SystolicConfig& c, const RunOptions& o) {
  systolic::SessionOptions so;
  so.baseline = o.baselineRows;
  so.functional = o.verify;
  so.inputs = o.inputs;
  so.inputSeed = o.inputSeed;
  so.progress = o.progress;
  return systolic::simulateModel(g, c, so).report;
}

report::RunReport run(const ir::Graph& g, const sparse::SparseConfig& c, const RunOptions& o) {
  auto so = commonOptions<sparse::SessionOptions>(o);
  so.threads = o.sparseThreads;
  return sparse::simulateModel(g, c, so).report;
}

report::RunReport run(const ir::Graph& g, const broadcast::BroadcastConfig& c,
                      const RunOptions& o) {
  return broadcast::simulateModel(g, c, commonOptions<broadcast::SessionOptions>(o)).report;
}

report::RunReport run(const ir::Graph& g, const stream::StreamConfig& c, const RunOptions& o) {
  auto so = commonOptions<stream::SessionOptions>(o);
  so.chips = o.streamChips;
  return stream::simulateModel(g, c, so).report;
}

} // namespace

void describeMachine(report::RunReport& r, const EngineConfig& config) {
  const Resources res = resources(config);
  r.peakMacsPerCycle = res.multipliers;
  r.dramBytesPerCycle = res.dramBytesPerCycle;
  r.configYaml = config.toYaml();
}

report::RunReport simulate(const ir::Graph& g, const EngineConfig& config,
                           const RunOptions& options) {
  report::RunReport r =
      std::visit([&](const auto& c) { return run(g, c, options); }, config.variant());
  if (const auto* st = std::get_if<stream::StreamConfig>(&config.variant());
      st != nullptr && options.streamChips > 0) {
    stream::StreamConfig chained = *st; // the run's chip count, not the file's
    chained.chips = options.streamChips;
    describeMachine(r, EngineConfig(std::move(chained)));
  } else {
    describeMachine(r, config);
  }
  return r;
}

} // namespace nnaccel::engines
