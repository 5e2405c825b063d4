/// \file
/// Fuzz target: YAML bytes -> every registered engine's config loader (schema validation and
/// the cross-key checks), and the same bytes as a `key=value` override of each engine's default
/// preset and as a compare budget. The config loaders read files, so the bytes go through a
/// scratch file in the temporary folder. A config that loads is also priced through the
/// technology model (`arch cost`): a valid config must always price, so an error there is a
/// finding, not an accepted failure.
#include "FuzzTarget.h"
#include "nnaccel/compare/Budget.h"
#include "nnaccel/engines/Engine.h"

#include <filesystem>
#include <fstream>
#include <optional>
#include <unistd.h>

namespace {

const std::string& scratchPath() {
  static const std::string path = (std::filesystem::temp_directory_path() /
                                   ("nnaccel_fuzz_" + std::to_string(::getpid()) + ".yaml"))
                                      .string();
  return path;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nnaccel;
  const std::string text = fuzz::text(data, size);
  std::ofstream(scratchPath(), std::ios::binary | std::ios::trunc) << text;
  for (const std::string& engine : engines::engineNames()) {
    std::optional<engines::EngineConfig> loaded, overridden;
    fuzz::accept([&] { loaded = engines::loadConfigFile(engine, scratchPath()); });
    fuzz::accept([&] {
      overridden = engines::applyOverrides(engines::loadPreset(engine),
                                           {engines::parseOverride(text)}, "fuzz");
    });
    for (const std::optional<engines::EngineConfig>& c : {loaded, overridden})
      if (c)
        (void)engines::engineNamed(engine).costTable(*c);
  }
  return fuzz::accept([&] { (void)compare::parseBudget(text, "fuzz.yaml"); });
}
