/// \file
/// End-to-end tests of the stream engine on the command line (seed 002): `nnaccel simulate
/// --arch stream` on LeNet-5 chained over two fig44 chips (the int8 verdict and the pipeline
/// summary), `nnaccel map` (the placement table, with P/T/H for the Fig. 54 model), and the
/// error paths: a model that does not fit the chips --chips fixes (what it needs, the --chips
/// that fits it; without --chips the smallest chain that fits is chosen), `map` on
/// another engine, --chips out of range, an op without a unit, a row out of bypass tiles.
#include "CliSupport.h"

using namespace nnaccel::clitest;

namespace {

class StreamCli : public CliFixture {
protected:
  StreamCli() : CliFixture("stream_") {}
};

TEST_F(StreamCli, SimulateLeNetOnTwoChipsVerifies) {
  const Result r = run("simulate lenet5 --arch stream --chips 2");
  ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
  for (const char* text :
       {"stream 'fig44'", "\nVERIFIED: lenet5 on stream 'fig44' matches the int8 reference",
        "\ntiles used: 14 kernel + 10 aux (0 bypass) in 7 rows on 2 chip(s)",
        "\nfirst-output latency: ", "\nframe rate (back to back): ",
        "(one frame every 1,024 cycles)",
        "\nmultiplies at positions a Sample discards: ", "\nbaseline: output-centric order"})
    EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
  EXPECT_EQ(run("simulate lenet5 --arch stream --chips 2").out, r.out); // deterministic
  // Without --chips the run takes the smallest chain that fits, and says so.
  const Result chosen = run("simulate lenet5 --arch stream");
  ASSERT_EQ(chosen.exitCode, 0) << chosen.err;
  EXPECT_NE(chosen.out.find("in 7 rows on 2 chip(s) of 4 rows x 24 kernel + 8 aux tiles (chosen: "
                            "the smallest chain that fits; --chips fixes it)"),
            std::string::npos)
      << chosen.out;
}

TEST_F(StreamCli, MapPrintsThePlacement) {
  const Result r = run("map lenet5 --arch stream --chips 2");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  for (const char* text :
       {"placement of 'lenet5' on stream 'fig44':", "\nkernel tiles (", "\naux tiles (", "mux 4403",
        "primary output mux 4412:", "\nrows used: 7 (2 chip(s))"})
    EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
}

TEST_F(StreamCli, MapWithoutChipsChoosesTheSmallestChainAsSimulateDoes) {
  const Result r = run("map lenet5 --arch stream");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("placement of 'lenet5' on stream 'fig44' (2 chip(s), chosen: the smallest "
                       "chain that fits; --chips fixes it):"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\nrows used: 7 (2 chip(s))"), std::string::npos) << r.out;
}

TEST_F(StreamCli, MapShowsTheRatesOfTheFig54Model) {
  // Per layer: tiles, then P (cycles per position), T (time multiplexing) and H (hold).
  const Result r = run("map fig54 --arch stream --preset large");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  for (const char* text :
       {"kernel   aux    P   T   H rows", "\nn5413                        Conv                 32 "
                                          "    1   64  64   1 5,6 "})
    EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
}

TEST_F(StreamCli, Errors) {
  expectError("simulate lenet5 --arch stream --chips 1", 1,
              "'chips': model 'lenet5' does not fit: it needs 14 kernel tiles and 10 aux tiles "
              "in 7 rows, 2 chip(s) of 4 rows (24 kernel + 8 aux tiles each); the run has 1 "
              "chip(s) (use --chips 2 to chain them)");
  expectErrorPrefix("map lenet5 --arch sparse", 2,
                    "'map' prints a model's placement on an engine's fixed resources; the sparse "
                    "engine has no placement (use --arch stream)");
  expectErrorPrefix("simulate lenet5 --arch stream --chips 0", 2, "--chips: Value 0 not in range");
  // A stride-2 transposed convolution of the full-rate input: its phases would leave four
  // output positions per input cycle.
  writeConvTransposeModel(path("deconv.onnx"));
  expectError("simulate deconv.onnx --arch stream --preset large", 1,
              "node 'up' (ConvTranspose): stride 2x2 needs a multiple of 4 cycles per input "
              "position (its phases leave as 4 output positions); the stream has 1. A faster "
              "stream needs N-up output sets, which the ASIC's 1-up buses do not carry");
  expectError("map fig54 --arch stream", 1,
              "'aux_tiles.tiles_per_row': layer 'n5404': row 2 has no auxiliary or kernel tile "
              "left to carry a set down to row 3 (bypass); the chip has 2 aux tiles per row: "
              "more (aux_tiles.tiles_per_row above 2) would carry it");
}

} // namespace
