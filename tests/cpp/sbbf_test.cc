#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "pqfast/hash.h"
#include "pqfast/sbbf.h"
#include "test_util.h"

namespace pqfast {
namespace {

// A textbook probe written independently of the library, straight from
// BloomFilter.md with the early exit every reference reader uses.
bool textbook_check(const std::vector<uint8_t>& bitset, uint64_t hash) {
  const uint64_t num_blocks = bitset.size() / 32;
  const uint64_t block = ((hash >> 32) * num_blocks) >> 32;
  const uint32_t key = static_cast<uint32_t>(hash);
  for (int i = 0; i < 8; ++i) {
    uint32_t word;
    std::memcpy(&word, bitset.data() + block * 32 + i * 4, 4);
    if ((word & (uint32_t{1} << ((key * kSbbfSalt[i]) >> 27))) == 0) return false;
  }
  return true;
}

std::vector<uint8_t> bytes_of(const Sbbf& f) {
  return std::vector<uint8_t>(f.data(), f.data() + f.num_bytes());
}

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

// Block counts: one block, odd and non-power-of-two counts (parquet-java can
// write them), and powers of two.
const size_t kBlockCounts[] = {1, 2, 3, 7, 100, 1024, 4099};

}  // namespace

TEST(Sbbf, EveryImplementationBuildsTheSameBytesAndAnswers) {
  // >= 1e6 (hash, filter) pairs per implementation per default run.
  const size_t queries_per_filter = 1'000'000 / std::size(kBlockCounts) + 1;
  uint64_t seed = 1;
  for (size_t blocks : kBlockCounts) {
    SCOPED_TRACE("blocks " + std::to_string(blocks));
    const auto inserted = testing::random_u64(blocks * 20, seed++);
    Sbbf reference = *Sbbf::with_num_bytes(blocks * 32);
    {
      testing::ScopedSimdLevel scalar(SimdLevel::kScalar);
      reference.insert_hashes(inserted.data(), inserted.size());
    }
    // Half the queries were inserted, half are random.
    auto queries = testing::random_u64(queries_per_filter, seed++);
    for (size_t i = 0; i < queries.size(); i += 2) queries[i] = inserted[i % inserted.size()];
    std::vector<uint8_t> expected(queries.size());
    for (size_t i = 0; i < queries.size(); ++i) {
      expected[i] = textbook_check(bytes_of(reference), queries[i]) ? 1 : 0;
      if (i > 10000) break;  // the textbook loop is slow; the scalar kernel covers the rest
    }
    {
      testing::ScopedSimdLevel scalar(SimdLevel::kScalar);
      std::vector<uint8_t> got(queries.size());
      reference.check_hashes(queries.data(), queries.size(), got.data());
      for (size_t i = 0; i <= 10000 && i < queries.size(); ++i) ASSERT_EQ(got[i], expected[i]) << i;
      expected = got;
    }
    testing::for_each_simd_level([&](SimdLevel) {
      Sbbf batch = *Sbbf::with_num_bytes(blocks * 32);
      batch.insert_hashes(inserted.data(), inserted.size());
      ASSERT_EQ(bytes_of(batch), bytes_of(reference));
      Sbbf single = *Sbbf::with_num_bytes(blocks * 32);
      for (uint64_t h : inserted) single.insert_hash(h);
      ASSERT_EQ(bytes_of(single), bytes_of(reference));

      std::vector<uint8_t> got(queries.size(), 0xAA);
      reference.check_hashes(queries.data(), queries.size(), got.data());
      ASSERT_EQ(got, expected);
      for (size_t i = 0; i < 5000; ++i) {
        ASSERT_EQ(reference.check_hash(queries[i]) ? 1 : 0, expected[i]) << i;
      }
      for (size_t i = 0; i < inserted.size(); ++i) ASSERT_TRUE(reference.check_hash(inserted[i]));
    });
  }
}

TEST(Sbbf, LongDifferentialRun) {
  if (!testing::long_tests_enabled()) GTEST_SKIP() << "set PQFAST_LONG_TESTS=1 for >= 1e9 pairs";
  // 1e9 (query, filter) pairs per implementation, over filters from 1 block
  // to 4 MiB, compared with the scalar reference chunk by chunk.
  const size_t chunk = 1 << 20;
  uint64_t total = 0;
  uint64_t seed = 1000;
  while (total < 1'000'000'000ULL) {
    const size_t blocks = 1 + (seed * 2654435761ULL) % (1 << 17);
    Sbbf f = *Sbbf::with_num_bytes(blocks * 32);
    const auto inserted = testing::random_u64(blocks * 10, seed++);
    f.insert_hashes(inserted.data(), inserted.size());
    const auto queries = testing::random_u64(chunk, seed++);
    std::vector<uint8_t> expected(chunk), got(chunk);
    {
      testing::ScopedSimdLevel scalar(SimdLevel::kScalar);
      f.check_hashes(queries.data(), chunk, expected.data());
    }
    testing::for_each_simd_level([&](SimdLevel) {
      f.check_hashes(queries.data(), chunk, got.data());
      ASSERT_EQ(got, expected);
    });
    total += chunk;
  }
}

TEST(Sbbf, OptimalSizeMatchesArrowFormula) {
  EXPECT_EQ(Sbbf::optimal_num_bytes(0, 0.01), 32u);
  EXPECT_EQ(Sbbf::optimal_num_bytes(1, 0.01), 32u);
  // m = -8 * 1e6 / ln(1 - 0.01^(1/8)) = 9.58e6 bits -> 2^24 bits = 2 MiB
  EXPECT_EQ(Sbbf::optimal_num_bytes(1'000'000, 0.01), size_t{2} << 20);
  EXPECT_EQ(Sbbf::optimal_num_bytes(1ULL << 40, 0.01), size_t{128} << 20);
  for (uint64_t ndv : {10, 1000, 123456}) {
    const size_t b = Sbbf::optimal_num_bytes(ndv, 0.05);
    EXPECT_EQ(b & (b - 1), 0u) << "power of two";
  }
  EXPECT_FALSE(Sbbf::for_ndv(10, 0.0).ok());
  EXPECT_FALSE(Sbbf::for_ndv(10, 1.0).ok());
}

TEST(Sbbf, RejectsIllegalSizes) {
  for (size_t bad : {size_t{0}, size_t{31}, size_t{33}, size_t{48}}) {
    auto f = Sbbf::with_num_bytes(bad);
    ASSERT_FALSE(f.ok()) << bad;
    EXPECT_EQ(f.error().code, ErrorCode::kInvalidArgument);
    EXPECT_NE(f.error().message.find("multiple of 32"), std::string::npos);
  }
  uint8_t buf[64] = {};
  EXPECT_TRUE(SbbfView::make(buf, 64).ok());
  EXPECT_FALSE(SbbfView::make(buf, 40).ok());
}

TEST(Sbbf, HeaderRoundTripAndArrowBytes) {
  // The 16 bytes parquet-java and Arrow write before a 1024-byte bitset.
  const std::vector<uint8_t> header = serialize_sbbf_header(1024);
  // numBytes: i32 field 1, zigzag varint 2048; algorithm, hash and
  // compression: struct fields with id deltas of 1, each a union holding an
  // empty struct as member 1; then the stop byte.
  const std::vector<uint8_t> expected = {0x15, 0x80, 0x10, 0x1c, 0x1c, 0x00, 0x00, 0x1c,
                                         0x1c, 0x00, 0x00, 0x1c, 0x1c, 0x00, 0x00, 0x00};
  EXPECT_EQ(header, expected);
  // And exactly what parquet-mr wrote in front of bloom_filter.xxhash.bin.
  const auto file = read_file(std::string(PQFAST_TEST_DATA_DIR) + "/bloom_filter.xxhash.bin");
  ASSERT_GE(file.size(), 16u);
  EXPECT_EQ(std::vector<uint8_t>(file.begin(), file.begin() + 16), expected);
  auto parsed = parse_sbbf_header(header.data(), header.size());
  ASSERT_TRUE(parsed.ok()) << parsed.error().to_string();
  EXPECT_EQ(parsed->num_bytes, 1024u);
  EXPECT_EQ(parsed->header_size, 16u);
}

TEST(Sbbf, ParseRejectsMalformedInput) {
  Sbbf f = *Sbbf::with_num_bytes(64);
  f.insert_hash(12345);
  std::vector<uint8_t> bytes = f.serialize();
  size_t consumed = 0;
  auto ok = Sbbf::parse(bytes.data(), bytes.size(), &consumed);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(consumed, bytes.size());
  EXPECT_TRUE(ok->check_hash(12345));
  // Every truncation is an error, never a crash or over-read.
  for (size_t len = 0; len < bytes.size(); ++len) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + len);  // exact-size heap copy
    auto r = Sbbf::parse(cut.data(), cut.size());
    ASSERT_FALSE(r.ok()) << len;
    EXPECT_EQ(r.error().code, ErrorCode::kTruncated) << len << " " << r.error().to_string();
  }
  // numBytes not a multiple of 32, negative, or huge.
  for (int32_t n : {0, 33, -32, 0x7fffffff}) {
    std::vector<uint8_t> h = serialize_sbbf_header(static_cast<uint32_t>(n));
    h.resize(h.size() + 64, 0);
    auto r = Sbbf::parse(h.data(), h.size());
    ASSERT_FALSE(r.ok()) << n;
  }
  // An unknown hash (field 3, member 2).
  std::vector<uint8_t> h = serialize_sbbf_header(1024);
  ASSERT_EQ(h[8], 0x1c);  // hash union's member header
  h[8] = 0x2c;            // member id 2
  h.resize(h.size() + 1024, 0);
  auto r = Sbbf::parse(h.data(), h.size());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kUnsupported);
  EXPECT_NE(r.error().message.find("hash"), std::string::npos) << r.error().message;
}

TEST(Sbbf, FoldKeepsEveryInsertedKeyAndHalvesSize) {
  Sbbf f = *Sbbf::for_ndv(100000, 0.01);
  const size_t before = f.num_bytes();
  const auto keys = testing::random_u64(1000, 99);
  f.insert_hashes(keys.data(), keys.size());
  const uint32_t folds = f.fold(0.01);
  EXPECT_GT(folds, 0u);
  EXPECT_EQ(f.num_bytes(), before >> folds);
  for (uint64_t k : keys) ASSERT_TRUE(f.check_hash(k));
  // The folded filter still meets roughly the target on random queries.
  const auto probes = testing::random_u64(200000, 5);
  size_t hits = 0;
  for (uint64_t p : probes) hits += f.check_hash(p);
  EXPECT_LT(static_cast<double>(hits) / probes.size(), 0.03);

  Sbbf empty = *Sbbf::with_num_bytes(4096);
  EXPECT_EQ(empty.fold(0.01), 0u);
  EXPECT_EQ(empty.num_bytes(), 32u);
}

TEST(Sbbf, TypedInsertAndCheck) {
  testing::for_each_simd_level([](SimdLevel) {
    Sbbf f = *Sbbf::with_num_bytes(1024);
    const int64_t values[] = {1, -5, 1LL << 40};
    ASSERT_TRUE(f.insert_values(PhysicalType::kInt64, reinterpret_cast<const uint8_t*>(values),
                                sizeof(values), 3, 0)
                    .ok());
    for (int64_t v : values) EXPECT_TRUE(f.check_hash(xxh64(&v, 8)));
    uint8_t out[3];
    ASSERT_TRUE(f.view()
                    .check_values(PhysicalType::kInt64, reinterpret_cast<const uint8_t*>(values),
                                  sizeof(values), 3, 0, out)
                    .ok());
    EXPECT_EQ(out[0] + out[1] + out[2], 3);
    EXPECT_FALSE(f.insert_values(PhysicalType::kBoolean, nullptr, 0, 0, 0).ok());
    EXPECT_FALSE(f.insert_values(PhysicalType::kInt64, reinterpret_cast<const uint8_t*>(values),
                                 sizeof(values), 4, 0)
                     .ok());
  });
}

TEST(Sbbf, ParquetTestingXxhashBinHoldsItsFourStrings) {
  const auto bytes = read_file(std::string(PQFAST_TEST_DATA_DIR) + "/bloom_filter.xxhash.bin");
  ASSERT_EQ(bytes.size(), 16u + 1024u);
  EXPECT_EQ(xxh64("Hello", 5), 0x0a75a91375b27d44ULL);
  testing::for_each_simd_level([&](SimdLevel) {
    auto f = Sbbf::parse(bytes.data(), bytes.size());
    ASSERT_TRUE(f.ok()) << f.error().to_string();
    EXPECT_EQ(f->num_bytes(), 1024u);
    for (const char* s : {"hello", "parquet", "bloom", "filter"}) {
      EXPECT_TRUE(f->check_hash(xxh64(s, std::strlen(s)))) << s;
    }
    int absent = 0;
    for (int i = 0; i < 1000; ++i) {
      const std::string s = "not-there-" + std::to_string(i);
      absent += !f->check_hash(xxh64(s.data(), s.size()));
    }
    EXPECT_GT(absent, 990);
  });
}

TEST(Sbbf, ParquetTestingPreSpecFilterIsRejected) {
  const auto bytes = read_file(std::string(PQFAST_TEST_DATA_DIR) + "/bloom_filter.bin");
  ASSERT_FALSE(bytes.empty());
  auto f = Sbbf::parse(bytes.data(), bytes.size());
  ASSERT_FALSE(f.ok());
  EXPECT_FALSE(f.error().message.empty());
  std::printf("bloom_filter.bin: %s\n", f.error().to_string().c_str());
}

}  // namespace pqfast
