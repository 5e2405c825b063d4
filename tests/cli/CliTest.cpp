/// \file
/// End-to-end tests of the `nnaccel` command-line tool: each test runs the built binary through
/// the shell and checks its exit code, stdout and stderr (happy paths on the small LeNet-5 zoo
/// model, on an ONNX file written by `zoo export` and on hand-written ONNX files with symbolic
/// dimensions or transposed convolutions; every error path with its exact message). The runner,
/// the error assertions and the table helpers come from CliSupport.h.
#include "../support/SourcePaths.h"
#include "CliSupport.h"
#include "nnaccel/driver/Inputs.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/frontend/Onnx.h"
#include "nnaccel/ir/ShapeInference.h"
#include "nnaccel/quant/QuantizedModel.h"
#include "nnaccel/tensor/Npy.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <onnx/onnx_pb.h>

namespace fs = std::filesystem;
using namespace nnaccel;
using namespace nnaccel::clitest;

namespace {

/// The small zoo model used for the happy paths: LeNet-5, 1x1x32x32 -> 1x10.
constexpr const char* kSmall = "lenet5";

/// An ONNX file (opset 13) with one Relu whose input x has shape [N, 3, H, 4] with the
/// symbolic dimensions N and H.
void writeSymbolicModel(const std::string& path) {
  writeReluModel(path, {"N", "3", "H", "4"});
}

/// Scratch directories are cliWorkDir()/<test name> (no prefix).
class Cli : public CliFixture {
protected:
  Cli() : CliFixture("") {}

  /// Exports the small model to this test's directory and returns the file's path.
  std::string exportSmall() const {
    const std::string file = path("lenet5.onnx");
    const Result r = run(std::string("zoo export ") + kSmall + " '" + file + "'");
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return file;
  }
};

// --- help and usage -----------------------------------------------------------------------------

TEST_F(Cli, HelpOnEveryCommand) {
  for (const char* args : {"--help", "info --help", "run --help", "zoo --help", "zoo list --help",
                           "zoo export --help"}) {
    const Result r = run(args);
    EXPECT_EQ(r.exitCode, 0) << args;
    EXPECT_EQ(r.err, "") << args;
    EXPECT_NE(r.out.find("Usage:"), std::string::npos) << args << "\n" << r.out;
  }
  const Result topHelp = run("--help");
  EXPECT_NE(topHelp.out.find("zoo"), std::string::npos);
  EXPECT_EQ(words(lineWith(topHelp.out, "  sweep ")),
            words("sweep sweep a model over a grid of config values (any engine; Pareto front, "
                  "shards, MPI), densities (sparse) or kernel-vector widths and group sizes "
                  "(broadcast)"));
  const Result runHelp = run("run --help");
  for (const char* option : {"--input", "--output", "--dtype", "--seed", "--calib-samples",
                             "--eval-samples", "--dim", "--batch"}) {
    EXPECT_NE(runHelp.out.find(option), std::string::npos) << option;
  }
  const Result infoHelp = run("info --help");
  for (const char* option : {"--raw", "--dim", "--batch"}) {
    EXPECT_NE(infoHelp.out.find(option), std::string::npos) << option;
  }
}

TEST_F(Cli, UsageErrorsExitWithTwo) {
  expectError("", 2, "a subcommand is required (see 'nnaccel --help')");
  expectError("frobnicate", 2,
              "unknown command 'frobnicate' for 'nnaccel' (expected one of: info, run, zoo, "
              "simulate, compare, map, compile, disasm, arch, prune, sweep, scalesim, "
              "export-topology, validate) (see 'nnaccel --help')");
  expectError("zoo frob", 2,
              "unknown command 'frob' for 'nnaccel zoo' (expected one of: list, export) (see "
              "'nnaccel zoo --help')");
  expectError("info", 2, "MODEL is required (see 'nnaccel info --help')");
  expectError("info lenet5 --frob", 2,
              "the following argument was not expected: --frob (see 'nnaccel info --help')");
  expectError("zoo export lenet5", 2, "OUT is required (see 'nnaccel zoo export --help')");
  expectError("run lenet5 --dtype int4", 2,
              "--dtype: int4 not in {f32,int8} (did you mean 'int8'?) (see 'nnaccel run --help')");
  // Typos get the nearest valid name (support/Suggest.h).
  expectErrorPrefix("simulat lenet5", 2,
                    "unknown command 'simulat' for 'nnaccel' (did you mean "
                    "'simulate'?)");
  expectErrorPrefix("simulate lenet5 --arch systolc", 2,
                    "--arch: systolc not in {systolic,sparse,broadcast,stream} (did you mean "
                    "'systolic'?)");
  expectErrorPrefix("simulate lenet", 2,
                    "model 'lenet': no such file and no zoo model of that name (did you mean "
                    "'lenet5'?)");
  expectErrorPrefix(
      "simulate lenet5 --preset sever", 2,
      "no systolic preset named 'sever' (did you mean 'server'?) (presets: small, edge, "
      "server)");
  expectError("run lenet5 --dtype int8 --calib-samples 0", 2,
              "--calib-samples: Value 0 not in range 1 to 10000 (see 'nnaccel run --help')");
  expectError("run lenet5 --seed -3", 2,
              "--seed: expected an integer from 0 to 18446744073709551615, got '-3' (see "
              "'nnaccel run --help')");
  expectError("zoo export lenet5 out.onnx --seed x", 2,
              "--seed: expected an integer from 0 to 18446744073709551615, got 'x' (see "
              "'nnaccel zoo export --help')");
  EXPECT_FALSE(fs::exists(path("out.onnx")));
  expectError("simulate lenet5 --host link_latency_ns", 2,
              "'--host': expected KEY=VALUE, got 'link_latency_ns'");
  expectError("compare lenet5 --host link_bytes_per_second=0", 2,
              "'host.link_bytes_per_second': must be > 0 and finite (got 0)");
}

TEST_F(Cli, VersionFlag) {
  const Result r = run("--version");
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_EQ(r.out, "nnaccel 0.1.0\n");
}

// --- zoo ----------------------------------------------------------------------------------------

TEST_F(Cli, ZooListShowsEveryModel) {
  const Result r = run("zoo list");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.err, "");
  for (const zoo::ZooModel& m : zoo::zooModels()) {
    EXPECT_NE(lineWith(r.out, m.name), "") << m.name;
  }
  // LeNet-5: 156 + 2,416 + 48,120 + 10,164 + 850 parameters.
  const std::string lenet = lineWith(r.out, "lenet5");
  EXPECT_NE(lenet.find("1x1x32x32"), std::string::npos) << lenet;
  EXPECT_NE(lenet.find("61,706"), std::string::npos) << lenet;
  EXPECT_NE(lenet.find(" 417K "), std::string::npos) << lenet; // 416,520 MACs
  EXPECT_NE(lineWith(r.out, "vgg16 ").find(" 15.5G "), std::string::npos) << r.out;
  EXPECT_NE(lineWith(r.out, "1x3x224x224"), "");
  // Learnable parameters as PyTorch counts them (torchvision's published figures for the
  // ImageNet models; BatchNorm running statistics are not parameters).
  const std::pair<const char*, const char*> kParams[] = {
      {"alexnet", "61,100,840"},  {"vgg16", "138,357,544"},     {"resnet18", "11,689,512"},
      {"resnet50", "25,557,032"}, {"mobilenetv2", "3,504,872"},
  };
  for (const auto& [name, params] : kParams) {
    EXPECT_NE(lineWith(r.out, std::string(name) + " ").find(params), std::string::npos)
        << name << " should have " << params << " parameters:\n"
        << r.out;
  }
}

TEST_F(Cli, ZooExportWritesAnImportableFile) {
  const std::string file = path("out.onnx");
  const Result r = run("zoo export lenet5 out.onnx");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out, "wrote lenet5 (seed 2026, 61,706 params) to out.onnx\n");
  ASSERT_TRUE(fs::is_regular_file(file));
  const ir::Graph g = driver::loadModel(file);
  EXPECT_EQ(g.inputs.size(), 1u);
  EXPECT_EQ(g.value(g.inputs[0]).shape, (Dims{1, 1, 32, 32}));
}

TEST_F(Cli, ZooExportErrors) {
  expectError("zoo export nosuch out.onnx", 2,
              "no zoo model named 'nosuch' (see 'nnaccel zoo list')");
  expectError(
      "zoo export lenet5 /nonexistent-dir/out.onnx", 1,
      "/nonexistent-dir/out.onnx: cannot open file for writing (No such file or directory)");
}

// --- info ---------------------------------------------------------------------------------------

TEST_F(Cli, InfoPrintsLayersAndTotals) {
  const Result r = run("info lenet5");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out.rfind("model lenet5 (opset 13): ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("inputs:  input f32 1x1x32x32\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("outputs: output f32 1x10\n"), std::string::npos) << r.out;
  // c1: 6x28x28 outputs x 25 taps = 117,600 MACs; 6*25 + 6 = 156 parameters.
  const std::string c1 = lineWith(r.out, " c1 ");
  for (const char* cell : {"Conv", "1x1x32x32", "1x6x28x28", "5x5", "117,600", "156"}) {
    EXPECT_NE(c1.find(cell), std::string::npos) << cell << " in: " << c1;
  }
  const std::string s2 = lineWith(r.out, " s2 ");
  for (const char* cell : {"AveragePool", "1x6x28x28", "1x6x14x14", "2x2"}) {
    EXPECT_NE(s2.find(cell), std::string::npos) << cell << " in: " << s2;
  }
  // MACs: 117,600 + 240,000 + 48,000 + 10,080 + 840; params as in `zoo list`.
  const std::string total = lineWith(r.out, " total ");
  EXPECT_NE(total.find("416,520"), std::string::npos) << total;
  EXPECT_NE(total.find("61,706"), std::string::npos) << total;
}

TEST_F(Cli, InfoOnExportedFileMatchesZooModel) {
  const std::string file = exportSmall();
  const Result fromZoo = run("info lenet5");
  const Result fromFile = run("info '" + file + "'");
  ASSERT_EQ(fromFile.exitCode, 0) << fromFile.err;
  // Same layers, same numbers; only the header line may differ.
  EXPECT_EQ(fromFile.out.substr(fromFile.out.find('\n')),
            fromZoo.out.substr(fromZoo.out.find('\n')));
}

TEST_F(Cli, InfoShowsConvTransposePadsAndOutputPadding) {
  // The pad column shows the model's ONNX pads (not ir::ConvParams::padsEnd, which absorbs
  // output_padding) and the output_padding when it is not zero.
  writeConvTransposeModel(path("deconv.onnx"));
  const Result r = run("info deconv.onnx");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const std::vector<std::string> up = words(lineWith(r.out, " up "));
  // #, name, op, input, output, kernel, stride, pad..., dilation, groups, MACs, params.
  const std::vector<std::string> expected = {
      "0", "up", "ConvTranspose", "1x2x3x3", "1x4x6x6", "3x3", "2", "1", "outpad", "1",
      "1", "1",  "648",           "72"};
  EXPECT_EQ(up, expected) << r.out;
}

TEST_F(Cli, SymbolicDimensionsAreBoundByDimInputAndBatch) {
  writeSymbolicModel(path("sym.onnx")); // x: [N, 3, H, 4]
  // Nothing binds H: an error naming it and how to bind it, never a silent 1.
  expectError("info sym.onnx", 2,
              "sym.onnx: 1 symbolic input dimension nothing binds: 'H' (axis 2 of 'x'); bind it "
              "with --dim NAME=VALUE or give --input files whose shapes have it");

  const Result bound = run("info sym.onnx --dim H=5 --batch 2");
  ASSERT_EQ(bound.exitCode, 0) << bound.err;
  EXPECT_EQ(lineWith(bound.out, "symbolic dims"), "symbolic dims: N=2 (--batch), H=5 (--dim)");
  EXPECT_NE(bound.out.find("inputs:  x f32 2x3x5x4\n"), std::string::npos) << bound.out;

  // --batch binds the leading dimension N only.
  const Result ran = run("run sym.onnx --batch 3 --dim H=3 --output y.npy");
  ASSERT_EQ(ran.exitCode, 0) << ran.err;
  EXPECT_EQ(ran.out.rfind("symbolic dims: N=3 (--batch), H=3 (--dim)\ninput 'x': f32 3x3x3x4 "
                          "(random, seed 0)\n",
                          0),
            0u)
      << ran.out;
  EXPECT_EQ(readNpy(path("y.npy")).shape(), (Dims{3, 3, 3, 4}));

  // An input file's shape binds both; --dim still wins (and the file then does not fit).
  writeNpy(path("x.npy"), Tensor(DType::F32, Dims{2, 3, 6, 4}));
  const Result fromFile = run("run sym.onnx --input x.npy");
  ASSERT_EQ(fromFile.exitCode, 0) << fromFile.err;
  EXPECT_EQ(lineWith(fromFile.out, "symbolic dims"),
            "symbolic dims: N=2 (from x.npy), H=6 (from x.npy)");
  EXPECT_NE(fromFile.out.find("input 'x': f32 2x3x6x4 (x.npy)"), std::string::npos) << fromFile.out;
  const Result wins = run("run sym.onnx --input x.npy --dim H=5");
  EXPECT_EQ(wins.exitCode, 1);
  EXPECT_EQ(wins.err, "error: x.npy: holds f32 2x3x6x4 but model input 'x' is f32 2x3x5x4\n");
}

TEST_F(Cli, SymbolicDimensionErrors) {
  writeSymbolicModel(path("sym.onnx"));
  expectError("info sym.onnx --dim N=2 --dim N=3", 2,
              "--dim: 'N' is bound twice (see 'nnaccel info --help')");
  // A name no input has (a typo) is an error, not silently unused.
  expectError("info sym.onnx --dim W=2", 2,
              "sym.onnx: no graph input has the symbolic dimension (dim_param) 'W'");
  for (const char* bad : {"N=0", "N=x", "=3", "N", "N=-1", "N=1099511627777"}) {
    expectError(std::string("run sym.onnx --dim ") + bad, 2,
                std::string("--dim: expected NAME=VALUE with VALUE an integer from 1 to "
                            "1099511627776, got '") +
                    bad + "' (see 'nnaccel run --help')");
  }
  expectError("info sym.onnx --batch 0", 2,
              "--batch: Value 0 not in range 1 to 1099511627776 (see 'nnaccel info --help')");
  expectError("info demo --dim N=2", 2,
              "--dim applies only to .onnx files ('demo' is a zoo model with no named "
              "dimensions; --batch sets its batch) (see 'nnaccel info --help')");
}

TEST_F(Cli, InfoRawKeepsBatchNormalization) {
  const Result folded = run("info resnet18");
  const Result raw = run("info resnet18 --raw");
  ASSERT_EQ(folded.exitCode, 0) << folded.err;
  ASSERT_EQ(raw.exitCode, 0) << raw.err;
  EXPECT_EQ(lineWith(folded.out, "BatchNormalization"), "");
  EXPECT_NE(lineWith(raw.out, "BatchNormalization"), "");
  EXPECT_NE(raw.out.find(", raw)"), std::string::npos);
  // Folding BatchNormalization into the convolutions does not change the MAC count.
  const std::vector<std::string> foldedTotal = words(lineWith(folded.out, " total "));
  const std::vector<std::string> rawTotal = words(lineWith(raw.out, " total "));
  ASSERT_EQ(foldedTotal.size(), 3u);
  ASSERT_EQ(rawTotal.size(), 3u);
  EXPECT_EQ(foldedTotal[1], rawTotal[1]);
  EXPECT_EQ(rawTotal[1], "1,814,073,344");
  EXPECT_EQ(rawTotal[2], "11,689,512"); // torchvision's resnet18 parameter count
}

TEST_F(Cli, DemoAliasNamesTheDemoModel) {
  const Result r = run("info demo");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out.rfind(std::string("model ") + zoo::kDemoModel + " (opset ", 0), 0u) << r.out;
}

// --- run ----------------------------------------------------------------------------------------

TEST_F(Cli, RunFp32PrintsOutputsAndTopOne) {
  const Result r = run("run lenet5");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("input 'input': f32 1x1x32x32 (random, seed 0)\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("output 'output': f32 1x10\n"), std::string::npos) << r.out;
  EXPECT_NE(lineWith(r.out, "top-1: class "), "") << r.out;
  EXPECT_NE(lineWith(r.out, "first 8: "), "") << r.out;
}

TEST_F(Cli, RunRepeatTimesTheExecutorAlone) {
  // fp32: the reference executor; int8: the int8 executor (not calibration). The figures are
  // wall time, so only the line's form is checked; the outputs are those of a plain run.
  const Result f = run("run lenet5 --repeat 3");
  ASSERT_EQ(f.exitCode, 0) << f.err;
  const std::string line = lineWith(f.out, "latency of the fp32 reference executor alone: ");
  EXPECT_NE(line.find(" ms over 3 run(s) after one warm-up run"), std::string::npos) << f.out;
  EXPECT_NE(line.find("median "), std::string::npos);
  EXPECT_NE(line.find(", min "), std::string::npos);
  EXPECT_EQ(lineWith(f.out, "first 8: "), lineWith(run("run lenet5").out, "first 8: "));
  const Result q = run("run lenet5 --dtype int8 --repeat 2");
  ASSERT_EQ(q.exitCode, 0) << q.err;
  EXPECT_NE(lineWith(q.out, "latency of the int8 executor alone: "), "") << q.out;
  expectErrorPrefix("run lenet5 --repeat 0", 2, "--repeat: Value 0 not in range 1 to 100000");
}

TEST_F(Cli, RunIsDeterministicAndSeeded) {
  const Result a = run("run lenet5 --seed 7 --output a.npy");
  const Result b = run("run lenet5 --seed 7 --output b.npy");
  const Result c = run("run lenet5 --seed 8 --output c.npy");
  ASSERT_EQ(a.exitCode, 0) << a.err;
  ASSERT_EQ(b.exitCode, 0) << b.err;
  ASSERT_EQ(c.exitCode, 0) << c.err;
  EXPECT_EQ(a.out.substr(0, a.out.find("wrote")), b.out.substr(0, b.out.find("wrote")));
  EXPECT_EQ(readFile(path("a.npy")), readFile(path("b.npy")));
  EXPECT_NE(readFile(path("a.npy")), readFile(path("c.npy")));
  const Tensor y = readNpy(path("a.npy"));
  EXPECT_EQ(y.dtype(), DType::F32);
  EXPECT_EQ(y.shape(), (Dims{1, 10}));
}

TEST_F(Cli, RunOnExportedFileMatchesZooModel) {
  const std::string file = exportSmall();
  const Result fromZoo = run("run lenet5 --output zoo.npy");
  const Result fromFile = run("run '" + file + "' --output file.npy");
  ASSERT_EQ(fromFile.exitCode, 0) << fromFile.err;
  EXPECT_EQ(fromFile.out.substr(0, fromFile.out.find("wrote")),
            fromZoo.out.substr(0, fromZoo.out.find("wrote")));
  EXPECT_EQ(readFile(path("zoo.npy")), readFile(path("file.npy")));
}

TEST_F(Cli, RunWithInputFileEqualsSeededRandomInput) {
  // The random input of seed 5, written as .npy, gives the same output as --seed 5.
  const ir::Graph g = driver::loadModel(kSmall);
  writeNpy(path("x.npy"), quant::randomInputs(g, 5).at(0));
  const Result given = run("run lenet5 --input x.npy --output given.npy");
  const Result seeded = run("run lenet5 --seed 5 --output seeded.npy");
  ASSERT_EQ(given.exitCode, 0) << given.err;
  ASSERT_EQ(seeded.exitCode, 0) << seeded.err;
  EXPECT_NE(given.out.find("input 'input': f32 1x1x32x32 (x.npy)\n"), std::string::npos);
  EXPECT_EQ(readFile(path("given.npy")), readFile(path("seeded.npy")));
}

TEST_F(Cli, RunInt8ReportsAgreementOnEvaluationInputs) {
  const Result r = run("run lenet5 --dtype int8 --calib-samples 4 --output q.npy");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("int8: calibrated on 4 random input sets (calibration seed "
                       "0x6e6e616363656c)\n"
                       "int8: activation ranges by minmax\n"
                       "int8: agreement measured on 8 other random input sets (evaluation seed "
                       "0x6576616c; none is a calibration input)\n"),
            std::string::npos)
      << r.out;
  // The default: 8 evaluation inputs, each with one classifier row, and the run's own input.
  for (const std::string what : {"(8 evaluation inputs): ", "(this input): "}) {
    const std::string line = lineWith(r.out, "int8 vs fp32 'output' " + what);
    ASSERT_NE(line, "") << what << "\n" << r.out;
    for (const char* metric : {"max abs error ", "mean abs error ", "cosine similarity "}) {
      EXPECT_NE(line.find(metric), std::string::npos) << metric << " in " << line;
    }
  }
  const std::string eval = lineWith(r.out, "(8 evaluation inputs)");
  EXPECT_NE(eval.find("(worst input "), std::string::npos) << eval;
  EXPECT_NE(eval.find("top-1 agreement "), std::string::npos) << eval;
  EXPECT_NE(eval.find("/8 ("), std::string::npos) << eval; // top-1 over 8 rows, e.g. "8/8 ("
  EXPECT_NE(lineWith(r.out, "(this input)").find("top-1 agreement 1/1 (100.0%)"), std::string::npos)
      << r.out;
  const Result again = run("run lenet5 --dtype int8 --calib-samples 4 --output q2.npy");
  EXPECT_EQ(r.out.substr(0, r.out.find("wrote")), again.out.substr(0, again.out.find("wrote")));
  EXPECT_EQ(readFile(path("q.npy")), readFile(path("q2.npy")));

  // --eval-samples sets N and says so; 0 keeps only the run's own input.
  const Result three = run("run lenet5 --dtype int8 --eval-samples 3");
  ASSERT_EQ(three.exitCode, 0) << three.err;
  EXPECT_NE(lineWith(three.out, "int8 vs fp32 'output' (3 evaluation inputs): "), "") << three.out;
  EXPECT_NE(lineWith(three.out, "/3 ("), "") << three.out;
  const Result none = run("run lenet5 --dtype int8 --eval-samples 0");
  ASSERT_EQ(none.exitCode, 0) << none.err;
  EXPECT_EQ(lineWith(none.out, "evaluation"), "") << none.out;
  EXPECT_NE(lineWith(none.out, "int8 vs fp32 'output' (this input): "), "") << none.out;
  // The evaluation inputs do not depend on --seed, and the quantized model does not either:
  // the evaluation line is the same for another run input.
  const Result otherSeed = run("run lenet5 --dtype int8 --calib-samples 4 --seed 9");
  EXPECT_EQ(lineWith(otherSeed.out, "(8 evaluation inputs)"), eval);
}

TEST_F(Cli, RunInt8CalibratesOnGivenInput) {
  const ir::Graph g = driver::loadModel(kSmall);
  writeNpy(path("x.npy"), quant::randomInputs(g, 1).at(0));
  const Result r = run("run lenet5 --dtype int8 --input x.npy");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(lineWith(r.out, "calibrat").find("x.npy"), std::string::npos) << r.out;
  // Measured on 8 evaluation inputs that are not the calibration input, and on x.npy itself.
  EXPECT_NE(lineWith(r.out, "int8 vs fp32 'output' (8 evaluation inputs): "), "") << r.out;
  EXPECT_NE(lineWith(r.out, "int8 vs fp32 'output' (this input, the calibration set): "), "")
      << r.out;
}

TEST_F(Cli, NonFiniteCalibrationInputIsADataError) {
  Tensor x(DType::F32, {1, 1, 32, 32});
  x.values<float>()[5] = std::numeric_limits<float>::quiet_NaN();
  writeNpy(path("nan.npy"), x);
  // Not expectError: `run` prints the input line on stdout before calibration fails.
  const Result r = run("run lenet5 --dtype int8 --input nan.npy");
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_EQ(r.err, "error: nan.npy: input 'input' holds a non-finite value (nan at element 5); "
                   "int8 calibration needs finite inputs\n");
}

// --- errors -------------------------------------------------------------------------------------

TEST_F(Cli, UnknownModelIsAUsageError) {
  for (const char* cmd : {"info", "run"}) {
    expectError(std::string(cmd) + " nosuch.onnx", 2,
                "model 'nosuch.onnx': no such file and no zoo model of that name (see 'nnaccel "
                "zoo list')");
    expectError(std::string(cmd) + " resnet19", 2,
                "model 'resnet19': no such file and no zoo model of that name (did you mean "
                "'resnet18'?) (see 'nnaccel zoo "
                "list')");
  }
}

TEST_F(Cli, GarbageModelFileIsAModelError) {
  {
    std::ofstream out(path("garbage.onnx"), std::ios::binary);
    out << "this is not a protobuf \x01\x02\xff\xfe";
  }
  expectError("info garbage.onnx", 1,
              "garbage.onnx: not a valid ONNX model (protobuf parse failed)");
  expectError("run garbage.onnx", 1,
              "garbage.onnx: not a valid ONNX model (protobuf parse failed)");
  fs::create_directories(path("models"));
  expectError("info models", 1, "models: is a directory, not an onnx file");
}

TEST_F(Cli, MalformedCorpusGivesOneLineErrors) {
  // Every file of the malformed-ONNX corpus, with the message substring its manifest expects.
  const fs::path corpus = nnaccel::test::sourceDir() / "tests/corpus/onnx-malformed";
  std::ifstream manifest(corpus / "expected.txt");
  ASSERT_TRUE(manifest.good()) << "missing " << corpus / "expected.txt";
  int files = 0;
  for (std::string line; std::getline(manifest, line);) {
    if (line.empty() || line[0] == '#') {
      continue;
    }
    const size_t tab1 = line.find('\t');
    const size_t tab2 = line.find('\t', tab1 + 1);
    ASSERT_NE(tab2, std::string::npos) << line;
    const std::string file = (corpus / line.substr(0, tab1)).string();
    const std::string expected = line.substr(tab2 + 1);
    ++files;
    const Result r = run("info '" + file + "'");
    EXPECT_EQ(r.exitCode, 1) << file << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("error: " + file + ": ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(expected), std::string::npos)
        << "expected '" << expected << "' in " << r.err;
    EXPECT_EQ(countLines(r.err), 1u) << r.err;
    EXPECT_EQ(r.out, "") << file;
  }
  EXPECT_GT(files, 20);
}

TEST_F(Cli, InputFileErrors) {
  writeNpy(path("small.npy"), Tensor(DType::F32, {1, 1, 28, 28}));
  writeNpy(path("int.npy"), Tensor(DType::I32, {1, 1, 32, 32}));
  expectError("run lenet5 --input small.npy", 1,
              "small.npy: holds f32 1x1x28x28 but model input 'input' is f32 1x1x32x32");
  expectError("run lenet5 --input int.npy", 1,
              "int.npy: holds s32 1x1x32x32 but model input 'input' is f32 1x1x32x32");
  expectError("run lenet5 --input missing.npy", 1,
              "missing.npy: cannot open file (No such file or directory)");
  expectError("run lenet5 --input small.npy --input small.npy", 2,
              "model 'lenet5' has 1 input(s) but 2 --input file(s) were given (see 'nnaccel run "
              "--help')");
}

TEST_F(Cli, OutputFileErrors) {
  // Output paths are checked before the model runs: nothing is printed on stdout.
  for (const char* dtype : {"f32", "int8"}) {
    const Result r =
        run(std::string("run lenet5 --output /nonexistent-dir/y.npy --dtype ") + dtype);
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_EQ(r.err, "error: /nonexistent-dir/y.npy: cannot open file for writing (No such file "
                     "or directory)\n");
    EXPECT_EQ(r.out, "");
  }
  fs::create_directories(path("outdir"));
  const Result dir = run("run lenet5 --output outdir");
  EXPECT_EQ(dir.exitCode, 1);
  EXPECT_EQ(dir.err, "error: outdir: cannot open file for writing (Is a directory)\n");
  EXPECT_EQ(dir.out, "");
  expectError("run lenet5 --output a.npy --output b.npy", 2,
              "model 'lenet5' has 1 output(s) but 2 --output file(s) were given (see 'nnaccel run "
              "--help')");
  // zoo export checks its path before building the model, with the same wording.
  expectError(
      "zoo export vgg16 /nonexistent-dir/out.onnx", 1,
      "/nonexistent-dir/out.onnx: cannot open file for writing (No such file or directory)");
}

TEST_F(Cli, CalibrationOptionErrors) {
  expectError("run lenet5 --calib-samples 4", 2,
              "--calib-samples applies only to --dtype int8 (see 'nnaccel run --help')");
  expectError("run lenet5 --eval-samples 4", 2,
              "--eval-samples applies only to --dtype int8 (see 'nnaccel run --help')");
  expectError("run lenet5 --dtype int8 --eval-samples 10001", 2,
              "--eval-samples: Value 10001 not in range 0 to 10000 (see 'nnaccel run --help')");
  writeNpy(path("x.npy"), Tensor(DType::F32, {1, 1, 32, 32}));
  expectError("run lenet5 --dtype int8 --input x.npy --calib-samples 4", 2,
              "--calib-samples applies only without --input and --calib (those are the "
              "calibration set) (see 'nnaccel run --help')");
  expectError("run lenet5 --calib-method mse", 2,
              "--calib-method applies only to --dtype int8 (see 'nnaccel run --help')");
  expectError("run lenet5 --dtype int8 --calib-method kl", 2,
              "--calib-method: kl not in {minmax,percentile,mse,entropy} (see 'nnaccel run "
              "--help')");
  expectError("run lenet5 --dtype int8 --percentile 99", 2,
              "--percentile applies only to --calib-method percentile (see 'nnaccel run --help')");
  expectError("run lenet5 --dtype int8 --calib-method percentile --percentile 0", 2,
              "--percentile: Value 0 not in range 0.000001 to 100.000000 (see 'nnaccel run "
              "--help')");
  expectError("run lenet5 --dtype int8 --calib nowhere", 2,
              "--calib: Directory does not exist: nowhere (see 'nnaccel run --help')");
  std::filesystem::create_directories(path("empty"));
  writeText("empty/notes.txt", "no data here");
  expectError("run lenet5 --dtype int8 --calib empty", 2,
              "empty: --calib: the folder has no .npy, PNG or JPEG file");
}

TEST_F(Cli, RunInt8CalibratesOnAFolderWithAMethodAndRanksSensitivity) {
  std::filesystem::create_directories(path("calib"));
  writeNpy(path("calib/a.npy"), Tensor(DType::F32, {1, 1, 32, 32}));
  const Tensor ones = Tensor::fromVector<float>({1, 1, 32, 32}, std::vector<float>(1024, 0.5f));
  writeNpy(path("calib/b.npy"), ones);
  const Result r = run("run lenet5 --dtype int8 --calib calib --calib-method mse --eval-samples 0 "
                       "--sensitivity");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("int8: calibrated on 2 files in calib\nint8: activation ranges by mse\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("(every value fake-quantized at once, fp32 arithmetic): top-1 agreement"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("int8 sensitivity on this input ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("     1  "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("int8 with the most sensitive values (ranked above) left in fp32"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("     0 of "), std::string::npos) << r.out;
}

TEST_F(Cli, RunInt8EqualizesChannelsOnRequest) {
  // ResNet-18's convolutions followed by a Relu and read only by convolutions are rescaled;
  // LeNet-5's (tanh between) are not.
  Result r = run("run resnet18 --dtype int8 --equalize --calib-samples 1 --eval-samples 0");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("int8: channels equalized after "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("int8: channels equalized after 0 convolutions"), std::string::npos)
      << r.out;
  r = run("run lenet5 --dtype int8 --equalize --eval-samples 0");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("int8: channels equalized after 0 convolutions"), std::string::npos)
      << r.out;
  expectError("run lenet5 --equalize", 2,
              "--equalize applies only to --dtype int8 (see 'nnaccel run --help')");
}

TEST_F(Cli, RunInt8CorrectsBiasesOnRequest) {
  Result r = run("run lenet5 --dtype int8 --bias-correction --eval-samples 0");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("int8: bias corrected in "), std::string::npos) << r.out;
  r = run("simulate lenet5 --arch systolic --bias-correction");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("; bias corrected in "), std::string::npos) << r.out;
  expectError("run lenet5 --bias-correction", 2,
              "--bias-correction applies only to --dtype int8 (see 'nnaccel run --help')");
}

// --- arch ---------------------------------------------------------------------------------------

TEST_F(Cli, ArchListShowsEnginesAndPresets) {
  const Result r = run("arch list");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const std::pair<const char*, const char*> kPresets[] = {
      {"small ", "16x16"}, {"edge ", "32x32"}, {"server ", "128x64"}};
  for (const auto& [preset, array] : kPresets) {
    const std::string line = lineWith(r.out, std::string("systolic  ") + preset);
    EXPECT_NE(line.find(array), std::string::npos) << preset << "\n" << r.out;
  }
  EXPECT_NE(lineWith(r.out, "systolic  small").find("16 KiB"), std::string::npos) << r.out;
  EXPECT_NE(lineWith(r.out, "systolic  server").find("192 KiB"), std::string::npos) << r.out;
  for (const char* args : {"arch --help", "arch list --help", "arch show --help"}) {
    const Result help = run(args);
    EXPECT_EQ(help.exitCode, 0) << args;
    EXPECT_NE(help.out.find("Usage:"), std::string::npos) << args;
  }
  EXPECT_NE(run("arch show --help").out.find("--config"), std::string::npos);
}

TEST_F(Cli, ListingsAndInfoTakeJsonAndCsv) {
  // info: the same fields as nnaccel.info() (driver::summaryJson), one CSV row per layer.
  const Result info = run("info lenet5 --json");
  ASSERT_EQ(info.exitCode, 0) << info.err;
  const nlohmann::json summary = nlohmann::json::parse(info.out);
  EXPECT_EQ(summary["schema"], "nnaccel.model_summary");
  EXPECT_EQ(summary["total_macs"], 416520);
  EXPECT_EQ(summary["inputs"][0]["shape"], nlohmann::json::parse("[1, 1, 32, 32]"));
  EXPECT_EQ(summary["layers"][0]["window"]["kernel"], nlohmann::json::parse("[5, 5]"));
  const Result csv = run("info lenet5 --csv");
  ASSERT_EQ(csv.exitCode, 0) << csv.err;
  EXPECT_EQ(csv.out.substr(0, csv.out.find('\n')),
            "index,name,op,fused_activation,input_shapes,output_shapes,kernel,strides,pads_begin,"
            "pads_end,dilations,group,macs,params");
  EXPECT_NE(csv.out.find("\n0,c1,Conv,Tanh,1x1x32x32,1x6x28x28,5x5,1x1,0x0,0x0,1x1,1,117600,156\n"),
            std::string::npos)
      << csv.out;
  // zoo list and arch list: one record per model, per engine and preset.
  const nlohmann::json zoo = nlohmann::json::parse(run("zoo list --json").out);
  ASSERT_TRUE(zoo.is_array());
  EXPECT_EQ(zoo[0]["name"], "lenet5");
  EXPECT_EQ(zoo[0]["macs"], 416520);
  const Result zooCsv = run("zoo list --csv");
  EXPECT_EQ(zooCsv.out.substr(0, zooCsv.out.find('\n')),
            "name,input_shape,params,macs,classifier,description");
  EXPECT_NE(zooCsv.out.find("\nresnet18,1x3x224x224,11689512,1814073344,true,"), std::string::npos);
  const nlohmann::json arch = nlohmann::json::parse(run("arch list --json").out);
  ASSERT_TRUE(arch.is_array());
  EXPECT_EQ(arch[0]["engine"], "systolic");
  EXPECT_EQ(arch[2]["preset"], "server");
  EXPECT_EQ(arch[2]["default"], true);
  EXPECT_EQ(arch[2]["PE array"], "128x64");
  const Result archCsv = run("arch list --csv");
  EXPECT_EQ(archCsv.out.rfind("engine,preset,default,description,PE array,", 0), 0u);
  EXPECT_NE(archCsv.out.find("\nstream,fig44,true,"), std::string::npos) << archCsv.out;
  expectError("info lenet5 --json --csv", 2, "--json excludes --csv (see 'nnaccel info --help')");
  expectError("zoo list --csv --json", 2, "--json excludes --csv (see 'nnaccel zoo list --help')");
}

// `arch tech`: the technology model's reference table (docs/Technology.md) at a node and
// supply, as a table and as records; a node or supply it does not know is a usage error.
TEST_F(Cli, ArchTechPrintsTheTechnologyReferenceTable) {
  const Result t = run("arch tech --vdd 0.9");
  ASSERT_EQ(t.exitCode, 0) << t.err;
  EXPECT_NE(t.out.find("technology 45nm at 0.9 V (supply: configured)"), std::string::npos)
      << t.out;
  // At Horowitz's own node and supply the table is his: an 8-bit multiply costs 0.2 pJ.
  const std::string mul = lineWith(t.out, "int_multiplier 8b");
  EXPECT_NE(mul.find("0.2 "), std::string::npos) << mul;
  EXPECT_NE(mul.find("282"), std::string::npos) << mul;
  // The CACTI runs are at 45 nm's nominal 1.0 V: there the table gives them back.
  const Result nominal = run("arch tech");
  EXPECT_NE(lineWith(nominal.out, "sram 128KiB x 64b").find("32.29"), std::string::npos)
      << nominal.out;
  const nlohmann::json seven = nlohmann::json::parse(run("arch tech --node 7nm --json").out);
  ASSERT_TRUE(seven.is_array());
  EXPECT_EQ(seven[0]["node"], "7nm");
  EXPECT_EQ(seven[0]["vdd_v"], 0.7);
  EXPECT_EQ(seven[0]["component"], "int_adder 8b");
  EXPECT_LT(seven[0]["read_energy_pj"].get<double>(), 0.03);
  const Result csv = run("arch tech --node 16nm --csv");
  EXPECT_EQ(csv.out.rfind("node,vdd_v,component,class,read_energy_pj,write_energy_pj,area_um2,"
                          "leakage_uw,source\n",
                          0),
            0u)
      << csv.out;
  expectError("arch tech --node 22nm", 2,
              "--node: 22nm not in {180nm,130nm,90nm,65nm,45nm,32nm,28nm,20nm,16nm,14nm,10nm,7nm} "
              "(did you mean '32nm'?) (see 'nnaccel arch tech --help')");
  expectError("arch tech --vdd 5", 1,
              "supply 5 V is outside what the 45nm scaling equations cover (0.4-2.0 V, with a "
              "positive energy factor)");
}

// `arch cost`: a config priced through the technology model; --set moves it to another node;
// an engine without a technology description says so in one line.
TEST_F(Cli, ArchCostPricesAConfigThroughTheTechnology) {
  const Result t = run("arch cost systolic --preset edge");
  ASSERT_EQ(t.exitCode, 0) << t.err;
  EXPECT_EQ(t.out.rfind("systolic 'edge' at 16nm (0.85 V): area ", 0), 0u) << t.out;
  EXPECT_NE(lineWith(t.out, "pe_multiplier").find("int_multiplier 8b"), std::string::npos);
  EXPECT_NE(lineWith(t.out, "pe_multiplier").find(" 1024 "), std::string::npos) << t.out;
  EXPECT_NE(lineWith(t.out, "mac_int8_pj").find("pe_multiplier + pe_adder"), std::string::npos);
  EXPECT_NE(lineWith(t.out, "dram_read_pj_per_byte").find("configured"), std::string::npos);
  const nlohmann::json j =
      nlohmann::json::parse(run("arch cost systolic --preset edge --set technology.node=7nm "
                                "--set energy.act_op_pj=0.5 --json")
                                .out);
  EXPECT_EQ(j["technology"]["node"], "7nm");
  double area = 0;
  for (const auto& c : j["components"])
    area += c["area_mm2"].get<double>();
  EXPECT_NEAR(area, j["area_mm2"].get<double>(), 1e-12);
  bool act = false;
  for (const auto& e : j["events"])
    if (e["key"] == "act_op_pj") {
      act = true;
      EXPECT_EQ(e["pj"], 0.5);
      EXPECT_EQ(e["basis"], "configured");
    }
  EXPECT_TRUE(act);
  // The run's report carries the same machine.
  const Result sim = run("simulate lenet5 --arch systolic --preset edge --timing-only");
  ASSERT_EQ(sim.exitCode, 0) << sim.err;
  EXPECT_NE(lineWith(sim.out, "technology: 16nm at 0.85 V; area ").find("pe_array"),
            std::string::npos)
      << sim.out;
  expectErrorPrefix("arch cost systolic --set technology.node=3nm", 1,
                    "--set: 'technology.node': unknown process node '3nm'");
  // The stream engine is priced too: a cell's select-add is its 256:1 selector and an adder of
  // its tree; claim 17's local multipliers replace the selectors and the mass multipliers.
  const Result stream = run("arch cost stream");
  ASSERT_EQ(stream.exitCode, 0) << stream.err;
  EXPECT_EQ(stream.out.rfind("stream 'fig44' at 28nm (0.9 V): area ", 0), 0u) << stream.out;
  EXPECT_NE(lineWith(stream.out, "cell_select ").find("multiplexer 256:1 x 16b"), std::string::npos)
      << stream.out;
  EXPECT_NE(lineWith(stream.out, "fifo_value_pj").find("row_fifo.write + row_fifo / 16 values"),
            std::string::npos)
      << stream.out;
  const Result local = run("arch cost stream --set mass_multiplier.local_multipliers=true");
  ASSERT_EQ(local.exitCode, 0) << local.err;
  EXPECT_NE(lineWith(local.out, "cell_select_add_pj").find("cell_multiplier + cell_adder"),
            std::string::npos)
      << local.out;
  EXPECT_NE(lineWith(local.out, "mass_multiplier_add_pj").find("no mass_multiplier_adder"),
            std::string::npos)
      << local.out;
  // The sparse engine is priced too: its crossbar and halo links keep configured figures.
  const Result sparse = run("arch cost sparse");
  ASSERT_EQ(sparse.exitCode, 0) << sparse.err;
  EXPECT_EQ(sparse.out.rfind("sparse 'scnn' at 16nm (0.85 V): area ", 0), 0u) << sparse.out;
  EXPECT_NE(lineWith(sparse.out, "accumulator_rmw_pj")
                .find("accumulator_bank + accumulator_adder + accumulator_bank.write"),
            std::string::npos)
      << sparse.out;
  EXPECT_NE(lineWith(sparse.out, "crossbar_pj")
                .find("crossbar_fifo.write + crossbar_fifo + crossbar_arbiter + crossbar_mux"),
            std::string::npos)
      << sparse.out;
  EXPECT_NE(lineWith(sparse.out, "halo_pj").find("halo_link"), std::string::npos);
}

TEST_F(Cli, ArchDramListsTheStandardsAndTheServerRunUsesItsStack) {
  const Result t = run("arch dram");
  ASSERT_EQ(t.exitCode, 0) << t.err;
  EXPECT_NE(lineWith(t.out, "hbm2 ").find("32.0"), std::string::npos) << t.out;
  EXPECT_NE(lineWith(t.out, "ddr4-2400").find("8192"), std::string::npos) << t.out;
  const nlohmann::json j = nlohmann::json::parse(run("arch dram --json").out);
  ASSERT_EQ(j.size(), 5u);
  EXPECT_EQ(j[4]["standard"], "hbm2");
  EXPECT_EQ(j[4]["activate_pj"], 828.0);
  EXPECT_EQ(j[4]["io_read_pj_per_bit"], 0.3);
  EXPECT_FALSE(j[4]["source"].get<std::string>().empty());
  // DDR4's device I/O (DQ termination) and the controller's PHY are priced, not left out.
  EXPECT_NEAR(j[0]["phy_pj_per_bit"].get<double>(), 1.76, 1e-12);
  EXPECT_GT(j[0]["io_read_pj_per_bit"].get<double>(), 0);
  EXPECT_EQ(j[3]["standard"], "lpddr5-6400");
  // The server preset's HBM2 stack with the row-buffer model: its rows and hits, and the
  // bandwidth the run achieved as the report's DRAM roof.
  const Result sim = run("simulate lenet5 --arch systolic --preset server --timing-only "
                         "--report " +
                         path("r.json"));
  ASSERT_EQ(sim.exitCode, 0) << sim.err;
  EXPECT_NE(
      lineWith(sim.out, "DRAM: hbm2 x 8 channel(s), peak 182.9 B/cycle; ").find("row activations"),
      std::string::npos)
      << sim.out;
  const nlohmann::json r = nlohmann::json::parse(readFile(path("r.json")));
  EXPECT_GT(r["total"]["counts"]["dram_row_activations"].get<int64_t>(), 0);
  EXPECT_LE(r["dram_bytes_per_cycle"].get<double>(), 8 * 32.0 / 1.4 + 1e-9);
  // Sparse and broadcast stream whole tensors: their line gives the rows opened and the rate.
  const Result sparse = run("simulate lenet5 --arch sparse --timing-only --set "
                            "dram.standard=lpddr4-3200 --set dram.row_buffer=true --set "
                            "dram.bytes_per_cycle=auto --report " +
                            path("s.json"));
  ASSERT_EQ(sparse.exitCode, 0) << sparse.err;
  EXPECT_NE(lineWith(sparse.out, "DRAM: lpddr4-3200 x 1 channel(s), peak 6.4 B/cycle; ")
                .find(" row activations; whole tensors stream at 6.4 B/cycle"),
            std::string::npos)
      << sparse.out;
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(readFile(path("s.json")))["dram_bytes_per_cycle"], 6.4);
  // Naming a standard on a custom preset takes the standard's figures (the preset's numbers
  // were the custom part's), unless the same settings give a number.
  const Result switched = run("arch cost sparse --set dram.standard=hbm2 --set "
                              "energy.dram_write_pj_per_byte=7");
  ASSERT_EQ(switched.exitCode, 0) << switched.err;
  EXPECT_NE(lineWith(switched.out, "dram_read_pj_per_byte").find("hbm2 read + I/O + PHY"),
            std::string::npos)
      << switched.out;
  EXPECT_NE(lineWith(switched.out, "dram_write_pj_per_byte").find("configured"), std::string::npos)
      << switched.out;
  const Result broadcast = run("simulate lenet5 --arch broadcast --timing-only --set "
                               "memory.standard=ddr4-2400");
  ASSERT_EQ(broadcast.exitCode, 0) << broadcast.err;
  EXPECT_NE(lineWith(broadcast.out, "DRAM: ddr4-2400 x 1 channel(s), peak 19.2 B/cycle")
                .find("row-buffer model off"),
            std::string::npos)
      << broadcast.out;
  expectError("arch dram --node 7nm", 2,
              "the following arguments were not expected: 7nm --node (see 'nnaccel arch dram "
              "--help')");
}

TEST_F(Cli, SetOverridesAConfigKeyOverThePresetOrFile) {
  const Result base = run("simulate lenet5 --timing-only");
  const Result small = run("simulate lenet5 --timing-only --set array.rows=32 --set array.cols=32");
  ASSERT_EQ(base.exitCode, 0) << base.err;
  ASSERT_EQ(small.exitCode, 0) << small.err;
  EXPECT_NE(lineWith(base.out, "total: "), lineWith(small.out, "total: "));
  const Result shown = run("arch show systolic --preset edge --set array.rows=16");
  EXPECT_NE(shown.out.find("  rows: 16\n"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("name: edge\n"), std::string::npos) << shown.out;
  expectError("simulate lenet5 --set array.rowz=32", 1,
              "--set: 'array.rowz': unknown key (expected one of: rows, cols, "
              "weight_load_cycles, shadow_weights)");
  expectError("simulate lenet5 --set array.rows=-3", 1,
              "--set: 'array.rows': must be >= 1 (got -3)");
  expectError("simulate lenet5 --set array.rows", 2,
              "'array.rows' is not a setting: expected KEY=VALUE, e.g. array.rows=64");
}

TEST_F(Cli, ArchShowPrintsTheEffectiveConfig) {
  const Result edge = run("arch show systolic --preset edge");
  ASSERT_EQ(edge.exitCode, 0) << edge.err;
  EXPECT_EQ(edge.err, "");
  for (const char* text : {"\nname: edge\n", "\narray:\n  rows: 32\n  cols: 32\n",
                           "\ndtypes: [int8, fp32]\n", "\nenergy:\n  mac_int8_pj: "}) {
    EXPECT_NE(edge.out.find(text), std::string::npos) << text << "\n" << edge.out;
  }
  // The output is a config file: feeding it back prints the same text.
  std::ofstream(path("edge-copy.yaml")) << edge.out;
  const Result copy = run("arch show systolic --config edge-copy.yaml");
  ASSERT_EQ(copy.exitCode, 0) << copy.err;
  EXPECT_EQ(copy.out, edge.out);
  // Without --preset/--config: the default preset, which is one of the shipped ones.
  const Result byDefault = run("arch show systolic");
  ASSERT_EQ(byDefault.exitCode, 0) << byDefault.err;
  const std::string nameLine = lineWith(byDefault.out, "name: ");
  ASSERT_EQ(nameLine.rfind("name: ", 0), 0u) << byDefault.out;
  EXPECT_EQ(byDefault.out, run("arch show systolic --preset " + nameLine.substr(6)).out);
  EXPECT_NE(run("arch show systolic --preset small").out.find("\n  rows: 16\n"), std::string::npos);
}

TEST_F(Cli, ArchShowPartialConfigKeepsSmallDefaults) {
  std::ofstream(path("partial.yaml")) << "array:\n  rows: 8\n";
  const Result r = run("arch show systolic --config partial.yaml");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  for (const char* text : {"\nname: custom\n", "\n  rows: 8\n  cols: 16\n",
                           "\n  bytes_per_partition: 16384\n", "\n  entries_per_column: 512\n"}) {
    EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
  }
}

TEST_F(Cli, ArchErrors) {
  expectError("arch", 2, "a subcommand is required (see 'nnaccel arch --help')");
  expectError("arch frob", 2,
              "unknown command 'frob' for 'nnaccel arch' (expected one of: list, show, tech, dram, "
              "cost) (see "
              "'nnaccel arch --help')");
  expectError("arch show", 2, "ENGINE is required (see 'nnaccel arch show --help')");
  expectError(
      "arch show tpu", 2,
      "ENGINE: tpu not in {systolic,sparse,broadcast,stream} (see 'nnaccel arch show --help')");
  expectError("arch show systolic --preset huge", 2,
              "no systolic preset named 'huge' (presets: small, edge, server)");
  expectError("arch show systolic --preset small --config x.yaml", 2,
              "--preset excludes --config (see 'nnaccel arch show --help')");
  expectError("arch show systolic --config missing.yaml", 1,
              "missing.yaml: cannot open file (No such file or directory)");
  std::ofstream(path("zero.yaml")) << "array: {rows: 0}\n";
  expectError("arch show systolic --config zero.yaml", 1,
              "zero.yaml: 'array.rows': must be >= 1 (got 0)");
  std::ofstream(path("typo.yaml")) << "psum:\n  entries: 4\n";
  expectErrorPrefix(
      "arch show systolic --config typo.yaml", 1,
      "typo.yaml: 'psum.entries': unknown key (expected one of: entries_per_column, ");
  std::ofstream(path("tile.yaml")) << "psum: {entries_per_column: 2048, max_tile_rows: 64, "
                                      "max_tile_cols: 64}\n";
  expectError("arch show systolic --config tile.yaml", 1,
              "tile.yaml: 'psum.max_tile_rows': 64 x 64 = 4096 exceeds psum.entries_per_column = "
              "2048");
  std::ofstream(path("broken.yaml")) << "array:\n  rows: [1, 2\n";
  expectErrorPrefix("arch show systolic --config broken.yaml", 1,
                    "broken.yaml: invalid YAML at line ");
  fs::create_directories(path("configs"));
  expectError("arch show systolic --config configs", 1,
              "configs: is a directory, not a config file");
  EXPECT_EQ(run("arch show systolic --config zero.yaml").out, "");
}

// --- the sparse engine: arch
// ----------------------------------------------------------------------

TEST_F(Cli, ArchListShowsBothEngines) {
  const Result r = run("arch list");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.err, "");
  // One table per engine; each row starts with its engine and preset.
  for (const char* preset : {"small", "edge", "server"}) {
    EXPECT_NE(lineWith(r.out, std::string("systolic  ") + preset), "") << preset << "\n" << r.out;
  }
  // scnn: 8x8 PEs of F x I = 4x4 multipliers, 32 banks of 32 accumulators, a 50-vector weight
  // FIFO, 10 KiB IA and OA RAMs, 1 GHz, 32 DRAM bytes per cycle; peak 2 x 1024 multipliers x
  // 1 GHz = 2.048 int8 TOPS.
  EXPECT_EQ(
      words(lineWith(r.out, "sparse  scnn")),
      (std::vector<std::string>{"sparse", "scnn", "8x8", "4x4", "32", "banks", "x", "32", "50",
                                "vectors", "10", "KiB/10", "KiB", "1000", "32", "2.048"}))
      << r.out;
  // tiny: 2x2 PEs of 2x2 multipliers: 2 x 16 x 1 GHz = 0.032 TOPS.
  EXPECT_EQ(words(lineWith(r.out, "sparse  tiny")),
            (std::vector<std::string>{"sparse", "tiny", "2x2", "2x2", "8", "banks", "x", "8", "6",
                                      "vectors", "1", "KiB/1", "KiB", "1000", "32", "0.032"}))
      << r.out;
  // The systolic table's peak: 16x16 PEs x 2 x 1 GHz.
  EXPECT_EQ(words(lineWith(r.out, "systolic  small")).back(), "0.512") << r.out;
  EXPECT_NE(r.out.find("\nsystolic: weight-stationary systolic array (default preset: server)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\nsparse: SCNN compressed-sparse PE grid (default preset: scnn)"),
            std::string::npos)
      << r.out;
}

TEST_F(Cli, ArchShowSparseRoundTripsThroughConfig) {
  const Result tiny = run("arch show sparse --preset tiny");
  ASSERT_EQ(tiny.exitCode, 0) << tiny.err;
  EXPECT_EQ(tiny.err, "");
  for (const char* text : {"\nname: tiny\n", "\npe_array:\n  rows: 2\n  cols: 2\n",
                           "\naccumulators:\n  banks: 8\n  entries_per_bank: 8\n",
                           "\n  weight_fifo_entries: 6\n", "\nenergy:\n  multiply_pj: "}) {
    EXPECT_NE(tiny.out.find(text), std::string::npos) << text << "\n" << tiny.out;
  }
  // The output is a config file: fed back it prints the same text, and simulating with it is
  // simulating with the preset.
  std::ofstream(path("tiny.yaml")) << tiny.out;
  const Result copy = run("arch show sparse --config tiny.yaml");
  ASSERT_EQ(copy.exitCode, 0) << copy.err;
  EXPECT_EQ(copy.out, tiny.out);
  const Result sim = run("simulate lenet5 --arch sparse --config tiny.yaml");
  ASSERT_EQ(sim.exitCode, 0) << sim.err;
  EXPECT_NE(sim.out.find("\nVERIFIED: lenet5 on sparse 'tiny' matches the int8 reference "
                         "executor (bit-exact)"),
            std::string::npos)
      << sim.out;
  EXPECT_EQ(sim.out, run("simulate lenet5 --arch sparse --preset tiny").out);
  // Without --preset/--config: the scnn preset.
  const Result byDefault = run("arch show sparse");
  ASSERT_EQ(byDefault.exitCode, 0) << byDefault.err;
  EXPECT_NE(byDefault.out.find("\nname: scnn\n"), std::string::npos) << byDefault.out;
  EXPECT_EQ(byDefault.out, run("arch show sparse --preset scnn").out);
}

TEST_F(Cli, ArchShowSparseErrors) {
  expectError("arch show sparse --preset nope", 2,
              "no sparse preset named 'nope' (presets: scnn, scnn-isca17, tiny)");
  expectError("arch show sparse --config missing.yaml", 1,
              "missing.yaml: cannot open file (No such file or directory)");
  std::ofstream(path("banks.yaml")) << "accumulators: {banks: 3}\n";
  expectError("arch show sparse --config banks.yaml", 1,
              "banks.yaml: 'accumulators.banks': must be a power of two (got 3)");
  std::ofstream(path("typo.yaml")) << "pe_array:\n  row: 2\n";
  expectErrorPrefix("arch show sparse --config typo.yaml", 1,
                    "typo.yaml: 'pe_array.row': unknown key (expected one of: rows, ");
  // A systolic key is not a sparse key.
  std::ofstream(path("systolic.yaml")) << "array: {rows: 8}\n";
  expectErrorPrefix("arch show sparse --config systolic.yaml", 1,
                    "systolic.yaml: 'array': unknown key");
  fs::create_directories(path("configs"));
  expectError("arch show sparse --config configs", 1, "configs: is a directory, not a config file");
}

// --- the broadcast engine: arch -----------------------------------------------------------------

TEST_F(Cli, ArchListShowsTheBroadcastPresets) {
  const Result r = run("arch list");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.err, "");
  // npu: 8 columns x 8 PEs in broadcast groups of 4, 16 MAC lanes per PE, 256 B / 1 KiB / 256 B
  // register files, the patent's 4 x 16-byte lanes per column, 2 reads per cycle per group, N
  // picked per layer, a 4 MiB global buffer, 1 GHz, 32 DRAM bytes per cycle; peak 2 x 1024 MACs
  // x 1 GHz = 2.048.
  EXPECT_EQ(words(lineWith(r.out, "broadcast  npu")),
            (std::vector<std::string>{"broadcast", "npu", "8x8", "4", "PEs", "16", "256", "B/1",
                                      "KiB/256", "B", "4x16", "B", "2", "auto", "4", "MiB", "1000",
                                      "32", "2.048"}))
      << r.out;
  // fig8: the seed's one column of 4 PEs with N = 3 and one read per slot: 2 x 64 x 1 GHz.
  EXPECT_EQ(words(lineWith(r.out, "broadcast  fig8")),
            (std::vector<std::string>{"broadcast", "fig8", "1x4", "4", "PEs", "16", "256", "B/1",
                                      "KiB/256", "B", "4x16", "B", "1", "3", "4", "MiB", "1000",
                                      "32", "0.128"}))
      << r.out;
  EXPECT_NE(r.out.find("\nbroadcast: 1xN kernel decomposition with activation broadcasting "
                       "(default preset: npu); see 'nnaccel arch show broadcast --preset NAME'\n"),
            std::string::npos)
      << r.out;
  // The engines' tables in kEngines order.
  EXPECT_LT(r.out.find("systolic  small"), r.out.find("sparse  scnn"));
  EXPECT_LT(r.out.find("sparse  scnn"), r.out.find("broadcast  npu"));
  EXPECT_NE(run("arch show --help").out.find("npu for broadcast"), std::string::npos);
}

TEST_F(Cli, ArchShowBroadcastRoundTripsThroughConfig) {
  const Result fig8 = run("arch show broadcast --preset fig8");
  ASSERT_EQ(fig8.exitCode, 0) << fig8.err;
  EXPECT_EQ(fig8.err, "");
  for (const char* text :
       {"\nname: fig8\n", "\npe_array:\n  columns: 1\n  pes_per_column: 4\n  group_size: 4\n",
        "\ndata_read:\n  lanes_per_column: 4\n  lane_bytes: 16\n  reads_per_cycle: 1\n",
        "\nbroadcast:\n  latency_cycles: 0\n  fan_out: 3\n",
        "\ndecomposition:\n  vector_width: 3\n  non_divisible: expand\n  layers: {}\n",
        "\nenergy:\n  mac_pj: auto\n", "\ntechnology:\n  node: \"16nm\"\n"}) {
    EXPECT_NE(fig8.out.find(text), std::string::npos) << text << "\n" << fig8.out;
  }
  // The output is a config file: fed back it prints the same text.
  std::ofstream(path("fig8.yaml")) << fig8.out;
  const Result copy = run("arch show broadcast --config fig8.yaml");
  ASSERT_EQ(copy.exitCode, 0) << copy.err;
  EXPECT_EQ(copy.out, fig8.out);
  // A partial file keeps the npu values; per-layer vector widths print in file order.
  std::ofstream(path("layers.yaml"))
      << "decomposition:\n  layers: {conv2: 4, \"/block/conv 1\": 1}\n";
  const Result layers = run("arch show broadcast --config layers.yaml");
  ASSERT_EQ(layers.exitCode, 0) << layers.err;
  for (const char* text : {"\nname: custom\n", "\n  columns: 8\n",
                           "\n  layers:\n    conv2: 4\n    \"/block/conv 1\": 1\nenergy:\n"}) {
    EXPECT_NE(layers.out.find(text), std::string::npos) << text << "\n" << layers.out;
  }
  // Without --preset/--config: the npu preset.
  const Result byDefault = run("arch show broadcast");
  ASSERT_EQ(byDefault.exitCode, 0) << byDefault.err;
  EXPECT_NE(byDefault.out.find("\nname: npu\n"), std::string::npos) << byDefault.out;
  EXPECT_EQ(byDefault.out, run("arch show broadcast --preset npu").out);
}

TEST_F(Cli, ArchShowBroadcastErrors) {
  expectError("arch show broadcast --preset nope", 2,
              "no broadcast preset named 'nope' (presets: npu, fig8)");
  expectError("arch show broadcast --preset npu --config x.yaml", 2,
              "--preset excludes --config (see 'nnaccel arch show --help')");
  expectError("arch show broadcast --config missing.yaml", 1,
              "missing.yaml: cannot open file (No such file or directory)");
  std::ofstream(path("wide.yaml")) << "decomposition: {vector_width: 5}\n";
  expectError("arch show broadcast --config wide.yaml", 1,
              "wide.yaml: 'decomposition.vector_width': 5 exceeds pe_array.group_size (4): the N "
              "operands that share an activation need N distinct PEs");
  std::ofstream(path("fp16.yaml")) << "numerics: {data_type: fp16}\n";
  expectError("arch show broadcast --config fp16.yaml", 1,
              "fp16.yaml: 'numerics.data_type': fp16 is not modelled by this engine yet "
              "(supported: int8)");
  // A sparse key is not a broadcast key.
  std::ofstream(path("sparse.yaml")) << "accumulators: {banks: 8}\n";
  expectErrorPrefix("arch show broadcast --config sparse.yaml", 1,
                    "sparse.yaml: 'accumulators': unknown key (expected one of: name, ");
  EXPECT_EQ(run("arch show broadcast --config wide.yaml").out, "");
}

} // namespace

TEST_F(Cli, SimulateVerifiesAndReports) {
  const Result r = run("simulate lenet5 --preset small --report report.json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  // LeNet-5's Tanh layers run on the systolic vector unit (no host fallback left).
  for (const char* text : {"c1 ", " vector ", "VERIFIED", "bit-exact", "total", "wrote "})
    EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
  std::ifstream json(path("report.json"));
  const std::string body((std::istreambuf_iterator<char>(json)), std::istreambuf_iterator<char>());
  EXPECT_NE(body.find("\"engine\""), std::string::npos);
  EXPECT_NE(body.find("\"verdict\""), std::string::npos);
  const Result fp32 = run("simulate lenet5 --preset small --dtype fp32 --timing-only");
  ASSERT_EQ(fp32.exitCode, 0) << fp32.err;
}

TEST_F(Cli, ADashOutputIsStandardOutputAndTheTableMovesToStandardError) {
  // `--report -` pipes the JSON alone (before: a file named '-'); the table, the verdict and
  // the "wrote" lines go to standard error. Two outputs cannot share standard output.
  const Result r = run("simulate lenet5 --preset small --report -");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out.front(), '{') << r.out;
  EXPECT_NE(r.out.find("\"verdict\""), std::string::npos);
  EXPECT_NE(r.err.find("VERIFIED"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(path("-")));
  const Result csv = run("simulate lenet5 --preset small --timing-only --csv -");
  ASSERT_EQ(csv.exitCode, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("schema_version,engine,", 0), 0u) << csv.out;
  const Result topology = run("export-topology lenet5 -o -");
  ASSERT_EQ(topology.exitCode, 0) << topology.err;
  EXPECT_EQ(topology.out.rfind("Layer name, IFMAP Height", 0), 0u) << topology.out;
  const Result both = run("simulate lenet5 --preset small --report - --csv -");
  EXPECT_EQ(both.exitCode, 2);
  EXPECT_NE(both.err.find("error: only one output can be '-' (standard output)"), std::string::npos)
      << both.err;
}

TEST_F(Cli, NonFiniteInputsRunInFp32AndAreRefusedInInt8) {
  // The NaN/Inf policy end to end: fp32 verifies (identical NaNs agree; before, MISMATCH), int8
  // refuses the input on every engine with one line and exit 1 (before: NaN became 0, VERIFIED).
  Tensor x(DType::F32, Dims{1, 1, 32, 32});
  x.data<float>()[165] = std::numeric_limits<float>::quiet_NaN();
  writeNpy(path("nan.npy"), x);
  const Result fp32 = run("simulate lenet5 --dtype fp32 --input nan.npy");
  EXPECT_EQ(fp32.exitCode, 0) << fp32.err;
  EXPECT_NE(fp32.out.find("VERIFIED"), std::string::npos) << fp32.out;
  for (const char* arch : {"systolic", "sparse", "broadcast", "stream"}) {
    const Result int8 = run(std::string("simulate lenet5 --input nan.npy --arch ") + arch);
    EXPECT_EQ(int8.exitCode, 1) << arch;
    EXPECT_NE(int8.err.find("error: nan.npy: input 'input' holds a non-finite value (nan at "
                            "element 165); int8 has no code for it"),
              std::string::npos)
        << arch << ": " << int8.err;
  }
}

TEST_F(Cli, AllocationsBeyondTheMemoryBudgetAreRefusedBeforeTheyHappen) {
  // Before: std::bad_alloc after minutes, or the out-of-memory killer.
  const Result small = run("simulate lenet5 --max-memory 1M");
  EXPECT_EQ(small.exitCode, 1);
  EXPECT_NE(small.err.find("error: the systolic machine's memories (DRAM, SBUF, PSUM) would take "
                           "1.15 MiB, more than the memory budget of 1 MiB (--max-memory)"),
            std::string::npos)
      << small.err;
  const std::string values = "=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16";
  const Result grid =
      run("sweep lenet5 --arch systolic --timing-only --max-memory 100M "
          "--param array.rows" +
          values + " --param array.cols" + values + " --param dram.latency_cycles" + values +
          " --param pool.latency_cycles" + values + " --param activation.latency_cycles" + values);
  EXPECT_EQ(grid.exitCode, 1);
  EXPECT_NE(grid.err.find("error: a sweep of 1048576 points would take "), std::string::npos)
      << grid.err;
  // The systolic SBUF and its resident region are allocated and estimated for what the program
  // uses (the vector unit's buffers lie at most 64 KiB apart), not the configured maximum:
  // 16 partitions of 64 MiB (1 GiB) run LeNet-5 within a 32 MiB budget.
  writeText("big_sbuf.yaml", "sbuf:\n  bytes_per_partition: 67108864\n");
  const Result big = run("simulate lenet5 --config big_sbuf.yaml --max-memory 32M");
  EXPECT_EQ(big.exitCode, 0) << big.err;
  EXPECT_NE(big.out.find("VERIFIED"), std::string::npos) << big.out;
  const Result bad = run("simulate lenet5 --max-memory 8X");
  EXPECT_EQ(bad.exitCode, 2);
  EXPECT_NE(bad.err.find("error: --max-memory '8X': expected a size such as 8G"), std::string::npos)
      << bad.err;
}

TEST_F(Cli, CompileDisasmAndRunTheProgram) {
  const Result c = run("compile lenet5 --preset small -o lenet.nnx");
  ASSERT_EQ(c.exitCode, 0) << c.err;
  const Result d = run("disasm lenet.nnx");
  ASSERT_EQ(d.exitCode, 0) << d.err;
  for (const char* text : {"MATMUL", "LOAD_WEIGHTS", "DMA_LOAD", "ACTIVATE", "; layer 0"})
    EXPECT_NE(d.out.find(text), std::string::npos) << text;
  const Result s = run("simulate lenet5 --program lenet.nnx");
  ASSERT_EQ(s.exitCode, 0) << s.err;
  EXPECT_NE(s.out.find("VERIFIED"), std::string::npos);
  // With an input of its own, the program still runs on the scales it was compiled with (the
  // reference calibrates as `compile` did, not on the input: before, a MISMATCH).
  writeNpy(path("x.npy"),
           Tensor::fromVector<float>({1, 1, 32, 32}, std::vector<float>(1024, 0.7f)));
  const Result withInput = run("simulate lenet5 --program lenet.nnx --input x.npy");
  ASSERT_EQ(withInput.exitCode, 0) << withInput.err;
  EXPECT_NE(withInput.out.find("VERIFIED"), std::string::npos) << withInput.out;
  EXPECT_NE(withInput.out.find("calibrated by minmax on 4 seeded random input sets"),
            std::string::npos)
      << withInput.out;
}

TEST_F(Cli, SimulateCompileDisasmErrors) {
  expectErrorPrefix("simulate lenet5 --preset nosuch", 2, "no systolic preset named 'nosuch'");
  expectError("simulate lenet5 --exact --timing-only", 2,
              "--exact steps the data path; it cannot be combined with --timing-only (see "
              "'nnaccel simulate --help')");
  std::ofstream(path("garbage.nnx")) << "not a program";
  expectErrorPrefix("disasm garbage.nnx", 1, "garbage.nnx:");
  expectErrorPrefix("disasm missing.nnx", 1, "missing.nnx:");
  const Result c = run("compile lenet5 --preset small -o lenet.nnx");
  ASSERT_EQ(c.exitCode, 0) << c.err;
  expectError("simulate lenet5 --program lenet.nnx --baseline", 2,
              "--baseline compiles the model; it cannot be combined with --program (see "
              "'nnaccel simulate --help')");
  expectErrorPrefix("simulate resnet18 --program lenet.nnx", 2,
                    "the program was compiled from model 'lenet5'");
  expectError("simulate lenet5 --program lenet.nnx --calib-method mse", 2,
              "--program carries its own int8 scales (`compile` calibrates on the default "
              "seeded sets); drop --calib-method (see 'nnaccel simulate --help')");
  expectErrorPrefix("compile lenet5 -o nodir/x.nnx", 1, "nodir/x.nnx:");
}

// --- the sparse engine: simulate -----------------------------------------------------------------

TEST_F(Cli, SimulateSparseVerifiesAndReports) {
  const Result r = run("simulate lenet5 --arch sparse --report out.json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  // scnn: 64 PEs x 16 multipliers.
  EXPECT_EQ(
      r.out.rfind("sparse 'scnn': 64 PEs (1,024 MACs/cycle) at 1000 MHz, model lenet5, int8\n", 0),
      0u)
      << r.out;
  // The engine's extra columns, the summary lines and the verdict.
  const std::vector<std::string> header = words(lineWith(r.out, "layer "));
  for (const char* column : {"w_density", "a_density", "dense_cycles", "speedup"}) {
    EXPECT_NE(std::find(header.begin(), header.end(), column), header.end()) << column;
  }
  for (const char* line : {"\ndense baseline (PTIS-dense, same multipliers and buffers): ",
                           "\noracle bound (useful products / multipliers): ",
                           "\nmultiplier slots (array layers): useful ",
                           "\nVERIFIED: lenet5 on sparse 'scnn' matches the int8 reference "
                           "executor (bit-exact), ",
                           "\nwrote out.json\n"}) {
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
  }
  const std::string json = readFile(path("out.json"));
  for (const char* text : {"\"engine\": \"sparse\"", "\"config\": \"scnn\"", "\"w_density\"",
                           "\"dense_cycles\"", "\"speedup\"", "\"verdict\""}) {
    EXPECT_NE(json.find(text), std::string::npos) << text << "\n" << json;
  }
  // Deterministic: the same run prints the same report.
  EXPECT_EQ(run("simulate lenet5 --arch sparse").out,
            r.out.substr(0, r.out.find("wrote out.json")));
}

TEST_F(Cli, SimulateSparseOnAPrunedModel) {
  // The total row ends with the four metric cells: w_density, a_density, dense_cycles, speedup.
  auto totalMetrics = [](const std::string& out) {
    const std::vector<std::string> cells = words(lineWith(out, "total  "));
    EXPECT_GE(cells.size(), 4u) << out;
    return std::vector<std::string>(cells.end() - std::min<size_t>(4, cells.size()), cells.end());
  };
  const Result dense = run("simulate lenet5 --arch sparse");
  ASSERT_EQ(dense.exitCode, 0) << dense.err;
  ASSERT_EQ(run("prune lenet5 --density 0.5 -o half.onnx").exitCode, 0);
  const Result half = run("simulate half.onnx --arch sparse");
  ASSERT_EQ(half.exitCode, 0) << half.err;
  EXPECT_NE(half.out.find("\nVERIFIED: lenet5 on sparse 'scnn' "), std::string::npos) << half.out;
  // prune keeps exactly half of every layer's weights; quantizing the kept (largest) ones to
  // int8 zeroes none of them.
  const std::vector<std::string> denseTotal = totalMetrics(dense.out);
  const std::vector<std::string> halfTotal = totalMetrics(half.out);
  ASSERT_EQ(halfTotal.size(), 4u);
  ASSERT_EQ(denseTotal.size(), 4u);
  EXPECT_EQ(halfTotal[0], "0.50") << half.out;
  // Skipping the zero weights makes the sparse engine faster against the same dense baseline.
  EXPECT_GT(std::stod(halfTotal[3]), std::stod(denseTotal[3])) << dense.out << half.out;
}

TEST_F(Cli, SimulateSparseUsageErrors) {
  expectError("simulate lenet5 --arch sparse --dtype fp32", 2,
              "the sparse engine computes on integers (int8 data in its value_bits-wide words); "
              "--dtype fp32 is not available (see 'nnaccel simulate --help')");
  expectError("simulate lenet5 --arch sparse --exact", 2,
              "--exact applies to the systolic engine (see 'nnaccel simulate --help')");
  expectError("simulate lenet5 --arch sparse --program x.nnx", 2,
              "--program applies to the systolic engine (see 'nnaccel simulate --help')");
  expectError(
      "simulate lenet5 --arch nope", 2,
      "--arch: nope not in {systolic,sparse,broadcast,stream} (see 'nnaccel simulate --help')");
  expectError("simulate lenet5 --preset nope --arch sparse", 2,
              "no sparse preset named 'nope' (presets: scnn, scnn-isca17, tiny)");
  std::ofstream(path("bad.yaml")) << "accumulators:\n  banks: 12\n";
  expectError("simulate lenet5 --arch sparse --config bad.yaml", 1,
              "bad.yaml: 'accumulators.banks': must be a power of two (got 12)");
  std::ofstream(path("zero.yaml")) << "pe_array: {rows: 0}\n";
  expectError("simulate lenet5 --arch sparse --config zero.yaml", 1,
              "zero.yaml: 'pe_array.rows': must be >= 1 (got 0)");
  EXPECT_EQ(run("simulate lenet5 --arch sparse --config zero.yaml").out, "");
}

namespace {

TEST_F(Cli, SweepDensityOnTheSparseEngine) {
  const Result r = run("sweep density lenet5 --arch sparse --preset tiny --densities 1.0,0.2 "
                       "--csv sweep.csv");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("density sweep of 'lenet5' on sparse 'tiny'"), std::string::npos);
  EXPECT_NE(r.out.find("break-even density: speedup "), std::string::npos) << r.out;
  // Points come out in ascending density, one CSV row each, every one verified.
  const std::string csv = readFile(path("sweep.csv"));
  EXPECT_EQ(countLines(csv), 3u) << csv;
  EXPECT_EQ(csv.rfind("density,weight_density,activation_density,cycles,dense_cycles,speedup,", 0),
            0u)
      << csv;
  EXPECT_NE(csv.find("\n0.2,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n1,"), std::string::npos) << csv;
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), std::count(csv.begin(), csv.end(), ',') / 10);
  auto row = [&](const std::string& density) {
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);)
      if (const std::vector<std::string> w = words(line); !w.empty() && w[0] == density)
        return w;
    return std::vector<std::string>{};
  };
  const std::vector<std::string> low = row("0.20");
  const std::vector<std::string> high = row("1.00");
  ASSERT_GE(low.size(), 11u);
  ASSERT_GE(high.size(), 11u);
  // Both operands at the density: the achieved densities (w density, a density) follow it.
  // (tiny runs only f6 and f7 on the array: whole elements of 120 and 84 inputs.)
  EXPECT_NEAR(std::stod(low[1]), 0.2, 0.001);
  EXPECT_NEAR(std::stod(low[2]), 0.2, 0.005);
  EXPECT_EQ(high[2], "1.000");
  EXPECT_LT(std::stoll(low[3]), std::stoll(high[3])) << "fewer cycles at lower density";
  EXPECT_EQ(low.back(), "yes");
  EXPECT_EQ(high.back(), "yes");
  // Deterministic.
  EXPECT_EQ(run("sweep density lenet5 --arch sparse --preset tiny --densities 1.0,0.2 --csv "
                "sweep.csv")
                .out,
            r.out);
}

TEST_F(Cli, SweepDensityErrors) {
  expectError("sweep density lenet5 --arch systolic", 2,
              "density sweeps need the sparse engine (--arch sparse) (see 'nnaccel sweep "
              "density --help')");
  expectError("sweep density lenet5 --arch sparse --densities 0", 2,
              "--densities: 0 is not in (0, 1] (see 'nnaccel sweep density --help')");
  const Result r = run("sweep density lenet5 --arch sparse --densities 1.5");
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_EQ(countLines(r.err), 1u) << r.err;
}

} // namespace
