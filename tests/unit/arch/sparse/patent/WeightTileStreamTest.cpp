/// \file
/// Tests of the weight tile stream (patent/WeightTileStream.h): empty channels skipped by the
/// delta code, runs crossing kernel boundaries and restarting per input channel, pads, the
/// symbolic and packed round trips over random tiles, the exact packed bit layout and size,
/// and every error path. The Fig. 4B vector itself is in PatentVectorsTest.cpp.
/// WeightTileStream.h is a patent model, kept to check the text's worked examples; the engine
/// does not use it.
#include "nnaccel/arch/sparse/patent/WeightTileStream.h"

#include "SparseTestSupport.h"
#include "nnaccel/support/Error.h"
#include "nnaccel/support/Rng.h"

#include <gtest/gtest.h>
#include <string>

using namespace nnaccel;
using namespace nnaccel::arch::sparse::formats;
using namespace nnaccel::arch::sparse::patent;

namespace {

using test_support::expectError;

WeightTile emptyTile(std::vector<int64_t> outputs, int64_t c, int64_t r, int64_t s) {
  WeightTile tile;
  tile.outputChannels = std::move(outputs);
  tile.inputChannels = c;
  tile.kernelR = r;
  tile.kernelS = s;
  tile.weights.assign(static_cast<size_t>(c * tile.channelElements()), 0);
  return tile;
}

} // namespace

TEST(WeightTileStream, DeltaSkipsEmptyChannelsAndRunsCrossKernels) {
  // K=2 (channels 8, 9), C=5, 2x1 kernels. Channels 0, 2, 3 are empty.
  WeightTile tile = emptyTile({8, 9}, 5, 2, 1);
  tile.at(1, 0, 0, 1) = 3;  // channel 1: [0 3 | 0 0] -> (1,3)
  tile.at(4, 1, 0, 1) = -4; // channel 4: [0 0 | 0 -4] -> (3,-4), the run crosses the kernel
  const auto symbols = encodeWeightTileSymbols(tile);
  EXPECT_EQ(symbols, (std::vector<int64_t>{2, 8, 9, 5, /*c=1*/ 1, 1, 1, 3, /*c=4*/ 2, 1, 3, -4}));
  EXPECT_EQ(decodeWeightTileSymbols(symbols, 2, 1), tile);
  const CodedWeightTile coded = compressWeightTile(tile);
  EXPECT_EQ(coded.entries(1), 1);
  EXPECT_EQ(coded.entries(0), 0);
  EXPECT_EQ(coded.entries(4), 1);
  // An all-zero tile is the header alone.
  EXPECT_EQ(encodeWeightTileSymbols(emptyTile({3}, 2, 3, 3)), (std::vector<int64_t>{1, 3, 2}));
}

TEST(WeightTileStream, LongRunsGetPadsAndCountThem) {
  WeightTile tile = emptyTile({0}, 1, 5, 5);
  tile.at(0, 0, 4, 4) = 9; // 24 zeros before it
  EXPECT_EQ(encodeWeightTileSymbols(tile), (std::vector<int64_t>{1, 0, 1, 0, 2, 15, 0, 8, 9}));
  EXPECT_EQ(encodeWeightTileSymbols(tile, 2), // 24 zeros = 6 pads of (3 zeros + 1 pad)
            (std::vector<int64_t>{1, 0, 1, 0, 7, 3, 0, 3, 0, 3, 0, 3, 0, 3, 0, 3, 0, 0, 9}));
  EXPECT_EQ(decodeWeightTileSymbols(encodeWeightTileSymbols(tile, 2), 5, 5), tile);
}

TEST(WeightTileStream, RandomRoundTripsSymbolicAndPacked) {
  Rng rng(404);
  struct Shape {
    int64_t k, c, r, s;
  };
  for (const Shape& sh : {Shape{2, 4, 3, 3}, Shape{1, 1, 1, 1}, Shape{5, 3, 5, 5},
                          Shape{3, 7, 1, 1}, Shape{4, 2, 7, 3}}) {
    for (int percent = 0; percent <= 100; percent += 5) {
      WeightTile tile = emptyTile({}, sh.c, sh.r, sh.s);
      for (int64_t k = 0; k < sh.k; ++k) {
        tile.outputChannels.push_back(10 + 3 * k);
      }
      tile.weights = test_support::randomSparse(
          rng, static_cast<size_t>(sh.c * tile.channelElements()), percent);
      for (const int bits : {2, 4}) {
        const CodedWeightTile coded = compressWeightTile(tile, bits);
        EXPECT_EQ(fromSymbols(toSymbols(coded)), coded);
        EXPECT_EQ(expandWeightTile(coded, sh.r, sh.s), tile);
        const WeightTileFormat format{16, bits, 8};
        const PackedWeightTile packed = pack(coded, format);
        EXPECT_EQ(packed.bits, packedBits(coded, format));
        EXPECT_EQ(static_cast<int64_t>(packed.bytes.size()), (packed.bits + 7) / 8);
        EXPECT_EQ(unpack(packed, format), coded);
      }
    }
  }
}

TEST(WeightTileStream, PackedLayoutIsExact) {
  // K=1 (k=2), C=1, one 2x1 kernel [0 -1]; 4-bit header, 2-bit index, 3-bit value:
  // fields K=1, k=2, C=1, delta=0, count=1, z=1, v=-1 (0b111), LSB-first.
  WeightTile tile = emptyTile({2}, 1, 2, 1);
  tile.at(0, 0, 0, 1) = -1;
  const WeightTileFormat format{4, 2, 3};
  const PackedWeightTile packed = pack(compressWeightTile(tile, 2), format);
  EXPECT_EQ(packed.bits, 5 * 4 + 2 + 3);
  // bits: 1000 0100 1000 0000 1000 | 10 | 111
  // byte0 = K | k << 4 = 0x21; byte1 = C | delta << 4 = 0x01; byte2 = count | z << 4 | v0 << 6
  //       = 1 | 1 << 4 | 1 << 6 | 1 << 7 = 0xD1; byte3 = the last value bit = 0x01.
  EXPECT_EQ(packed.bytes, (std::vector<uint8_t>{0x21, 0x01, 0xD1, 0x01}));
  EXPECT_EQ(expandWeightTile(unpack(packed, format), 2, 1), tile);
}

TEST(WeightTileStream, Errors) {
  WeightTile tile = emptyTile({1, 2}, 2, 3, 3);
  tile.weights.pop_back();
  expectError([&] { compressWeightTile(tile); }, ErrorKind::Usage, "needs 36 values, has 35");
  tile.weights.push_back(0);
  expectError([&] { compressWeightTile(tile, 0); }, ErrorKind::Usage, "[1, 16]");
  expectError([&] { expandWeightTile(compressWeightTile(tile), 0, 3); }, ErrorKind::Usage,
              "bad weight tile shape");

  // Symbolic stream errors.
  expectError(
      [] {
        fromSymbols(std::vector<int64_t>{2, 1});
      },
      ErrorKind::Model, "truncated: k_i expected at symbol 2");
  expectError([] { fromSymbols(std::vector<int64_t>{-1}); }, ErrorKind::Model, "K = -1");
  expectError(
      [] {
        fromSymbols(std::vector<int64_t>{1, 0, 2, 2});
      },
      ErrorKind::Model, "delta_c = 2 at symbol 3 is outside [0, 1]");
  expectError(
      [] {
        fromSymbols(std::vector<int64_t>{1, 0, 2, 0, 2, 1, 5});
      },
      ErrorKind::Model, "zero count expected at symbol 7");
  expectError(
      [] {
        fromSymbols(std::vector<int64_t>{1, 0, 1, 0, 1, 70000, 5});
      },
      ErrorKind::Model, "zero count = 70000");
  expectError(
      [] {
        fromSymbols(std::vector<int64_t>{1, 0, 1, 0, 1, 0, int64_t{1} << 40});
      },
      ErrorKind::Model, "value =");
  // A zero count running past the channel end.
  expectError(
      [] {
        decodeWeightTileSymbols(std::vector<int64_t>{1, 0, 1, 0, 1, 9, 5}, 3, 3);
      },
      ErrorKind::Model, "past the channel end 9");
  CodedWeightTile bad;
  bad.inputChannels = 1;
  bad.channels.push_back({3, {0}, {1}});
  expectError([&] { expandWeightTile(bad, 1, 1); }, ErrorKind::Model, "coded channel 3");

  // Packed form errors.
  WeightTile one = emptyTile({1}, 1, 1, 1);
  one.at(0, 0, 0, 0) = 100;
  const CodedWeightTile coded = compressWeightTile(one);
  expectError(
      [&] {
        pack(coded, WeightTileFormat{16, 4, 7});
      },
      ErrorKind::Usage, "weight 100 of input channel 0 does not fit 7 value bits");
  expectError(
      [&] {
        pack(coded, WeightTileFormat{16, 4, 1});
      },
      ErrorKind::Usage, "value width must be in [2, 32]");
  expectError(
      [&] {
        pack(coded, WeightTileFormat{0, 4, 8});
      },
      ErrorKind::Usage, "header field width");
  expectError([&] { pack(coded, WeightTileFormat{16, 17, 8}); }, ErrorKind::Usage, "[1, 16]");
  expectError(
      [&] {
        pack(compressWeightTile(emptyTile({300}, 1, 1, 1)), WeightTileFormat{8, 4, 8});
      },
      ErrorKind::Usage, "k_i = 300 does not fit a 8-bit header field");
  WeightTile longRun = emptyTile({0}, 1, 40, 1);
  longRun.at(0, 0, 0, 39) = 1;
  expectError(
      [&] {
        pack(compressWeightTile(longRun, 8), WeightTileFormat{16, 4, 8});
      },
      ErrorKind::Usage, "zero count 39 of input channel 0 does not fit 4 index bits");
  PackedWeightTile packed = pack(coded, WeightTileFormat{});
  PackedWeightTile truncated = packed;
  truncated.bits -= 3;
  expectError([&] { unpack(truncated, WeightTileFormat{}); }, ErrorKind::Model,
              "packed weight tile truncated: value needs 8 bits");
  PackedWeightTile lying = packed;
  lying.bits = 1000;
  expectError([&] { unpack(lying, WeightTileFormat{}); }, ErrorKind::Model, "claims 1000 bits");
  // C = 0 in a packed header leaves no room for a channel.
  CodedWeightTile noInputs = coded;
  noInputs.inputChannels = 0;
  noInputs.channels.clear();
  PackedWeightTile withChannel = pack(noInputs, WeightTileFormat{});
  const PackedWeightTile channelBits = pack(coded, WeightTileFormat{});
  withChannel.bytes.insert(withChannel.bytes.end(), channelBits.bytes.begin() + 6,
                           channelBits.bytes.end());
  withChannel.bits = channelBits.bits;
  expectError([&] { unpack(withChannel, WeightTileFormat{}); }, ErrorKind::Model,
              "packed weight tile: delta_c = 0 is outside [0, -1]");
}
