// Thrift fields of an unexpected wire type are skipped by their wire type,
// as Thrift-generated readers skip them (issue 34): in KeyValue metadata
// (fastparquet 0.8 wrote integer values), page headers and page indexes; a
// required field so skipped is reported missing; every truncation still errors.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "pqfast/page_index.h"
#include "pqfast/parquet.h"

namespace pqfast {
namespace {

namespace pq = pqfast::parquet;

std::string compat_path(const std::string& name) {
  return std::string(PQFAST_TEST_DATA_DIR) + "/../../compat/" + name;
}

// Compact-protocol field header with a delta id (1..15).
void field(std::vector<uint8_t>& b, int delta, int type) { b.push_back(static_cast<uint8_t>((delta << 4) | type)); }
void varint(std::vector<uint8_t>& b, uint64_t v) {
  while (v >= 0x80) {
    b.push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  b.push_back(static_cast<uint8_t>(v));
}
void i32(std::vector<uint8_t>& b, int delta, int32_t v) {
  field(b, delta, 5);
  varint(b, (static_cast<uint32_t>(v) << 1) ^ static_cast<uint32_t>(v >> 31));
}

TEST(ThriftTolerance, KeyValueWithAnIntegerValueReads) {
  auto f = pq::LocalFile::open(compat_path("kv_int_value.parquet"));
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  auto m = pq::read_file_metadata(**f);
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  ASSERT_EQ(m->key_value_metadata.size(), 2u);
  EXPECT_EQ(m->key_value_metadata[0].key, "fastparquet.version");
  EXPECT_FALSE(m->key_value_metadata[0].value.has_value());  // the i64 skipped
  EXPECT_EQ(m->key_value_metadata[1].value.value_or(""), "fastparquet 0.8");
}

TEST(ThriftTolerance, PageHeaderFieldsOfAnotherWireTypeAreSkipped) {
  auto f = pq::LocalFile::open(compat_path("page_header_mistyped.parquet"));
  ASSERT_TRUE(f.ok());
  auto m = pq::read_file_metadata(**f);
  ASSERT_TRUE(m.ok());
  auto hs = pq::read_page_headers(**f, m->row_groups[0].columns[0]);
  ASSERT_TRUE(hs.ok()) << hs.error().to_string();
  ASSERT_EQ(hs->size(), 2u);
  EXPECT_EQ((*hs)[0].data_page.num_values, 3);
  EXPECT_FALSE((*hs)[0].crc.has_value());  // a binary where an i32 belongs
  EXPECT_EQ((*hs)[1].data_page.num_values, 2);
}

TEST(ThriftTolerance, RequiredFieldOfAnotherWireTypeIsMissing) {
  // PageHeader{type 0, sizes 4/4, data_page_header{num_values as i64, encoding, levels}}.
  for (int num_values_type : {5, 6}) {
    std::vector<uint8_t> b;
    i32(b, 1, 0);
    i32(b, 1, 4);
    i32(b, 1, 4);
    field(b, 2, 12);  // field 5: struct
    field(b, 1, num_values_type);
    varint(b, 6);  // 3
    i32(b, 1, 0);
    i32(b, 1, 3);
    i32(b, 1, 3);
    b.push_back(0);
    b.push_back(0);
    auto h = pq::parse_page_header(b.data(), b.size());
    if (num_values_type == 5) {
      ASSERT_TRUE(h.ok()) << h.error().to_string();
      EXPECT_EQ(h->data_page.num_values, 3);
    } else {
      ASSERT_FALSE(h.ok());
      EXPECT_NE(h.error().message.find("DataPageHeader lacks a required field"), std::string::npos)
          << h.error().message;
    }
    for (size_t cut = 0; cut < b.size(); ++cut) EXPECT_FALSE(pq::parse_page_header(b.data(), cut).ok());
  }
}

TEST(ThriftTolerance, OffsetIndexLocationFieldOfAnotherTypeIsSkipped) {
  // OffsetIndex{page_locations: [{offset 4, size 10 (as a binary too), first_row 0}]}.
  std::vector<uint8_t> b;
  field(b, 1, 9);
  b.push_back(0x1C);  // one struct
  field(b, 1, 6);
  varint(b, 8);  // offset 4
  i32(b, 1, 10);
  field(b, 1, 6);
  varint(b, 0);        // first_row_index 0
  field(b, 1, 8);      // field 4 (unknown) as a binary
  varint(b, 2);
  b.push_back('x');
  b.push_back('y');
  b.push_back(0);
  b.push_back(0);
  auto oi = pq::parse_offset_index(b.data(), b.size());
  ASSERT_TRUE(oi.ok()) << oi.error().to_string();
  ASSERT_EQ(oi->page_locations.size(), 1u);
  EXPECT_EQ(oi->page_locations[0].offset, 4);
  EXPECT_EQ(oi->page_locations[0].compressed_page_size, 10);
}

}  // namespace
}  // namespace pqfast
