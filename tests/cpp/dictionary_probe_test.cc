// dictionary_lacks_values: a dictionary page (uncompressed or snappy) said
// to lack a few INT32/INT64 values exactly when no entry equals one of them,
// on every SIMD implementation; pages it cannot vouch for (another codec, a
// compressible stream, too many values, hostile headers and streams) answer
// "may hold", never a wrong "lacks", never a read past the page.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "page_test_util.h"
#include "scan/dictionary_probe.h"
#include "test_util.h"

#if defined(PQFAST_TEST_HAVE_SNAPPY)
#include <snappy-c.h>
#endif

namespace pqfast {
namespace {

using parquet::scan::dictionary_lacks_values;
using testing::dictionary_page;

template <typename T>
std::vector<uint8_t> plain(const std::vector<T>& v) {
  std::vector<uint8_t> out(v.size() * sizeof(T));
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

template <typename T>
std::vector<std::string> wanted(const std::vector<T>& v) {
  std::vector<std::string> out;
  for (T x : v) out.emplace_back(reinterpret_cast<const char*>(&x), sizeof(T));
  return out;
}

// The page of `values` under codec 0 (uncompressed) or 1 (snappy).
template <typename T>
std::vector<uint8_t> page_of(const std::vector<T>& values, int codec) {
  std::vector<uint8_t> body = plain(values);
  if (codec == 0) return dictionary_page(body, static_cast<int32_t>(values.size()));
#if defined(PQFAST_TEST_HAVE_SNAPPY)
  size_t clen = snappy_max_compressed_length(body.size());
  std::vector<uint8_t> comp(clen);
  EXPECT_EQ(snappy_compress(reinterpret_cast<const char*>(body.data()), body.size(),
                            reinterpret_cast<char*>(comp.data()), &clen),
            SNAPPY_OK);
  comp.resize(clen);
  return dictionary_page(comp, static_cast<int32_t>(values.size()), static_cast<int32_t>(clen), 0,
                         static_cast<int32_t>(body.size()));
#else
  return {};
#endif
}

std::vector<int> codecs() {
#if defined(PQFAST_TEST_HAVE_SNAPPY)
  return {0, 1};
#else
  return {0};
#endif
}

template <typename T>
bool lacks(const std::vector<uint8_t>& page, int codec, const std::vector<T>& want) {
  return dictionary_lacks_values(page.data(), page.size(), codec, sizeof(T), wanted(want));
}

template <typename T>
void check_random_dictionary(uint64_t seed) {
  std::mt19937_64 rng(seed);
  // Distinct random values, a count that is no multiple of a batch.
  std::set<T> seen;
  std::vector<T> dict;
  while (dict.size() < 100003) {
    const T x = static_cast<T>(rng());
    if (seen.insert(x).second) dict.push_back(x);
  }
  auto absent = [&] {
    for (;;) {
      const T x = static_cast<T>(rng());
      if (!seen.count(x)) return x;
    }
  };
  for (int codec : codecs()) {
    SCOPED_TRACE("codec " + std::to_string(codec));
    const std::vector<uint8_t> page = page_of(dict, codec);
    testing::for_each_simd_level([&](SimdLevel) {
      EXPECT_TRUE(lacks<T>(page, codec, {absent()}));
      EXPECT_TRUE(lacks<T>(page, codec, {absent(), absent(), absent(), absent(), absent()}));
      EXPECT_TRUE(lacks<T>(page, codec, {}));  // no value can match
      // Present at the ends, at batch and snappy-block edges, in a set of absent ones.
      const size_t per_batch = 4096 / sizeof(T), per_block = 65536 / sizeof(T);
      for (size_t at : {size_t{0}, per_batch - 1, per_batch, per_block - 1, per_block, per_block + 1,
                        dict.size() / 2, dict.size() - 1}) {
        EXPECT_FALSE(lacks<T>(page, codec, {dict[at]})) << at;
        EXPECT_FALSE(lacks<T>(page, codec, {absent(), dict[at], absent()})) << at;
      }
      // Random sets against the truth.
      for (int t = 0; t < 40; ++t) {
        std::vector<T> want;
        bool any = false;
        const size_t m = 1 + rng() % 16;
        for (size_t i = 0; i < m; ++i) {
          const bool in = rng() % 8 == 0;
          want.push_back(in ? dict[rng() % dict.size()] : absent());
          any |= in;
        }
        EXPECT_EQ(lacks<T>(page, codec, want), !any);
      }
      // More values than the probe compares: it cannot tell.
      std::vector<T> many;
      for (int i = 0; i < 17; ++i) many.push_back(absent());
      EXPECT_FALSE(lacks<T>(page, codec, many));
    });
  }
}

TEST(DictionaryProbe, Int64PagesLackExactlyTheValuesNoEntryEquals) { check_random_dictionary<uint64_t>(1); }
TEST(DictionaryProbe, Int32PagesLackExactlyTheValuesNoEntryEquals) { check_random_dictionary<uint32_t>(2); }

#if defined(PQFAST_TEST_HAVE_SNAPPY)
// A snappy stream of `raw` written by hand: literals, except the regions
// (output start, length, distance back) given, written as copies (tag 10:
// 1..64 bytes from up to 64 KiB back) of the bytes they repeat.
std::vector<uint8_t> snappy_with_copies(const std::vector<uint8_t>& raw,
                                        const std::vector<std::array<size_t, 3>>& copies) {
  std::vector<uint8_t> out;
  for (size_t v = raw.size();; v >>= 7) {
    out.push_back(static_cast<uint8_t>((v & 0x7f) | (v >= 0x80 ? 0x80 : 0)));
    if (v < 0x80) break;
  }
  auto literal = [&](size_t from, size_t n) {
    while (n > 0) {
      const size_t l = std::min<size_t>(n, 65536);
      out.push_back(62 << 2);  // a literal whose length-1 follows in 3 bytes
      for (int b = 0; b < 3; ++b) out.push_back(static_cast<uint8_t>((l - 1) >> (8 * b)));
      out.insert(out.end(), raw.begin() + static_cast<long>(from), raw.begin() + static_cast<long>(from + l));
      from += l;
      n -= l;
    }
  };
  size_t at = 0;
  for (const auto& [start, len, back] : copies) {
    literal(at, start - at);
    for (size_t done = 0; done < len;) {
      const size_t l = std::min<size_t>(64, len - done);
      out.push_back(static_cast<uint8_t>(((l - 1) << 2) | 2));
      out.push_back(static_cast<uint8_t>(back));
      out.push_back(static_cast<uint8_t>(back >> 8));
      done += l;
    }
    at = start + len;
  }
  literal(at, raw.size() - at);
  return out;
}

// Values only a copy holds are found (and values a copy repeats with a
// period shorter than itself: an overlapping copy).
TEST(DictionaryProbe, ValuesInsideSnappyCopiesAreFound) {
  std::mt19937_64 rng(5);
  std::vector<uint64_t> dict;
  for (int i = 0; i < 20000; ++i) dict.push_back(rng());
  // 1 KB regions repeating bytes 4 KB + 4 bytes back: off the values' grid,
  // so their values lie nowhere else on it; one region repeating 12 bytes.
  std::vector<std::array<size_t, 3>> copies;
  std::vector<size_t> regions;
  for (size_t i = 3000; i + 128 < dict.size(); i += 4000) {
    const size_t back = 4096 + 4;
    std::memcpy(&dict[i], reinterpret_cast<const uint8_t*>(&dict[i]) - back, 128 * 8);
    copies.push_back({i * 8, 128 * 8, back});
    regions.push_back(i);
  }
  {
    const size_t i = 19600, back = 12;
    for (size_t b = 0; b < 64 * 8; ++b) {
      reinterpret_cast<uint8_t*>(&dict[i])[b] = reinterpret_cast<uint8_t*>(&dict[i])[static_cast<long>(b) - 12];
    }
    copies.push_back({i * 8, 64 * 8, back});
    regions.push_back(i);
  }
  const std::vector<uint8_t> body = plain(dict);
  const std::vector<uint8_t> comp = snappy_with_copies(body, copies);
  // (the hand-made stream inflates to the values: snappy itself agrees)
  std::vector<uint8_t> check(body.size());
  size_t n = check.size();
  ASSERT_EQ(snappy_uncompress(reinterpret_cast<const char*>(comp.data()), comp.size(),
                              reinterpret_cast<char*>(check.data()), &n),
            SNAPPY_OK);
  ASSERT_EQ(check, body);
  const std::vector<uint8_t> page =
      dictionary_page(comp, static_cast<int32_t>(dict.size()), static_cast<int32_t>(comp.size()), 0,
                      static_cast<int32_t>(body.size()));
  testing::for_each_simd_level([&](SimdLevel) {
    for (size_t i : regions) {
      for (size_t k : {size_t{1}, size_t{40}, size_t{63}}) {
        EXPECT_FALSE(lacks<uint64_t>(page, 1, {dict[i + k]})) << i + k;
      }
    }
    EXPECT_TRUE(lacks<uint64_t>(page, 1, {0x0123456789abcdefull}));
  });
}

// A compressible page (few distinct bytes) is left to the full decode.
TEST(DictionaryProbe, CompressiblePagesAreLeftToTheDecoder) {
  std::vector<uint64_t> dict;
  for (uint64_t i = 0; i < 50000; ++i) dict.push_back(i % 7);
  const std::vector<uint8_t> page = page_of(dict, 1);
  EXPECT_FALSE(lacks<uint64_t>(page, 1, {12345}));
}
#endif

// Hostile or unusual pages: "may hold", nothing read past the page (ASan).
TEST(DictionaryProbe, PagesItCannotVouchForMayHold) {
  std::vector<uint64_t> dict(1000);
  for (size_t i = 0; i < dict.size(); ++i) dict[i] = i * 3;
  const std::vector<uint8_t> body = plain(dict);
  const std::vector<uint8_t> page = dictionary_page(body, 1000);
  ASSERT_TRUE(lacks<uint64_t>(page, 0, {1}));
  ASSERT_FALSE(lacks<uint64_t>(page, 0, {3}));
  const std::vector<std::string> one = wanted<uint64_t>({1});
  // Other codecs and widths, values of another width.
  EXPECT_FALSE(dictionary_lacks_values(page.data(), page.size(), 6, 8, one));
  EXPECT_FALSE(dictionary_lacks_values(page.data(), page.size(), 0, 16, one));
  EXPECT_FALSE(dictionary_lacks_values(page.data(), page.size(), 0, 4, one));
  // Cut pages, a count past the body, another encoding, a data page.
  for (size_t cut : {size_t{0}, size_t{3}, page.size() / 2, page.size() - 1}) {
    EXPECT_FALSE(dictionary_lacks_values(page.data(), cut, 0, 8, one)) << cut;
  }
  const std::vector<uint8_t> more = dictionary_page(body, 1001);
  EXPECT_FALSE(lacks<uint64_t>(more, 0, {1}));
  const std::vector<uint8_t> rle = dictionary_page(body, 1000, -1, 3);
  EXPECT_FALSE(lacks<uint64_t>(rle, 0, {1}));
  std::vector<uint8_t> data_page = page;
  data_page[1] = 0;  // PageHeader.type = DATA_PAGE (lacks its header: refused)
  EXPECT_FALSE(lacks<uint64_t>(data_page, 0, {1}));
  // Random corruptions never crash and never claim more than the truth allows.
  std::mt19937_64 rng(9);
  for (int codec : codecs()) {
    const std::vector<uint8_t> good = page_of(dict, codec);
    for (int t = 0; t < 300; ++t) {
      std::vector<uint8_t> bad = good;
      bad[rng() % bad.size()] = static_cast<uint8_t>(rng());
      (void)lacks<uint64_t>(bad, codec, {3, 5});
    }
  }
}

}  // namespace
}  // namespace pqfast
