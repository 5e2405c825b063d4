/// \file
/// readFileCapped (support/ReadFile.h), behind every loader: a file is read whole; a directory,
/// a device or a file above its cap is refused with one Io error naming it, before anything is
/// read (a device never ends: /dev/zero used to hang `disasm` and `--input`); a pipe is read
/// up to the cap.
#include "nnaccel/support/ReadFile.h"

#include "nnaccel/support/Error.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <unistd.h>

namespace nnaccel {
namespace {

namespace fs = std::filesystem;

std::string errorOf(const std::string& path, std::size_t maxBytes, std::string_view noun = "file") {
  try {
    readFileCapped(path, maxBytes, noun);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_EQ(e.context().file, path);
    return e.what();
  }
  return "accepted";
}

class ReadFileCapped : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("nnaccel_readfile_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& bytes) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  fs::path dir_;
};

TEST_F(ReadFileCapped, ReadsAFileWholeUpToItsCap) {
  const std::string path = write("a.txt", "hello");
  EXPECT_EQ(readFileCapped(path, 5), "hello");
  EXPECT_EQ(readFileCapped(write("empty", ""), 0), "");
  EXPECT_EQ(errorOf(path, 4), path + ": the file is larger than the 4-byte limit for its kind");
}

TEST_F(ReadFileCapped, DirectoriesDevicesAndMissingFilesAreRefusedNamingThem) {
  EXPECT_EQ(errorOf(dir_.string(), 100, "config file"),
            dir_.string() + ": is a directory, not a config file");
  EXPECT_EQ(errorOf("/dev/zero", kMaxDataFileBytes, "npy file"),
            "/dev/zero: is a device, not a npy file");
  EXPECT_EQ(errorOf("/dev/urandom", kMaxTextFileBytes), "/dev/urandom: is a device, not a file");
  const std::string missing = (dir_ / "missing").string();
  EXPECT_EQ(errorOf(missing, 100), missing + ": cannot open file (No such file or directory)");
}

TEST_F(ReadFileCapped, APipeIsReadUpToTheCap) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ASSERT_EQ(::write(fds[1], "0123456789", 10), 10);
  ::close(fds[1]);
  const std::string path = "/dev/fd/" + std::to_string(fds[0]);
  EXPECT_EQ(errorOf(path, 9), path + ": the file is larger than the 9-byte limit for its kind");
  ::close(fds[0]);
  ASSERT_EQ(::pipe(fds), 0);
  ASSERT_EQ(::write(fds[1], "0123456789", 10), 10);
  ::close(fds[1]);
  EXPECT_EQ(readFileCapped("/dev/fd/" + std::to_string(fds[0]), 10), "0123456789");
  ::close(fds[0]);
}

} // namespace
} // namespace nnaccel
