/// \file
/// Tests of support/Suggest.h: the edit distance and the "did you mean" choice.
#include "nnaccel/support/Suggest.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace nnaccel {
namespace {

TEST(Suggest, EditDistanceCountsSwapsAsOneEdit) {
  EXPECT_EQ(editDistance("", ""), 0u);
  EXPECT_EQ(editDistance("sever", "server"), 1u); // an insertion
  EXPECT_EQ(editDistance("systolc", "systolic"), 1u);
  EXPECT_EQ(editDistance("sytsolic", "systolic"), 1u); // a swap of neighbours
  EXPECT_EQ(editDistance("int9", "int8"), 1u);
  EXPECT_EQ(editDistance("abc", ""), 3u);
}

TEST(Suggest, NearestCandidateOnlyForTypos) {
  const std::vector<std::string> engines{"systolic", "sparse", "broadcast", "stream"};
  EXPECT_EQ(nearestCandidate("systolc", engines), "systolic");
  EXPECT_EQ(nearestCandidate("STREEM", engines), "stream");     // case-insensitive
  EXPECT_EQ(nearestCandidate("gpu", engines), std::nullopt);    // too far to be a typo
  EXPECT_EQ(nearestCandidate("sparse", engines), std::nullopt); // already valid
  const std::vector<std::string> zoo{"lenet5", "resnet18", "resnet50", "vgg16"};
  EXPECT_EQ(nearestCandidate("lenet", zoo), "lenet5");    // a prefix
  EXPECT_EQ(nearestCandidate("resnet", zoo), "resnet18"); // first on ties
  EXPECT_EQ(didYouMean("vgg", zoo), " (did you mean 'vgg16'?)");
  EXPECT_EQ(didYouMean("xyzzy", zoo), "");
}

} // namespace
} // namespace nnaccel
