// Runs every file of tests/corpus/onnx-malformed through import (and, for files whose defect
// is at the shape level, through ir::inferShapes + ir::verify) and checks each one ends in an
// nnaccel::Error whose message contains the substring listed in the corpus's expected.txt.
// A crash, an assertion or a silently accepted file fails the test.
#include "../../support/SourcePaths.h"
#include "nnaccel/frontend/Onnx.h"
#include "nnaccel/ir/ShapeInference.h"
#include "nnaccel/ir/Verifier.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <set>

using namespace nnaccel;

namespace {

const std::string kCorpusDir = nnaccel::test::sourceDir().string() + "/tests/corpus/onnx-malformed";

struct CorpusCase {
  std::string file;
  std::string stage; ///< "import" or "infer"
  std::string expected;
};

/// Parses expected.txt: `file<TAB>stage<TAB>substring`, '#' comments.
std::vector<CorpusCase> readManifest() {
  std::vector<CorpusCase> cases;
  std::ifstream in(kCorpusDir + "/expected.txt");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') {
      continue;
    }
    const size_t tab1 = line.find('\t');
    const size_t tab2 = line.find('\t', tab1 + 1);
    if (tab1 == std::string::npos || tab2 == std::string::npos) {
      ADD_FAILURE() << "malformed manifest line: " << line;
      continue;
    }
    cases.push_back(
        {line.substr(0, tab1), line.substr(tab1 + 1, tab2 - tab1 - 1), line.substr(tab2 + 1)});
  }
  return cases;
}

/// Import, then shape inference and verification (what the driver does before any pass).
void loadFully(const std::string& path) {
  ir::Graph g = frontend::importOnnxFile(path);
  ir::inferShapes(g);
  ir::verify(g);
}

/// Test name from the file name ("raw_data_short.onnx" -> "raw_data_short").
std::string caseName(const ::testing::TestParamInfo<CorpusCase>& param) {
  std::string name = param.param.file.substr(0, param.param.file.find('.'));
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) {
      ch = '_';
    }
  }
  return name;
}

class MalformedOnnx : public ::testing::TestWithParam<CorpusCase> {};

} // namespace

TEST_P(MalformedOnnx, RejectedWithExpectedMessage) {
  const CorpusCase& c = GetParam();
  const std::string path = kCorpusDir + "/" + c.file;
  ASSERT_TRUE(std::filesystem::exists(path)) << path;
  if (c.stage == "infer") {
    // The defect is at the shape level: import itself must accept the file.
    EXPECT_NO_THROW(frontend::importOnnxFile(path));
  }
  try {
    loadFully(path);
    ADD_FAILURE() << c.file << " was accepted; expected an error containing: " << c.expected;
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(c.expected), std::string::npos)
        << c.file << ": message '" << message << "' lacks '" << c.expected << "'";
    EXPECT_EQ(message.find('\n'), std::string::npos) << "one-line messages only";
    if (c.stage == "import") {
      // Import errors name the file they came from.
      EXPECT_EQ(message.rfind(path, 0), 0u) << message;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, MalformedOnnx, ::testing::ValuesIn(readManifest()), caseName);

TEST(MalformedOnnxCorpus, EveryFileHasAnExpectation) {
  std::set<std::string> listed;
  for (const CorpusCase& c : readManifest()) {
    EXPECT_TRUE(c.stage == "import" || c.stage == "infer") << c.file << ": stage " << c.stage;
    EXPECT_TRUE(listed.insert(c.file).second) << c.file << " listed twice";
  }
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kCorpusDir)) {
    if (entry.path().extension() == ".onnx") {
      ++files;
      EXPECT_TRUE(listed.count(entry.path().filename().string()))
          << entry.path() << " has no line in expected.txt";
    }
  }
  EXPECT_EQ(files, static_cast<int>(listed.size()));
  EXPECT_GE(files, 40);
}
