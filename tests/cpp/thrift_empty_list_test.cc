// Thrift lists whose header names element type 0 (STOP). fastparquet writes
// such a header for every empty list (as Thrift's Python writer does), and
// Thrift's own readers accept it: only a non-empty list of type 0 is corrupt.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "parquet_test_util.h"
#include "pqfast/parquet.h"
#include "thrift/compact.h"

namespace {

using pqfast::thrift::CompactReader;
using pqfast::thrift::CType;

TEST(ThriftEmptyList, ElementTypeZeroIsAcceptedWhenEmpty) {
  const uint8_t empty[] = {0x00};
  CompactReader r(empty, sizeof empty, "x");
  auto h = r.read_list_header();
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_EQ(h->size, 0u);
  EXPECT_EQ(r.position(), 1u);

  // Long form of the size (nibble 15 then a varint 0) is empty too.
  const uint8_t long_empty[] = {0xf0, 0x00};
  CompactReader r2(long_empty, sizeof long_empty, "x");
  auto h2 = r2.read_list_header();
  ASSERT_TRUE(h2.ok()) << h2.error().to_string();
  EXPECT_EQ(h2->size, 0u);
}

TEST(ThriftEmptyList, ElementTypeZeroWithElementsIsCorrupt) {
  const uint8_t one[] = {0x10, 0x00};
  CompactReader r(one, sizeof one, "x");
  auto h = r.read_list_header();
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.error().to_string().find("element type 0"), std::string::npos) << h.error().to_string();
  const uint8_t many[] = {0xf0, 0x05, 0, 0, 0, 0, 0};
  CompactReader r2(many, sizeof many, "x");
  EXPECT_FALSE(r2.read_list_header().ok());
}

TEST(ThriftEmptyList, SkippingAStructWithAnEmptyTypeZeroList) {
  // struct { 1: list<?> = [] (header 0x00); 2: i32 = 7 } STOP
  const uint8_t s[] = {0x19, 0x00, 0x15, 0x0e, 0x00};
  CompactReader a(s, sizeof s, "x");
  ASSERT_TRUE(a.skip(CType::kStruct).ok());
  EXPECT_EQ(a.position(), sizeof s);
  CompactReader b(s, sizeof s, "x");
  ASSERT_TRUE(b.skip_recursive(CType::kStruct).ok());
  EXPECT_EQ(b.position(), sizeof s);
  // The same list holding one element of type 0 cannot be skipped.
  const uint8_t bad[] = {0x19, 0x10, 0x00, 0x00};
  CompactReader c(bad, sizeof bad, "x");
  EXPECT_FALSE(c.skip(CType::kStruct).ok());
  CompactReader d(bad, sizeof bad, "x");
  EXPECT_FALSE(d.skip_recursive(CType::kStruct).ok());
}

TEST(ThriftEmptyList, FastparquetFootersParse) {
  const std::string dir = std::string(PQFAST_TEST_DATA_DIR) + "/../../writers/";
  for (const char* name : {"fastparquet-snappy.parquet", "fastparquet-int96-gzip.parquet"}) {
    const auto bytes = pqfast::testing::read_all(dir + name);
    if (bytes.empty()) GTEST_SKIP() << "tests/data/writers not found";
    auto m = pqfast::parquet::parse_file_bytes(bytes.data(), bytes.size());
    ASSERT_TRUE(m.ok()) << name << ": " << m.error().to_string();
    EXPECT_EQ(m->num_rows, 600) << name;
  }
}

}  // namespace
