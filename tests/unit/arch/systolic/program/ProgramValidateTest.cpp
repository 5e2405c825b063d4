/// \file
/// Tests of validateProgram: the sample programs pass, and every rule has a failing case whose
/// complete message is checked (instruction index, mnemonic, field, value and reason).
#include "ProgramSamples.h"
#include "nnaccel/arch/systolic/Program.h"
#include "nnaccel/support/Error.h"

#include <functional>
#include <gtest/gtest.h>

namespace nnaccel::arch::systolic {
namespace {

using samples::smallProgram;

// smallProgram()'s instructions, by index.
constexpr size_t kLoadInput = 0;
constexpr size_t kLoadActTable = 2;
constexpr size_t kReset = 3;
constexpr size_t kLoadWeights = 4;
constexpr size_t kMatmul = 5;
constexpr size_t kActivate = 8;
constexpr size_t kLoadPoolTable = 9;
constexpr size_t kPool = 10;
constexpr size_t kStore = 11;
constexpr size_t kHost = 13;
constexpr size_t kCopy = 14;

/// The message validateProgram throws for \p p (with \p kind), or "valid".
std::string messageOf(const Program& p, ErrorKind kind = ErrorKind::Model) {
  try {
    validateProgram(p, "prog.nnx");
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind);
    EXPECT_EQ(e.context().file, "prog.nnx");
    return e.what();
  }
  return "valid";
}

/// The message for smallProgram() with instruction \p index (an \p O) changed by \p mutate.
template <class O> std::string instrMessage(size_t index, const std::function<void(O&)>& mutate) {
  Program p = smallProgram();
  mutate(std::get<O>(p.instructions[index].op));
  return messageOf(p);
}

std::string programMessage(const std::function<void(Program&)>& mutate) {
  Program p = smallProgram();
  mutate(p);
  return messageOf(p);
}

TEST(ProgramValidate, SampleProgramsAreValid) {
  EXPECT_EQ(messageOf(smallProgram()), "valid");
  for (uint64_t seed = 0; seed < 20; ++seed) {
    EXPECT_EQ(messageOf(samples::randomProgram(seed)), "valid") << seed;
  }
}

TEST(ProgramValidate, Matmul) {
  auto msg = [](std::function<void(Matmul&)> f) { return instrMessage<Matmul>(kMatmul, f); };
  const std::string at = "prog.nnx: instruction 5 (MATMUL): ";
  EXPECT_EQ(msg([](Matmul& m) { m.rows = 20; }),
            at + "field 'rows' = 20 exceeds the array's 16 PE rows");
  EXPECT_EQ(msg([](Matmul& m) { m.cols = 17; }),
            at + "field 'cols' = 17 exceeds the array's 16 PE columns");
  EXPECT_EQ(msg([](Matmul& m) { m.dstInnerCount = 3; }),
            at + "field 'dst.n' = 3 differs from src.n = 4 (each fetched vector writes one entry)");
  EXPECT_EQ(msg([](Matmul& m) { m.dstOuterCount = 2; }),
            at + "field 'dst.on' = 2 differs from src.on = 4 (each fetched vector writes one "
                 "entry)");
  EXPECT_EQ(msg([](Matmul& m) { m.srcInnerCount = m.dstInnerCount = 0; }),
            at + "field 'src.n' = 0 must be >= 1");
  EXPECT_EQ(msg([](Matmul& m) { m.rows = 0; }), at + "field 'rows' = 0 must be >= 1");
  EXPECT_EQ(msg([](Matmul& m) { m.srcZero = -128; }), "valid");
  EXPECT_EQ(msg([](Matmul& m) { m.srcZero = -129; }),
            at + "field 'src.zero' = -129 lies outside the int8 range [-128, 127]");
  // Last byte touched: src + 3 * 1 + 3 * 6 must stay below the 0x4000-byte partition.
  EXPECT_EQ(msg([](Matmul& m) { m.src = 0x3FEA; }), "valid");
  EXPECT_EQ(
      msg([](Matmul& m) { m.src = 0x3FEB; }),
      at + "field 'src' = 0x3feb touches SBUF working bytes [0x3feb, 0x4001) outside [0, 0x4000)");
  EXPECT_EQ(msg([](Matmul& m) { m.srcInnerStep = -1; }),
            at + "field 'src' = 0x0 touches SBUF working bytes [-0x3, 0x13) outside [0, 0x4000)");
  EXPECT_EQ(msg([](Matmul& m) { m.srcOuterStride = int64_t{1} << 62; }),
            at + "field 'src' = 0x0 makes the SBUF working bytes address range overflow 64 bits");
  EXPECT_EQ(msg([](Matmul& m) { m.dst = 500; }),
            at + "field 'dst' = 500 touches PSUM entries [500, 516) outside [0, 512)");
  EXPECT_EQ(msg([](Matmul& m) { m.dstOuterStride = -4; }),
            at + "field 'dst' = 0 touches PSUM entries [-12, 4) outside [0, 512)");
}

TEST(ProgramValidate, F32ProgramsTouchFourBytesPerElement) {
  auto f32 = [](int64_t src) {
    Program p = smallProgram();
    p.dtype = DType::F32;
    std::get<Activate>(p.instructions[kActivate].op).elemBytes = 4;
    std::get<Pool>(p.instructions[kPool].op).elemBytes = 4;
    std::get<Matmul>(p.instructions[kMatmul].op).src = src;
    return messageOf(p);
  };
  EXPECT_EQ(f32(0x3FE7), "valid");
  EXPECT_EQ(f32(0x3FE8), "prog.nnx: instruction 5 (MATMUL): field 'src' = 0x3fe8 touches SBUF "
                         "working bytes [0x3fe8, 0x4001) outside [0, 0x4000)");
  // An f32 program holds no int8 codes: every zero point is 0.
  Program p = smallProgram();
  p.dtype = DType::F32;
  std::get<Activate>(p.instructions[kActivate].op).elemBytes = 4;
  std::get<Pool>(p.instructions[kPool].op).elemBytes = 4;
  std::get<Pool>(p.instructions[kPool].op).zeroOut = 3;
  EXPECT_EQ(messageOf(p), "prog.nnx: instruction 10 (POOL): field 'zero.out' = 3 must be 0 in an "
                          "f32 program (a zero point is an int8 code)");
}

TEST(ProgramValidate, LoadWeightsAndPsumReset) {
  auto lw = [](std::function<void(LoadWeights&)> f) {
    return instrMessage<LoadWeights>(kLoadWeights, f);
  };
  const std::string at = "prog.nnx: instruction 4 (LOAD_WEIGHTS): ";
  EXPECT_EQ(lw([](LoadWeights& w) { w.rows = 17; }),
            at + "field 'rows' = 17 exceeds the array's 16 PE rows");
  EXPECT_EQ(lw([](LoadWeights& w) { w.cols = 17; }),
            at + "field 'cols' = 17 exceeds the array's 16 PE columns");
  EXPECT_EQ(
      lw([](LoadWeights& w) { w.addr = 0x3FF9; }),
      at + "field 'addr' = 0x3ff9 touches SBUF working bytes [0x3ff9, 0x4001) outside [0, 0x4000)");

  auto reset = [](std::function<void(PsumReset&)> f) { return instrMessage<PsumReset>(kReset, f); };
  EXPECT_EQ(reset([](PsumReset& r) { r.entries = 600; }),
            "prog.nnx: instruction 3 (PSUM_RESET): field 'addr' = 0 touches PSUM entries [0, 600) "
            "outside [0, 512)");
  EXPECT_EQ(reset([](PsumReset& r) { r.cols = 17; }),
            "prog.nnx: instruction 3 (PSUM_RESET): field 'cols' = 17 exceeds the array's 16 PE "
            "columns");
}

TEST(ProgramValidate, Activate) {
  auto msg = [](std::function<void(Activate&)> f) { return instrMessage<Activate>(kActivate, f); };
  const std::string at = "prog.nnx: instruction 8 (ACTIVATE): ";
  EXPECT_EQ(msg([](Activate& a) { a.colStart = 10; }),
            at + "field 'cols' = 8 spans [10, 18), beyond the 16 PE columns");
  EXPECT_EQ(msg([](Activate& a) { a.dstPartition = 10; }),
            at + "field 'part' = 10 spans [10, 18), beyond the 16 SBUF partitions");
  EXPECT_EQ(msg([](Activate& a) { a.tableSlot = 2; }),
            at + "field 'slot' = 2 is not one of the 2 activation-table slots");
  EXPECT_EQ(msg([](Activate& a) { a.elemBytes = 4; }),
            at + "field 'elem' = 4 does not match the program's dtype s8 (elem must be 1)");
  EXPECT_EQ(msg([](Activate& a) { a.func = ActFunc::Relu; }),
            at + "field 'func' = relu is not available to s8 programs (identity or clip: "
                 "requantize, then clamp to [lo, hi])");
  EXPECT_EQ(msg([](Activate& a) { a.func = ActFunc::Clip; }), "valid");
  EXPECT_EQ(msg([](Activate& a) { a.clampLo = -129; }),
            at + "field 'lo' = -129 lies below the int8 range [-128, 127]");
  EXPECT_EQ(msg([](Activate& a) { a.clampHi = 128; }),
            at + "field 'hi' = 128 lies above the int8 range [-128, 127]");
  EXPECT_EQ(msg([](Activate& a) {
              a.clampLo = 10;
              a.clampHi = 5;
            }),
            at + "field 'lo' = 10 exceeds hi = 5");
  EXPECT_EQ(msg([](Activate& a) { a.psumRowStride = 200; }),
            at + "field 'psum' = 0 touches PSUM entries [0, 604) outside [0, 512)");
  EXPECT_EQ(
      msg([](Activate& a) { a.dst = 0x3FF4; }),
      at + "field 'dst' = 0x3ff4 touches SBUF working bytes [0x3ff4, 0x4004) outside [0, 0x4000)");
  EXPECT_EQ(msg([](Activate& a) { a.rowLen = 0; }), at + "field 'rowlen' = 0 must be >= 1");
}

TEST(ProgramValidate, DmaLoadStoreCopy) {
  auto load = [](size_t index, std::function<void(DmaLoad&)> f) {
    return instrMessage<DmaLoad>(index, f);
  };
  const std::string at = "prog.nnx: instruction 0 (DMA_LOAD): ";
  EXPECT_EQ(load(kLoadInput, [](DmaLoad& d) { d.partitionCount = 17; }),
            at + "field 'part.n' = 17 spans [0, 17), beyond the 16 SBUF partitions");
  EXPECT_EQ(
      load(kLoadInput, [](DmaLoad& d) { d.sbufAddr = 0x3FE0; }),
      at + "field 'sbuf' = 0x3fe0 touches SBUF working bytes [0x3fe0, 0x4004) outside [0, 0x4000)");
  EXPECT_EQ(load(kLoadInput, [](DmaLoad& d) { d.dram.addr = 0x5F6; }),
            at + "field 'dram' = 0x5f6 touches DRAM bytes [0x5f6, 0x686) outside [0, 0x600)");
  EXPECT_EQ(load(kLoadInput, [](DmaLoad& d) { d.dram.innerStep = -1; }),
            at + "field 'dram' = 0x0 touches DRAM bytes [-0x5, 0x8b) outside [0, 0x600)");
  EXPECT_EQ(load(kLoadInput, [](DmaLoad& d) { d.elemBytes = 0; }),
            at + "field 'elem' = 0 must be >= 1");

  const std::string act = "prog.nnx: instruction 2 (DMA_LOAD): ";
  EXPECT_EQ(load(kLoadActTable, [](DmaLoad& d) { d.partitionCount = 17; }),
            act + "field 'part.n' = 17 spans [0, 17), beyond the 16 activation-table columns");
  EXPECT_EQ(load(kLoadActTable, [](DmaLoad& d) { d.sbufAddr = 0x11; }),
            act + "field 'sbuf' = 0x11 touches activation-table bytes [0x11, 0x21) outside [0, "
                  "0x20)");

  const std::string pool = "prog.nnx: instruction 9 (DMA_LOAD): ";
  EXPECT_EQ(load(kLoadPoolTable, [](DmaLoad& d) { d.partitionStart = 1; }),
            pool + "field 'part' = 1 must be 0 for the pool table");
  EXPECT_EQ(load(kLoadPoolTable, [](DmaLoad& d) { d.partitionCount = 2; }),
            pool + "field 'part.n' = 2 must be 1 for the pool table");
  EXPECT_EQ(load(kLoadPoolTable, [](DmaLoad& d) { d.sbufAddr = 0xFF8; }),
            pool + "field 'sbuf' = 0xff8 touches pool-table bytes [0xff8, 0x1008) outside [0, "
                   "0x1000)");

  EXPECT_EQ(instrMessage<DmaStore>(kStore, [](DmaStore& d) { d.dram.addr = 0x5F0; }),
            "prog.nnx: instruction 11 (DMA_STORE): field 'dram' = 0x5f0 touches DRAM bytes "
            "[0x5f0, 0x610) outside [0, 0x600)");
  EXPECT_EQ(instrMessage<DmaStore>(kStore, [](DmaStore& d) { d.partitionStart = 9; }),
            "prog.nnx: instruction 11 (DMA_STORE): field 'part.n' = 8 spans [9, 17), beyond the "
            "16 SBUF partitions");

  auto copy = [](std::function<void(DmaCopy&)> f) { return instrMessage<DmaCopy>(kCopy, f); };
  EXPECT_EQ(copy([](DmaCopy& d) { d.src.addr = 0x5F0; }),
            "prog.nnx: instruction 14 (DMA_COPY): field 'src' = 0x5f0 touches DRAM bytes [0x5f0, "
            "0x610) outside [0, 0x600)");
  EXPECT_EQ(copy([](DmaCopy& d) {
              d.src.addr = 0x5F0;
              d.fillZero = true; // a zero fill reads nothing
            }),
            "valid");
  EXPECT_EQ(copy([](DmaCopy& d) {
              d.dst.partitionStride = -0x100;
              d.partitionCount = 8;
            }),
            "prog.nnx: instruction 14 (DMA_COPY): field 'dst' = 0x5c0 touches DRAM bytes [-0x140, "
            "0x5e0) outside [0, 0x600)");
}

TEST(ProgramValidate, InterpolatingPool) {
  auto msg = [](std::function<void(Pool&)> f) { return instrMessage<Pool>(kPool, f); };
  const std::string at = "prog.nnx: instruction 10 (POOL): ";
  auto interp = [](Pool& p) {
    p.kind = Pool::Kind::Interpolate;
    p.kernelH = p.kernelW = p.strideH = p.strideW = 1;
  };
  EXPECT_EQ(msg(interp), "valid");
  EXPECT_EQ(msg([&](Pool& p) {
              interp(p);
              p.strideW = 2;
            }),
            at + "field 'kind' = interp takes no window (kernel, stride, dilation 1; no padding)");
  EXPECT_EQ(msg([&](Pool& p) {
              interp(p);
              p.tableRow0 = 255;
            }),
            at + "field 'table.row0' = 255 spans [255, 257), beyond the 256 pool-table records "
                 "(one per output row)");
}

TEST(ProgramValidate, Pool) {
  auto msg = [](std::function<void(Pool&)> f) { return instrMessage<Pool>(kPool, f); };
  const std::string at = "prog.nnx: instruction 10 (POOL): ";
  EXPECT_EQ(msg([](Pool& p) { p.partitions = 13; }),
            at + "field 'part.n' = 13 spans [4, 17), beyond the 16 SBUF partitions");
  EXPECT_EQ(msg([](Pool& p) { p.elemBytes = 4; }),
            at + "field 'elem' = 4 does not match the program's dtype s8 (elem must be 1)");
  EXPECT_EQ(msg([](Pool& p) { p.srcRows = 5; }),
            at + "field 'src.rows' = 5 spans [0, 5), beyond the 4 rows of the input plane (in.h)");
  EXPECT_EQ(msg([](Pool& p) {
              p.srcRow0 = 1;
              p.srcRows = 3;
            }),
            at + "field 'src.rows' = 3 with src.row0 = 1 does not hold input rows 0..3 that "
                 "output rows 0..1 read");
  EXPECT_EQ(msg([](Pool& p) {
              p.outRow0 = 1; // needs input rows 2..3 only
              p.outRows = 1;
              p.srcRow0 = 2;
              p.srcRows = 2;
            }),
            "valid");
  EXPECT_EQ(
      msg([](Pool& p) { p.src = 0x3FF8; }),
      at + "field 'src' = 0x3ff8 touches SBUF working bytes [0x3ff8, 0x4008) outside [0, 0x4000)");
  EXPECT_EQ(
      msg([](Pool& p) { p.dst = 0x3FFE; }),
      at + "field 'dst' = 0x3ffe touches SBUF working bytes [0x3ffe, 0x4002) outside [0, 0x4000)");
  EXPECT_EQ(msg([](Pool& p) { p.kernelH = 0; }), at + "field 'k.h' = 0 must be >= 1");
  EXPECT_EQ(msg([](Pool& p) { p.padTop = -1; }), at + "field 'pad.t' = -1 must be >= 0");
  EXPECT_EQ(msg([](Pool& p) {
              p.strideH = int64_t{1} << 62;
              p.outRows = 3;
            }),
            at + "field 'out.rows' = 3 makes the input row range overflow 64 bits");
}

/// The message for smallProgram() plus one valid VECTOR (an Add of 4 x 8 blocks of partitions
/// 2..5) changed by \p mutate; for another \p dtype, a program of that VECTOR alone.
std::string vectorMessage(const std::function<void(Vector&)>& mutate, DType dtype = DType::I8) {
  Program p = smallProgram();
  if (dtype != p.dtype) { // the VECTOR alone: the sample's other instructions are s8
    p.dtype = dtype;
    p.instructions.clear();
    p.layers.clear();
  }
  Vector v{.func = VectorFunc::Add,
           .partitionStart = 2,
           .partitions = 4,
           .rows = 4,
           .rowLen = 8,
           .a = 0x100,
           .aRowStride = 8,
           .b = 0x200,
           .bRowStride = 8,
           .bStep = 1,
           .dst = 0x100,
           .dstRowStride = 8,
           .leftShift = 20};
  mutate(v);
  p.instructions.push_back({v, {}});
  return messageOf(p);
}

TEST(ProgramValidate, Vector) {
  auto msg = [](std::function<void(Vector&)> f) { return vectorMessage(f); };
  const std::string at = "prog.nnx: instruction 15 (VECTOR): ";
  EXPECT_EQ(msg([](Vector&) {}), "valid");
  EXPECT_EQ(msg([](Vector& v) { v.partitions = 15; }),
            at + "field 'part.n' = 15 spans [2, 17), beyond the 16 SBUF partitions");
  EXPECT_EQ(msg([](Vector& v) { v.a = 0x3FE0; }), "valid"); // ends exactly at 0x4000
  EXPECT_EQ(
      msg([](Vector& v) { v.a = 0x3FE8; }),
      at + "field 'a' = 0x3fe8 touches SBUF working bytes [0x3fe8, 0x4008) outside [0, 0x4000)");
  EXPECT_EQ(msg([](Vector& v) { v.dst = -1; }),
            at + "field 'dst' = -0x1 touches SBUF working bytes [-0x1, 0x1f) outside [0, 0x4000)");
  EXPECT_EQ(msg([](Vector& v) { v.bStep = 2; }),
            at + "field 'b.step' = 2 must be 1 (a block like A) or 0 (one value per row)");
  EXPECT_EQ(msg([](Vector& v) {
              v.bStep = 0;
              v.bRowStride = 1;
              v.b = 0x3FFC; // one value per row: 4 bytes
            }),
            "valid");
  EXPECT_EQ(
      msg([](Vector& v) { v.b = 0x3FFC; }),
      at + "field 'b' = 0x3ffc touches SBUF working bytes [0x3ffc, 0x401c) outside [0, 0x4000)");
  EXPECT_EQ(msg([](Vector& v) {
              v.func = VectorFunc::Select;
              v.cStep = 2;
            }),
            at + "field 'c.step' = 2 must be 1 (a block like A) or 0 (one value per row)");
  EXPECT_EQ(
      msg([](Vector& v) {
        v.func = VectorFunc::SelectNot;
        v.cRowStride = 8;
        v.c = 0x3FFC;
      }),
      at + "field 'c' = 0x3ffc touches SBUF working bytes [0x3ffc, 0x401c) outside [0, 0x4000)");
  EXPECT_EQ(msg([](Vector& v) { v.c = 0x3FFC; }), "valid"); // only Select reads C
  EXPECT_EQ(msg([](Vector& v) {
              v.func = VectorFunc::Clamp; // B is not read
              v.b = 0x3FFC;
            }),
            "valid");
  EXPECT_EQ(msg([](Vector& v) { v.leftShift = 25; }),
            at + "field 'lshift' = 25 lies outside [0, 24] (an int8 operand shifted left must "
                 "fit int32)");
  EXPECT_EQ(msg([](Vector& v) {
              v.aZero = -128;
              v.leftShift = 23;
            }),
            "valid");
  EXPECT_EQ(msg([](Vector& v) {
              v.bZero = 3;
              v.leftShift = 24;
            }),
            at + "field 'lshift' = 24 exceeds 23 with a zero point (a difference q - z shifted "
                 "left must fit int32)");
  EXPECT_EQ(msg([](Vector& v) { v.outZero = 128; }),
            at + "field 'out.zero' = 128 lies outside the int8 range [-128, 127]");
  EXPECT_EQ(msg([](Vector& v) { v.bMultiplier = 5; }),
            at + "field 'b.m' = 5 with shift -1 is not a requantization multiplier (M in [2^30, "
                 "2^31) and shift in [-30, 31], or M = 0 with shift 31)");
  EXPECT_EQ(msg([](Vector& v) {
              v.func = VectorFunc::Mul;
              v.aMultiplier = 5; // Mul reads only out.m
              v.outShift = 32;
            }),
            at + "field 'out.m' = 1073741824 with shift 32 is not a requantization multiplier "
                 "(M in [2^30, 2^31) and shift in [-30, 31], or M = 0 with shift 31)");
  EXPECT_EQ(msg([](Vector& v) { v.clampLo = -129; }),
            at + "field 'lo' = -129 lies below the int8 range [-128, 127]");
  EXPECT_EQ(msg([](Vector& v) { v.clampHi = 128; }),
            at + "field 'hi' = 128 lies above the int8 range [-128, 127]");
  EXPECT_EQ(msg([](Vector& v) { v.clampLo = 5, v.clampHi = 4; }),
            at + "field 'lo' = 5 exceeds hi = 4");
  EXPECT_EQ(msg([](Vector& v) { v.rows = 0; }), at + "field 'rows' = 0 must be >= 1");
  EXPECT_EQ(vectorMessage([](Vector&) {}, DType::F32),
            "prog.nnx: instruction 0 (VECTOR): field 'func' = add is not available to f32 programs "
            "(the vector unit is int8)");
}

TEST(ProgramValidate, LookupTableLoads) {
  Program p = smallProgram();
  DmaLoad d{.space = OnChip::LookupTable,
            .partitionStart = 8,
            .partitionCount = 8,
            .innerCount = 256,
            .dram = {0x0, 0, 0, 1}};
  p.instructions.push_back({d, {}});
  EXPECT_EQ(messageOf(p), "valid");
  std::get<DmaLoad>(p.instructions.back().op).partitionCount = 9;
  EXPECT_EQ(messageOf(p), "prog.nnx: instruction 15 (DMA_LOAD): field 'part.n' = 9 spans [8, 17), "
                          "beyond the 16 lookup-table partitions");
  std::get<DmaLoad>(p.instructions.back().op) = d;
  std::get<DmaLoad>(p.instructions.back().op).sbufAddr = 1;
  EXPECT_EQ(messageOf(p), "prog.nnx: instruction 15 (DMA_LOAD): field 'sbuf' = 0x1 touches "
                          "lookup-table bytes [0x1, 0x101) outside [0, 0x100)");
}

TEST(ProgramValidate, SyncAndHost) {
  Program p = smallProgram();
  p.instructions[kMatmul].sync.waits[0].sem = kNumSemaphores;
  EXPECT_EQ(messageOf(p), "prog.nnx: instruction 5 (MATMUL): field 'wait0.sem' = 32 is not a "
                          "semaphore (expected -1 for none or 0..31)");
  p = smallProgram();
  p.instructions[kMatmul].sync.signal = -2;
  EXPECT_EQ(messageOf(p), "prog.nnx: instruction 5 (MATMUL): field 'signal' = -2 is not a "
                          "semaphore (expected -1 for none or 0..31)");
  p = smallProgram();
  p.instructions[kMatmul].sync.waits[1] = {3, -1};
  EXPECT_EQ(messageOf(p), "prog.nnx: instruction 5 (MATMUL): field 'wait1.count' = -1 must be >= "
                          "0");

  EXPECT_EQ(instrMessage<HostOp>(kHost, [](HostOp& h) { h.layer = 4; }),
            "prog.nnx: instruction 13 (HOST): field 'layer' = 4 is not a layer index (the program "
            "has 4 layers)");
  EXPECT_EQ(instrMessage<HostOp>(kHost, [](HostOp& h) { h.node = -1; }),
            "prog.nnx: instruction 13 (HOST): field 'node' = -1 must be >= 0");
}

TEST(ProgramValidate, Layers) {
  EXPECT_EQ(programMessage([](Program& p) { p.layers[1].firstInstr = 8; }),
            "prog.nnx: layer 1 'pool1': firstInstr = 8 lies before the end 9 of the previous "
            "layer");
  EXPECT_EQ(programMessage([](Program& p) { p.layers[2].endInstr = 11; }),
            "prog.nnx: layer 2 'flat': endInstr = 11 lies before firstInstr = 12");
  EXPECT_EQ(programMessage([](Program& p) { p.layers[3].endInstr = 20; }),
            "prog.nnx: layer 3 'softmax': endInstr = 20 lies beyond the 15 instructions");
  EXPECT_EQ(programMessage([](Program& p) { p.layers[0].inputTensors[2] = 6; }),
            "prog.nnx: layer 0 'conv1': inputTensors[2] = 6 is not a tensor index (the program "
            "has 6 tensors)");
  EXPECT_EQ(programMessage([](Program& p) { p.layers[1].outputTensors[0] = -2; }),
            "prog.nnx: layer 1 'pool1': outputTensors[0] = -2 is not a tensor index (the program "
            "has 6 tensors)");
  EXPECT_EQ(programMessage([](Program& p) { p.layers[1].outputValues.push_back(7); }),
            "prog.nnx: layer 1 'pool1': 2 outputValues for 1 outputTensors");
}

TEST(ProgramValidate, TensorsAndSegments) {
  EXPECT_EQ(programMessage([](Program& p) { p.tensors[5].addr = 0x5F0; }),
            "prog.nnx: tensor 5 'prob': bytes [0x5f0, 0x610) lie outside DRAM [0, 0x600)");
  EXPECT_EQ(programMessage([](Program& p) { p.tensors[0].addr = -1; }),
            "prog.nnx: tensor 0 'input': bytes [-0x1, 0x8f) lie outside DRAM [0, 0x600)");
  EXPECT_EQ(programMessage([](Program& p) {
              p.tensors[0].shape = {1, -4};
            }),
            "prog.nnx: tensor 0 'input': dimension 1 = -4 is negative");
  EXPECT_EQ(programMessage([](Program& p) {
              p.tensors[0].shape = {int64_t{1} << 40, int64_t{1} << 40};
            }),
            "prog.nnx: tensor 0 'input': bytes [0x0, overflow) lie outside DRAM [0, 0x600)");
  EXPECT_EQ(programMessage([](Program& p) { p.segments[2].addr = 0x5F8; }),
            "prog.nnx: segment 2: bytes [0x5f8, 0x608) lie outside DRAM [0, 0x600)");
}

TEST(ProgramValidate, DtypeAndConfig) {
  EXPECT_EQ(programMessage([](Program& p) { p.dtype = DType::U8; }),
            "prog.nnx: program dtype u8 is not a systolic dtype (expected s8 or f32)");
  EXPECT_EQ(programMessage([](Program& p) { p.config.dtypes = {DType::F32}; }),
            "prog.nnx: program dtype s8 is not supported by config 'small' (dtypes: f32)");
  EXPECT_EQ(programMessage([](Program& p) { p.dramBytes = -1; }),
            "prog.nnx: dramBytes = -1 must be >= 0");
  EXPECT_EQ(programMessage([](Program& p) { p.dramBytes = kMaxDramBytes + 1; }),
            "prog.nnx: dramBytes = 17179869185 exceeds the simulator's limit of 17179869184 "
            "(16 GiB)");
  // The config itself must be a valid machine (Config.h's validate, ErrorKind::Config).
  Program p = smallProgram();
  p.config.peRows = 0;
  const std::string message = messageOf(p, ErrorKind::Config);
  EXPECT_NE(message.find("prog.nnx: "), std::string::npos) << message;
  EXPECT_NE(message.find("array.rows"), std::string::npos) << message;
}

} // namespace
} // namespace nnaccel::arch::systolic
