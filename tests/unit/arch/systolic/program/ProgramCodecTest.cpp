/// \file
/// Tests of the systolic program file (.nnx): exact round trips of random programs covering
/// every opcode and field, byte-exact re-encoding, the framing, and rejection of hostile input
/// (every truncation, every byte flip, resealed payload mutations, random payloads, and one
/// crafted file per decoder error with its message).
#include "../../../../../src/arch/systolic/program/IsaFields.h"
#include "../../../../../src/arch/systolic/program/ProgramFormat.h"
#include "ProgramSamples.h"
#include "nnaccel/arch/systolic/Program.h"
#include "nnaccel/support/Error.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <sstream>

namespace nnaccel::arch::systolic {
namespace {

using samples::randomProgram;
using samples::smallProgram;

// --- helpers ------------------------------------------------------------------------------------

/// Every config field, listed here independently of IsaFields.h so a field the table forgets
/// shows up as a round-trip difference.
std::string configFingerprint(const SystolicConfig& c) {
  std::ostringstream os;
  os << std::hexfloat << c.name << '|' << c.peRows << '|' << c.peCols << '|' << c.weightLoadCycles
     << '|' << c.shadowWeights << '|' << c.sbufBytesPerPartition << '|'
     << c.sbufResidentBytesPerPartition << '|' << c.sbufDmaBytesPerCycle << '|'
     << c.sbufDmaLatencyCycles << '|' << c.psumEntriesPerColumn << '|' << c.psumMaxTileRows << '|'
     << c.psumMaxTileCols << '|' << static_cast<int>(c.psumZeroMode) << '|'
     << c.psumResetEntriesPerCycle << '|';
  for (DType t : c.dtypes) {
    os << static_cast<int>(t) << ',';
  }
  const EnergyTable& e = c.energy;
  const auto opt = [](const auto& v) { return v ? std::to_string(*v) : std::string("auto"); };
  os << '|' << c.actLatencyCycles << '|' << c.poolLanes << '|' << c.poolLatencyCycles << '|'
     << c.dram.standard << '|' << c.dram.channels << '|' << c.dram.rowBuffer << '|'
     << opt(c.dramBytesPerCycle) << '|' << opt(c.dramLatencyCycles) << '|' << c.clockMhz << '|'
     << c.technology.node << '|' << opt(c.technology.vddV) << '|' << opt(e.macInt8Pj) << '|'
     << opt(e.macFp32Pj) << '|' << opt(e.sbufReadPjPerByte) << '|' << opt(e.sbufWritePjPerByte)
     << '|' << opt(e.psumReadPjPerEntry) << '|' << opt(e.psumWritePjPerEntry) << '|'
     << opt(e.dramReadPjPerByte) << '|' << opt(e.dramWritePjPerByte) << '|' << opt(e.dramActivatePj)
     << '|' << opt(e.actOpPj) << '|' << opt(e.poolOpPj) << '|' << opt(e.weightLoadPjPerByte);
  return os.str();
}

bool sameBits(float a, float b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

void expectSamePrograms(const Program& a, const Program& b) {
  EXPECT_EQ(configFingerprint(a.config), configFingerprint(b.config));
  EXPECT_EQ(a.dtype, b.dtype);
  EXPECT_EQ(a.rounding, b.rounding);
  EXPECT_EQ(a.model, b.model);
  EXPECT_EQ(a.baseline, b.baseline);
  EXPECT_EQ(a.dramBytes, b.dramBytes);
  ASSERT_EQ(a.tensors.size(), b.tensors.size());
  for (size_t i = 0; i < a.tensors.size(); ++i) {
    const DramTensor& x = a.tensors[i];
    const DramTensor& y = b.tensors[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.value, y.value);
    EXPECT_EQ(x.dtype, y.dtype);
    EXPECT_EQ(x.shape, y.shape);
    EXPECT_EQ(x.addr, y.addr);
    EXPECT_TRUE(sameBits(x.scale, y.scale)) << "tensor " << i;
    EXPECT_EQ(x.role, y.role);
  }
  ASSERT_EQ(a.segments.size(), b.segments.size());
  for (size_t i = 0; i < a.segments.size(); ++i) {
    EXPECT_EQ(a.segments[i].addr, b.segments[i].addr);
    EXPECT_EQ(a.segments[i].bytes, b.segments[i].bytes);
  }
  ASSERT_EQ(a.layers.size(), b.layers.size());
  for (size_t i = 0; i < a.layers.size(); ++i) {
    const Layer& x = a.layers[i];
    const Layer& y = b.layers[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.op, y.op);
    EXPECT_EQ(x.shape, y.shape);
    EXPECT_EQ(x.node, y.node);
    EXPECT_EQ(x.unit, y.unit);
    EXPECT_EQ(x.inputTensors, y.inputTensors);
    EXPECT_EQ(x.outputTensors, y.outputTensors);
    EXPECT_EQ(x.outputValues, y.outputValues);
    EXPECT_EQ(x.firstInstr, y.firstInstr);
    EXPECT_EQ(x.endInstr, y.endInstr);
    EXPECT_EQ(x.usefulMacs, y.usefulMacs);
    EXPECT_EQ(x.note, y.note);
  }
  ASSERT_EQ(a.instructions.size(), b.instructions.size());
  for (size_t i = 0; i < a.instructions.size(); ++i) {
    EXPECT_TRUE(a.instructions[i] == b.instructions[i]) << "instruction " << i;
    EXPECT_EQ(formatInstruction(a.instructions[i]), formatInstruction(b.instructions[i]));
  }
}

void putVarint(std::vector<uint8_t>& out, int64_t v) {
  uint64_t z = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  while (z >= 0x80) {
    out.push_back(static_cast<uint8_t>(z | 0x80));
    z >>= 7;
  }
  out.push_back(static_cast<uint8_t>(z));
}

uint64_t readLe(const std::vector<uint8_t>& bytes, size_t offset, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) {
    v |= static_cast<uint64_t>(bytes[offset + static_cast<size_t>(i)]) << (8 * i);
  }
  return v;
}

std::vector<uint8_t> payloadOf(const std::vector<uint8_t>& file) {
  return {file.begin() + format::kPayloadOffset, file.end() - format::kCrcBytes};
}

/// A well-framed file around \p payload (correct length and CRC).
std::vector<uint8_t> seal(const std::vector<uint8_t>& payload) {
  std::vector<uint8_t> file(format::kMagic, format::kMagic + format::kMagicBytes);
  auto putLe = [&](uint64_t v, int n) {
    for (int i = 0; i < n; ++i) {
      file.push_back(static_cast<uint8_t>(v >> (8 * i)));
    }
  };
  putLe(Program::kVersion, 4);
  putLe(payload.size(), 8);
  file.insert(file.end(), payload.begin(), payload.end());
  putLe(format::crc32(payload.data(), payload.size()), 4);
  return file;
}

/// The error decoding \p bytes throws (a test failure if it decodes).
Error decodeError(const std::vector<uint8_t>& bytes) {
  try {
    decodeProgram(bytes, "bad.nnx");
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "the bytes decoded";
  return Error(ErrorKind::Usage, {}, "decoded");
}

/// Expects decoding \p bytes to fail with ErrorKind::Io and exactly \p message.
void expectIoError(const std::vector<uint8_t>& bytes, const std::string& message) {
  const Error e = decodeError(bytes);
  EXPECT_EQ(e.kind(), ErrorKind::Io);
  EXPECT_EQ(e.context().file, "bad.nnx");
  EXPECT_EQ(std::string(e.what()), message);
}

/// Hostile input must either be rejected with an nnaccel::Error or decode to a program that
/// re-encodes to the same bytes (the format is canonical); anything else is a bug.
void expectRejectedOrCanonical(const std::vector<uint8_t>& bytes) {
  try {
    const Program p = decodeProgram(bytes, "fuzz.nnx");
    EXPECT_EQ(encodeProgram(p), bytes);
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
}

/// The payload of a valid empty program up to and including the instruction section's tag: the
/// tests append hand-written instructions to it.
std::vector<uint8_t> payloadBeforeInstructions() {
  Program p;
  p.config = systolicPreset("small");
  std::vector<uint8_t> payload = payloadOf(encodeProgram(p));
  EXPECT_EQ(payload.back(), 0); // the instruction count 0
  payload.pop_back();
  return payload;
}

/// The sync word "no waits, no signal".
void putNoSync(std::vector<uint8_t>& out) {
  for (size_t w = 0; w < Sync{}.waits.size(); ++w) {
    putVarint(out, -1);
    putVarint(out, 0);
  }
  putVarint(out, -1);
}

std::string fileOffsetOf(const std::vector<uint8_t>& payload) {
  return std::to_string(format::kPayloadOffset + payload.size());
}

// --- framing and round trips --------------------------------------------------------------------

TEST(ProgramCodec, Crc32MatchesTheStandardCheckValue) {
  const std::string check = "123456789";
  EXPECT_EQ(format::crc32(reinterpret_cast<const uint8_t*>(check.data()), check.size()),
            0xCBF43926u);
  EXPECT_EQ(format::crc32(nullptr, 0), 0u);
}

TEST(ProgramCodec, FileIsMagicVersionLengthPayloadCrc) {
  const std::vector<uint8_t> file = encodeProgram(smallProgram());
  ASSERT_GT(file.size(), format::kPayloadOffset + format::kCrcBytes);
  EXPECT_EQ(std::string(file.begin(), file.begin() + 8), "NNXSYS01");
  EXPECT_EQ(readLe(file, format::kVersionOffset, 4), Program::kVersion);
  const uint64_t payloadBytes = readLe(file, format::kLengthOffset, 8);
  EXPECT_EQ(payloadBytes, file.size() - format::kPayloadOffset - format::kCrcBytes);
  EXPECT_EQ(readLe(file, file.size() - 4, 4),
            format::crc32(file.data() + format::kPayloadOffset, payloadBytes));
  // The payload opens with the config section's tag (zigzag 1 = 2).
  EXPECT_EQ(file[format::kPayloadOffset], 2);
}

TEST(ProgramCodec, RoundTripsRandomProgramsExactly) {
  for (uint64_t seed = 0; seed < 60; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Program p = randomProgram(seed);
    ASSERT_NO_THROW(validateProgram(p));
    const std::vector<uint8_t> bytes = encodeProgram(p);
    const Program q = decodeProgram(bytes, "random.nnx");
    expectSamePrograms(p, q);
    EXPECT_EQ(encodeProgram(q), bytes); // byte-exact re-encoding
  }
}

TEST(ProgramCodec, RandomProgramsCoverEveryOpcodeAndField) {
  // (mnemonic, field) -> distinct values seen; every field of every op table must take at least
  // two values, so the round trip above exercises each of them.
  std::map<std::string, std::set<std::string>> seen;
  for (uint64_t seed = 0; seed < 60; ++seed) {
    for (const Instruction& inst : randomProgram(seed).instructions) {
      const std::string op = mnemonic(inst.op);
      seen[op]; // opcodes without fields (BARRIER) count as seen too
      auto record = [&](const fields::Field& f, const auto& value) {
        seen[op + " " + f.name].insert(fields::showValue(f, value));
      };
      fields::forEachOpField(inst, record);
      fields::forEachField(inst.sync, record);
    }
  }
  [&]<size_t... I>(std::index_sequence<I...>) {
    (
        [&] {
          const Instruction probe{std::variant_alternative_t<I, Op>{}, {}};
          const std::string op = mnemonic(probe.op);
          EXPECT_TRUE(seen.count(op)) << op << " never generated";
          auto check = [&](const fields::Field& f, const auto&) {
            EXPECT_GE(seen[op + " " + f.name].size(), 2u) << op << " field " << f.name;
          };
          fields::forEachOpField(probe, check);
          fields::forEachField(probe.sync, check);
        }(),
        ...);
  }
  (std::make_index_sequence<std::variant_size_v<Op>>{});
}

TEST(ProgramCodec, RoundTripsTheSmallProgramThroughAFile) {
  const Program p = smallProgram();
  const std::string path =
      (std::filesystem::path(::testing::TempDir()) / "nnaccel_isa_small.nnx").string();
  writeProgramFile(p, path);
  const Program q = readProgramFile(path);
  expectSamePrograms(p, q);
  std::filesystem::remove(path);
}

TEST(ProgramCodec, RoundTripsEveryVectorFunctionAndTheLookupTableLoad) {
  Program p = smallProgram();
  p.instructions.push_back({DmaLoad{.space = OnChip::LookupTable,
                                    .partitionStart = 3,
                                    .partitionCount = 13,
                                    .innerCount = kLookupTableBytes,
                                    .dram = {0x100, 0, 0, 1}},
                            {}});
  for (int f = 0; f < 6; ++f) {
    Vector v{.func = static_cast<VectorFunc>(f),
             .partitions = 16,
             .rows = 2,
             .rowLen = 7,
             .a = 0x40,
             .aRowStride = 7,
             .b = 0x80,
             .bRowStride = -1,
             .bStep = 0,
             .dst = 0xC0,
             .dstRowStride = 9,
             .leftShift = 20,
             .aMultiplier = 1300000000,
             .aShift = -30,
             .bMultiplier = 0,
             .bShift = 31,
             .outMultiplier = 2147483647,
             .outShift = 31,
             .clampLo = -100 + f,
             .clampHi = 100};
    p.instructions.push_back({v, {{SemWait{0, 3}}, 3}});
  }
  const std::vector<uint8_t> bytes = encodeProgram(p);
  const Program q = decodeProgram(bytes, "vector.nnx");
  expectSamePrograms(p, q);
  EXPECT_EQ(std::get<Vector>(q.instructions.back().op).func, VectorFunc::Requantize);
  EXPECT_EQ(std::get<DmaLoad>(q.instructions[15].op).space, OnChip::LookupTable);
}

TEST(ProgramCodec, FileErrorsAreIoErrors) {
  const std::string missing =
      (std::filesystem::path(::testing::TempDir()) / "nnaccel_isa_missing.nnx").string();
  try {
    readProgramFile(missing);
    FAIL() << "read a missing file";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_EQ(e.context().file, missing);
    EXPECT_NE(std::string(e.what()).find("cannot open file ("), std::string::npos);
  }
  const std::string badDir =
      (std::filesystem::path(::testing::TempDir()) / "nnaccel_isa_no_such_dir" / "out.nnx")
          .string();
  try {
    writeProgramFile(smallProgram(), badDir);
    FAIL() << "wrote into a missing directory";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_NE(std::string(e.what()).find("cannot write program file"), std::string::npos);
  }
}

TEST(ProgramCodec, DecodeRunsTheValidator) {
  Program p = smallProgram();
  std::get<Matmul>(p.instructions[5].op).rows = 20;
  try {
    decodeProgram(encodeProgram(p), "prog.nnx");
    FAIL() << "decoded an invalid program";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Model);
    EXPECT_EQ(std::string(e.what()),
              "prog.nnx: instruction 5 (MATMUL): field 'rows' = 20 exceeds the array's 16 PE rows");
  }
}

// --- hostile input ------------------------------------------------------------------------------

TEST(ProgramCodec, RejectsEveryTruncation) {
  const std::vector<uint8_t> file = encodeProgram(smallProgram());
  for (size_t n = 0; n < file.size(); ++n) {
    const Error e = decodeError({file.begin(), file.begin() + static_cast<std::ptrdiff_t>(n)});
    EXPECT_EQ(e.kind(), ErrorKind::Io) << n;
    EXPECT_NE(std::string(e.what()).find("bad.nnx: offset "), std::string::npos) << e.what();
  }
}

TEST(ProgramCodec, RejectsEverySingleByteFlip) {
  const std::vector<uint8_t> file = encodeProgram(smallProgram());
  for (size_t i = 0; i < file.size(); ++i) {
    for (uint8_t mask : {0x01, 0x10, 0x80, 0xFF}) {
      std::vector<uint8_t> bad = file;
      bad[i] ^= mask;
      const Error e = decodeError(bad); // the framing or the CRC catches every flip
      EXPECT_EQ(e.kind(), ErrorKind::Io) << "byte " << i << " mask " << int(mask);
    }
  }
}

TEST(ProgramCodec, ResealedPayloadFlipsAreRejectedOrCanonical) {
  // With the CRC recomputed, a flip reaches the parser and the validator.
  const std::vector<uint8_t> payload = payloadOf(encodeProgram(smallProgram()));
  for (size_t i = 0; i < payload.size(); ++i) {
    for (uint8_t mask : {0x01, 0x02, 0x40, 0x80, 0xFF}) {
      std::vector<uint8_t> bad = payload;
      bad[i] ^= mask;
      expectRejectedOrCanonical(seal(bad));
    }
  }
}

TEST(ProgramCodec, RandomPayloadsAreRejectedOrCanonical) {
  const std::vector<uint8_t> valid = payloadOf(encodeProgram(smallProgram()));
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 20000; ++trial) {
    // A valid prefix (so the parser gets deep) followed by random bytes.
    const size_t keep = static_cast<size_t>(rng() % valid.size());
    std::vector<uint8_t> bad(valid.begin(), valid.begin() + static_cast<std::ptrdiff_t>(keep));
    const size_t extra = static_cast<size_t>(rng() % 64);
    for (size_t k = 0; k < extra; ++k) {
      bad.push_back(static_cast<uint8_t>(rng()));
    }
    expectRejectedOrCanonical(seal(bad));
  }
}

TEST(ProgramCodec, RejectsBadMagic) {
  std::vector<uint8_t> file = encodeProgram(smallProgram());
  std::memcpy(file.data(), "NNXSYS\x01Z", 8);
  expectIoError(file, "bad.nnx: offset 0: bad magic 'NNXSYS.Z', expected 'NNXSYS01': not an "
                      "nnaccel systolic program");
  expectIoError({}, "bad.nnx: offset 0: bad magic '', expected 'NNXSYS01': not an nnaccel "
                    "systolic program");
}

TEST(ProgramCodec, RejectsAShortHeader) {
  const std::vector<uint8_t> file = encodeProgram(smallProgram());
  expectIoError({file.begin(), file.begin() + 10},
                "bad.nnx: offset 10: file truncated: 10 bytes, a program file has at least 24");
}

TEST(ProgramCodec, RejectsAnUnknownVersion) {
  std::vector<uint8_t> file = encodeProgram(smallProgram());
  file[format::kVersionOffset] = 1; // version 1 had no SBUF resident region
  expectIoError(file, "bad.nnx: offset 8: unsupported program format version 1 (this build "
                      "reads version 7)");
}

TEST(ProgramCodec, RejectsACrcMismatch) {
  std::vector<uint8_t> file = encodeProgram(smallProgram());
  const uint32_t crc = static_cast<uint32_t>(readLe(file, file.size() - 4, 4));
  file[format::kPayloadOffset + 5] ^= 0x20;
  const uint32_t actual =
      format::crc32(file.data() + format::kPayloadOffset, file.size() - format::kPayloadOffset - 4);
  char expected[200];
  std::snprintf(expected, sizeof expected,
                "bad.nnx: offset %zu: CRC mismatch: stored 0x%08x, computed 0x%08x (the file is "
                "corrupt)",
                file.size() - 4, crc, actual);
  expectIoError(file, expected);
}

TEST(ProgramCodec, RejectsAPayloadLongerThanTheFile) {
  const std::vector<uint8_t> file = encodeProgram(smallProgram());
  const std::vector<uint8_t> cut(file.begin(), file.end() - 10);
  const size_t announced = file.size() - 24;
  expectIoError(cut, "bad.nnx: offset " + std::to_string(cut.size()) +
                         ": file truncated: the header announces " + std::to_string(announced) +
                         " payload bytes, only " + std::to_string(announced - 10) + " are present");
}

TEST(ProgramCodec, RejectsTrailingGarbage) {
  std::vector<uint8_t> file = encodeProgram(smallProgram());
  const size_t end = file.size();
  file.insert(file.end(), {1, 2, 3});
  expectIoError(file, "bad.nnx: offset " + std::to_string(end) +
                          ": 3 bytes of trailing garbage after the CRC");
}

TEST(ProgramCodec, RejectsBytesAfterTheLastSection) {
  std::vector<uint8_t> payload = payloadOf(encodeProgram(smallProgram()));
  const std::string offset = fileOffsetOf(payload);
  payload.push_back(0);
  expectIoError(seal(payload),
                "bad.nnx: offset " + offset + ": 1 unexpected bytes after the last section");
}

TEST(ProgramCodec, RejectsAWrongSectionTag) {
  expectIoError(seal({4}), "bad.nnx: offset 20: expected the config section (tag 1), found tag 2");
}

TEST(ProgramCodec, RejectsMalformedVarints) {
  std::vector<uint8_t> payload = payloadBeforeInstructions();
  const std::string offset = fileOffsetOf(payload);
  std::vector<uint8_t> truncated = payload;
  truncated.insert(truncated.end(), {0x80, 0x80});
  expectIoError(seal(truncated), "bad.nnx: offset " + offset + ": truncated varint");
  std::vector<uint8_t> overflow = payload;
  overflow.insert(overflow.end(), 9, 0xFF);
  overflow.push_back(0x02);
  expectIoError(seal(overflow), "bad.nnx: offset " + offset + ": varint overflows 64 bits");
  std::vector<uint8_t> redundant = payload;
  redundant.insert(redundant.end(), {0x82, 0x00});
  expectIoError(seal(redundant), "bad.nnx: offset " + offset +
                                     ": non-canonical varint (redundant trailing zero "
                                     "byte)");
}

TEST(ProgramCodec, RejectsAbsurdAndNegativeLengths) {
  std::vector<uint8_t> payload = payloadBeforeInstructions();
  const std::string offset = fileOffsetOf(payload);
  std::vector<uint8_t> huge = payload;
  putVarint(huge, int64_t{1} << 60);
  expectIoError(seal(huge), "bad.nnx: offset " + offset +
                                ": length 1152921504606846976 exceeds "
                                "the 0 remaining payload bytes");
  std::vector<uint8_t> negative = payload;
  putVarint(negative, -1);
  expectIoError(seal(negative), "bad.nnx: offset " + offset + ": negative length -1");
}

TEST(ProgramCodec, RejectsAnUnknownOpcode) {
  std::vector<uint8_t> payload = payloadBeforeInstructions();
  putVarint(payload, 1);
  const std::string offset = fileOffsetOf(payload);
  payload.push_back(static_cast<uint8_t>(std::variant_size_v<Op>));
  expectIoError(seal(payload), "bad.nnx: offset " + offset + ": unknown opcode " +
                                   std::to_string(std::variant_size_v<Op>) + " in instruction 0");
}

TEST(ProgramCodec, RejectsAnUnknownEnumValue) {
  std::vector<uint8_t> payload = payloadBeforeInstructions();
  putVarint(payload, 1);
  payload.push_back(0); // DMA_LOAD
  putNoSync(payload);
  const std::string offset = fileOffsetOf(payload);
  putVarint(payload, 4); // space: one past lookup_table
  expectIoError(seal(payload), "bad.nnx: offset " + offset +
                                   ": invalid memory space value 4 in instruction 0 (DMA_LOAD), "
                                   "field 'space'");
}

TEST(ProgramCodec, RejectsAnInvalidBool) {
  std::vector<uint8_t> payload = payloadBeforeInstructions();
  putVarint(payload, 1);
  payload.push_back(4); // MATMUL
  putNoSync(payload);
  for (int64_t v : {1, 1, 0, 1, 1, 0, 1, 0, 1, 1, 0, 1}) { // rows .. dst.on
    putVarint(payload, v);
  }
  const std::string offset = fileOffsetOf(payload);
  putVarint(payload, 2); // acc
  expectIoError(seal(payload), "bad.nnx: offset " + offset +
                                   ": invalid bool value 2 in instruction 0 (MATMUL), field 'acc'");
}

TEST(ProgramCodec, RejectsAnInt32Overflow) {
  std::vector<uint8_t> payload = payloadBeforeInstructions();
  putVarint(payload, 1);
  payload.push_back(8); // HOST
  putNoSync(payload);
  const std::string offset = fileOffsetOf(payload);
  putVarint(payload, int64_t{1} << 31); // node
  expectIoError(seal(payload), "bad.nnx: offset " + offset +
                                   ": value 2147483648 does not fit a 32-bit field in instruction "
                                   "0 (HOST), field 'node'");
}

TEST(ProgramCodec, RejectsATruncatedFloat) {
  std::vector<uint8_t> payload = payloadBeforeInstructions();
  putVarint(payload, 1);
  payload.push_back(6); // ACTIVATE
  putNoSync(payload);
  for (int i = 0; i < 14; ++i) { // psum .. hi
    putVarint(payload, 0);
  }
  const std::string offset = fileOffsetOf(payload);
  payload.insert(payload.end(), {0, 0}); // half of alpha
  expectIoError(seal(payload), "bad.nnx: offset " + offset +
                                   ": truncated 4-byte value in instruction 0 (ACTIVATE), field "
                                   "'alpha'");
}

TEST(ProgramCodec, RejectsATruncatedInstruction) {
  std::vector<uint8_t> payload = payloadBeforeInstructions();
  putVarint(payload, 1);
  payload.push_back(4); // MATMUL
  putNoSync(payload);
  const std::string offset = fileOffsetOf(payload);
  payload.push_back(0x80); // rows: a varint cut in the middle
  expectIoError(seal(payload), "bad.nnx: offset " + offset +
                                   ": truncated varint in instruction 0 (MATMUL), field 'rows'");
}

} // namespace
} // namespace nnaccel::arch::systolic
