/// \file
/// Tests of the engine-independent preset lookup and config-file reader
/// (nnaccel/config/Presets.h): names in file order, the Usage error listing the presets,
/// each preset parsed once over a default config, and the Io errors of readConfigFile. The
/// engines' ConfigTests check the same messages through sparsePreset / systolicPreset.
#include "nnaccel/config/Presets.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace nnaccel;
using namespace nnaccel::config;

namespace {

constexpr EmbeddedConfig kFiles[] = {
    {"small", "small.yaml", "value: 1\n"},
    {"big", "big.yaml", "value: 2\n"},
};

/// A stand-in engine config: one integer parsed from "value: N" over a base.
struct FakeConfig {
  int64_t value = -1;
  std::string file;
};

int parseCalls = 0;

FakeConfig parseFake(const FakeConfig& base, const std::string& yamlText, const std::string& file) {
  ++parseCalls;
  FakeConfig c = base;
  c.value = std::stoll(yamlText.substr(yamlText.find(':') + 1));
  c.file = file;
  return c;
}

std::string usageMessage(std::span<const EmbeddedConfig> files, std::string_view name) {
  try {
    presetIndex(files, "fake", name);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    return e.what();
  }
  ADD_FAILURE() << "no error for preset '" << name << "'";
  return "";
}

TEST(Presets, NamesInFileOrder) {
  EXPECT_EQ(presetNames(kFiles), (std::vector<std::string>{"small", "big"}));
  EXPECT_TRUE(presetNames({}).empty());
}

TEST(Presets, IndexByNameAndUsageErrorListingThePresets) {
  EXPECT_EQ(presetIndex(kFiles, "fake", "small"), 0u);
  EXPECT_EQ(presetIndex(kFiles, "fake", "big"), 1u);
  EXPECT_EQ(usageMessage(kFiles, "huge"), "no fake preset named 'huge' (presets: small, big)");
  // Names match exactly: no case folding, no ".yaml", no prefix.
  EXPECT_EQ(usageMessage(kFiles, "Small"), "no fake preset named 'Small' (presets: small, big)");
  EXPECT_EQ(usageMessage(kFiles, "big.yaml"),
            "no fake preset named 'big.yaml' (presets: small, big)");
  EXPECT_EQ(usageMessage(kFiles, ""), "no fake preset named '' (presets: small, big)");
  EXPECT_EQ(usageMessage({}, "x"), "no fake preset named 'x' (presets: )");
}

TEST(Presets, TableParsesEachFileOnceOverADefaultConfig) {
  parseCalls = 0;
  const PresetTable<FakeConfig> table("fake", kFiles, parseFake);
  EXPECT_EQ(parseCalls, 2);
  EXPECT_EQ(table.names(), (std::vector<std::string>{"small", "big"}));
  EXPECT_EQ(table.find("small").value, 1);
  EXPECT_EQ(table.find("big").value, 2);
  // Errors in a preset name the embedded file.
  EXPECT_EQ(table.find("big").file, "big.yaml");
  EXPECT_EQ(parseCalls, 2); // lookups do not parse again
  EXPECT_THROW(table.find("huge"), Error);
}

class ConfigFile : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("nnaccel_presets_test_" + std::to_string(static_cast<long>(::getpid())));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string ioMessage(const std::string& path) {
    try {
      readConfigFile(path);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Io);
      EXPECT_EQ(e.context().file, path);
      return e.what();
    }
    ADD_FAILURE() << "no error for " << path;
    return "";
  }

  fs::path dir_;
};

TEST_F(ConfigFile, ReadsTheWholeFileByteForByte) {
  const std::string text = std::string("name: x\r\nrows: 4\n\0tail", 22) + std::string(70000, 'y');
  const fs::path file = dir_ / "c.yaml";
  std::ofstream(file, std::ios::binary) << text;
  EXPECT_EQ(readConfigFile(file.string()), text);
  std::ofstream(dir_ / "empty.yaml").close();
  EXPECT_EQ(readConfigFile((dir_ / "empty.yaml").string()), "");
}

TEST_F(ConfigFile, IoErrorsNameThePathAsGiven) {
  const std::string missing = (dir_ / "missing.yaml").string();
  EXPECT_EQ(ioMessage(missing), missing + ": cannot open file (No such file or directory)");
  EXPECT_EQ(ioMessage(dir_.string()), dir_.string() + ": is a directory, not a config file");
  const std::string throughFile = (dir_ / "c.yaml" / "x.yaml").string();
  std::ofstream(dir_ / "c.yaml") << "a: 1\n";
  EXPECT_EQ(ioMessage(throughFile), throughFile + ": cannot open file (Not a directory)");
}

} // namespace
