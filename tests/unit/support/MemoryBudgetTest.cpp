/// \file
/// The memory budget (support/MemoryBudget.h): sizes printed and parsed as --max-memory takes
/// them, and requireMemory's refusal with the estimate and the limit.
#include "nnaccel/support/MemoryBudget.h"

#include "nnaccel/support/Error.h"

#include <gtest/gtest.h>

namespace nnaccel {
namespace {

TEST(MemoryBudget, SizesPrintInBinaryUnits) {
  EXPECT_EQ(byteSizeText(17), "17 B");
  EXPECT_EQ(byteSizeText(1536), "1.5 KiB");
  EXPECT_EQ(byteSizeText(std::uint64_t{128} << 30), "128 GiB");
}

TEST(MemoryBudget, SizesParseWithOptionalBinarySuffixes) {
  EXPECT_EQ(parseByteSize("1000000"), 1000000u);
  EXPECT_EQ(parseByteSize("64k"), 65536u);
  EXPECT_EQ(parseByteSize("512M"), std::uint64_t{512} << 20);
  EXPECT_EQ(parseByteSize("8G"), std::uint64_t{8} << 30);
  EXPECT_EQ(parseByteSize("1.5GiB"), std::uint64_t{3} << 29);
  EXPECT_EQ(parseByteSize("2GB"), std::uint64_t{2} << 30);
  for (const char* bad : {"", "0", "-1G", "8X", "G", "1e30", "nan", "8 G"})
    EXPECT_EQ(parseByteSize(bad), std::nullopt) << bad;
}

TEST(MemoryBudget, RequireMemoryRefusesBeyondTheBudgetWithBothFigures) {
  setMemoryBudgetBytes(std::uint64_t{1} << 20);
  EXPECT_EQ(memoryBudgetBytes(), std::uint64_t{1} << 20);
  EXPECT_NO_THROW(requireMemory(std::uint64_t{1} << 20, "exactly the budget"));
  try {
    requireMemory(std::uint64_t{3} << 20, "a test structure");
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_STREQ(e.what(),
                 "a test structure would take 3 MiB, more than the memory budget of 1 MiB "
                 "(--max-memory)");
  }
  setMemoryBudgetBytes(0); // back to the default: a fraction of this machine's memory
  EXPECT_GT(memoryBudgetBytes(), std::uint64_t{1} << 20);
}

} // namespace
} // namespace nnaccel
