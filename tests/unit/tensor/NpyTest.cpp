// Tests for .npy reading and writing: files written by numpy (tests/data/npy, made by
// make_npy.py), round trips of every dtype, and every malformed-file error path.
#include "nnaccel/tensor/Npy.h"

#include "../../support/SourcePaths.h"
#include "TempFiles.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

using namespace nnaccel;
using namespace nnaccel::test;

namespace {

std::string dataFile(const std::string& name) {
  return nnaccel::test::sourceDir().string() + "/tests/data/npy/" + name;
}

/// A version-1.0 file with \p header (unpadded) followed by \p data.
std::string npyV1(const std::string& header, const std::string& data) {
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header + data;
}

const std::string kF32Header2 = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n";
const std::string kTwoFloats("\x00\x00\x80\x3f\x00\x00\x00\x40", 8); // 1.0f, 2.0f

/// Expects readNpy(path) to throw Error of \p kind whose message is exactly "path: reason".
void expectReadError(const std::string& path, ErrorKind kind, const std::string& reason) {
  try {
    readNpy(path);
    ADD_FAILURE() << "no error reading " << path;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind);
    EXPECT_EQ(e.context().file, path);
    EXPECT_EQ(std::string(e.what()), path + ": " + reason);
  }
}

void expectMalformed(const std::string& name, const std::string& header,
                     const std::string& reason) {
  expectReadError(writeBytes(name, npyV1(header, kTwoFloats)), ErrorKind::Io, reason);
}

template <typename T> std::vector<T> valuesOf(const Tensor& t) {
  auto v = t.values<T>();
  return {v.begin(), v.end()};
}

} // namespace

TEST(Npy, ReadsFilesWrittenByNumpy) {
  Tensor f = readNpy(dataFile("f32_2x3.npy"));
  EXPECT_EQ(f.dtype(), DType::F32);
  EXPECT_EQ(f.shape(), Dims({2, 3}));
  EXPECT_EQ(valuesOf<float>(f), (std::vector<float>{1.5f, -2.0f, 0.25f, 3.0f, 1e-3f, -7.5f}));

  Tensor i8 = readNpy(dataFile("i8_4.npy"));
  EXPECT_EQ(i8.dtype(), DType::I8);
  EXPECT_EQ(valuesOf<int8_t>(i8), (std::vector<int8_t>{-128, -1, 0, 127}));

  Tensor u8 = readNpy(dataFile("u8_2x2.npy"));
  EXPECT_EQ(u8.shape(), Dims({2, 2}));
  EXPECT_EQ(valuesOf<uint8_t>(u8), (std::vector<uint8_t>{0, 1, 254, 255}));

  Tensor i32 = readNpy(dataFile("i32_3.npy"));
  EXPECT_EQ(valuesOf<int32_t>(i32), (std::vector<int32_t>{std::numeric_limits<int32_t>::min(), 0,
                                                          std::numeric_limits<int32_t>::max()}));

  Tensor i64 = readNpy(dataFile("i64_2.npy"));
  EXPECT_EQ(valuesOf<int64_t>(i64), (std::vector<int64_t>{-(int64_t{1} << 40), int64_t{1} << 62}));

  Tensor b = readNpy(dataFile("bool_3.npy"));
  EXPECT_EQ(b.dtype(), DType::Bool);
  EXPECT_EQ(valuesOf<bool>(b), (std::vector<bool>{true, false, true}));

  Tensor s = readNpy(dataFile("f32_scalar.npy"));
  EXPECT_EQ(s.rank(), 0);
  EXPECT_EQ(valuesOf<float>(s), (std::vector<float>{42.0f}));

  Tensor e = readNpy(dataFile("f32_empty_0x3.npy"));
  EXPECT_EQ(e.shape(), Dims({0, 3}));
  EXPECT_EQ(e.numElements(), 0);
}

TEST(Npy, ReadsVersion2) {
  Tensor t = readNpy(dataFile("f32_1x2x2_v2.npy"));
  EXPECT_EQ(t.shape(), Dims({1, 2, 2}));
  EXPECT_EQ(valuesOf<float>(t), (std::vector<float>{0.0f, 1.0f, 2.0f, 3.0f}));
}

TEST(Npy, RoundTripsEveryDType) {
  const std::vector<Tensor> tensors = {
      Tensor::fromVector<float>({2, 1, 3}, {0.5f, -1.25f, 3e8f, -0.0f, 1e-30f, 7.0f}),
      Tensor::fromVector<int8_t>({3}, {-128, 5, 127}),
      Tensor::fromVector<uint8_t>({1, 2}, {0, 255}),
      Tensor::fromVector<int32_t>({2}, {-7, 1 << 30}),
      Tensor::fromVector<int64_t>({1, 1}, {int64_t{-1} << 50}),
      Tensor::fromVector<bool>({4}, {true, true, false, true}),
      Tensor::scalar(3.5f),
      Tensor(DType::I32, {2, 0, 5}),
  };
  for (size_t i = 0; i < tensors.size(); ++i) {
    const std::string path = tempPath("roundtrip" + std::to_string(i) + ".npy");
    writeNpy(path, tensors[i]);
    EXPECT_EQ(readNpy(path), tensors[i]) << "tensor " << i;
    // Version 1.0 with the data 64-byte aligned, as numpy writes it.
    const std::string bytes = readBytes(path);
    EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
    EXPECT_EQ((bytes.size() - tensors[i].sizeBytes()) % 64, 0u);
  }
}

TEST(Npy, WritesTheBytesNumpyWrites) {
  // For these small shapes numpy's header (with its growth padding) and ours pad to the same
  // 64-byte boundary, so the files are byte-identical.
  for (const char* name : {"f32_2x3.npy", "i8_4.npy", "u8_2x2.npy", "i32_3.npy", "i64_2.npy",
                           "bool_3.npy", "f32_scalar.npy", "f32_empty_0x3.npy"}) {
    const std::string path = tempPath(std::string("copy_") + name);
    writeNpy(path, readNpy(dataFile(name)));
    EXPECT_EQ(readBytes(path), readBytes(dataFile(name))) << name;
  }
}

TEST(Npy, MissingFileIsAnIoError) {
  const std::string path = tempPath("does_not_exist.npy");
  expectReadError(path, ErrorKind::Io, "cannot open file (No such file or directory)");
}

TEST(Npy, BadMagic) {
  expectReadError(writeBytes("magic.npy", "PK\x03\x04 not numpy at all"), ErrorKind::Io,
                  "not an npy file (bad magic)");
  expectReadError(writeBytes("empty.npy", ""), ErrorKind::Io, "not an npy file (bad magic)");
}

TEST(Npy, TruncatedHeader) {
  expectReadError(writeBytes("t1.npy", std::string("\x93NUMPY\x01", 7)), ErrorKind::Io,
                  "truncated npy header: file ends after the magic string");
  expectReadError(writeBytes("t2.npy", std::string("\x93NUMPY\x01\x00\x76", 9)), ErrorKind::Io,
                  "truncated npy header: file ends inside the header length");
  std::string file = npyV1(kF32Header2, kTwoFloats);
  expectReadError(writeBytes("t3.npy", file.substr(0, 30)), ErrorKind::Io,
                  "truncated npy header: header needs 58 bytes, file has 20");
}

TEST(Npy, UnsupportedVersion) {
  std::string file = npyV1(kF32Header2, kTwoFloats);
  file[6] = '\x03';
  expectReadError(writeBytes("v3.npy", file), ErrorKind::Io,
                  "unsupported npy format version 3.0 (expected 1.0 or 2.0)");
}

TEST(Npy, MalformedHeaders) {
  expectMalformed("h1.npy", "['descr', '<f4']", "malformed npy header: expected '{' at column 1");
  expectMalformed("h2.npy", "{'descr' '<f4', 'fortran_order': False, 'shape': (2,), }",
                  "malformed npy header: expected ':' at column 10");
  expectMalformed("h3.npy", "{'descr': '<f4, 'fortran_order': False}",
                  "malformed npy header: expected '}' at column 18");
}

TEST(Npy, MalformedHeaderKeysAndValues) {
  expectMalformed("k1.npy", "{'descr': '<f4', 'shape': (2,), }",
                  "malformed npy header: missing key 'fortran_order'");
  expectMalformed("k2.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}",
                  "malformed npy header: unexpected key 'x'");
  expectMalformed("k3.npy", "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False}",
                  "malformed npy header: duplicate key 'descr'");
  expectMalformed("k4.npy", "{'descr': '<f4', 'fortran_order': false, 'shape': (2,)}",
                  "malformed npy header: expected True or False at column 35");
  expectMalformed("k5.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}",
                  "malformed npy header: expected a non-negative integer dimension at column 52");
  expectMalformed("k6.npy",
                  "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}",
                  "malformed npy header: dimension too large at column 70");
  expectMalformed("k7.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x",
                  "malformed npy header: unexpected text after the header dictionary at column 57");
  expectMalformed("k8.npy", "{'descr': '<f4",
                  "malformed npy header: unterminated string at column 11");
  expectMalformed("k10.npy", "{'descr': '<\\x66'}",
                  "malformed npy header: escape sequences are not supported at column 11");
  expectMalformed("k9.npy", "{'descr': 4}", "malformed npy header: expected a string at column 11");
}

TEST(Npy, UnsupportedDTypesFromNumpy) {
  const std::string f64 = dataFile("f64_2.npy");
  expectReadError(f64, ErrorKind::Io,
                  "unsupported npy dtype '<f8' (expected one of <f4, |i1, |u1, <i4, <i8, |b1)");
  const std::string big = dataFile("f32_bigendian_2.npy");
  expectReadError(big, ErrorKind::Io,
                  "unsupported npy dtype '>f4' (expected one of <f4, |i1, |u1, <i4, <i8, |b1)");
}

TEST(Npy, FortranOrderIsUnsupported) {
  expectReadError(dataFile("f32_fortran_2x3.npy"), ErrorKind::Unsupported,
                  "fortran-order npy arrays are not supported (save with "
                  "numpy.ascontiguousarray)");
}

TEST(Npy, DataSizeMismatch) {
  expectReadError(writeBytes("d1.npy", npyV1(kF32Header2, kTwoFloats.substr(0, 5))), ErrorKind::Io,
                  "npy data size mismatch: shape 2 of f32 needs 8 bytes, file has 5");
  expectReadError(writeBytes("d2.npy", npyV1(kF32Header2, kTwoFloats + "xx")), ErrorKind::Io,
                  "npy data size mismatch: shape 2 of f32 needs 8 bytes, file has 10");
  const std::string huge =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }";
  expectReadError(writeBytes("d3.npy", npyV1(huge, kTwoFloats)), ErrorKind::Io,
                  "npy shape 4294967296x4294967296 is too large");
}

TEST(Npy, BoolBytesMustBeZeroOrOne) {
  const std::string header = "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }";
  expectReadError(writeBytes("b.npy", npyV1(header, std::string("\x01\x00\x02", 3))), ErrorKind::Io,
                  "npy bool element 2 has byte value 2 (expected 0 or 1)");
}

TEST(Npy, UnwritablePathIsAnIoError) {
  const std::string path = tempPath("no_such_dir") + "/x.npy";
  try {
    writeNpy(path, Tensor(DType::F32, {1}));
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_EQ(std::string(e.what()),
              path + ": cannot open file for writing (No such file or directory)");
  }
}
