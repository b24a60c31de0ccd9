#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "pqfast/hash.h"
#include "test_util.h"

#if defined(PQFAST_HAVE_LIBXXHASH)
#include <xxhash.h>
#endif

namespace pqfast {

// Published XXH64 values (xxHash's sanity tests): empty input and "a"/"abc".
TEST(Xxh64, KnownValues) {
  EXPECT_EQ(xxh64("", 0, 0), 0xEF46DB3751D8E999ULL);
  EXPECT_EQ(xxh64("a", 1, 0), 0xD24EC4F1A98C6E5BULL);
  EXPECT_EQ(xxh64("abc", 3, 0), 0x44BC2CF5AD770999ULL);
}

#if defined(PQFAST_HAVE_LIBXXHASH)
TEST(Xxh64, EqualsLibxxhashOnEveryLengthTo1024) {
  std::mt19937_64 rng(42);
  std::vector<uint8_t> buf(1024 + 8);
  for (auto& b : buf) b = static_cast<uint8_t>(rng());
  for (size_t len = 0; len <= 1024; ++len) {
    for (size_t misalign : {0, 1, 3}) {
      for (uint64_t seed : {uint64_t{0}, uint64_t{1}, rng()}) {
        ASSERT_EQ(xxh64(buf.data() + misalign, len, seed),
                  XXH64(buf.data() + misalign, len, seed))
            << "len " << len << " seed " << seed;
      }
    }
  }
}
#endif

TEST(Xxh64, TypedHelpersEqualOneShotOnEveryImplementation) {
  std::mt19937_64 rng(7);
  std::vector<int32_t> i32(1000);
  std::vector<int64_t> i64(1000);
  std::vector<float> f32(1000);
  std::vector<double> f64(1000);
  for (size_t i = 0; i < 1000; ++i) {
    i32[i] = static_cast<int32_t>(rng());
    i64[i] = static_cast<int64_t>(rng());
    f32[i] = static_cast<float>(static_cast<int64_t>(rng())) / 3.0f;
    f64[i] = static_cast<double>(static_cast<int64_t>(rng())) / 7.0;
  }
  // Edge values: 0, -1, extremes, -0.0, NaN payloads, infinities.
  i32[0] = 0; i32[1] = -1; i32[2] = INT32_MIN; i32[3] = INT32_MAX;
  i64[0] = 0; i64[1] = -1; i64[2] = INT64_MIN; i64[3] = INT64_MAX;
  f32[0] = -0.0f; f32[1] = std::numeric_limits<float>::quiet_NaN();
  f32[2] = std::numeric_limits<float>::infinity();
  uint32_t payload_nan = 0x7fc01234u;
  std::memcpy(&f32[3], &payload_nan, 4);
  f64[0] = -0.0; f64[1] = std::numeric_limits<double>::quiet_NaN();
  uint64_t payload_nan64 = 0xfff8000000abcdefULL;
  std::memcpy(&f64[2], &payload_nan64, 8);
  testing::for_each_simd_level([&](SimdLevel) {
    for (size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{1000}}) {
      std::vector<uint64_t> out(n);
      hash_int32(i32.data(), n, out.data());
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], xxh64(&i32[i], 4)) << i;
      hash_int64(i64.data(), n, out.data());
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], xxh64(&i64[i], 8)) << i;
      hash_float(f32.data(), n, out.data());
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], xxh64(&f32[i], 4)) << i;
      hash_double(f64.data(), n, out.data());
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], xxh64(&f64[i], 8)) << i;
    }
  });
}

TEST(Xxh64, ByteArraysAndFixedLen) {
  const std::string data = "helloworldparquet";
  const int64_t offsets[] = {0, 5, 10, 10, 17};
  uint64_t out[4];
  ASSERT_TRUE(hash_byte_arrays(reinterpret_cast<const uint8_t*>(data.data()), data.size(), offsets,
                               4, out)
                  .ok());
  EXPECT_EQ(out[0], xxh64("hello", 5));
  EXPECT_EQ(out[1], xxh64("world", 5));
  EXPECT_EQ(out[2], xxh64("", 0));
  EXPECT_EQ(out[3], xxh64("parquet", 7));
  const int64_t bad[] = {0, 5, 100};
  auto st = hash_byte_arrays(reinterpret_cast<const uint8_t*>(data.data()), data.size(), bad, 2, out);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("outside"), std::string::npos);

  uint8_t int96[24];
  for (int i = 0; i < 24; ++i) int96[i] = static_cast<uint8_t>(i * 7);
  ASSERT_TRUE(hash_fixed_width_values(PhysicalType::kInt96, int96, 24, 2, 0, out).ok());
  EXPECT_EQ(out[0], xxh64(int96, 12));
  EXPECT_EQ(out[1], xxh64(int96 + 12, 12));
  EXPECT_FALSE(hash_fixed_width_values(PhysicalType::kBoolean, int96, 24, 1, 0, out).ok());
  EXPECT_FALSE(hash_fixed_width_values(PhysicalType::kInt64, int96, 24, 4, 0, out).ok());
  EXPECT_FALSE(hash_fixed_width_values(PhysicalType::kFixedLenByteArray, int96, 24, 1, 0, out).ok());
}

}  // namespace pqfast
