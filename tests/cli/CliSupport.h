/// \file
/// What the end-to-end CLI tests share: running the built `nnaccel` binary through the shell in
/// a per-test scratch directory (exit code, stdout, stderr), the exact-error assertions, and the
/// small text helpers that pick lines and words out of a printed table. One copy, so every CLI
/// test file checks errors and parses tables the same way.
#pragma once

#include "CliPaths.h"
#include "nnaccel/frontend/Onnx.h"
#include "nnaccel/ir/ShapeInference.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <utility>
#include <vector>

namespace nnaccel::clitest {

struct Result {
  int exitCode = -1; ///< -1 when the process did not exit normally (crash, signal)
  std::string out;
  std::string err;
};

/// An ONNX file (opset 13) with one Relu "y" of input x whose dimensions are \p dims: a number is
/// a fixed extent, anything else a symbolic dimension (dim_param) of that name.
inline void writeReluModel(const std::string& path, const std::vector<std::string>& dims) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* opset = m.add_opset_import();
  opset->set_domain("");
  opset->set_version(13);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("symbolic");
  auto* tensorType = g->add_input()->mutable_type()->mutable_tensor_type();
  g->mutable_input(0)->set_name("x");
  tensorType->set_elem_type(onnx::TensorProto::FLOAT);
  auto* shape = tensorType->mutable_shape();
  for (const std::string& d : dims) {
    if (!d.empty() && std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; }))
      shape->add_dim()->set_dim_value(std::stoll(d));
    else
      shape->add_dim()->set_dim_param(d);
  }
  onnx::NodeProto* relu = g->add_node();
  relu->set_op_type("Relu");
  relu->set_name("relu");
  relu->add_input("x");
  relu->add_output("y");
  g->add_output()->set_name("y");
  g->mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(
      onnx::TensorProto::FLOAT);
  std::ofstream out(path, std::ios::binary);
  ASSERT_TRUE(m.SerializeToOstream(&out));
}

/// An ONNX file with x[1,2,3,3] -> ConvTranspose(4 outputs, 3x3, stride 2, pads 1,1,1,1,
/// output_padding 1,1) -> y[1,4,6,6].
inline void writeConvTransposeModel(const std::string& path) {
  ir::Graph g;
  g.name = "deconv";
  g.opsetVersion = 13;
  const ir::ValueId x = g.addValue("x", DType::F32, {1, 2, 3, 3});
  g.inputs = {x};
  ir::Node n;
  n.op = ir::OpKind::ConvTranspose;
  n.name = "up";
  n.opset = 13;
  n.inputs = {x, g.addConstant("w", Tensor(DType::F32, {2, 4, 3, 3}))};
  n.attrs.set("kernel_shape", std::vector<int64_t>{3, 3});
  n.attrs.set("strides", std::vector<int64_t>{2, 2});
  n.attrs.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  n.attrs.set("output_padding", std::vector<int64_t>{1, 1});
  n.outputs = {g.addValue("y", DType::F32)};
  g.outputs = n.outputs;
  g.addNode(std::move(n));
  ir::inferShapes(g);
  frontend::exportOnnxFile(g, path);
}

inline std::string readFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline size_t countLines(const std::string& s) {
  return static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
}

/// The first line of \p text that contains \p needle ("" if none).
inline std::string lineWith(const std::string& text, const std::string& needle) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.find(needle) != std::string::npos) {
      return line;
    }
  }
  return "";
}

/// Whitespace-separated words of \p line.
inline std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) {
    out.push_back(w);
  }
  return out;
}

/// Words of the first line of \p text whose first word is \p first; empty if there is none.
inline std::vector<std::string> rowStartingWith(const std::string& text, const std::string& first) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> row = words(line);
    if (!row.empty() && row[0] == first) {
      return row;
    }
  }
  return {};
}

/// A test fixture with a fresh scratch directory per test, cliWorkDir()/PREFIX<test name>.
class CliFixture : public ::testing::Test {
protected:
  /// \p binary: the nnaccel executable the fixture runs (another build of the CLI, e.g. one
  /// linked with a test engine).
  explicit CliFixture(std::string prefix, std::string binary = nnaccel::test::cliBinary())
      : prefix_(std::move(prefix)), binary_(std::move(binary)) {}

  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = nnaccel::test::cliWorkDir() / (prefix_ + info->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }

  /// Path of \p name in this test's scratch directory.
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  void writeText(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name) << text;
  }

  /// Runs `nnaccel ARGS` (ARGS is shell text) in the scratch directory.
  Result run(const std::string& args) const {
    const std::filesystem::path outFile = dir_ / "stdout.txt";
    const std::filesystem::path errFile = dir_ / "stderr.txt";
    std::string cmd = "cd '";
    cmd.append(dir_.string()).append("' && '").append(binary_).append("' ").append(args);
    cmd.append(" >'").append(outFile.string()).append("' 2>'").append(errFile.string());
    cmd.append("'");
    const int status = std::system(cmd.c_str());
    Result r;
    if (status != -1 && WIFEXITED(status)) {
      r.exitCode = WEXITSTATUS(status);
    }
    r.out = readFile(outFile);
    r.err = withoutProgress(readFile(errFile));
    return r;
  }

  /// \p err without the progress lines ("[nnaccel] ...") a run prints once it has taken over a
  /// second of wall-clock time: whether they appear depends on the machine's load, not on the
  /// command.
  static std::string withoutProgress(const std::string& err) {
    std::istringstream in(err);
    std::string kept;
    for (std::string line; std::getline(in, line);)
      if (line.rfind("[nnaccel] ", 0) != 0)
        kept.append(line).append("\n");
    if (!err.empty() && err.back() != '\n' && !kept.empty())
      kept.pop_back();
    return kept;
  }

  /// Runs a command that must fail with \p exitCode, print nothing on stdout and exactly the one
  /// stderr line "error: MESSAGE".
  void expectError(const std::string& args, int exitCode, const std::string& message) const {
    const Result r = run(args);
    EXPECT_EQ(r.exitCode, exitCode) << args << "\nstderr: " << r.err;
    EXPECT_EQ(r.err, "error: " + message + "\n") << args;
    EXPECT_EQ(r.out, "") << args;
  }

  /// Like expectError, with a stderr line that starts with "error: PREFIX".
  void expectErrorPrefix(const std::string& args, int exitCode, const std::string& prefix) const {
    const Result r = run(args);
    EXPECT_EQ(r.exitCode, exitCode) << args << "\nstderr: " << r.err;
    EXPECT_EQ(r.err.rfind("error: " + prefix, 0), 0u) << args << "\nstderr: " << r.err;
    EXPECT_EQ(countLines(r.err), 1u) << r.err;
    EXPECT_EQ(r.out, "") << args;
  }

  std::filesystem::path dir_;

private:
  std::string prefix_;
  std::string binary_;
};

} // namespace nnaccel::clitest
