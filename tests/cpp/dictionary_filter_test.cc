// filter_from_dictionary_page: the filter of a dictionary page's PLAIN
// values hashed where they lie equals the filter of the same values hashed
// one by one, and hostile pages are refused with errors, never read past.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "index/dictionary_filter.h"
#include "page_test_util.h"
#include "pqfast/hash.h"
#include "pqfast/sbbf.h"

namespace pqfast {
namespace {

namespace pq = pqfast::parquet;

using testing::dictionary_page;

// The filter built value by value, as the decoded path builds it.
std::vector<uint8_t> expected(const std::vector<uint64_t>& hashes, const pq::IndexOptions& opt) {
  auto f = Sbbf::for_ndv(opt.ndv > 0 ? opt.ndv : hashes.size(), opt.fpp);
  EXPECT_TRUE(f.ok());
  for (uint64_t h : hashes) f->insert_hash(h);
  f->fold(opt.fpp);
  return f->serialize();
}

TEST(DictionaryFilter, EqualsTheFilterOfTheValuesHashedOneByOne) {
  pq::IndexOptions opt;
  opt.fpp = 0.01;
  // INT64: 3000 values back to back.
  std::vector<uint8_t> body;
  std::vector<uint64_t> hashes;
  for (int64_t v = 0; v < 3000; ++v) {
    const int64_t x = v * 7919 - 12345;
    const auto* b = reinterpret_cast<const uint8_t*>(&x);
    body.insert(body.end(), b, b + 8);
    hashes.push_back(xxh64(&x, 8));
  }
  auto page = dictionary_page(body, 3000);
  auto f = pq::index::filter_from_dictionary_page(page.data(), page.size(), 4, PhysicalType::kInt64, 0, 0, opt, "t");
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_TRUE(f->from_dictionary);
  EXPECT_EQ(f->ndv, 3000u);
  EXPECT_EQ(f->bytes, expected(hashes, opt));

  // BYTE_ARRAY: length-prefixed, the empty value and long ones included.
  body.clear();
  hashes.clear();
  for (int i = 0; i < 1500; ++i) {
    const std::string s = i == 0 ? "" : std::string(static_cast<size_t>(i % 70), 'a') + std::to_string(i);
    const uint32_t l = static_cast<uint32_t>(s.size());
    const auto* b = reinterpret_cast<const uint8_t*>(&l);
    body.insert(body.end(), b, b + 4);
    body.insert(body.end(), s.begin(), s.end());
    hashes.push_back(xxh64(s.data(), s.size()));
  }
  page = dictionary_page(body, 1500);
  opt.ndv = 5000;  // a given ndv sizes the filter instead of the count
  f = pq::index::filter_from_dictionary_page(page.data(), page.size(), 4, PhysicalType::kByteArray, 0, 0, opt, "t");
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f->ndv, 5000u);
  EXPECT_EQ(f->bytes, expected(hashes, opt));
}

TEST(DictionaryFilter, HostilePagesAreRefused) {
  pq::IndexOptions opt;
  std::vector<uint8_t> ints(80, 1);
  auto expect_error = [&](const std::vector<uint8_t>& page, PhysicalType type, int32_t codec, const char* what) {
    auto f = pq::index::filter_from_dictionary_page(page.data(), page.size(), 0, type, 4, codec, opt, "t");
    EXPECT_FALSE(f.ok()) << what;
  };
  expect_error(dictionary_page(ints, 11), PhysicalType::kInt64, 0, "more values than bytes");
  expect_error(dictionary_page(ints, 1, 81), PhysicalType::kInt64, 0, "a body past the page");
  expect_error(dictionary_page(ints, 1, -1, 8), PhysicalType::kInt64, 0, "not PLAIN");
  // Lengths that run past the page, or are missing.
  std::vector<uint8_t> strings = {3, 0, 0, 0, 'a', 'b', 'c', 200, 0, 0, 0, 'x'};
  expect_error(dictionary_page(strings, 2), PhysicalType::kByteArray, 0, "a length past the page");
  expect_error(dictionary_page(strings, 3), PhysicalType::kByteArray, 0, "a missing length");
  // ZSTD (codec 6) saying 1 GiB from 80 bytes: refused before inflating.
  std::vector<uint8_t> big;
  thrift::CompactWriter w(&big);
  w.begin_struct();
  w.write_i32_field(1, 2);
  w.write_i32_field(2, 1 << 30);
  w.write_i32_field(3, 80);
  w.field_header(thrift::CType::kStruct, 7);
  w.begin_struct();
  w.write_i32_field(1, 10);
  w.write_i32_field(2, 0);
  w.end_struct();
  w.end_struct();
  big.insert(big.end(), ints.begin(), ints.end());
  expect_error(big, PhysicalType::kInt64, 6, "an inflation bomb");
  // Truncated anywhere: an error, not a read past the bytes.
  const auto good = dictionary_page(strings, 1);
  for (size_t n = 0; n < good.size(); ++n) {
    std::vector<uint8_t> cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n));
    auto f = pq::index::filter_from_dictionary_page(cut.data(), cut.size(), 0, PhysicalType::kByteArray, 0, 0, opt, "t");
    EXPECT_FALSE(f.ok()) << n;
  }
}

}  // namespace
}  // namespace pqfast
