// Tests for node attributes (src/ir/Attribute.cpp): type names, typed lookup with defaults,
// the int-for-float leniency of getFloat, and the type-mismatch error naming the attribute.
#include "nnaccel/ir/Attribute.h"

#include "GraphBuilder.h"

#include <gtest/gtest.h>

using namespace nnaccel;
using namespace nnaccel::ir;
using namespace nnaccel::ir::test;

TEST(Attribute, TypeNames) {
  EXPECT_EQ(attrTypeName(AttrValue(int64_t{1})), "int");
  EXPECT_EQ(attrTypeName(AttrValue(1.0f)), "float");
  EXPECT_EQ(attrTypeName(AttrValue(std::string("s"))), "string");
  EXPECT_EQ(attrTypeName(AttrValue(std::vector<int64_t>{1})), "ints");
  EXPECT_EQ(attrTypeName(AttrValue(std::vector<float>{1})), "floats");
  EXPECT_EQ(attrTypeName(AttrValue(std::vector<std::string>{"s"})), "strings");
  EXPECT_EQ(attrTypeName(AttrValue(Tensor::scalar(1.0f))), "tensor");
}

TEST(Attribute, MapEditsAndTypedLookup) {
  AttrMap m;
  EXPECT_TRUE(m.empty());
  m.set("group", int64_t{2});
  m.set("alpha", 0.5f);
  m.set("mode", std::string("nearest"));
  m.set("pads", std::vector<int64_t>{1, 2});
  m.set("scales", std::vector<float>{1.5f});
  EXPECT_FALSE(m.empty());
  EXPECT_TRUE(m.has("group"));
  EXPECT_FALSE(m.has("axis"));
  EXPECT_EQ(m.all().size(), 5u);
  ASSERT_NE(m.find<int64_t>("group"), nullptr);
  EXPECT_EQ(*m.find<int64_t>("group"), 2);
  EXPECT_EQ(m.find<int64_t>("axis"), nullptr);
  EXPECT_EQ(m.getInt("group", 1), 2);
  EXPECT_EQ(m.getInt("axis", -1), -1);
  EXPECT_EQ(m.getFloat("alpha", 0.0f), 0.5f);
  EXPECT_EQ(m.getFloat("beta", 0.25f), 0.25f);
  EXPECT_EQ(m.getString("mode", ""), "nearest");
  EXPECT_EQ(m.getString("other", "dflt"), "dflt");
  EXPECT_EQ(m.getInts("pads", {}), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(m.getInts("strides", {1, 1}), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(m.getFloats("scales", {}), (std::vector<float>{1.5f}));
  EXPECT_EQ(m.getFloats("none", {2.0f}), (std::vector<float>{2.0f}));
  // Exporters write integral float attributes as ints: getFloat accepts them.
  EXPECT_EQ(m.getFloat("group", 0.0f), 2.0f);

  AttrMap same = m;
  EXPECT_TRUE(same == m);
  same.set("group", int64_t{3}); // set replaces
  EXPECT_EQ(same.getInt("group", 0), 3);
  EXPECT_FALSE(same == m);
  same.erase("group");
  EXPECT_FALSE(same.has("group"));
  same.erase("absent"); // erasing an absent name is a no-op
  EXPECT_EQ(same.all().size(), 4u);
}

TEST(Attribute, TypeMismatchNamesTheAttribute) {
  AttrMap m;
  m.set("group", 2.0f);
  m.set("pads", std::vector<float>{1});
  Error e(ErrorKind::Model, {}, "");
  try {
    m.getInt("group", 1);
    FAIL() << "no error";
  } catch (const Error& caught) {
    e = caught;
  }
  EXPECT_EQ(e.kind(), ErrorKind::Model);
  EXPECT_EQ(e.context().key, "group");
  EXPECT_STREQ(e.what(), "'group': attribute has type float, which this op does not accept");
  EXPECT_EQ(errorOf([&] { m.getInts("pads", {}); }),
            "'pads': attribute has type floats, which this op does not accept");
  EXPECT_EQ(errorOf([&] { m.getString("group", ""); }),
            "'group': attribute has type float, which this op does not accept");
  EXPECT_EQ(errorOf([&] { m.getFloats("group", {}); }),
            "'group': attribute has type float, which this op does not accept");
  m.set("mode", std::string("x"));
  EXPECT_EQ(errorOf([&] { m.getFloat("mode", 0.0f); }),
            "'mode': attribute has type string, which this op does not accept");
  EXPECT_EQ(errorOf([&] { m.find<Tensor>("mode"); }),
            "'mode': attribute has type string, which this op does not accept");
}
