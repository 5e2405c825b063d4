/// \file
/// SCALE-Sim topology files as SCALE-Sim reads them: the header line, the field dropped after
/// the last comma, one stride for both axes, DP rows split per channel, GEMM M/N/K mapped onto
/// a convolution; every error one line with the file and line; formatTopology round trips.
#include "nnaccel/scalesim/Topology.h"

#include "nnaccel/support/Error.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

using namespace nnaccel;
using namespace nnaccel::scalesim;

namespace {

constexpr const char* kHeader = "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter "
                                "Width, Channels, Num Filter, Strides,\n";

Topology conv(const std::string& rowsText) {
  return parseTopologyText(kHeader + rowsText, "t.csv", TopologyFormat::Conv);
}

void expectError(const std::string& text, TopologyFormat format, const std::string& message) {
  try {
    parseTopologyText(text, "t.csv", format);
    FAIL() << "expected: " << message;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Model);
    EXPECT_EQ(std::string(e.what()), message);
  }
}

TEST(ScaleSimTopology, ConvRowsAndDerivedSizes) {
  const Topology t = conv("Conv1,224,224,7,7,3,64,2,\nrect, 11, 7, 3, 2, 5, 13, 1, 2,\n");
  ASSERT_EQ(t.layers.size(), 2u);
  const Layer& a = t.layers[0];
  EXPECT_EQ(a.name, "Conv1");
  EXPECT_EQ(a.sourceLine, 2);
  EXPECT_EQ(a.strideHeight, 2);
  EXPECT_EQ(a.strideWidth, 2);     // one stride left after the trailing comma: both axes
  EXPECT_EQ(a.ofmapHeight(), 110); // ceil((224 - 7 + 2) / 2)
  EXPECT_EQ(a.macs(), int64_t{110} * 110 * 7 * 7 * 3 * 64);
  const Layer& b = t.layers[1];
  EXPECT_EQ(b.name, "rect");
  EXPECT_EQ(b.ifmapWidth, 7);
  EXPECT_EQ(b.filterWidth, 2);
  EXPECT_EQ(b.strideWidth, 2);
  EXPECT_EQ(b.ofmapWidth(), 4); // ceil((7 - 2 + 2) / 2)
}

TEST(ScaleSimTopology, LastFieldIsDropped) {
  // Without a trailing comma the last number is the dropped field: the width stride is lost.
  const Topology t = conv("no_comma, 9, 9, 3, 3, 2, 5, 2, 1\n");
  EXPECT_EQ(t.layers[0].strideHeight, 2);
  EXPECT_EQ(t.layers[0].strideWidth, 2);
  const Topology extra = conv("extra,9,9,3,3,2,5,2,1,7,\n"); // extra integers are ignored
  EXPECT_EQ(extra.layers[0].strideWidth, 1);
}

TEST(ScaleSimTopology, HeaderBlankLinesAndCrlf) {
  const Topology t = parseTopologyText("\r\n a,4,4,1,1,1,1,1,\r\n\r\n   \nb,4,4,1,1,1,1,1,\r\n",
                                       "dir/net.v2.csv", TopologyFormat::Conv);
  // The first line is the header even when blank, so "a" is skipped with it.
  ASSERT_EQ(t.layers.size(), 2u);
  EXPECT_EQ(t.layers[0].name, "a");
  EXPECT_EQ(t.layers[1].name, "b");
  EXPECT_EQ(t.name, "net.v2");
}

TEST(ScaleSimTopology, DepthwiseRowsSplitPerChannel) {
  const Topology t = conv("mb_DP_3x3,10,10,3,3,3,2,1,\ndp_lower,10,10,3,3,3,2,1,\n");
  ASSERT_EQ(t.layers.size(), 4u); // "DP" is case-sensitive: dp_lower stays one layer
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(t.layers[static_cast<size_t>(i)].name, fmt::format("mb_DP_3x3Channel_{}", i));
    EXPECT_EQ(t.layers[static_cast<size_t>(i)].channels, 1);
    EXPECT_EQ(t.layers[static_cast<size_t>(i)].numFilters, 2);
    EXPECT_EQ(t.layers[static_cast<size_t>(i)].sourceLine, 2);
  }
  EXPECT_EQ(t.layers[3].channels, 3);
}

TEST(ScaleSimTopology, GemmRowsMapMnk) {
  const Topology t =
      parseTopologyText("Layer Name, M, N, K,\nTest 1, 128, 64, 256,\nextra, 2, 3, 4, x,\n",
                        "mnk.csv", TopologyFormat::Gemm);
  ASSERT_EQ(t.layers.size(), 2u);
  const Layer& l = t.layers[0];
  EXPECT_EQ(l.name, "Test 1");
  EXPECT_EQ(l.ifmapHeight, 128); // M
  EXPECT_EQ(l.ifmapWidth, 256);  // K
  EXPECT_EQ(l.filterHeight, 1);
  EXPECT_EQ(l.filterWidth, 256); // K
  EXPECT_EQ(l.channels, 1);
  EXPECT_EQ(l.numFilters, 64); // N
  EXPECT_EQ(l.ofmapHeight() * l.ofmapWidth(), 128);
  EXPECT_EQ(l.macs(), int64_t{128} * 64 * 256);
  EXPECT_EQ(t.layers[1].numFilters, 3); // GEMM rows ignore extra fields
}

TEST(ScaleSimTopology, Errors) {
  const std::string h = kHeader;
  expectError(h + "a,4,4,1,1,1,1,\n", TopologyFormat::Conv,
              "t.csv:2: expected at least 8 fields before the last comma (name, IFMAP H, IFMAP "
              "W, filter H, filter W, channels, filters, stride), got 7");
  expectError(h + "a,4,4,1,1,1,1,1\n", TopologyFormat::Conv,
              "t.csv:2: expected at least 8 fields before the last comma (name, IFMAP H, IFMAP "
              "W, filter H, filter W, channels, filters, stride), got 7");
  expectError(h + "a,4,4,1,1,1,1,1,\nb,4,four,1,1,1,1,1,\n", TopologyFormat::Conv,
              "t.csv:3: IFMAP width: expected an integer, got 'four'");
  expectError(h + "a,4,4,1,1,0,1,1,\n", TopologyFormat::Conv,
              "t.csv:2: channels: expected a positive integer, got 0");
  // The text_formats fuzzer's finding: a "DP" row expands per channel, so its channels are
  // bounded like a topology's layers (before: 3.4e10 layers, out of memory).
  expectError(h + "conv_DP,10,10,3,3,34294967293,1,1,\n", TopologyFormat::Conv,
              "t.csv:2: depthwise layer 'conv_DP' (a name with \"DP\") expands into 34294967293 "
              "per-channel layers; a topology holds at most 1048576 layers");
  expectError(h + "a,4,4,1,1,1,1,0,\n", TopologyFormat::Conv,
              "t.csv:2: stride height: expected a positive integer, got 0");
  expectError(h + "a,4,4,1,1,1,1,1,1,z,\n", TopologyFormat::Conv,
              "t.csv:2: extra column: expected an integer, got 'z'");
  expectError(h + "a,4,4,5,1,1,1,1,\n", TopologyFormat::Conv,
              "t.csv:2: filter height 5 is larger than the ifmap height 4");
  expectError(h + "a,4,4,1,9,1,1,1,\n", TopologyFormat::Conv,
              "t.csv:2: filter width 9 is larger than the ifmap width 4");
  expectError(h, TopologyFormat::Conv,
              "t.csv: no layers (the first line is the header; every further non-empty line is "
              "a layer)");
  expectError("M,N,K,\ng, 1, 2,\n", TopologyFormat::Gemm,
              "t.csv:2: expected at least 4 fields before the last comma (name, M, N, K), got 3");
  expectError("M,N,K,\ng, 1, 2, 0,\n", TopologyFormat::Gemm,
              "t.csv:2: K: expected a positive integer, got 0");
  try {
    parseTopologyFile("/nonexistent/topo.csv", TopologyFormat::Conv);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_EQ(std::string(e.what()),
              "/nonexistent/topo.csv: cannot open file (No such file or directory)");
  }
}

TEST(ScaleSimTopology, FormatRoundTrips) {
  const Topology t = conv("a,9,9,3,3,2,5,2,1,\nb, 7, 5, 1, 3, 4, 6, 1, 2,\n");
  const std::string text = formatTopology(t.layers);
  EXPECT_EQ(text, "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, "
                  "Num Filter, Stride Height, Stride Width,\n"
                  "a, 9, 9, 3, 3, 2, 5, 2, 1,\n"
                  "b, 7, 5, 1, 3, 4, 6, 1, 2,\n");
  const Topology back = parseTopologyText(text, "x.csv", TopologyFormat::Conv);
  ASSERT_EQ(back.layers.size(), 2u);
  EXPECT_EQ(back.layers[1].strideWidth, 2);
  EXPECT_EQ(back.layers[1].filterWidth, 3);
}

} // namespace
