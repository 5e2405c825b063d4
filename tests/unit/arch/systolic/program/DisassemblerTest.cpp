/// \file
/// Tests of the systolic disassembler: the text form of each kind of operand (hex byte
/// addresses, decimal counts and PSUM entries, enums, floats, sync) and the full listing of the
/// hand-built sample program, checked line by line.
#include "ProgramSamples.h"
#include "nnaccel/arch/systolic/Program.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <sstream>

namespace nnaccel::arch::systolic {
namespace {

std::vector<std::string> linesOf(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
  }
  return lines;
}

TEST(Disassembler, FormatsAMatmulWithItsSync) {
  Instruction inst{Matmul{.rows = 16,
                          .cols = 16,
                          .src = 0x40,
                          .srcInnerStep = 2,
                          .srcInnerCount = 9,
                          .srcOuterStride = 0x26,
                          .srcOuterCount = 2,
                          .dst = 11,
                          .dstInnerStep = 1,
                          .dstInnerCount = 9,
                          .dstOuterStride = 10,
                          .dstOuterCount = 2,
                          .accumulate = true},
                   {}};
  EXPECT_EQ(formatInstruction(inst),
            "PE   MATMUL rows=16 cols=16 src=0x40 src.step=2 src.n=9 src.ostride=0x26 src.on=2 "
            "dst=11 dst.step=1 dst.n=9 dst.ostride=10 dst.on=2 acc=1 src.zero=0");
  inst.sync.waits[0] = {3, 2};
  inst.sync.waits[2] = {4, 1}; // an unused slot in between prints nothing
  inst.sync.signal = 5;
  EXPECT_EQ(formatInstruction(inst),
            "PE   MATMUL rows=16 cols=16 src=0x40 src.step=2 src.n=9 src.ostride=0x26 src.on=2 "
            "dst=11 dst.step=1 dst.n=9 dst.ostride=10 dst.on=2 acc=1 src.zero=0 | wait s3>=2 s4>=1 "
            "signal s5");
  inst.sync = {};
  inst.sync.signal = 0;
  EXPECT_EQ(formatInstruction(inst).substr(formatInstruction(inst).find(" | ")), " | signal s0");
}

TEST(Disassembler, FormatsAVectorOnThePoolEngine) {
  const Instruction inst{Vector{.func = VectorFunc::Mul,
                                .partitionStart = 2,
                                .partitions = 14,
                                .rows = 3,
                                .rowLen = 49,
                                .a = 0x100,
                                .aRowStride = 0x31,
                                .b = 0x800,
                                .bRowStride = 1,
                                .bStep = 0,
                                .dst = 0x100,
                                .dstRowStride = 0x31,
                                .outMultiplier = 1518500250,
                                .outShift = 7,
                                .clampLo = 0},
                         {}};
  EXPECT_EQ(formatInstruction(inst),
            "POOL VECTOR func=mul part=2 part.n=14 rows=3 rowlen=49 a=0x100 a.rstride=0x31 "
            "b=0x800 b.rstride=0x1 b.step=0 dst=0x100 dst.rstride=0x31 lshift=0 a.m=1073741824 "
            "a.shift=-1 b.m=1073741824 b.shift=-1 out.m=1518500250 out.shift=7 lo=0 hi=127 c=0x0 "
            "c.rstride=0x0 c.step=1 a.zero=0 b.zero=0 out.zero=0");
}

TEST(Disassembler, FormatsNegativeHexFloatsAndEnums) {
  const Instruction act{Activate{.psum = 7,
                                 .psumRowStride = -3,
                                 .dst = 0x80,
                                 .dstRowStride = -0x20,
                                 .elemBytes = 4,
                                 .tableSlot = 1,
                                 .func = ActFunc::LeakyRelu,
                                 .clampLo = -5,
                                 .clampHi = 6,
                                 .alpha = 0.1f,
                                 .beta = -2.5f,
                                 .gamma = 1e-7f,
                                 .releaseEntries = true},
                        {}};
  EXPECT_EQ(formatInstruction(act),
            "ACT  ACTIVATE psum=7 psum.rstride=-3 rows=1 rowlen=1 col=0 cols=1 part=0 dst=0x80 "
            "dst.rstride=-0x20 elem=4 slot=1 func=leaky_relu lo=-5 hi=6 alpha=0.1 beta=-2.5 "
            "gamma=1e-07 release=1 zero=0");
  const Instruction copy{DmaCopy{.fillZero = true, .dst = {0x10, -0x100, 0, -1}}, {}};
  EXPECT_EQ(
      formatInstruction(copy),
      "DMA  DMA_COPY zero=1 elem=1 part.n=1 outer.n=1 inner.n=1 src=0x0 src.pstride=0x0 "
      "src.ostride=0x0 src.step=0 dst=0x10 dst.pstride=-0x100 dst.ostride=0x0 dst.step=-1 fill=0");
  EXPECT_EQ(formatInstruction({Barrier{}, {}}), "CTRL BARRIER");
  EXPECT_EQ(formatInstruction({HostOp{.node = 4, .layer = 2}, {}}), "HOST HOST node=4 layer=2");
  EXPECT_EQ(formatInstruction({Pool{.kind = Pool::Kind::Max}, {}}).substr(0, 20),
            "POOL POOL kind=max e");
}

TEST(Disassembler, ListsTheSmallProgramLineByLine) {
  const std::vector<std::string> expected = {
      "; nnaccel program for the systolic engine (NNXSYS01 version 7)",
      "; model 'tiny', dtype s8, rounding half_away, proposed dataflow",
      "; config 'small': 16x16 PE array (rows x cols), SBUF 16 partitions x 16384 bytes, PSUM 16 "
      "columns x 512 entries (tile <= 16x32), zero mode reset, shadow weights on",
      "; DRAM 1536 bytes (0x600)",
      ";",
      "; tensors (6):",
      ";     #  role        dtype  shape                   addr      bytes         scale  value  "
      "name",
      ";     0  input       s8     1x4x6x6                  0x0        144           0.5      0  "
      "input",
      ";     1  weight      s8     8x4x3x3                0x100        288          0.25      1  "
      "conv1.w",
      ";     2  activation  s8     1x8x4x4                0x240        128         0.125      3  "
      "conv1.out",
      ";     3  activation  s8     1x8x2x2                0x500         32         0.125      4  "
      "pool1.out",
      ";     4  param       s32    8x4                    0x300        128             0     -1  "
      "conv1.act",
      ";     5  output      f32    1x8                    0x5a0         32             0      6  "
      "prob",
      "; segments (3):",
      ";     0  DRAM [0x100, 0x220) 288 bytes",
      ";     1  DRAM [0x300, 0x380) 128 bytes",
      ";     2  DRAM [0x580, 0x590) 16 bytes",
      ";",
      "; instructions (15), layers (4)",
      "; each line: index engine mnemonic field=value ... | wait s<sem>>=<count> signal s<sem>",
      "; SBUF/DRAM byte addresses and byte strides in hex; PSUM entries, steps and counts in "
      "decimal",
      "; layer 0: conv1 (Conv) 1x4x6x6 -> 1x8x4x4 k3x3 s1 d1 g1",
      ";   array unit, instructions [0, 9), 4608 useful MACs, inputs t0 t1 -, outputs t2",
      "    0 DMA  DMA_LOAD space=sbuf elem=1 part=0 part.n=4 outer.n=6 inner.n=6 dram=0x0 "
      "dram.pstride=0x24 dram.ostride=0x6 dram.step=1 sbuf=0x0 sbuf.ostride=0x6 | signal s0",
      "    1 DMA  DMA_LOAD space=sbuf elem=1 part=0 part.n=4 outer.n=9 inner.n=8 dram=0x100 "
      "dram.pstride=0x9 dram.ostride=0x1 dram.step=36 sbuf=0x100 sbuf.ostride=0x8 | signal s1",
      "    2 DMA  DMA_LOAD space=act_table elem=1 part=0 part.n=8 outer.n=1 inner.n=16 dram=0x300 "
      "dram.pstride=0x10 dram.ostride=0x0 dram.step=1 sbuf=0x0 sbuf.ostride=0x0 | signal s2",
      "    3 PE   PSUM_RESET addr=0 entries=16 cols=8",
      "    4 PE   LOAD_WEIGHTS addr=0x100 rows=4 cols=8 col.stride=0x1 zero=0 | wait s1>=1",
      "    5 PE   MATMUL rows=4 cols=8 src=0x0 src.step=1 src.n=4 src.ostride=0x6 src.on=4 dst=0 "
      "dst.step=1 dst.n=4 dst.ostride=4 dst.on=4 acc=1 src.zero=0 | wait s0>=1",
      "    6 PE   LOAD_WEIGHTS addr=0x120 rows=4 cols=8 col.stride=0x1 zero=0",
      "    7 PE   MATMUL rows=4 cols=8 src=0x7 src.step=1 src.n=4 src.ostride=0x6 src.on=4 dst=0 "
      "dst.step=1 dst.n=4 dst.ostride=4 dst.on=4 acc=1 src.zero=0",
      "    8 ACT  ACTIVATE psum=0 psum.rstride=4 rows=4 rowlen=4 col=0 cols=8 part=4 dst=0x200 "
      "dst.rstride=0x4 elem=1 slot=0 func=identity lo=-128 hi=127 alpha=0 beta=0 gamma=0 release=0 "
      "zero=0 "
      "| wait s2>=1 signal s3",
      "; layer 1: pool1 (AveragePool) 1x8x4x4 -> 1x8x2x2 k2x2 s2",
      ";   pool unit, instructions [9, 12), 0 useful MACs, inputs t2, outputs t3",
      "    9 DMA  DMA_LOAD space=pool_table elem=1 part=0 part.n=1 outer.n=1 inner.n=16 dram=0x580 "
      "dram.pstride=0x0 dram.ostride=0x0 dram.step=1 sbuf=0x40 sbuf.ostride=0x0 | signal s4",
      "   10 POOL POOL kind=avg elem=1 part=4 part.n=8 src=0x200 src.rstride=0x4 src.row0=0 "
      "src.rows=4 in.h=4 in.w=4 dst=0x300 dst.rstride=0x2 out.row0=0 out.rows=2 out.w=2 k.h=2 "
      "k.w=2 s.h=2 s.w=2 pad.t=0 pad.l=0 pad.b=0 pad.r=0 dil.h=1 dil.w=1 incl.pad=0 table.row0=0 "
      "zero.in=0 zero.out=0 | "
      "wait s3>=1 "
      "s4>=1 signal s5",
      "   11 DMA  DMA_STORE elem=1 part=4 part.n=8 outer.n=2 inner.n=2 dram=0x500 dram.pstride=0x4 "
      "dram.ostride=0x2 dram.step=1 sbuf=0x300 sbuf.ostride=0x2 | wait s5>=1 signal s6",
      "; layer 2: flat (Flatten) 1x8x2x2 -> 1x32",
      ";   view unit, instructions [12, 12), 0 useful MACs, inputs t3, outputs t3",
      "; layer 3: softmax (Softmax) 1x32 -> 1x32",
      ";   host unit, instructions [12, 14), 0 useful MACs, inputs t3, outputs t5, note: Softmax "
      "runs on the host",
      "   12 CTRL BARRIER",
      "   13 HOST HOST node=3 layer=3",
      "; (outside any layer)",
      "   14 DMA  DMA_COPY zero=0 elem=4 part.n=1 outer.n=1 inner.n=8 src=0x5a0 src.pstride=0x0 "
      "src.ostride=0x0 src.step=4 dst=0x5c0 dst.pstride=0x0 dst.ostride=0x0 dst.step=4 fill=0",
  };
  const std::vector<std::string> actual = linesOf(disassemble(samples::smallProgram()));
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(actual[i], expected[i]) << "line " << i;
  }
}

TEST(Disassembler, KeepsOneLinePerItemWhateverTheNames) {
  Program p = samples::smallProgram();
  p.layers[0].name = "evil\nname";
  p.tensors[0].name = "tab\there";
  const std::string text = disassemble(p);
  EXPECT_NE(text.find("; layer 0: evil?name (Conv)"), std::string::npos);
  EXPECT_NE(text.find("  tab?here\n"), std::string::npos);
  EXPECT_EQ(linesOf(text).size(), linesOf(disassemble(samples::smallProgram())).size());
}

TEST(Disassembler, MarksInstructionsOutsideLayers) {
  Program p = samples::smallProgram();
  p.layers.erase(p.layers.begin()); // instructions 0..8 now belong to no layer
  const std::vector<std::string> lines = linesOf(disassemble(p));
  const auto first = std::find(lines.begin(), lines.end(), "; (outside any layer)");
  ASSERT_NE(first, lines.end());
  EXPECT_EQ(first[1].substr(0, 18), "    0 DMA  DMA_LOA");
  EXPECT_EQ(std::count(lines.begin(), lines.end(), "; (outside any layer)"), 2);
}

} // namespace
} // namespace nnaccel::arch::systolic
