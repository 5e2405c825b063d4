// Tests for nnaccel::Error message formatting (the one-line CLI contract).
#include "nnaccel/support/Error.h"

#include <gtest/gtest.h>

using namespace nnaccel;

TEST(Error, FormatsFileNodeOpOpsetAndReason) {
  Error e(ErrorKind::Model,
          {.file = "model.onnx", .node = "conv3", .op = "Conv", .opset = 13, .key = {}},
          "group=3 does not divide input channels=64");
  EXPECT_STREQ(
      e.what(),
      "model.onnx: node 'conv3' (Conv, opset 13): group=3 does not divide input channels=64");
  EXPECT_EQ(e.kind(), ErrorKind::Model);
}

TEST(Error, KeyOnlyAndNewlinesFolded) {
  Error e(ErrorKind::Config, {.file = "arch.yaml", .key = "pe_rows"}, "must be > 0\ngot -1");
  EXPECT_STREQ(e.what(), "arch.yaml: 'pe_rows': must be > 0 got -1");
}

TEST(Error, WithContextFillsOnlyMissingFields) {
  Error inner(ErrorKind::Model, {.node = "n1", .op = "Relu"}, "bad");
  Error outer = inner.withContext({.file = "m.onnx", .node = "other"});
  EXPECT_EQ(outer.context().file, "m.onnx");
  EXPECT_EQ(outer.context().node, "n1");
  EXPECT_STREQ(outer.what(), "m.onnx: node 'n1' (Relu): bad");
}

TEST(ErrorDeathTest, AssertAbortsWithInternalErrorBanner) {
  EXPECT_DEATH(
      {
        NNACCEL_ASSERT(1 + 1 == 3) << "math is "
                                   << "broken";
      },
      "internal error.*1 \\+ 1 == 3.*math is broken");
}
