/// \file
/// Tests of the zero-run-length data/index vectors (patent/ZeroRunLength.h): pads at the
/// index-width limit, runs restarting per channel, untouched trailing zeros, per-channel counts
/// with pads, storage size, random round trips for several index widths, agreement with the
/// position codec's plain R table, and the error paths.
/// ZeroRunLength.h is a patent model, kept to check the text's worked examples; the engine
/// does not use it.
#include "nnaccel/arch/sparse/patent/ZeroRunLength.h"

#include "SparseTestSupport.h"
#include "nnaccel/arch/sparse/formats/PositionCodec.h"
#include "nnaccel/support/Error.h"
#include "nnaccel/support/Rng.h"

#include <gtest/gtest.h>
#include <string>

using namespace nnaccel;
using namespace nnaccel::arch::sparse::formats;
using namespace nnaccel::arch::sparse::patent;

namespace {

using test_support::expectError;

} // namespace

TEST(ZeroRunLength, PadsAtTheIndexLimit) {
  // 15 zeros fit a 4-bit index; 16 need a pad (15 zeros + a zero-valued element); 33 need two.
  std::vector<int32_t> dense(15, 0);
  dense.push_back(4);
  auto v = encodeZeroRunLength(dense, 1);
  EXPECT_EQ(v.data, (std::vector<int32_t>{4}));
  EXPECT_EQ(v.index, (std::vector<uint16_t>{15}));
  dense.insert(dense.begin(), 0);
  v = encodeZeroRunLength(dense, 1);
  EXPECT_EQ(v.data, (std::vector<int32_t>{0, 4}));
  EXPECT_EQ(v.index, (std::vector<uint16_t>{15, 0}));
  EXPECT_EQ(v.channelCounts, (std::vector<int64_t>{2}));
  std::vector<int32_t> longRun(33, 0);
  longRun.push_back(-2);
  v = encodeZeroRunLength(longRun, 1);
  EXPECT_EQ(v.data, (std::vector<int32_t>{0, 0, -2}));
  EXPECT_EQ(v.index, (std::vector<uint16_t>{15, 15, 1}));
  // A 2-bit index: runs of at most 3.
  v = encodeZeroRunLength(std::vector<int32_t>{0, 0, 0, 0, 0, 1}, 1, 2);
  EXPECT_EQ(v.data, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(v.index, (std::vector<uint16_t>{3, 1}));
  EXPECT_EQ(decodeZeroRunLength(v), (std::vector<int32_t>{0, 0, 0, 0, 0, 1}));
}

TEST(ZeroRunLength, RunsRestartPerChannelAndTrailingZerosAreNotCoded) {
  const std::vector<int32_t> dense{0, 5, 0, 0, /**/ 0, 0, 0, 0, /**/ 7, 0, 0, 8};
  const auto v = encodeZeroRunLength(dense, 3);
  EXPECT_EQ(v.channelElements, 4);
  EXPECT_EQ(v.data, (std::vector<int32_t>{5, 7, 8}));
  EXPECT_EQ(v.index, (std::vector<uint16_t>{1, 0, 2}));
  EXPECT_EQ(v.channelCounts, (std::vector<int64_t>{1, 0, 2}));
  EXPECT_EQ(decodeZeroRunLength(v), dense);
  EXPECT_EQ(v.storageBits(8), 3 * (8 + 4));
  EXPECT_EQ(v.storageBits(16), 3 * (16 + 4));
}

TEST(ZeroRunLength, RandomRoundTrips) {
  Rng rng(99);
  for (const int bits : {1, 2, 3, 4, 8, 16}) {
    for (int percent = 0; percent <= 100; percent += 5) {
      for (const int64_t channels : {1, 3, 7}) {
        const auto dense =
            test_support::randomSparse(rng, static_cast<size_t>(channels * 37), percent);
        const auto v = encodeZeroRunLength(dense, channels, bits);
        EXPECT_EQ(decodeZeroRunLength(v), dense);
        int64_t total = 0;
        for (const int64_t c : v.channelCounts) {
          total += c;
        }
        EXPECT_EQ(total, static_cast<int64_t>(v.data.size()));
        for (const uint16_t z : v.index) {
          EXPECT_LE(z, (1 << bits) - 1);
        }
      }
    }
  }
}

TEST(ZeroRunLength, SameAsThePlainRunTableOfThePositionCodec) {
  // One channel of zero-run-length data is the position codec with R0..R15 and full wrap.
  Rng rng(5);
  const CodeTable zrl = CodeTable::zeroRunLength(4);
  for (int percent = 0; percent <= 100; percent += 10) {
    const auto dense = test_support::randomSparse(rng, 200, percent);
    const auto v = encodeZeroRunLength(dense, 1);
    std::vector<Position> ps;
    std::vector<int32_t> vs;
    for (size_t i = 0; i < dense.size(); ++i) {
      if (dense[i] != 0) {
        ps.push_back({static_cast<int64_t>(i) % 20, static_cast<int64_t>(i) / 20, 0});
        vs.push_back(dense[i]);
      }
    }
    const auto entries = encodePositions(ps, vs, zrl, Frame{20, 10, true, true});
    ASSERT_EQ(entries.size(), v.data.size());
    for (size_t i = 0; i < entries.size(); ++i) {
      EXPECT_EQ(entries[i].code, v.index[i]);
      EXPECT_EQ(entries[i].value, v.data[i]);
    }
  }
}

TEST(ZeroRunLength, Errors) {
  const std::vector<int32_t> dense{1, 0, 2, 0, 0};
  expectError([&] { encodeZeroRunLength(dense, 2); }, ErrorKind::Usage,
              "2 channels do not divide 5 elements");
  expectError([&] { encodeZeroRunLength(dense, 0); }, ErrorKind::Usage, "channels");
  expectError([&] { encodeZeroRunLength(dense, 1, 0); }, ErrorKind::Usage, "[1, 16]");
  expectError([&] { encodeZeroRunLength(dense, 1, 17); }, ErrorKind::Usage, "got 17");
  auto v = encodeZeroRunLength(dense, 1);
  v.channelCounts = {3};
  expectError([&] { decodeZeroRunLength(v); }, ErrorKind::Model, "channel counts sum to 3");
  v.channelCounts = {-1, 3};
  expectError([&] { decodeZeroRunLength(v); }, ErrorKind::Model, "negative channel count");
  v = encodeZeroRunLength(dense, 1);
  v.index[1] = 9;
  expectError([&] { decodeZeroRunLength(v); }, ErrorKind::Model,
              "entry 1 decodes to element 10 past the channel end 5");
  v = encodeZeroRunLength(dense, 1);
  v.index.pop_back();
  expectError([&] { decodeZeroRunLength(v); }, ErrorKind::Model, "2 data, 1 index entries");
}
