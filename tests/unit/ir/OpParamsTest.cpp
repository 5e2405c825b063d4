// Tests for OpParams: every op's resolved parameters against hand-computed values (several
// cross-checked with onnx 1.12 shape inference via Debian's python3), and every validation
// error with its message text.
#include "nnaccel/ir/OpParams.h"

#include "GraphBuilder.h"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <optional>

using namespace nnaccel;
using namespace nnaccel::ir;
using namespace nnaccel::ir::test;

namespace {

const std::string kConvCtx = "model.onnx: node 'conv3' (Conv, opset 13): ";
const std::string kConvTCtx = "model.onnx: node 'conv3' (ConvTranspose, opset 13): ";

/// One Conv/ConvTranspose node 'conv3' reading x and weight w (and bias b if \p bias > 0).
struct ConvCase {
  GraphBuilder b{13};
  NodeId id = -1;
  ConvCase(Dims x, Dims w, AttrMap a, OpKind op = OpKind::Conv, int64_t bias = 0) {
    std::vector<ValueId> ins = {b.input("x", std::move(x)), b.input("w", std::move(w))};
    if (bias > 0) {
      ins.push_back(b.input("b", {bias}));
    }
    id = b.node(op, "conv3", ins, {"y"}, std::move(a));
  }
  ConvParams params() const { return convParams(b.g, id); }
  std::string error() const {
    return errorOf([&] { convParams(b.g, id); });
  }
};

struct PoolCase {
  GraphBuilder b{13};
  NodeId id = -1;
  PoolCase(OpKind op, Dims x, AttrMap a, std::vector<std::string> outs = {"y"}) {
    id = b.node(op, "pool", {b.input("x", std::move(x))}, outs, std::move(a));
  }
  PoolParams params() const { return poolParams(b.g, id); }
  std::string error() const {
    return errorOf([&] { poolParams(b.g, id); });
  }
};

} // namespace

// --- Conv ----------------------------------------------------------------------------------------

TEST(ConvParams, ExplicitPadsStridesAndMacs) {
  // ResNet stem; onnx shape inference: 1x64x112x112.
  ConvCase c({1, 3, 224, 224}, {64, 3, 7, 7},
             attrs({{"strides", Dims{2, 2}}, {"pads", Dims{3, 3, 3, 3}}}), OpKind::Conv, 64);
  const ConvParams p = c.params();
  EXPECT_EQ(p.spatialRank, 2);
  EXPECT_EQ(p.inChannels, 3);
  EXPECT_EQ(p.outChannels, 64);
  EXPECT_TRUE(p.hasBias);
  EXPECT_FALSE(p.transposed);
  EXPECT_EQ(p.outSpatial, (Dims{112, 112}));
  EXPECT_EQ(p.kernel, (Dims{7, 7}));
  EXPECT_EQ(p.padsBegin, (Dims{3, 3}));
  EXPECT_EQ(p.padsEnd, (Dims{3, 3}));
  EXPECT_EQ(p.outputPadding, (Dims{0, 0}));
  EXPECT_EQ(p.macs(), 64LL * 112 * 112 * 3 * 49); // 118013952
}

TEST(ConvParams, MacCountThatOverflowsInt64IsUnsupported) {
  // 2^20 output channels x 2^40 output positions x 2^20 input channels = 2^80 MACs.
  const int64_t big = int64_t{1} << 20;
  const ConvCase huge({1, big, big, big}, {big, big, 1, 1}, {});
  EXPECT_EQ(huge.error(), kConvCtx + "the convolution needs more than 2^63 multiply-accumulates");
  EXPECT_EQ(errorKindOf([&] { huge.params(); }), ErrorKind::Unsupported);
  // Just below: 2^20 x 2^20 x 2^22 = 2^62 fits and is exact.
  const ConvCase fits({1, big, 2048, 2048}, {big, big, 1, 1}, {});
  EXPECT_EQ(fits.params().macs(), int64_t{1} << 62);
  const ConvCase hugeT({1, big, big, big}, {big, big, 1, 1}, {}, OpKind::ConvTranspose);
  EXPECT_EQ(hugeT.error(), kConvTCtx + "the convolution needs more than 2^63 multiply-accumulates");
}

TEST(ConvParams, AutoPadSameUpperAndLowerWithOddAndEvenTotals) {
  // Input 6, kernel 3, stride 2: output ceil(6/2)=3, total pad (3-1)*2+3-6 = 1 (odd).
  ConvCase upper({1, 1, 6, 6}, {1, 1, 3, 3},
                 attrs({{"strides", Dims{2, 2}}, {"auto_pad", std::string("SAME_UPPER")}}));
  EXPECT_EQ(upper.params().outSpatial, (Dims{3, 3}));
  EXPECT_EQ(upper.params().padsBegin, (Dims{0, 0}));
  EXPECT_EQ(upper.params().padsEnd, (Dims{1, 1}));
  ConvCase lower({1, 1, 6, 6}, {1, 1, 3, 3},
                 attrs({{"strides", Dims{2, 2}}, {"auto_pad", std::string("SAME_LOWER")}}));
  EXPECT_EQ(lower.params().outSpatial, (Dims{3, 3}));
  EXPECT_EQ(lower.params().padsBegin, (Dims{1, 1}));
  EXPECT_EQ(lower.params().padsEnd, (Dims{0, 0}));
  // Input 5, kernel 3, stride 2: total pad (3-1)*2+3-5 = 2 (even) -> 1 and 1.
  ConvCase even({1, 1, 5, 5}, {1, 1, 3, 3},
                attrs({{"strides", Dims{2, 2}}, {"auto_pad", std::string("SAME_LOWER")}}));
  EXPECT_EQ(even.params().outSpatial, (Dims{3, 3}));
  EXPECT_EQ(even.params().padsBegin, (Dims{1, 1}));
  EXPECT_EQ(even.params().padsEnd, (Dims{1, 1}));
  // Kernel 4, stride 1: total 3 -> upper 1/2, lower 2/1.
  ConvCase k4({1, 1, 5, 5}, {1, 1, 4, 4}, attrs({{"auto_pad", std::string("SAME_UPPER")}}));
  EXPECT_EQ(k4.params().outSpatial, (Dims{5, 5}));
  EXPECT_EQ(k4.params().padsBegin, (Dims{1, 1}));
  EXPECT_EQ(k4.params().padsEnd, (Dims{2, 2}));
  // Dilation enlarges the kernel used for SAME: k=3, d=2 -> extent 5, total 4.
  ConvCase dil({1, 1, 8, 8}, {1, 1, 3, 3},
               attrs({{"dilations", Dims{2, 2}}, {"auto_pad", std::string("SAME_UPPER")}}));
  EXPECT_EQ(dil.params().outSpatial, (Dims{8, 8}));
  EXPECT_EQ(dil.params().padsBegin, (Dims{2, 2}));
  EXPECT_EQ(dil.params().padsEnd, (Dims{2, 2}));
}

TEST(ConvParams, ValidDilationsAsymmetricPadsAndOneD) {
  ConvCase valid({1, 1, 7, 7}, {1, 1, 3, 3},
                 attrs({{"strides", Dims{2, 2}}, {"auto_pad", std::string("VALID")}}));
  EXPECT_EQ(valid.params().outSpatial, (Dims{3, 3}));
  EXPECT_EQ(valid.params().padsBegin, (Dims{0, 0}));
  ConvCase dil({1, 1, 7, 7}, {1, 1, 3, 3}, attrs({{"dilations", Dims{2, 2}}}));
  EXPECT_EQ(dil.params().outSpatial, (Dims{3, 3}));
  // pads [top=1, left=0, bottom=2, right=0]: H = 5+3-3+1 = 6, W = 3 (onnx: 1x1x6x3).
  ConvCase asym({1, 1, 5, 5}, {1, 1, 3, 3}, attrs({{"pads", Dims{1, 0, 2, 0}}}));
  EXPECT_EQ(asym.params().outSpatial, (Dims{6, 3}));
  EXPECT_EQ(asym.params().padsBegin, (Dims{1, 0}));
  EXPECT_EQ(asym.params().padsEnd, (Dims{2, 0}));
  // 1-D: (10 + 2 - 3) / 2 + 1 = 5 (onnx: 1x8x5).
  ConvCase oneD({1, 4, 10}, {8, 4, 3}, attrs({{"strides", Dims{2}}, {"pads", Dims{1, 1}}}));
  EXPECT_EQ(oneD.params().spatialRank, 1);
  EXPECT_EQ(oneD.params().outSpatial, (Dims{5}));
  EXPECT_EQ(oneD.params().macs(), 8 * 5 * 4 * 3);
}

TEST(ConvParams, GroupsAndDepthwise) {
  ConvCase dw({1, 32, 10, 10}, {32, 1, 3, 3},
              attrs({{"group", int64_t{32}}, {"pads", Dims{1, 1, 1, 1}}}));
  const ConvParams p = dw.params();
  EXPECT_TRUE(p.isDepthwise());
  EXPECT_EQ(p.outChannels, 32);
  EXPECT_EQ(p.outSpatial, (Dims{10, 10}));
  EXPECT_EQ(p.macs(), 32 * 100 * 1 * 9);
  ConvCase g2({1, 8, 5, 5}, {6, 4, 3, 3}, attrs({{"group", int64_t{2}}}));
  EXPECT_FALSE(g2.params().isDepthwise());
  EXPECT_EQ(g2.params().outChannels, 6);
  EXPECT_EQ(g2.params().outSpatial, (Dims{3, 3}));
  EXPECT_EQ(g2.params().macs(), 6 * 9 * 4 * 9);
  // kernel_shape is optional but must agree with the weight when given.
  ConvCase ks({1, 8, 5, 5}, {6, 8, 3, 3}, attrs({{"kernel_shape", Dims{3, 3}}}));
  EXPECT_EQ(ks.params().kernel, (Dims{3, 3}));
}

TEST(ConvParams, Errors) {
  EXPECT_EQ(ConvCase({1, 64, 8, 8}, {16, 21, 3, 3}, attrs({{"group", int64_t{3}}})).error(),
            kConvCtx + "group=3 does not divide input channels=64");
  EXPECT_EQ(ConvCase({1, 64, 8, 8}, {16, 32, 3, 3}, {}).error(),
            kConvCtx + "weight 'w' has shape 16x32x3x3: 32 input channels per group, expected 64 "
                       "(input channels=64, group=1)");
  EXPECT_EQ(ConvCase({1, 4, 5, 5}, {5, 2, 3, 3}, attrs({{"group", int64_t{2}}})).error(),
            kConvCtx + "group=2 does not divide output channels=5");
  EXPECT_EQ(ConvCase({1, 4, 5, 5}, {4, 4, 3, 3}, attrs({{"group", int64_t{0}}})).error(),
            kConvCtx + "group must be positive, got 0");
  EXPECT_EQ(ConvCase({1, 1, 4, 4}, {1, 1, 5, 5}, {}).error(),
            kConvCtx + "kernel 5 is larger than the padded input 4 on spatial axis 0");
  EXPECT_EQ(ConvCase({1, 1, 8, 8}, {1, 1, 5, 5}, attrs({{"dilations", Dims{1, 2}}})).error(),
            kConvCtx + "dilated kernel extent 9 (kernel 5, dilation 2) is larger than the padded "
                       "input 8 on spatial axis 1");
  EXPECT_EQ(ConvCase({1, 1, 8, 8}, {1, 1, 3, 3}, attrs({{"strides", Dims{1, 0}}})).error(),
            kConvCtx + "strides must be positive, got [1, 0]");
  EXPECT_EQ(ConvCase({1, 1, 8, 8}, {1, 1, 3, 3}, attrs({{"dilations", Dims{-1, 1}}})).error(),
            kConvCtx + "dilations must be positive, got [-1, 1]");
  EXPECT_EQ(ConvCase({1, 1, 8, 8}, {1, 1, 3, 3}, attrs({{"strides", Dims{2}}})).error(),
            kConvCtx + "attribute 'strides' has 1 values, expected 2 (one per spatial axis)");
  EXPECT_EQ(ConvCase({1, 1, 8, 8}, {1, 1, 3, 3}, attrs({{"pads", Dims{1, 1}}})).error(),
            kConvCtx +
                "attribute 'pads' has 2 values, expected 4 (begin and end per spatial axis)");
  EXPECT_EQ(ConvCase({1, 1, 8, 8}, {1, 1, 3, 3}, attrs({{"pads", Dims{1, -1, 0, 0}}})).error(),
            kConvCtx + "pads must be >= 0, got [1, -1, 0, 0]");
  EXPECT_EQ(
      ConvCase({1, 1, 8, 8}, {1, 1, 3, 3}, attrs({{"auto_pad", std::string("SAME")}})).error(),
      kConvCtx + "unknown auto_pad 'SAME' (expected NOTSET, SAME_UPPER, SAME_LOWER or VALID)");
  EXPECT_EQ(ConvCase({1, 1, 8, 8}, {1, 1, 3, 3},
                     attrs({{"auto_pad", std::string("SAME_UPPER")}, {"pads", Dims{1, 1, 1, 1}}}))
                .error(),
            kConvCtx + "pads [1, 1, 1, 1] cannot be combined with auto_pad=SAME_UPPER");
  EXPECT_EQ(ConvCase({1, 3}, {4, 3}, {}).error(),
            kConvCtx + "input 'x' must have rank >= 3 (N, C, spatial...), found 1x3");
  EXPECT_EQ(ConvCase({1, 3, 8, 8}, {4, 3, 3}, {}).error(),
            kConvCtx + "weight 'w' has shape 4x3x3, expected rank 4 like the input");
  EXPECT_EQ(ConvCase({1, 3, 8, 8}, {16, 3, 3, 3}, {}, OpKind::Conv, 8).error(),
            kConvCtx + "bias 'b' has shape 8, expected 16 (one per output channel)");
  EXPECT_EQ(ConvCase({1, 3, 8, 8}, {16, 3, 3, 3}, attrs({{"kernel_shape", Dims{5, 5}}})).error(),
            kConvCtx + "kernel_shape [5, 5] does not match weight 'w' of shape 16x3x3x3");
  // An attribute of the wrong type is reported with the node context and the attribute name.
  EXPECT_EQ(ConvCase({1, 3, 8, 8}, {16, 3, 3, 3}, attrs({{"group", 2.0f}})).error(),
            kConvCtx + "'group': attribute has type float, which this op does not accept");
}

// --- ConvTranspose -------------------------------------------------------------------------------

TEST(ConvTransposeParams, AutoPadSame) {
  // ONNX test data convtranspose_autopad_same: 3x3 input, stride 2, SAME_UPPER -> 6x6; the odd
  // total padding (1) goes to the end.
  ConvCase upper({1, 1, 3, 3}, {1, 2, 3, 3},
                 attrs({{"strides", Dims{2, 2}}, {"auto_pad", std::string("SAME_UPPER")}}),
                 OpKind::ConvTranspose);
  ConvParams p = upper.params();
  EXPECT_TRUE(p.transposed);
  EXPECT_EQ(p.outChannels, 2);
  EXPECT_EQ(p.outSpatial, (Dims{6, 6}));
  EXPECT_EQ(p.padsBegin, (Dims{0, 0}));
  EXPECT_EQ(p.padsEnd, (Dims{1, 1}));
  ConvCase lower({1, 1, 3, 3}, {1, 2, 3, 3},
                 attrs({{"strides", Dims{2, 2}}, {"auto_pad", std::string("SAME_LOWER")}}),
                 OpKind::ConvTranspose);
  p = lower.params();
  EXPECT_EQ(p.outSpatial, (Dims{6, 6}));
  EXPECT_EQ(p.padsBegin, (Dims{1, 1}));
  EXPECT_EQ(p.padsEnd, (Dims{0, 0}));
  // Per the spec SAME gives input*stride even with output_padding (which then enters the total
  // padding: 2*2+1+3-6 = 2 -> 1/1, minus output_padding 1 at the end). onnx 1.12's shape
  // inference says 7 here; onnxruntime and the operator text say 6.
  ConvCase withOp({1, 1, 3, 3}, {1, 2, 3, 3},
                  attrs({{"strides", Dims{2, 2}},
                         {"output_padding", Dims{1, 1}},
                         {"auto_pad", std::string("SAME_UPPER")}}),
                  OpKind::ConvTranspose);
  p = withOp.params();
  EXPECT_EQ(p.outSpatial, (Dims{6, 6}));
  EXPECT_EQ(p.padsBegin, (Dims{1, 1}));
  EXPECT_EQ(p.padsEnd, (Dims{0, 0}));
  EXPECT_EQ(p.outputPadding, (Dims{1, 1}));
}

TEST(ConvTransposeParams, OutputShapeAndOutputPadding) {
  // convtranspose_output_shape: full output 9x7, requested 10x8 -> total padding -1 per axis,
  // absorbed at the end (the test data's last row and column are zeros).
  ConvCase os({1, 1, 3, 3}, {1, 2, 3, 3},
              attrs({{"strides", Dims{3, 2}}, {"output_shape", Dims{10, 8}}}),
              OpKind::ConvTranspose);
  ConvParams p = os.params();
  EXPECT_EQ(p.outSpatial, (Dims{10, 8}));
  EXPECT_EQ(p.padsBegin, (Dims{0, 0}));
  EXPECT_EQ(p.padsEnd, (Dims{-1, -1}));
  // convtranspose_pad: output_padding [1, 1] -> 10x8; padsEnd absorbs the output padding.
  ConvCase op({1, 1, 3, 3}, {1, 2, 3, 3},
              attrs({{"strides", Dims{3, 2}}, {"output_padding", Dims{1, 1}}}),
              OpKind::ConvTranspose);
  p = op.params();
  EXPECT_EQ(p.outSpatial, (Dims{10, 8}));
  EXPECT_EQ(p.outputPadding, (Dims{1, 1}));
  EXPECT_EQ(p.padsEnd, (Dims{-1, -1}));
  // convtranspose_kernel_shape: output_shape and output_padding together (total padding 0).
  ConvCase both({1, 1, 3, 3}, {1, 2, 3, 3},
                attrs({{"strides", Dims{3, 2}},
                       {"kernel_shape", Dims{3, 3}},
                       {"output_padding", Dims{1, 1}},
                       {"output_shape", Dims{10, 8}}}),
                OpKind::ConvTranspose);
  p = both.params();
  EXPECT_EQ(p.outSpatial, (Dims{10, 8}));
  EXPECT_EQ(p.padsBegin, (Dims{0, 0}));
  EXPECT_EQ(p.padsEnd, (Dims{-1, -1}));
  // Odd positive total padding from output_shape: full 7, requested 4 -> total 3; NOTSET puts
  // the extra pad at the beginning (2/1), SAME_UPPER at the end (1/2). onnx: 1x1x4x4.
  ConvCase odd({1, 1, 3, 3}, {1, 1, 3, 3},
               attrs({{"strides", Dims{2, 2}}, {"output_shape", Dims{4, 4}}}),
               OpKind::ConvTranspose);
  EXPECT_EQ(odd.params().padsBegin, (Dims{2, 2}));
  EXPECT_EQ(odd.params().padsEnd, (Dims{1, 1}));
  ConvCase oddUpper({1, 1, 3, 3}, {1, 1, 3, 3},
                    attrs({{"strides", Dims{2, 2}},
                           {"output_shape", Dims{1, 1, 4, 4}},
                           {"auto_pad", std::string("SAME_UPPER")}}),
                    OpKind::ConvTranspose);
  EXPECT_EQ(oddUpper.params().outSpatial, (Dims{4, 4}));
  EXPECT_EQ(oddUpper.params().padsBegin, (Dims{1, 1}));
  EXPECT_EQ(oddUpper.params().padsEnd, (Dims{2, 2}));
}

TEST(ConvTransposeParams, PadsDilationsGroupsAndMacs) {
  // convtranspose_pads: 3x3, strides [3, 2], pads [1, 2, 1, 2] -> 7x3.
  ConvCase pads({1, 1, 3, 3}, {1, 2, 3, 3},
                attrs({{"strides", Dims{3, 2}}, {"pads", Dims{1, 2, 1, 2}}}),
                OpKind::ConvTranspose);
  EXPECT_EQ(pads.params().outSpatial, (Dims{7, 3}));
  EXPECT_EQ(pads.params().padsBegin, (Dims{1, 2}));
  EXPECT_EQ(pads.params().padsEnd, (Dims{1, 2}));
  // convtranspose_dilations: 2x2 kernel, dilation 2 -> 2 + 3 = 5.
  ConvCase dil({1, 1, 3, 3}, {1, 1, 2, 2}, attrs({{"dilations", Dims{2, 2}}}),
               OpKind::ConvTranspose);
  EXPECT_EQ(dil.params().outSpatial, (Dims{5, 5}));
  // Groups: W is [C, M/group, k...] so M = 2 * 2 = 4.
  ConvCase grp({1, 4, 3, 3}, {4, 2, 3, 3}, attrs({{"group", int64_t{2}}}), OpKind::ConvTranspose,
               4);
  EXPECT_EQ(grp.params().outChannels, 4);
  EXPECT_EQ(grp.params().outSpatial, (Dims{5, 5}));
  EXPECT_EQ(grp.params().macs(), 4 * 9 * 2 * 9);
  // DCGAN-style 1-D: stride 2, kernel 4, pads 1 -> 2 * in (onnx: 1x4x32).
  ConvCase gan({1, 8, 16}, {8, 4, 4}, attrs({{"strides", Dims{2}}, {"pads", Dims{1, 1}}}),
               OpKind::ConvTranspose);
  EXPECT_EQ(gan.params().outSpatial, (Dims{32}));
  EXPECT_EQ(gan.params().outChannels, 4);
}

TEST(ConvTransposeParams, Errors) {
  EXPECT_EQ(ConvCase({1, 1, 3, 3}, {1, 1, 3, 3}, attrs({{"output_padding", Dims{1, 0}}}),
                     OpKind::ConvTranspose)
                .error(),
            kConvTCtx + "output_padding 1 must be smaller than stride 1 or dilation 1 on spatial "
                        "axis 0");
  EXPECT_EQ(ConvCase({1, 4, 3, 3}, {3, 2, 3, 3}, {}, OpKind::ConvTranspose).error(),
            kConvTCtx + "weight 'w' has shape 3x2x3x3: 3 input channels, expected 4");
  EXPECT_EQ(
      ConvCase({1, 6, 3, 3}, {6, 2, 3, 3}, attrs({{"group", int64_t{4}}}), OpKind::ConvTranspose)
          .error(),
      kConvTCtx + "group=4 does not divide input channels=6");
  EXPECT_EQ(ConvCase({1, 1, 1, 1}, {1, 1, 1, 1}, attrs({{"pads", Dims{1, 0, 0, 0}}}),
                     OpKind::ConvTranspose)
                .error(),
            kConvTCtx + "output extent 0 on spatial axis 0 is not positive (pads 1+0 exceed the "
                        "full output 1)");
  EXPECT_EQ(ConvCase({1, 1, 3, 3}, {1, 1, 3, 3}, attrs({{"output_shape", Dims{4, 4, 4}}}),
                     OpKind::ConvTranspose)
                .error(),
            kConvTCtx + "attribute 'output_shape' has 3 values, expected 2 (one per spatial axis)");
  const ConvCase negLead(
      {1, 1, 3, 3}, {1, 1, 3, 3},
      attrs({{"output_shape", Dims{6, 5}}, {"auto_pad", std::string("SAME_UPPER")}}),
      OpKind::ConvTranspose);
  EXPECT_EQ(negLead.error(), kConvTCtx + "output extent 6 on spatial axis 0 needs negative leading "
                                         "padding (total padding -1)");
  EXPECT_EQ(errorKindOf([&] { negLead.params(); }), ErrorKind::Unsupported);
  EXPECT_EQ(ConvCase({1, 1, 3, 3}, {1, 1, 3, 3}, attrs({{"output_shape", Dims{1, 1, 0, 4}}}),
                     OpKind::ConvTranspose)
                .error(),
            kConvTCtx + "output_shape must be positive, got [1, 1, 0, 4]");
  EXPECT_EQ(ConvCase({1, 1, 3, 3}, {1, 1, 3, 3}, attrs({{"output_shape", Dims{-5, 4}}}),
                     OpKind::ConvTranspose)
                .error(),
            kConvTCtx + "output_shape must be positive, got [-5, 4]");
}

TEST(ConvTransposeParams, PadsEndRelationHoldsOnEveryAxis) {
  // out = s * (in - 1) + dilated_k - padsBegin - padsEnd, with padsEnd = pads_end -
  // output_padding (negative here: the extra positions only receive the bias).
  ConvCase c({1, 1, 4, 5}, {1, 1, 3, 2},
             attrs({{"strides", Dims{3, 2}},
                    {"dilations", Dims{1, 2}},
                    {"pads", Dims{1, 0, 0, 0}},
                    {"output_padding", Dims{2, 1}}}),
             OpKind::ConvTranspose);
  const ConvParams p = c.params();
  EXPECT_EQ(p.padsBegin, (Dims{1, 0}));
  EXPECT_EQ(p.padsEnd, (Dims{-2, -1}));
  EXPECT_EQ(p.outputPadding, (Dims{2, 1}));
  // onnx 1.12 shape inference: 1x1x13x12.
  EXPECT_EQ(p.outSpatial, (Dims{13, 12}));
  for (size_t i = 0; i < 2; ++i) {
    const int64_t dilatedK = (p.kernel[i] - 1) * p.dilations[i] + 1;
    EXPECT_EQ(p.outSpatial[i],
              p.strides[i] * (p.inSpatial[i] - 1) + dilatedK - p.padsBegin[i] - p.padsEnd[i]);
  }
}

// --- pooling -------------------------------------------------------------------------------------

TEST(PoolParams, FloorCeilAndTheLastWindowRule) {
  PoolCase resnet(
      OpKind::MaxPool, {1, 64, 112, 112},
      attrs({{"kernel_shape", Dims{3, 3}}, {"strides", Dims{2, 2}}, {"pads", Dims{1, 1, 1, 1}}}));
  EXPECT_EQ(resnet.params().outSpatial, (Dims{56, 56}));
  EXPECT_EQ(resnet.params().kind, PoolParams::Kind::Max);
  // 5 with kernel 2, stride 2: floor 2, ceil 3 (onnx: 3).
  PoolCase floorMode(OpKind::MaxPool, {1, 1, 5, 5},
                     attrs({{"kernel_shape", Dims{2, 2}}, {"strides", Dims{2, 2}}}));
  EXPECT_EQ(floorMode.params().outSpatial, (Dims{2, 2}));
  PoolCase ceilMode(
      OpKind::MaxPool, {1, 1, 5, 5},
      attrs({{"kernel_shape", Dims{2, 2}}, {"strides", Dims{2, 2}}, {"ceil_mode", int64_t{1}}}));
  EXPECT_TRUE(ceilMode.params().ceilMode);
  EXPECT_EQ(ceilMode.params().outSpatial, (Dims{3, 3}));
  // maxpool_2d_ceil: 4x4, kernel 3, stride 2 -> 2x2.
  PoolCase ceil4(
      OpKind::MaxPool, {1, 1, 4, 4},
      attrs({{"kernel_shape", Dims{3, 3}}, {"strides", Dims{2, 2}}, {"ceil_mode", int64_t{1}}}));
  EXPECT_EQ(ceil4.params().outSpatial, (Dims{2, 2}));
  // 5 with pads 1/1, kernel 2, stride 2: ceil((7-2)/2)+1 = 4, but the 4th window would start at
  // 6 >= 5 + 1 (inside the right padding) and is dropped -> 3. (onnx 1.12's shape inference omits
  // the rule and says 4; PyTorch and onnxruntime say 3.)
  PoolCase rule(OpKind::AveragePool, {1, 1, 5, 5},
                attrs({{"kernel_shape", Dims{2, 2}},
                       {"strides", Dims{2, 2}},
                       {"pads", Dims{1, 1, 1, 1}},
                       {"ceil_mode", int64_t{1}}}));
  EXPECT_EQ(rule.params().outSpatial, (Dims{3, 3}));
  // 6, kernel 3, stride 2: floor 2, ceil 3 (the last window starts at 4 < 6: kept).
  PoolCase kept(
      OpKind::AveragePool, {1, 1, 6, 6},
      attrs({{"kernel_shape", Dims{3, 3}}, {"strides", Dims{2, 2}}, {"ceil_mode", int64_t{1}}}));
  EXPECT_EQ(kept.params().outSpatial, (Dims{3, 3}));
}

TEST(PoolParams, AutoPadDilationsCountIncludePadAndGlobal) {
  PoolCase dil(OpKind::MaxPool, {1, 1, 4, 4},
               attrs({{"kernel_shape", Dims{2, 2}}, {"dilations", Dims{2, 2}}}));
  EXPECT_EQ(dil.params().outSpatial, (Dims{2, 2}));
  EXPECT_EQ(dil.params().dilations, (Dims{2, 2}));
  PoolCase upper(OpKind::AveragePool, {1, 1, 32, 32},
                 attrs({{"kernel_shape", Dims{2, 2}}, {"auto_pad", std::string("SAME_UPPER")}}));
  EXPECT_EQ(upper.params().outSpatial, (Dims{32, 32}));
  EXPECT_EQ(upper.params().padsBegin, (Dims{0, 0}));
  EXPECT_EQ(upper.params().padsEnd, (Dims{1, 1}));
  PoolCase lower(OpKind::AveragePool, {1, 1, 32, 32},
                 attrs({{"kernel_shape", Dims{2, 2}}, {"auto_pad", std::string("SAME_LOWER")}}));
  EXPECT_EQ(lower.params().padsBegin, (Dims{1, 1}));
  EXPECT_EQ(lower.params().padsEnd, (Dims{0, 0}));
  PoolCase valid(OpKind::AveragePool, {1, 1, 32, 32},
                 attrs({{"kernel_shape", Dims{5, 5}},
                        {"strides", Dims{3, 3}},
                        {"auto_pad", std::string("VALID")}}));
  EXPECT_EQ(valid.params().outSpatial, (Dims{10, 10}));
  PoolCase cip(OpKind::AveragePool, {1, 1, 5, 5},
               attrs({{"kernel_shape", Dims{3, 3}},
                      {"pads", Dims{1, 1, 1, 1}},
                      {"count_include_pad", int64_t{1}}}));
  EXPECT_TRUE(cip.params().countIncludePad);
  EXPECT_EQ(cip.params().kind, PoolParams::Kind::Average);
  EXPECT_EQ(cip.params().outSpatial, (Dims{5, 5}));
  PoolCase gap(OpKind::GlobalAveragePool, {2, 8, 7, 5}, {});
  const PoolParams p = gap.params();
  EXPECT_TRUE(p.global);
  EXPECT_EQ(p.kernel, (Dims{7, 5}));
  EXPECT_EQ(p.outSpatial, (Dims{1, 1}));
  EXPECT_EQ(p.channels, 8);
  EXPECT_EQ(p.batch, 2);
  EXPECT_EQ(PoolCase(OpKind::GlobalMaxPool, {1, 3, 4}, {}).params().kind, PoolParams::Kind::Max);
}

TEST(PoolParams, Errors) {
  const std::string ctx = "model.onnx: node 'pool' (MaxPool, opset 13): ";
  EXPECT_EQ(PoolCase(OpKind::MaxPool, {1, 1, 4, 4}, {}).error(),
            ctx + "missing required attribute 'kernel_shape'");
  EXPECT_EQ(PoolCase(OpKind::MaxPool, {1, 1, 2, 2}, attrs({{"kernel_shape", Dims{3, 3}}})).error(),
            ctx + "kernel 3 is larger than the padded input 2 on spatial axis 0");
  EXPECT_EQ(PoolCase(OpKind::MaxPool, {1, 1, 4, 4},
                     attrs({{"kernel_shape", Dims{2, 2}}, {"pads", Dims{0, 2, 0, 0}}}))
                .error(),
            ctx + "pad 2 is not smaller than the kernel extent 2 on spatial axis 1 (a window would "
                  "lie entirely in the padding)");
  // storage_order only concerns the Indices output: accepted (and recorded) without it.
  const PoolCase order(OpKind::MaxPool, {1, 1, 4, 4},
                       attrs({{"kernel_shape", Dims{2, 2}}, {"storage_order", int64_t{1}}}));
  EXPECT_EQ(order.error(), "<no error>");
  EXPECT_TRUE(order.params().storageOrderColumnMajor);
  EXPECT_EQ(order.params().outSpatial, (Dims{3, 3}));
  EXPECT_FALSE(PoolCase(OpKind::MaxPool, {1, 1, 4, 4}, attrs({{"kernel_shape", Dims{2, 2}}}))
                   .params()
                   .storageOrderColumnMajor);
  EXPECT_EQ(PoolCase(OpKind::MaxPool, {1, 1, 4, 4},
                     attrs({{"kernel_shape", Dims{2, 2}}, {"storage_order", int64_t{2}}}))
                .error(),
            ctx + "storage_order must be 0 (row major) or 1 (column major), got 2");
  // The Indices output is accepted (the reference executor computes it).
  const PoolCase orderAndIndices(
      OpKind::MaxPool, {1, 1, 4, 4},
      attrs({{"kernel_shape", Dims{2, 2}}, {"storage_order", int64_t{1}}}), {"y", "idx"});
  EXPECT_EQ(orderAndIndices.error(), "<no error>");
  EXPECT_TRUE(orderAndIndices.params().storageOrderColumnMajor);
  EXPECT_EQ(PoolCase(OpKind::AveragePool, {1, 1, 4, 4},
                     attrs({{"kernel_shape", Dims{2, 2}}, {"dilations", Dims{2, 2}}}))
                .error(),
            "model.onnx: node 'pool' (AveragePool, opset 13): attribute 'dilations' of AveragePool "
            "needs opset 19");
  EXPECT_EQ(PoolCase(OpKind::MaxPool, {1, 4}, attrs({{"kernel_shape", Dims{2}}})).error(),
            ctx + "input 'x' must have rank >= 3 (N, C, spatial...), found 1x4");
}

// --- BatchNormalization --------------------------------------------------------------------------

namespace {
struct BnCase {
  GraphBuilder b;
  NodeId id = -1;
  BnCase(int64_t opset, Dims x, int64_t channels, AttrMap a, size_t outputs = 1) : b(opset) {
    std::vector<ValueId> ins = {b.input("x", std::move(x))};
    for (const char* n : {"scale", "bias", "mean", "var"}) {
      ins.push_back(b.input(n, {channels}));
    }
    std::vector<std::string> outs = {"y", "rm", "rv", "sm", "sv"};
    outs.resize(outputs);
    id = b.node(OpKind::BatchNormalization, "bn", ins, outs, std::move(a));
  }
};
} // namespace

TEST(BatchNormParams, EpsilonChannelsAndInferenceOnly) {
  BnCase dflt(15, {1, 16, 4, 4}, 16, {});
  EXPECT_FLOAT_EQ(batchNormParams(dflt.b.g, dflt.id).epsilon, 1e-5f);
  EXPECT_EQ(batchNormParams(dflt.b.g, dflt.id).channels, 16);
  BnCase eps(9, {2, 3}, 3, attrs({{"epsilon", 1e-3f}}));
  EXPECT_FLOAT_EQ(batchNormParams(eps.b.g, eps.id).epsilon, 1e-3f);

  BnCase bad(15, {1, 16, 4, 4}, 8, {});
  EXPECT_EQ(errorOf([&] { batchNormParams(bad.b.g, bad.id); }),
            "model.onnx: node 'bn' (BatchNormalization, opset 15): scale 'scale' has shape 8, "
            "expected 16 (one per channel)");
  BnCase training(15, {1, 4, 2, 2}, 4, attrs({{"training_mode", int64_t{1}}}));
  EXPECT_EQ(errorOf([&] { batchNormParams(training.b.g, training.id); }),
            "model.onnx: node 'bn' (BatchNormalization, opset 15): training_mode=1 is not "
            "supported (inference only)");
  BnCase outs(9, {1, 4, 2, 2}, 4, {}, 5);
  EXPECT_EQ(errorOf([&] { batchNormParams(outs.b.g, outs.id); }),
            "model.onnx: node 'bn' (BatchNormalization, opset 9): training-mode outputs (running "
            "or saved mean/var) are not supported");
  EXPECT_EQ(errorKindOf([&] { batchNormParams(outs.b.g, outs.id); }), ErrorKind::Unsupported);
  BnCase spatial(7, {1, 4, 2, 2}, 4, attrs({{"spatial", int64_t{0}}}));
  EXPECT_EQ(errorOf([&] { batchNormParams(spatial.b.g, spatial.id); }),
            "model.onnx: node 'bn' (BatchNormalization, opset 7): spatial=0 (per-element "
            "statistics) is not supported");
}

// --- activations ---------------------------------------------------------------------------------

namespace {
ActivationParams activation(OpKind op, AttrMap a = {}, int64_t opset = 17) {
  GraphBuilder b(opset);
  b.op(op, "act", {b.input("x", {4})}, std::move(a));
  return activationParams(b.g, 0);
}
} // namespace

TEST(ActivationParams, OnnxDefaults) {
  EXPECT_FLOAT_EQ(activation(OpKind::LeakyRelu).alpha, 0.01f);
  EXPECT_FLOAT_EQ(activation(OpKind::LeakyRelu, attrs({{"alpha", 0.2f}})).alpha, 0.2f);
  EXPECT_FLOAT_EQ(activation(OpKind::Elu).alpha, 1.0f);
  EXPECT_EQ(activation(OpKind::Selu).alpha, 1.67326319217681884765625f);
  EXPECT_EQ(activation(OpKind::Selu).gamma, 1.05070102214813232421875f);
  EXPECT_FLOAT_EQ(activation(OpKind::HardSigmoid).alpha, 0.2f);
  EXPECT_FLOAT_EQ(activation(OpKind::HardSigmoid).beta, 0.5f);
  EXPECT_EQ(activation(OpKind::Relu).kind, OpKind::Relu);
}

TEST(ActivationParams, ClipAttributesBeforeOpset11AndInputsAfter) {
  const ActivationParams old = activation(OpKind::Clip, attrs({{"min", 0.0f}, {"max", 6.0f}}), 7);
  EXPECT_EQ(old.alpha, 0.0f);
  EXPECT_EQ(old.beta, 6.0f);
  const ActivationParams oldDefault = activation(OpKind::Clip, {}, 7);
  EXPECT_EQ(oldDefault.alpha, std::numeric_limits<float>::lowest());
  EXPECT_EQ(oldDefault.beta, std::numeric_limits<float>::max());

  GraphBuilder b(13);
  const ValueId x = b.input("x", {4});
  b.op(OpKind::Clip, "clip",
       {x, b.constant("lo", Tensor::scalar(-1.0f)), b.constant("hi", Tensor::scalar(1.0f))});
  EXPECT_EQ(activationParams(b.g, 0).alpha, -1.0f);
  EXPECT_EQ(activationParams(b.g, 0).beta, 1.0f);
  b.op(OpKind::Clip, "clip_max_only", {x, kNoValue, b.constant("six", Tensor::scalar(6.0f))});
  EXPECT_EQ(activationParams(b.g, 1).alpha, -std::numeric_limits<float>::infinity());
  EXPECT_EQ(activationParams(b.g, 1).beta, 6.0f);
  b.op(OpKind::Clip, "clip_none", {x});
  EXPECT_EQ(activationParams(b.g, 2).beta, std::numeric_limits<float>::infinity());

  b.op(OpKind::Clip, "clip_dyn", {x, b.input("lo_dyn", {})});
  EXPECT_EQ(errorOf([&] { activationParams(b.g, 3); }),
            "model.onnx: node 'clip_dyn' (Clip, opset 13): min input 'lo_dyn' is not a constant");
  EXPECT_EQ(errorKindOf([&] { activationParams(b.g, 3); }), ErrorKind::Unsupported);
  b.op(OpKind::Clip, "clip_vec", {x, b.floats("lo_vec", {0.0f, 1.0f})});
  EXPECT_EQ(errorOf([&] { activationParams(b.g, 4); }),
            "model.onnx: node 'clip_vec' (Clip, opset 13): min must be a scalar, found shape 2");
  b.op(OpKind::Clip, "clip_attr", {x}, attrs({{"min", 0.0f}}));
  EXPECT_EQ(errorOf([&] { activationParams(b.g, 5); }),
            "model.onnx: node 'clip_attr' (Clip, opset 13): attribute 'min' was replaced by an "
            "input in opset 11");
}

TEST(ActivationParams, GeluApproximationIsNoneOrTanh) {
  EXPECT_FALSE(activation(OpKind::Gelu, {}, 20).tanhApproximation);
  EXPECT_TRUE(activation(OpKind::Gelu, attrs({{"approximate", std::string("tanh")}}), 20)
                  .tanhApproximation);
  EXPECT_EQ(errorOf([] {
              activation(OpKind::Gelu, attrs({{"approximate", std::string("fast")}}), 20);
            }),
            "model.onnx: node 'act' (Gelu, opset 20): approximate must be \"none\" or \"tanh\", "
            "got 'fast'");
}

TEST(ApplyActivation, ReferenceValues) {
  // Expected values computed in float32 with numpy.
  const auto f = [](OpKind k, float x, AttrMap a = {}) {
    return applyActivation(activation(k, std::move(a)), x);
  };
  EXPECT_EQ(f(OpKind::Relu, -1.0f), 0.0f);
  EXPECT_EQ(f(OpKind::Relu, 2.5f), 2.5f);
  EXPECT_FLOAT_EQ(f(OpKind::LeakyRelu, -2.0f), -0.02f);
  EXPECT_EQ(f(OpKind::LeakyRelu, 3.0f), 3.0f);
  EXPECT_FLOAT_EQ(f(OpKind::Sigmoid, 0.0f), 0.5f);
  EXPECT_FLOAT_EQ(f(OpKind::Sigmoid, 2.0f), 0.880797f);
  EXPECT_FLOAT_EQ(f(OpKind::HardSigmoid, 1.0f), 0.7f);
  EXPECT_EQ(f(OpKind::HardSigmoid, -3.0f), 0.0f);
  EXPECT_EQ(f(OpKind::HardSigmoid, 3.0f), 1.0f);
  EXPECT_FLOAT_EQ(f(OpKind::HardSwish, 1.0f), 0.6666667f);
  EXPECT_FLOAT_EQ(f(OpKind::HardSwish, -1.0f), -0.3333333f);
  EXPECT_EQ(f(OpKind::HardSwish, -4.0f), -0.0f);
  EXPECT_EQ(f(OpKind::HardSwish, 4.0f), 4.0f);
  EXPECT_FLOAT_EQ(f(OpKind::Tanh, 0.5f), 0.4621172f);
  EXPECT_FLOAT_EQ(f(OpKind::Swish, 1.0f), 0.7310586f);                          // x sigmoid(x)
  EXPECT_FLOAT_EQ(f(OpKind::Swish, 1.0f, attrs({{"alpha", 2.0f}})), 0.880797f); // sigmoid(2)
  EXPECT_FLOAT_EQ(f(OpKind::Mish, 1.0f), 0.8650984f);                           // tanh(log(1 + e))
  EXPECT_FLOAT_EQ(f(OpKind::Mish, -1.0f), -0.3034015f); // -tanh(log(1 + 1/e))
  EXPECT_EQ(f(OpKind::Mish, 100.0f), 100.0f);           // no overflow
  EXPECT_FLOAT_EQ(f(OpKind::Softsign, 3.0f), 0.75f);    // x / (1 + |x|)
  EXPECT_FLOAT_EQ(f(OpKind::Softsign, -1.0f), -0.5f);
  EXPECT_FLOAT_EQ(f(OpKind::Elu, -1.0f), -0.63212055f);
  EXPECT_EQ(f(OpKind::Elu, 2.0f), 2.0f);
  EXPECT_FLOAT_EQ(f(OpKind::Selu, -1.0f), -1.1113307f);
  EXPECT_FLOAT_EQ(f(OpKind::Selu, 2.0f), 2.101402f);
  EXPECT_FLOAT_EQ(f(OpKind::Softplus, 0.0f), 0.6931472f);
  EXPECT_FLOAT_EQ(f(OpKind::Softplus, -3.0f), 0.04858735f);
  EXPECT_FLOAT_EQ(f(OpKind::Softplus, 3.0f), 3.0485873f);
  EXPECT_EQ(f(OpKind::Softplus, 100.0f), 100.0f); // no overflow
  EXPECT_FLOAT_EQ(f(OpKind::Exp, 1.0f), 2.7182818f);
  EXPECT_FLOAT_EQ(f(OpKind::Erf, 0.5f), 0.52049988f);
  EXPECT_FLOAT_EQ(f(OpKind::Gelu, 1.0f), 0.84134475f);
  EXPECT_FLOAT_EQ(f(OpKind::Gelu, -1.0f), -0.15865525f);
  EXPECT_FLOAT_EQ(f(OpKind::Gelu, 1.0f, attrs({{"approximate", std::string("tanh")}})),
                  0.84119199f);
  EXPECT_FLOAT_EQ(f(OpKind::Gelu, -2.0f, attrs({{"approximate", std::string("tanh")}})),
                  -0.045402306f);
  ActivationParams clip{OpKind::Clip, 0.0f, 6.0f, 0.0f};
  EXPECT_EQ(applyActivation(clip, -1.0f), 0.0f);
  EXPECT_EQ(applyActivation(clip, 5.0f), 5.0f);
  EXPECT_EQ(applyActivation(clip, 7.0f), 6.0f);
  // min > max: every value becomes max (as numpy.clip and the ONNX spec).
  ActivationParams inverted{OpKind::Clip, 2.0f, 1.0f, 0.0f};
  EXPECT_EQ(applyActivation(inverted, 0.0f), 1.0f);
  EXPECT_EQ(applyActivation(inverted, 5.0f), 1.0f);
}

// --- broadcasting, Gemm, Softmax -----------------------------------------------------------------

TEST(BroadcastShapes, NumpyRules) {
  GraphBuilder b(13);
  b.op(OpKind::Add, "add", {b.input("a", {2, 3}), b.input("b", {4, 3})});
  EXPECT_EQ(broadcastShapes(b.g, 0, {2, 1, 4}, {3, 1}), (Dims{2, 3, 4}));
  EXPECT_EQ(broadcastShapes(b.g, 0, {}, {5}), (Dims{5}));
  EXPECT_EQ(broadcastShapes(b.g, 0, {8, 1, 6, 1}, {7, 1, 5}), (Dims{8, 7, 6, 5}));
  EXPECT_EQ(errorOf([&] {
              broadcastShapes(b.g, 0, {2, 3}, {4, 3});
            }),
            "model.onnx: node 'add' (Add, opset 13): cannot broadcast shapes 2x3 and 4x3");
}

TEST(GemmParams, TransposesBiasAndErrors) {
  GraphBuilder b(13);
  b.op(OpKind::Gemm, "fc", {b.input("a", {4, 3}), b.input("w", {5, 4}), b.input("c", {5})},
       attrs({{"transA", int64_t{1}}, {"transB", int64_t{1}}, {"alpha", 0.5f}}));
  GemmParams p = gemmParams(b.g, 0);
  EXPECT_EQ(p.m, 3);
  EXPECT_EQ(p.k, 4);
  EXPECT_EQ(p.n, 5);
  EXPECT_TRUE(p.transA && p.transB && p.hasC);
  EXPECT_FLOAT_EQ(p.alpha, 0.5f);
  EXPECT_FLOAT_EQ(p.beta, 1.0f);

  b.op(OpKind::Gemm, "fc_nobias", {b.input("a2", {2, 3}), b.input("w2", {3, 6})});
  EXPECT_FALSE(gemmParams(b.g, 1).hasC);
  b.op(OpKind::Gemm, "fc_k", {b.input("a3", {2, 3}), b.input("w3", {4, 5})});
  EXPECT_EQ(errorOf([&] { gemmParams(b.g, 2); }),
            "model.onnx: node 'fc_k' (Gemm, opset 13): inner dimensions differ: op(A) is 2x3, "
            "op(B) is 4x5");
  b.op(OpKind::Gemm, "fc_c", {b.input("a4", {2, 3}), b.input("w4", {3, 5}), b.input("c4", {3, 1})});
  EXPECT_EQ(errorOf([&] { gemmParams(b.g, 3); }),
            "model.onnx: node 'fc_c' (Gemm, opset 13): input C 'c4' of shape 3x1 does not "
            "broadcast to 2x5");
  b.op(OpKind::Gemm, "fc_rank", {b.input("a5", {1, 2, 3}), b.input("w5", {3, 5})});
  EXPECT_EQ(errorOf([&] { gemmParams(b.g, 4); }),
            "model.onnx: node 'fc_rank' (Gemm, opset 13): input 'a5' must be 2-D, found 1x2x3");
  b.op(OpKind::Gemm, "fc_old", {b.input("a6", {2, 3}), b.input("w6", {3, 5})}, {}, 9);
  EXPECT_EQ(errorOf([&] { gemmParams(b.g, 5); }),
            "model.onnx: node 'fc_old' (Gemm, opset 9): input C is required before opset 11");
}

TEST(SoftmaxParams, AxisDefaultsByOpset) {
  GraphBuilder b;
  const ValueId x = b.input("x", {2, 3, 4, 5});
  b.op(OpKind::Softmax, "s11", {x}, {}, 11);
  b.op(OpKind::Softmax, "s13", {x}, {}, 13);
  b.op(OpKind::Softmax, "s13neg", {x}, attrs({{"axis", int64_t{-2}}}), 13);
  b.op(OpKind::Softmax, "bad", {x}, attrs({{"axis", int64_t{4}}}), 13);
  EXPECT_EQ(softmaxParams(b.g, 0).axis, 1);
  EXPECT_TRUE(softmaxParams(b.g, 0).coerce2d);
  EXPECT_EQ(softmaxParams(b.g, 1).axis, 3);
  EXPECT_FALSE(softmaxParams(b.g, 1).coerce2d);
  EXPECT_EQ(softmaxParams(b.g, 2).axis, 2);
  EXPECT_EQ(errorOf([&] { softmaxParams(b.g, 3); }),
            "model.onnx: node 'bad' (Softmax, opset 13): axis 4 is out of range for rank 4");
}

// --- axes ----------------------------------------------------------------------------------------

TEST(Axes, ConcatFlattenGatherTranspose) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {2, 3, 4});
  b.op(OpKind::Concat, "cat", {x, x}, attrs({{"axis", int64_t{-2}}}));
  b.op(OpKind::Concat, "cat_noaxis", {x, x});
  b.op(OpKind::Flatten, "flat_end", {x}, attrs({{"axis", int64_t{3}}}));
  b.op(OpKind::Flatten, "flat_neg", {x}, attrs({{"axis", int64_t{-1}}}));
  b.op(OpKind::Flatten, "flat_bad", {x}, attrs({{"axis", int64_t{4}}}));
  b.op(OpKind::Gather, "gather", {x, b.ints("i", {0})}, attrs({{"axis", int64_t{-1}}}));
  b.op(OpKind::Transpose, "tr", {x});
  b.op(OpKind::Transpose, "tr_perm", {x}, attrs({{"perm", Dims{0, 2, 1}}}));
  b.op(OpKind::Transpose, "tr_bad", {x}, attrs({{"perm", Dims{0, 0, 1}}}));
  EXPECT_EQ(concatAxis(b.g, 0), 1);
  EXPECT_EQ(errorOf([&] { concatAxis(b.g, 1); }),
            "model.onnx: node 'cat_noaxis' (Concat, opset 13): missing required attribute 'axis'");
  EXPECT_EQ(flattenAxis(b.g, 2), 3);
  EXPECT_EQ(flattenAxis(b.g, 3), 2);
  EXPECT_EQ(errorOf([&] { flattenAxis(b.g, 4); }),
            "model.onnx: node 'flat_bad' (Flatten, opset 13): axis 4 is out of range for rank 3");
  EXPECT_EQ(gatherAxis(b.g, 5), 2);
  EXPECT_EQ(transposePerm(b.g, 6), (std::vector<int64_t>{2, 1, 0}));
  EXPECT_EQ(transposePerm(b.g, 7), (std::vector<int64_t>{0, 2, 1}));
  EXPECT_EQ(errorOf([&] { transposePerm(b.g, 8); }),
            "model.onnx: node 'tr_bad' (Transpose, opset 13): perm [0, 0, 1] is not a permutation "
            "of 3 axes");
}

TEST(Axes, SqueezeByOpset) {
  GraphBuilder b;
  const ValueId x = b.input("x", {1, 3, 1, 5});
  b.op(OpKind::Squeeze, "all", {x}, {}, 13);
  b.op(OpKind::Squeeze, "neg", {x, b.ints("a", {-2})}, {}, 13);
  b.op(OpKind::Squeeze, "attr", {x}, attrs({{"axes", Dims{0}}}), 11);
  b.op(OpKind::Squeeze, "extent", {x, b.ints("a1", {1})}, {}, 13);
  b.op(OpKind::Squeeze, "attr13", {x}, attrs({{"axes", Dims{0}}}), 13);
  b.op(OpKind::Squeeze, "dyn", {x, b.input("a_dyn", {1}, DType::I64)}, {}, 13);
  b.op(OpKind::Squeeze, "input11", {x, b.ints("a2", {0})}, {}, 11);
  EXPECT_EQ(squeezeAxes(b.g, 0), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(squeezeAxes(b.g, 1), (std::vector<int64_t>{2}));
  EXPECT_EQ(squeezeAxes(b.g, 2), (std::vector<int64_t>{0}));
  EXPECT_EQ(errorOf([&] { squeezeAxes(b.g, 3); }),
            "model.onnx: node 'extent' (Squeeze, opset 13): cannot squeeze axis 1 of extent 3 "
            "(input 1x3x1x5)");
  EXPECT_EQ(errorOf([&] { squeezeAxes(b.g, 4); }),
            "model.onnx: node 'attr13' (Squeeze, opset 13): attribute 'axes' was replaced by an "
            "input in opset 13");
  EXPECT_EQ(errorOf([&] { squeezeAxes(b.g, 5); }),
            "model.onnx: node 'dyn' (Squeeze, opset 13): axes input 'a_dyn' is not a constant");
  EXPECT_EQ(errorOf([&] { squeezeAxes(b.g, 6); }),
            "model.onnx: node 'input11' (Squeeze, opset 11): axes is an attribute, not an input, "
            "before opset 13");
}

TEST(Axes, UnsqueezeByOpset) {
  GraphBuilder b;
  const ValueId x = b.input("x", {3, 4, 5});
  b.op(OpKind::Unsqueeze, "u13", {x, b.ints("a", {-1, 0})}, {}, 13);
  b.op(OpKind::Unsqueeze, "u11", {x}, attrs({{"axes", Dims{3, 1}}}), 11);
  b.op(OpKind::Unsqueeze, "dup", {x, b.ints("a2", {1, -4})}, {}, 13);
  b.op(OpKind::Unsqueeze, "missing", {x}, {}, 13);
  b.op(OpKind::Unsqueeze, "range", {x, b.ints("a3", {5})}, {}, 13);
  EXPECT_EQ(unsqueezeAxes(b.g, 0), (std::vector<int64_t>{0, 4}));
  EXPECT_EQ(unsqueezeAxes(b.g, 1), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(errorOf([&] { unsqueezeAxes(b.g, 2); }),
            "model.onnx: node 'dup' (Unsqueeze, opset 13): axes [1, -4] contain a duplicate");
  EXPECT_EQ(errorOf([&] { unsqueezeAxes(b.g, 3); }),
            "model.onnx: node 'missing' (Unsqueeze, opset 13): missing required input 1 (axes)");
  EXPECT_EQ(errorOf([&] { unsqueezeAxes(b.g, 4); }),
            "model.onnx: node 'range' (Unsqueeze, opset 13): axis 5 is out of range for rank 4");
}

// --- Reshape, Pad --------------------------------------------------------------------------------

TEST(ReshapeTarget, ZeroMinusOneAllowZeroAndErrors) {
  GraphBuilder b;
  const ValueId x = b.input("x", {2, 3, 4});
  const auto reshape = [&](const std::string& name, std::vector<int64_t> shape, int64_t opset = 13,
                           AttrMap a = {}) {
    b.op(OpKind::Reshape, name, {x, b.ints(name + "_shape", shape)}, std::move(a), opset);
    return b.lastNode();
  };
  EXPECT_EQ(reshapeTarget(b.g, reshape("r0", {4, 0, -1})), (Dims{4, 3, 2}));
  EXPECT_EQ(reshapeTarget(b.g, reshape("r1", {-1})), (Dims{24}));
  EXPECT_EQ(reshapeTarget(b.g, reshape("r2", {0, 0, 2, 2})), (Dims{2, 3, 2, 2}));
  // allowzero=1 (opset 14): 0 is a real zero extent (rejected later by shape inference).
  const auto err = [&](NodeId id) { return errorOf([&] { reshapeTarget(b.g, id); }); };
  // allowzero=1 (opset 14): 0 is a literal zero extent, not a copy.
  EXPECT_EQ(err(reshape("r3", {0, 24}, 14, attrs({{"allowzero", int64_t{1}}}))),
            "model.onnx: node 'r3' (Reshape, opset 14): cannot reshape 2x3x4 (24 elements) to "
            "[0, 24] (0 elements)");
  EXPECT_EQ(err(reshape("two", {-1, -1})),
            "model.onnx: node 'two' (Reshape, opset 13): shape [-1, -1] has more than one -1");
  EXPECT_EQ(err(reshape("count", {5, 5})),
            "model.onnx: node 'count' (Reshape, opset 13): cannot reshape 2x3x4 (24 elements) to "
            "[5, 5] (25 elements)");
  EXPECT_EQ(err(reshape("divide", {5, -1})),
            "model.onnx: node 'divide' (Reshape, opset 13): cannot reshape 2x3x4 (24 elements) to "
            "[5, -1]");
  EXPECT_EQ(err(reshape("copy", {1, 2, 3, 0})),
            "model.onnx: node 'copy' (Reshape, opset 13): shape [1, 2, 3, 0] copies dimension 3 "
            "(0), which the input 2x3x4 does not have");
  EXPECT_EQ(err(reshape("neg", {-2, 12})),
            "model.onnx: node 'neg' (Reshape, opset 13): shape [-2, 12] has the invalid entry -2");
  EXPECT_EQ(err(reshape("both", {0, -1}, 14, attrs({{"allowzero", int64_t{1}}}))),
            "model.onnx: node 'both' (Reshape, opset 14): shape [0, -1] has both 0 and -1 with "
            "allowzero=1");
  b.op(OpKind::Reshape, "dyn", {x, b.input("s", {2}, DType::I64)});
  EXPECT_EQ(err(b.lastNode()),
            "model.onnx: node 'dyn' (Reshape, opset 17): shape input 's' is not a constant");
  EXPECT_EQ(errorKindOf([&] { reshapeTarget(b.g, b.lastNode()); }), ErrorKind::Unsupported);
  b.op(OpKind::Reshape, "float", {x, b.floats("fs", {24.0f})});
  EXPECT_EQ(
      err(b.lastNode()),
      "model.onnx: node 'float' (Reshape, opset 17): shape must be an integer tensor, found f32");
}

TEST(PadParams, InputsAttributesModesAndErrors) {
  GraphBuilder b;
  const ValueId x = b.input("x", {1, 3, 4, 5});
  b.op(OpKind::Pad, "p11",
       {x, b.ints("pads", {0, 0, 1, 2, 0, 0, 1, -1}), b.constant("cv", Tensor::scalar(1.5f))}, {},
       11);
  PadParams p = padParams(b.g, 0);
  EXPECT_EQ(p.mode, PadParams::Mode::Constant);
  EXPECT_EQ(p.padsBegin, (Dims{0, 0, 1, 2}));
  EXPECT_EQ(p.padsEnd, (Dims{0, 0, 1, -1}));
  EXPECT_EQ(p.value, 1.5f);
  b.op(OpKind::Pad, "p2", {x},
       attrs({{"pads", Dims{0, 0, 1, 1, 0, 0, 1, 1}},
              {"value", 2.0f},
              {"mode", std::string("reflect")}}),
       7);
  p = padParams(b.g, 1);
  EXPECT_EQ(p.mode, PadParams::Mode::Reflect);
  EXPECT_EQ(p.padsBegin, (Dims{0, 0, 1, 1}));
  EXPECT_EQ(p.value, 2.0f);
  b.op(OpKind::Pad, "edge", {x, b.ints("pads2", {0, 0, 0, 0, 0, 0, 0, 0})},
       attrs({{"mode", std::string("edge")}}), 13);
  EXPECT_EQ(padParams(b.g, 2).mode, PadParams::Mode::Edge);

  const auto err = [&](NodeId id) { return errorOf([&] { padParams(b.g, id); }); };
  b.op(OpKind::Pad, "wrap", {x, b.ints("pads3", {0, 0, 0, 0, 0, 0, 0, 0})},
       attrs({{"mode", std::string("wrap")}}), 13);
  EXPECT_EQ(err(3), "model.onnx: node 'wrap' (Pad, opset 13): unknown mode 'wrap' (expected "
                    "constant, reflect or edge)");
  b.op(OpKind::Pad, "count", {x, b.ints("pads4", {1, 1})}, {}, 13);
  EXPECT_EQ(err(4), "model.onnx: node 'count' (Pad, opset 13): pads [1, 1] has 2 values, expected "
                    "8 (begin and end per axis of 1x3x4x5)");
  b.op(OpKind::Pad, "crop", {x, b.ints("pads5", {0, 0, 0, -3, 0, 0, 0, -2})}, {}, 13);
  EXPECT_EQ(err(5), "model.onnx: node 'crop' (Pad, opset 13): pads [0, 0, 0, -3, 0, 0, 0, -2] "
                    "leave extent 0 on axis 3 of 1x3x4x5");
  b.op(OpKind::Pad, "attr11", {x, b.ints("pads6", {0, 0, 0, 0, 0, 0, 0, 0})},
       attrs({{"pads", Dims{0, 0, 0, 0, 0, 0, 0, 0}}}), 11);
  EXPECT_EQ(err(6), "model.onnx: node 'attr11' (Pad, opset 11): attribute 'pads' was replaced by "
                    "an input in opset 11");
  b.op(OpKind::Pad, "dyn", {x, b.input("pads_dyn", {8}, DType::I64)}, {}, 13);
  EXPECT_EQ(err(7),
            "model.onnx: node 'dyn' (Pad, opset 13): pads input 'pads_dyn' is not a constant");
  EXPECT_FALSE(padParams(b.g, 0).valueIsInteger);
}

TEST(PadParams, IntegerFillValuesAreExact) {
  GraphBuilder b;
  const ValueId x = b.input("x", {2}, DType::I64);
  const ValueId pads = b.ints("pads", {1, 1});
  // 2^40 + 1 has no float representation (float gives 2^40): intValue keeps it.
  const int64_t big = (int64_t{1} << 40) + 1;
  b.op(OpKind::Pad, "p", {x, pads, b.constant("cv", Tensor::scalar(big))}, {}, 13);
  PadParams p = padParams(b.g, 0);
  EXPECT_TRUE(p.valueIsInteger);
  EXPECT_EQ(p.intValue, big);
  EXPECT_EQ(p.value, static_cast<float>(int64_t{1} << 40));
  // Without constant_value the integer fill is 0.
  b.op(OpKind::Pad, "zero", {x, pads}, {}, 13);
  p = padParams(b.g, 1);
  EXPECT_TRUE(p.valueIsInteger);
  EXPECT_EQ(p.intValue, 0);
  // s8 and s32 data.
  b.op(OpKind::Pad, "s8",
       {b.input("x8", {2}, DType::I8), pads, b.constant("cv8", Tensor::scalar(int8_t{-128}))}, {},
       13);
  EXPECT_EQ(padParams(b.g, 2).intValue, -128);
  b.op(OpKind::Pad, "s32",
       {b.input("x32", {2}, DType::I32), pads,
        b.constant("cv32", Tensor::scalar(int32_t{16777217}))},
       {}, 13);
  EXPECT_EQ(padParams(b.g, 3).intValue, 16777217);
  // Pad-2 (attribute value): integral values are taken exactly for integer data.
  b.op(OpKind::Pad, "old", {x}, attrs({{"pads", Dims{1, 1}}, {"value", 3.0f}}), 7);
  p = padParams(b.g, 4);
  EXPECT_TRUE(p.valueIsInteger);
  EXPECT_EQ(p.intValue, 3);

  const auto err = [&](NodeId id) { return errorOf([&] { padParams(b.g, id); }); };
  b.op(OpKind::Pad, "frac", {x}, attrs({{"pads", Dims{1, 1}}, {"value", 2.5f}}), 7);
  EXPECT_EQ(err(5), "model.onnx: node 'frac' (Pad, opset 7): value 2.5 is not an integer, but the "
                    "input is s64");
  b.op(OpKind::Pad, "mixed", {x, pads, b.constant("cvf", Tensor::scalar(1.0f))}, {}, 13);
  EXPECT_EQ(err(6), "model.onnx: node 'mixed' (Pad, opset 13): constant_value has dtype f32, "
                    "expected s64 like the input");
}

// --- Resize / Upsample ---------------------------------------------------------------------------

TEST(ResizeParams, ScalesSizesAndModes) {
  GraphBuilder b(13);
  const ValueId emptyRoi = b.floats("roi", {});
  // resize_downsample_scales_nearest: 2x4 * 0.6 -> floor(1.2)=1, floor(2.4)=2 (onnx: 1x1x1x2).
  b.op(OpKind::Resize, "down",
       {b.input("x", {1, 1, 2, 4}), emptyRoi, b.floats("s", {1, 1, 0.6f, 0.6f})});
  ResizeParams p = resizeParams(b.g, 0);
  EXPECT_EQ(p.outShape, (Dims{1, 1, 1, 2}));
  EXPECT_EQ(p.scales, (std::vector<float>{1, 1, 0.6f, 0.6f}));
  EXPECT_FALSE(p.scalesFromSizes);
  EXPECT_EQ(p.mode, ResizeParams::Mode::Nearest);
  EXPECT_EQ(p.coordinateTransform, "half_pixel");
  EXPECT_EQ(p.nearestMode, "round_prefer_floor");
  EXPECT_EQ(p.cubicCoeffA, -0.75f);
  // sizes: scales become sizes / input (onnx: 1x1x7x8).
  b.op(OpKind::Resize, "sizes",
       {b.input("x2", {1, 1, 4, 4}), kNoValue, kNoValue, b.ints("sz", {1, 1, 7, 8})},
       attrs({{"mode", std::string("linear")},
              {"coordinate_transformation_mode", std::string("align_corners")}}));
  p = resizeParams(b.g, 1);
  EXPECT_EQ(p.outShape, (Dims{1, 1, 7, 8}));
  EXPECT_EQ(p.scales, (std::vector<float>{1.0f, 1.0f, 1.75f, 2.0f}));
  EXPECT_TRUE(p.scalesFromSizes);
  EXPECT_EQ(p.mode, ResizeParams::Mode::Linear);
  EXPECT_EQ(p.coordinateTransform, "align_corners");
  // floor(3 * float(5/3)): the float product rounds to exactly 5 (onnx: 1x1x5x4).
  b.op(OpKind::Resize, "third",
       {b.input("x3", {1, 1, 3, 3}), emptyRoi, b.floats("s3", {1, 1, 5.0f / 3.0f, 1.5f})},
       attrs({{"mode", std::string("cubic")},
              {"cubic_coeff_a", -0.5f},
              {"exclude_outside", int64_t{1}}}));
  p = resizeParams(b.g, 2);
  EXPECT_EQ(p.outShape, (Dims{1, 1, 5, 4}));
  EXPECT_EQ(p.mode, ResizeParams::Mode::Cubic);
  EXPECT_EQ(p.cubicCoeffA, -0.5f);
  EXPECT_TRUE(p.excludeOutside);
  b.op(OpKind::Resize, "crop",
       {b.input("x4", {1, 1, 4, 4}), b.floats("roi4", {0, 0, 0.4f, 0.6f, 1, 1, 0.6f, 0.8f}),
        kNoValue, b.ints("sz4", {1, 1, 3, 3})},
       attrs({{"coordinate_transformation_mode", std::string("tf_crop_and_resize")},
              {"extrapolation_value", 10.0f}}));
  p = resizeParams(b.g, 3);
  EXPECT_EQ(p.roi, (std::vector<float>{0, 0, 0.4f, 0.6f, 1, 1, 0.6f, 0.8f}));
  EXPECT_EQ(p.extrapolationValue, 10.0f);
  EXPECT_EQ(p.outShape, (Dims{1, 1, 3, 3}));
}

TEST(ResizeParams, LegacyResize10AndUpsample) {
  GraphBuilder b;
  b.op(OpKind::Resize, "r10", {b.input("x", {1, 1, 2, 2}), b.floats("s", {1, 1, 2, 3})}, {}, 10);
  ResizeParams p = resizeParams(b.g, 0);
  EXPECT_EQ(p.outShape, (Dims{1, 1, 4, 6}));
  EXPECT_EQ(p.coordinateTransform, "asymmetric");
  // Resize-10 nearest: floor on upsampled axes, ceil on downsampled ones (see OpParams.h).
  EXPECT_EQ(p.nearestMode, "legacy_opset10");
  EXPECT_FALSE(p.scalesFromSizes);
  b.op(OpKind::Upsample, "u7", {b.input("x7", {1, 1, 2, 2})},
       attrs({{"scales", std::vector<float>{1, 1, 2, 3}}}), 7);
  p = resizeParams(b.g, 1);
  EXPECT_EQ(p.outShape, (Dims{1, 1, 4, 6}));
  EXPECT_EQ(p.mode, ResizeParams::Mode::Nearest);
  EXPECT_EQ(p.coordinateTransform, "asymmetric");
  EXPECT_EQ(p.nearestMode, "floor"); // Upsample never downsamples: the same rule as Resize-10
  b.op(OpKind::Upsample, "u9", {b.input("x9", {1, 1, 2, 2}), b.floats("s9", {1, 1, 2, 2})},
       attrs({{"mode", std::string("linear")}}), 9);
  p = resizeParams(b.g, 2);
  EXPECT_EQ(p.outShape, (Dims{1, 1, 4, 4}));
  EXPECT_EQ(p.mode, ResizeParams::Mode::Linear);
  EXPECT_EQ(p.coordinateTransform, "asymmetric");
}

TEST(ResizeParams, Errors) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {1, 1, 4, 4});
  const ValueId roi = b.floats("roi", {});
  const auto err = [&](NodeId id) { return errorOf([&] { resizeParams(b.g, id); }); };
  b.op(OpKind::Resize, "both", {x, roi, b.floats("s", {1, 1, 2, 2}), b.ints("sz", {1, 1, 8, 8})});
  EXPECT_EQ(err(0), "model.onnx: node 'both' (Resize, opset 13): exactly one of scales and sizes "
                    "must be given");
  b.op(OpKind::Resize, "neither", {x, roi, b.floats("s_empty", {})});
  EXPECT_EQ(err(1), "model.onnx: node 'neither' (Resize, opset 13): exactly one of scales and "
                    "sizes must be given");
  b.op(OpKind::Resize, "count", {x, roi, b.floats("s2", {2, 2})});
  EXPECT_EQ(err(2), "model.onnx: node 'count' (Resize, opset 13): scales [2, 2] has 2 values, "
                    "expected 4 (one per axis)");
  b.op(OpKind::Resize, "zero", {x, roi, b.floats("s3", {1, 1, 0.1f, 1})});
  EXPECT_EQ(err(3), "model.onnx: node 'zero' (Resize, opset 13): scale 0.1 gives output extent 0 "
                    "on axis 2 (input extent 4)");
  b.op(OpKind::Resize, "neg", {x, roi, b.floats("s4", {1, 1, -2, 1})});
  EXPECT_EQ(err(4), "model.onnx: node 'neg' (Resize, opset 13): scales must be positive, got [1, "
                    "1, -2, 1]");
  b.op(OpKind::Resize, "mode", {x, roi, b.floats("s5", {1, 1, 2, 2})},
       attrs({{"mode", std::string("bilinear")}}));
  EXPECT_EQ(err(5), "model.onnx: node 'mode' (Resize, opset 13): unknown mode 'bilinear' "
                    "(expected nearest, linear or cubic)");
  b.op(OpKind::Resize, "ctm", {x, roi, b.floats("s6", {1, 1, 2, 2})},
       attrs({{"coordinate_transformation_mode", std::string("tf_half_pixel_for_nn")}}));
  EXPECT_EQ(err(6),
            "model.onnx: node 'ctm' (Resize, opset 13): unknown "
            "coordinate_transformation_mode 'tf_half_pixel_for_nn' (expected one of "
            "half_pixel, pytorch_half_pixel, align_corners, asymmetric, tf_crop_and_resize)");
  b.op(OpKind::Resize, "dyn", {x, roi, b.input("s_dyn", {4})});
  EXPECT_EQ(err(7), "model.onnx: node 'dyn' (Resize, opset 13): scales input 's_dyn' is not a "
                    "constant");
  b.op(OpKind::Upsample, "down", {x, b.floats("s8", {1, 1, 0.5f, 0.5f})}, {}, 9);
  EXPECT_EQ(err(8), "model.onnx: node 'down' (Upsample, opset 9): Upsample scales must be >= 1, "
                    "got [1, 1, 0.5, 0.5]");
  b.op(OpKind::Resize, "nm", {x, roi, b.floats("s9", {1, 1, 2, 2})},
       attrs({{"nearest_mode", std::string("round")}}));
  EXPECT_EQ(err(9), "model.onnx: node 'nm' (Resize, opset 13): unknown nearest_mode 'round' "
                    "(expected one of round_prefer_floor, round_prefer_ceil, floor, ceil)");
  // Opset 11-12 still have tf_half_pixel_for_nn.
  b.op(OpKind::Resize, "ctm11", {x, roi, b.floats("s10", {1, 1, 2, 2})},
       attrs({{"coordinate_transformation_mode", std::string("tf_half_pixel_for_nn")}}), 11);
  EXPECT_EQ(resizeParams(b.g, 10).coordinateTransform, "tf_half_pixel_for_nn");
}

// --- DepthToSpace, Slice, Cast -------------------------------------------------------------------

TEST(DepthToSpaceParams, ModesAndErrors) {
  GraphBuilder b;
  const ValueId x = b.input("x", {1, 8, 2, 3});
  b.op(OpKind::DepthToSpace, "dcr", {x}, attrs({{"blocksize", int64_t{2}}}), 13);
  b.op(OpKind::DepthToSpace, "crd", {x},
       attrs({{"blocksize", int64_t{2}}, {"mode", std::string("CRD")}}), 13);
  b.op(OpKind::DepthToSpace, "old", {x}, attrs({{"blocksize", int64_t{2}}}), 7);
  b.op(OpKind::DepthToSpace, "b3", {x}, attrs({{"blocksize", int64_t{3}}}), 13);
  b.op(OpKind::DepthToSpace, "nob", {x}, {}, 13);
  EXPECT_EQ(depthToSpaceParams(b.g, 0).blocksize, 2);
  EXPECT_FALSE(depthToSpaceParams(b.g, 0).crd);
  EXPECT_TRUE(depthToSpaceParams(b.g, 1).crd);
  EXPECT_FALSE(depthToSpaceParams(b.g, 2).crd);
  EXPECT_EQ(errorOf([&] { depthToSpaceParams(b.g, 3); }),
            "model.onnx: node 'b3' (DepthToSpace, opset 13): channels=8 are not divisible by "
            "blocksize^2=9");
  EXPECT_EQ(errorOf([&] { depthToSpaceParams(b.g, 4); }),
            "model.onnx: node 'nob' (DepthToSpace, opset 13): missing required attribute "
            "'blocksize'");
}

TEST(SliceParams, ClampingNegativeIndicesAndNegativeSteps) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {20, 10, 5});
  // slice_neg_steps: starts [20, 10, 4], ends [0, 0, 1], steps [-1, -3, -2] (onnx: 19x3x2).
  b.op(OpKind::Slice, "neg",
       {x, b.ints("st", {20, 10, 4}), b.ints("en", {0, 0, 1}), b.ints("ax", {0, 1, 2}),
        b.ints("sp", {-1, -3, -2})});
  SliceParams p = sliceParams(b.g, 0);
  EXPECT_EQ(p.starts, (Dims{19, 9, 4}));
  EXPECT_EQ(p.ends, (Dims{0, 0, 1}));
  EXPECT_EQ(p.steps, (Dims{-1, -3, -2}));
  // INT64_MAX end, untouched axes keep full range (onnx: 20x9x5).
  b.op(OpKind::Slice, "max",
       {x, b.ints("st1", {1}), b.ints("en1", {std::numeric_limits<int64_t>::max()}),
        b.ints("ax1", {1})});
  p = sliceParams(b.g, 1);
  EXPECT_EQ(p.starts, (Dims{0, 1, 0}));
  EXPECT_EQ(p.ends, (Dims{20, 10, 5}));
  // Negative start/end/axis: [-3, -1) on the last axis -> [2, 4) (onnx: 20x10x2).
  b.op(OpKind::Slice, "negidx", {x, b.ints("st2", {-3}), b.ints("en2", {-1}), b.ints("ax2", {-1})});
  p = sliceParams(b.g, 2);
  EXPECT_EQ(p.starts[2], 2);
  EXPECT_EQ(p.ends[2], 4);
  // Reverse everything with INT64_MIN end: end clamps to -1.
  b.op(OpKind::Slice, "rev",
       {x, b.ints("st3", {-1}), b.ints("en3", {std::numeric_limits<int64_t>::min()}),
        b.ints("ax3", {0}), b.ints("sp3", {-1})});
  p = sliceParams(b.g, 3);
  EXPECT_EQ(p.starts[0], 19);
  EXPECT_EQ(p.ends[0], -1);
  // Opset 1: attributes.
  b.op(OpKind::Slice, "v1", {x},
       attrs({{"starts", Dims{0, -4}}, {"ends", Dims{3, 100}}, {"axes", Dims{0, 2}}}), 1);
  p = sliceParams(b.g, 4);
  EXPECT_EQ(p.starts, (Dims{0, 0, 1}));
  EXPECT_EQ(p.ends, (Dims{3, 10, 5}));
}

TEST(SliceParams, Errors) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {20, 10, 5});
  const auto err = [&](NodeId id) { return errorOf([&] { sliceParams(b.g, id); }); };
  b.op(OpKind::Slice, "step0",
       {x, b.ints("a", {0}), b.ints("b", {5}), b.ints("c", {1}), b.ints("d", {0})});
  EXPECT_EQ(err(0), "model.onnx: node 'step0' (Slice, opset 13): step on axis 1 is 0");
  b.op(OpKind::Slice, "dup",
       {x, b.ints("a1", {0, 0}), b.ints("b1", {5, 5}), b.ints("c1", {1, -2})});
  EXPECT_EQ(err(1), "model.onnx: node 'dup' (Slice, opset 13): axes [1, -2] contain a duplicate");
  b.op(OpKind::Slice, "len", {x, b.ints("a2", {0, 0}), b.ints("b2", {5})});
  EXPECT_EQ(err(2), "model.onnx: node 'len' (Slice, opset 13): starts, ends, axes and steps differ "
                    "in length (2, 1, 2, 2)");
  b.op(OpKind::Slice, "dyn", {x, b.input("a3", {1}, DType::I64), b.ints("b3", {5})});
  EXPECT_EQ(err(3),
            "model.onnx: node 'dyn' (Slice, opset 13): starts input 'a3' is not a constant");
  b.op(OpKind::Slice, "axis", {x, b.ints("a4", {0}), b.ints("b4", {1}), b.ints("c4", {3})});
  EXPECT_EQ(err(4), "model.onnx: node 'axis' (Slice, opset 13): axis 3 is out of range for rank 3");
}

TEST(CastTarget, SupportedAndUnsupportedTypes) {
  GraphBuilder b;
  const ValueId x = b.input("x", {2});
  b.op(OpKind::Cast, "to_i64", {x}, attrs({{"to", int64_t{7}}}));
  b.op(OpKind::Cast, "to_f32", {x}, attrs({{"to", int64_t{1}}}));
  b.op(OpKind::Cast, "to_bool", {x}, attrs({{"to", int64_t{9}}}));
  b.op(OpKind::Cast, "to_f64", {x}, attrs({{"to", int64_t{11}}}));
  b.op(OpKind::Cast, "to_99", {x}, attrs({{"to", int64_t{99}}}));
  b.op(OpKind::Cast, "no_to", {x});
  EXPECT_EQ(castTarget(b.g, 0), DType::I64);
  EXPECT_EQ(castTarget(b.g, 1), DType::F32);
  EXPECT_EQ(castTarget(b.g, 2), DType::Bool);
  // float16 is held as f32 (castValues rounds; docs/IR.md "float16 models").
  b.op(OpKind::Cast, "to_f16", {x}, attrs({{"to", int64_t{10}}}));
  EXPECT_EQ(castTarget(b.g, 6), DType::F32);
  EXPECT_EQ(errorOf([&] { castTarget(b.g, 3); }),
            "model.onnx: node 'to_f64' (Cast, opset 17): cast to double is not supported");
  EXPECT_EQ(errorKindOf([&] { castTarget(b.g, 3); }), ErrorKind::Unsupported);
  EXPECT_EQ(errorOf([&] { castTarget(b.g, 4); }),
            "model.onnx: node 'to_99' (Cast, opset 17): unknown cast target type 99");
  EXPECT_EQ(errorOf([&] { castTarget(b.g, 5); }),
            "model.onnx: node 'no_to' (Cast, opset 17): missing required attribute 'to'");
}

// --- QuantizeLinear / DequantizeLinear -----------------------------------------------------------

namespace {

/// A QuantizeLinear (or DequantizeLinear) 'q' of x [2, 3, 4] with the given scale and zero point.
std::string qdqError(OpKind op, Tensor scale, std::optional<Tensor> zero, DType xType = DType::F32,
                     int64_t opset = 13, AttrMap a = {}) {
  GraphBuilder b{opset};
  std::vector<ValueId> ins = {b.input("x", {2, 3, 4}, xType), b.constant("s", std::move(scale))};
  if (zero)
    ins.push_back(b.constant("z", std::move(*zero)));
  const NodeId id = b.node(op, "q", ins, {"y"}, std::move(a));
  return errorOf([&] { qdqParams(b.g, id); });
}

} // namespace

TEST(QdqParams, PerTensorAndPerAxisScalesWithTheirZeroPoints) {
  GraphBuilder b{13};
  AttrMap a;
  a.set("axis", int64_t{-2});
  const NodeId q = b.node(OpKind::QuantizeLinear, "q",
                          {b.input("x", {2, 3, 4}),
                           b.constant("s", Tensor::fromVector<float>({3}, {0.5f, 1.0f, 2.0f})),
                           b.constant("z", Tensor::fromVector<int8_t>({3}, {-1, 0, 1}))},
                          {"y"}, a);
  const QdqParams p = qdqParams(b.g, q);
  EXPECT_EQ(p.axis, 1);
  EXPECT_EQ(p.scales, (std::vector<float>{0.5f, 1.0f, 2.0f}));
  EXPECT_EQ(p.zeros, (std::vector<int32_t>{-1, 0, 1}));
  EXPECT_EQ(p.quantized, DType::I8);
  // No zero point: QuantizeLinear gives uint8, zero point 0; a scalar scale is per tensor.
  const NodeId r =
      b.node(OpKind::QuantizeLinear, "r",
             {b.input("x2", {2, 3, 4}), b.constant("s2", Tensor::scalar(0.25f))}, {"y2"});
  const QdqParams pr = qdqParams(b.g, r);
  EXPECT_EQ(pr.axis, -1);
  EXPECT_EQ(pr.zeros, (std::vector<int32_t>{0}));
  EXPECT_EQ(pr.quantized, DType::U8);
}

TEST(QdqParams, InvalidScalesAndZeroPointsAreOneLineErrors) {
  const std::string ctx = "model.onnx: node 'q' (QuantizeLinear, opset 13): ";
  EXPECT_EQ(qdqError(OpKind::QuantizeLinear, Tensor::scalar(-1.0f), std::nullopt),
            ctx + "scale [-1] must be positive and finite");
  EXPECT_EQ(
      qdqError(OpKind::QuantizeLinear, Tensor::fromVector<float>({2}, {1.0f, 2.0f}), std::nullopt),
      ctx + "a per-axis scale of 2 values for axis 1 of extent 3");
  EXPECT_EQ(
      qdqError(OpKind::QuantizeLinear, Tensor::scalar(1.0f), Tensor::fromVector<int8_t>({1}, {0})),
      ctx + "zero point shape [1] differs from the scale's []");
  EXPECT_EQ(qdqError(OpKind::QuantizeLinear, Tensor::scalar(1.0f), Tensor::scalar<int32_t>(0)),
            ctx + "quantized type s32 is not int8 or uint8");
  EXPECT_EQ(qdqError(OpKind::QuantizeLinear, Tensor::fromVector<float>({3}, {1, 1, 1}),
                     std::nullopt, DType::F32, 10),
            "model.onnx: node 'q' (QuantizeLinear, opset 10): scale must be a scalar (opset 10), "
            "found [3]");
  EXPECT_EQ(qdqError(OpKind::DequantizeLinear, Tensor::scalar(1.0f), Tensor::scalar<uint8_t>(3),
                     DType::I8),
            "model.onnx: node 'q' (DequantizeLinear, opset 13): input 'x' is s8 but the zero "
            "point is u8");
  EXPECT_EQ(qdqError(OpKind::DequantizeLinear, Tensor::scalar(1.0f), Tensor::scalar<int32_t>(2),
                     DType::I32),
            "model.onnx: node 'q' (DequantizeLinear, opset 13): an int32 input must have a zero "
            "point of 0");
}
