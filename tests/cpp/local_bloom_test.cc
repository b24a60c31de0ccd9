#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "pqfast/local_bloom.h"
#include "test_util.h"

#if defined(PQFAST_HAVE_ROCKSDB)
#include <unistd.h>

#include "rocksdb_filter_peer.h"
namespace rocksdb {
// Exported by librocksdb (util/hash.h is not installed).
uint64_t Hash64(const char* data, size_t n);
}  // namespace rocksdb
#endif

namespace pqfast {
namespace {

// A textbook probe written from the format description, independently of
// the library: line from the low half, nine-bit addresses from the high half.
bool textbook_check(const uint8_t* payload, size_t payload_bytes, int num_probes, uint64_t hash) {
  const uint64_t lines = payload_bytes / 64;
  const uint64_t line = (uint64_t{static_cast<uint32_t>(hash)} * lines) >> 32;
  uint32_t h = static_cast<uint32_t>(hash >> 32);
  for (int i = 0; i < num_probes; ++i) {
    const uint32_t bit = h >> 23;
    if (((payload[line * 64 + bit / 8] >> (bit % 8)) & 1) == 0) return false;
    h *= 0x9e3779b9U;
  }
  return true;
}

std::string descriptor(const char* repeat, size_t limit) {
  const char* mod61 = "abcdefghijklmnopqrstuvwxyz123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  std::string input;
  while (input.size() < limit) input += repeat;
  std::string out;
  for (size_t i = 0; i < limit; ++i) out += mod61[rocksdb_hash64(input.data(), i) % 61];
  return out;
}

// 24-byte keys, sorted and distinct (an SST needs both): "key" + 21 digits.
struct KeySet {
  std::string data;
  std::vector<int64_t> offsets{0};
  size_t size() const { return offsets.size() - 1; }
};
KeySet make_keys(uint64_t first, size_t n) {
  KeySet k;
  char buf[32];
  for (size_t i = 0; i < n; ++i) {
    std::snprintf(buf, sizeof buf, "key%021llu", static_cast<unsigned long long>(first + i));
    k.data.append(buf, 24);
    k.offsets.push_back(static_cast<int64_t>(k.data.size()));
  }
  return k;
}

}  // namespace

// RocksDB's util/hash_test.cc Hash64SmallValueSchema (seed 0), a selection.
TEST(LocalBloomHash, RocksDbSmallValueVectors) {
  struct V {
    const char* s;
    size_t n;
    uint64_t h;
  };
  const V vectors[] = {
      {"", 0, 5999572062939766020u},
      {"\x08", 1, 583283813901344696u},
      {"\x9a", 1, 16322991629225003903u},
      {"\x4d\x76", 2, 6859542833406258115u},
      {"\x30\x46\x0b", 3, 11404699285340020889u},
      {"\x6a\xb5\xf4", 3, 16863488758399383382u},
      {"\x67\x53\x81\x1c", 4, 9010661983527562386u},
      {"\xd0\x7a\x6e\xea\x56", 5, 6384167718754869899u},
      {"\x5c\x5e\xe1\xa0\x73\x81", 6, 17358142495308219330u},
      {"\x5c\xbe\x97\x75\x54\x9a\x52", 7, 5716522398211028826u},
      {"\x31\x1b\x98\x75\x96\x22\xd3\x9a", 8, 9844314944338447628u},
      {"\x1a\xb5\xd0\xfe\xab\xc3\x61\xb2\x99", 9, 13253403748084181481u},
      {"\xb6\xc0\xdd\x05\x3f\xc4\x86\x4c\xef", 9, 12439346786701492u},
      {"\x22\x6f\x39\x1f\xf8\xdd\x4f\x52\x17\x94", 10, 12883919702069153152u},
      {"\xbd\x2c\x63\x38\xbf\xe9\x78\xb7\xbf\x15", 10, 10551812464348219044u},
  };
  for (const V& v : vectors) EXPECT_EQ(rocksdb_hash64(v.s, v.n), v.h) << "length " << v.n;
}

// RocksDB's Hash64LargeValueSchema: one base-61 digit of the hash of every
// prefix of length 0..429, so every size class (through the 1024-byte block
// boundary of the long path) is pinned.
TEST(LocalBloomHash, RocksDbLargeValueDescriptors) {
  EXPECT_EQ(descriptor("foo", 430),
            "cRhyWsY67B6klRA1udmOuiYuX7IthyGBKqbeosz2hzVglWCmQx8nEdnpkvPfYX56Up2OWOTV"
            "lTzfAoYwvtqKzjD8E9xttR2unelbXbIV67NUe6bOO23BxaSFRcA3njGu5cUWfgwOqNoTsszp"
            "uPvKRP6qaUR5VdoBkJUCFIefd7edlNK5mv6JYWaGdwxehg65hTkTmjZoPKxTZo4PLyzbL9U4"
            "xt12ITSfeP2MfBHuLI2z2pDlBb44UQKVMx27LEoAHsdLp3WfWfgH3sdRBRCHm33UxCM4QmE2"
            "xJ7gqSvNwTeH7v9GlC8zWbGroyD3UVNeShMLx29O7tH1biemLULwAHyIw8zdtLMDpEJ8m2ic"
            "l6Lb4fDuuFNAs1GCVUthjK8CV8SWI8Rsz5THSwn5CGhpqUwSZcFknjwWIl5rNCvDxXJqYr");
  EXPECT_EQ(descriptor("Rocks", 430),
            "c1EeRkrzgOYWLA8PuhJrwTePJewoB44WdXYDfhbk3ZxTqqg25WlPExDl7IKIQLJvnA6gJxxn"
            "9TCSLkFGfJeXehaSS1GBqWSzfhEH4VXiXIUCuxJXxtKXcSC6FrNIQGTZbYDiUOLD6Y5inzrF"
            "9etwQhXUBanw55xAUdNMFQAm2GjJ6UDWp2mISLiMMkLjANWMKLaZMqaFLX37qB4MRO1ooVRv"
            "zSvaNRSCLxlggQCasQq8icWjzf3HjBlZtU6pd4rkaUxSzHqmo9oM5MghbU5Rtxg8wEfO7lVN"
            "5wdMONYecslQTwjZUpO1K3LDf3K3XK6sUXM6ShQQ3RHmMn2acB4YtTZ3QQcHYJSOHn2DuWpa"
            "Q8RqzX5lab92YmOLaCdOHq1BPsM7SIBzMdLgePNsJ1vvMALxAaoDUHPxoFLO2wx18IXnyX");
  EXPECT_EQ(descriptor("RocksDB", 430),
            "c1EeRkukbkb28wLTahwD2sfUhZzaBEnF8SVrxnPVB6A7b8CaAl3UKsDZISF92GSq2wDCukOq"
            "Jgrsp7A3KZhDiLW8dFXp8UPqPxMCRlMdZeVeJ2dJxrmA6cyt99zkQFj7ELbut6jAeVqARFnw"
            "fnWVXOsaLrq7bDCbMcns2DKvTaaqTCLMYxI7nhtLpFN1jR755FRQFcOzrrDbh7QhypjdvlYw"
            "cdAMSZgp9JMHxbM23wPSuH6BOFgxejz35PScZfhDPvTOxIy1jc3MZsWrMC3P324zNolO7JdW"
            "CX2I5UDKjjaEJfxbgVgJIXxtQGlmj2xkO5sPpjULQV4X2HlY7FQleJ4QRaJIB4buhCA4vUTF"
            "eMFlxCIYUpTCsal2qsmnGOWa8WCcefrohMjDj1fjzSvSaQwlpyR1GZHF2uPOoQagiCpHpm");
}

TEST(LocalBloomHash, KeysLayoutIsChecked) {
  const uint8_t data[4] = {1, 2, 3, 4};
  const int64_t bad[] = {0, 5};
  uint64_t out[1];
  Status s = rocksdb_hash64_keys(data, 4, bad, 1, out);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("index 0"), std::string::npos) << s.error().message;
  const int64_t good[] = {0, 3};
  ASSERT_TRUE(rocksdb_hash64_keys(data, 4, good, 1, out).ok());
  EXPECT_EQ(out[0], rocksdb_hash64(data, 3));
}

TEST(LocalBloom, NumProbesAndSizing) {
  EXPECT_EQ(local_bloom_num_probes(1000), 1);
  EXPECT_EQ(local_bloom_num_probes(2080), 1);
  EXPECT_EQ(local_bloom_num_probes(2081), 2);
  EXPECT_EQ(local_bloom_num_probes(6000), 4);
  EXPECT_EQ(local_bloom_num_probes(9900), 6);
  EXPECT_EQ(local_bloom_num_probes(10000), 6);
  EXPECT_EQ(local_bloom_num_probes(14001), 8);
  EXPECT_EQ(local_bloom_num_probes(16000), 9);
  EXPECT_EQ(local_bloom_num_probes(25501), 12);
  EXPECT_EQ(local_bloom_num_probes(28000), 12);
  EXPECT_EQ(local_bloom_num_probes(28001), 13);
  EXPECT_EQ(local_bloom_num_probes(50000), 23);
  EXPECT_EQ(local_bloom_num_probes(50001), 24);
  EXPECT_EQ(local_bloom_num_probes(100000), 24);
  EXPECT_EQ(*local_bloom_millibits_per_key(9.9), 9900);
  EXPECT_EQ(*local_bloom_millibits_per_key(6.667), 6667);
  EXPECT_EQ(*local_bloom_millibits_per_key(0.7), 1000);
  EXPECT_EQ(*local_bloom_millibits_per_key(1e9), 100000);
  EXPECT_FALSE(local_bloom_millibits_per_key(0.49).ok());
  EXPECT_FALSE(local_bloom_millibits_per_key(std::nan("")).ok());
  EXPECT_EQ(local_bloom_payload_bytes(0, 10000), 0u);
  EXPECT_EQ(local_bloom_payload_bytes(1, 10000), 64u);
  EXPECT_EQ(local_bloom_payload_bytes(10000, 10000), 12544u);  // 12500 rounded up to 64
  EXPECT_EQ(local_bloom_payload_bytes(size_t{1} << 40, 100000), kLocalBloomMaxPayloadBytes);
}

TEST(LocalBloom, BlockLayoutAndRoundTrip) {
  const auto hashes = testing::random_u64(1000, 7);
  auto f = LocalBloom::build_from_hashes(hashes.data(), hashes.size(), 10.0);
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  EXPECT_EQ(f->payload_bytes(), 1280u);
  EXPECT_EQ(f->num_probes(), 6);
  const auto block = f->serialize();
  ASSERT_EQ(block.size(), 1285u);
  EXPECT_EQ(block[1280], 0xff);
  EXPECT_EQ(block[1281], 0x00);
  EXPECT_EQ(block[1282], 6);
  EXPECT_EQ(block[1283], 0);
  EXPECT_EQ(block[1284], 0);
  auto g = LocalBloom::parse(block.data(), block.size());
  ASSERT_TRUE(g.ok()) << g.error().to_string();
  EXPECT_EQ(g->serialize(), block);
  for (uint64_t h : hashes) ASSERT_TRUE(g->check_hash(h));

  // No keys: RocksDB's 5-byte block, which matches nothing.
  auto empty = LocalBloom::build_from_hashes(nullptr, 0, 10.0);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->serialize(), (std::vector<uint8_t>{0xff, 0x00, 6, 0, 0}));
  EXPECT_EQ(empty->kind(), FilterBlockKind::kAlwaysFalse);
  EXPECT_FALSE(empty->check_hash(123));

  // Adjacent duplicates are collapsed before sizing, as RocksDB does.
  std::vector<uint64_t> dup;
  for (int i = 0; i < 100; ++i) dup.insert(dup.end(), 10, hashes[i]);
  auto d = LocalBloom::build_from_hashes(dup.data(), dup.size(), 10.0);
  EXPECT_EQ(d->payload_bytes(), local_bloom_payload_bytes(100, 10000));
}

TEST(LocalBloom, EveryImplementationBuildsTheSameBytesAndAnswers) {
  // Every probe count 1..30, odd line counts; >= 1e6 queries per implementation.
  // 9001 lines (576 KiB) takes the prefetching paths.
  const size_t lines_for[] = {1, 3, 17, 200, 9001};
  size_t total = 0;
  uint64_t seed = 100;
  for (int probes = 1; probes <= kLocalBloomMaxProbes; ++probes) {
    for (size_t lines : lines_for) {
      SCOPED_TRACE("probes " + std::to_string(probes) + ", lines " + std::to_string(lines));
      const auto inserted = testing::random_u64(lines * 40 / probes + 1, seed++);
      auto queries = testing::random_u64(8500, seed++);
      for (size_t i = 0; i < queries.size(); i += 2) queries[i] = inserted[i % inserted.size()];
      LocalBloom reference = *LocalBloom::with_shape(lines * 64, probes);
      {
        testing::ScopedSimdLevel scalar(SimdLevel::kScalar);
        reference.insert_hashes(inserted.data(), inserted.size());
      }
      std::vector<uint8_t> expected(queries.size());
      for (size_t i = 0; i < queries.size(); ++i) {
        expected[i] = textbook_check(reference.block(), lines * 64, probes, queries[i]);
      }
      testing::for_each_simd_level([&](SimdLevel) {
        LocalBloom f = *LocalBloom::with_shape(lines * 64, probes);
        f.insert_hashes(inserted.data(), inserted.size());
        ASSERT_EQ(f.serialize(), reference.serialize());
        std::vector<uint8_t> out(queries.size());
        f.check_hashes(queries.data(), queries.size(), out.data());
        for (size_t i = 0; i < queries.size(); ++i) {
          ASSERT_EQ(out[i], expected[i]) << "batched query " << i;
          ASSERT_EQ(f.check_hash(queries[i]), expected[i] != 0) << "single query " << i;
        }
        // The multi-filter kernel, each query against this one filter.
        const LocalBloomRef ref{f.block(), f.num_lines(), f.num_probes()};
        const std::vector<uint32_t> index(queries.size(), 0);
        std::vector<uint8_t> many(queries.size());
        local_bloom_check_many(&ref, index.data(), queries.data(), queries.size(), many.data());
        ASSERT_EQ(many, expected);
      });
      total += queries.size();
    }
  }
  EXPECT_GE(total, 1'000'000u);
}

// PQFAST_LONG_TESTS=1: >= 1e9 (query, filter) pairs per implementation
// against the scalar reference, over random shapes and probe counts.
TEST(LocalBloom, LongDifferentialRun) {
  if (!testing::long_tests_enabled()) GTEST_SKIP() << "set PQFAST_LONG_TESTS=1";
  std::mt19937_64 rng(77);
  const size_t kQueries = 1 << 22;
  std::vector<uint64_t> queries(kQueries);
  std::vector<uint8_t> expected(kQueries), out(kQueries);
  uint64_t pairs = 0;
  while (pairs < 1'000'000'000ull) {
    const size_t lines = 1 + rng() % 20000;  // some above the prefetch threshold
    const int probes = 1 + static_cast<int>(rng() % kLocalBloomMaxProbes);
    const auto inserted = testing::random_u64(lines * 512 / (probes * 2) + 1, rng());
    LocalBloom f = *LocalBloom::with_shape(lines * 64, probes);
    {
      testing::ScopedSimdLevel scalar(SimdLevel::kScalar);
      f.insert_hashes(inserted.data(), inserted.size());
      for (size_t i = 0; i < kQueries; ++i) queries[i] = (i & 1) ? inserted[rng() % inserted.size()] : rng();
      f.check_hashes(queries.data(), kQueries, expected.data());
    }
    testing::for_each_simd_level([&](SimdLevel) {
      f.view().check_hashes(queries.data(), kQueries, out.data());
      ASSERT_EQ(out, expected) << "lines " << lines << ", probes " << probes;
    });
    pairs += kQueries;
  }
}

TEST(LocalBloom, UnalignedPayloadViews) {
  const auto hashes = testing::random_u64(500, 3);
  auto f = *LocalBloom::build_from_hashes(hashes.data(), hashes.size(), 8.0);
  const auto block = f.serialize();
  std::vector<uint8_t> shifted(block.size() + 3);
  std::memcpy(shifted.data() + 3, block.data(), block.size());
  testing::for_each_simd_level([&](SimdLevel) {
    auto v = LocalBloomView::parse(shifted.data() + 3, block.size());
    ASSERT_TRUE(v.ok());
    const auto queries = testing::random_u64(5000, 4);
    std::vector<uint8_t> out(queries.size());
    v->check_hashes(queries.data(), queries.size(), out.data());
    for (size_t i = 0; i < queries.size(); ++i) ASSERT_EQ(out[i], f.check_hash(queries[i]));
    for (uint64_t h : hashes) ASSERT_TRUE(v->check_hash(h));
  });
}

TEST(LocalBloom, MalformedBlocksAreReportedClearly) {
  const auto hashes = testing::random_u64(300, 9);
  const auto good = LocalBloom::build_from_hashes(hashes.data(), hashes.size(), 10.0)->serialize();
  auto expect_error = [](std::vector<uint8_t> b, ErrorCode code, const char* needle) {
    auto r = LocalBloomView::parse(b.data(), b.size());
    ASSERT_FALSE(r.ok()) << needle;
    EXPECT_EQ(r.error().code, code) << r.error().to_string();
    EXPECT_NE(r.error().message.find(needle), std::string::npos) << r.error().message;
  };
  // Truncated: the trailer is gone, the bytes before it are read as one.
  {
    auto b = good;
    b.resize(b.size() - 1);
    auto r = LocalBloomView::parse(b.data(), b.size());
    ASSERT_FALSE(r.ok());
  }
  // Truncated inside the payload: trailer intact but not whole lines.
  {
    std::vector<uint8_t> b(good.begin() + 10, good.end());
    expect_error(b, ErrorCode::kCorrupt, "not a whole number of 64-byte lines");
  }
  // Wrong trailers.
  {
    auto b = good;
    b[b.size() - 4] = 1;  // sub-implementation
    expect_error(b, ErrorCode::kUnsupported, "sub-implementation");
  }
  {
    auto b = good;
    b[b.size() - 3] = 0x26;  // 128-byte lines
    expect_error(b, ErrorCode::kUnsupported, "line size");
  }
  {
    auto b = good;
    b[b.size() - 3] = 31;
    expect_error(b, ErrorCode::kUnsupported, "num_probes is 0 or 31");
  }
  {
    auto b = good;
    b[b.size() - 1] = 1;
    expect_error(b, ErrorCode::kUnsupported, "reserved trailer bytes");
  }
  // Other filters named, never misread.
  {
    auto b = good;
    b[b.size() - 5] = 6;
    expect_error(b, ErrorCode::kUnsupported, "Legacy Bloom");
  }
  {
    auto b = good;
    b[b.size() - 5] = 0xfe;
    expect_error(b, ErrorCode::kUnsupported, "Ribbon");
  }
  {
    auto b = good;
    b[b.size() - 5] = 0x90;
    expect_error(b, ErrorCode::kUnsupported, "unknown filter marker");
  }
  // Always-true (RocksDB writes six zero bytes) and always-false.
  {
    const std::vector<uint8_t> b(6, 0);
    auto v = LocalBloomView::parse(b.data(), b.size());
    ASSERT_TRUE(v.ok());
    EXPECT_EQ(v->kind(), FilterBlockKind::kAlwaysTrue);
    EXPECT_TRUE(v->check_hash(1));
    auto f = LocalBloom::parse(b.data(), b.size());
    EXPECT_EQ(f->serialize(), b);
  }
  for (size_t len = 0; len <= 5; ++len) {
    const std::vector<uint8_t> b(len, 0xff);
    auto v = LocalBloomView::parse(b.data(), b.size());
    ASSERT_TRUE(v.ok());
    EXPECT_EQ(v->kind(), FilterBlockKind::kAlwaysFalse);
    uint8_t out[2] = {9, 9};
    const uint64_t q[2] = {1, 2};
    v->check_hashes(q, 2, out);
    EXPECT_EQ(out[0] + out[1], 0);
  }
  // Oversized: more payload than RocksDB's 32-bit lengths allow (not read).
  {
    auto r = LocalBloomView::parse(good.data(), kLocalBloomMaxPayloadBytes + 64 + 5);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, ErrorCode::kLimitExceeded);
  }
  EXPECT_FALSE(LocalBloom::with_shape(100, 6).ok());
  EXPECT_FALSE(LocalBloom::with_shape(64, 31).ok());
  EXPECT_FALSE(LocalBloomView::make(good.data(), 0, 6).ok());
}

// Arbitrary bytes never crash parse or the queries of what it accepts, and
// the verdict on every trailer matches inspect_filter_block.
TEST(LocalBloom, ArbitraryBlocksParseSafely) {
  std::mt19937_64 rng(11);
  for (int iter = 0; iter < 20000; ++iter) {
    const size_t len = rng() % 300;
    std::vector<uint8_t> b(len);
    for (auto& x : b) x = static_cast<uint8_t>(rng());
    if (len >= 5 && (iter & 1)) {  // steer half towards FastLocalBloom-looking trailers
      b[len - 5] = 0xff;
      b[len - 4] = 0;
      b[len - 3] = static_cast<uint8_t>(rng() % 40);
      b[len - 2] = 0;
      b[len - 1] = 0;
    }
    auto v = LocalBloomView::parse(b.data(), b.size());
    const FilterBlockInfo info = inspect_filter_block(b.data(), b.size());
    if (!v.ok()) {
      EXPECT_FALSE(v.error().message.empty());
      continue;
    }
    EXPECT_EQ(v->kind(), info.kind);
    const uint64_t q[4] = {rng(), rng(), rng(), rng()};
    uint8_t out[4];
    v->check_hashes(q, 4, out);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(out[i] != 0, v->check_hash(q[i]));
    const char key[3] = {'a', 'b', 'c'};
    (void)v->check_key(key, 3);
  }
}

#if defined(PQFAST_HAVE_ROCKSDB)

TEST(LocalBloomRocksDb, HashEqualsRocksDbsOwn) {
  std::mt19937_64 rng(5);
  std::vector<uint8_t> buf(5000);
  for (auto& b : buf) b = static_cast<uint8_t>(rng());
  for (size_t len = 0; len <= 2200; ++len) {
    const size_t off = rng() % 64;
    ASSERT_EQ(rocksdb_hash64(buf.data() + off, len),
              rocksdb::Hash64(reinterpret_cast<const char*>(buf.data() + off), len))
        << "length " << len;
  }
}

TEST(LocalBloomRocksDb, SstFilterBlocksAreByteIdenticalAndAnswerTheSame) {
  // Fractional settings included; each a different num_probes.
  const double settings[] = {1.0, 4.4, 6.5, 8.0, 9.9, 10.0, 13.0, 16.0, 23.2, 50.0};
  const std::string path = "/tmp/pqfast_local_bloom_test_" + std::to_string(getpid()) + ".sst";
  size_t queries_total = 0;
  for (double bpk : settings) {
    SCOPED_TRACE("bits/key " + std::to_string(bpk));
    const size_t n = 20000;
    const KeySet keys = make_keys(1'000'000, n);
    peer::Keys rk;
    for (size_t i = 0; i < n; ++i) rk.add(keys.data.data() + 24 * i, 24);
    const std::string sst_block = peer::sst_filter_block(rk, bpk, path);
    const std::string builder_block = peer::RocksDbFilter(bpk).build(rk);
    ASSERT_EQ(sst_block, builder_block);

    auto ours = LocalBloom::build_from_keys(reinterpret_cast<const uint8_t*>(keys.data.data()),
                                            keys.data.size(), keys.offsets.data(), n, bpk);
    ASSERT_TRUE(ours.ok()) << ours.error().to_string();
    const auto our_block = ours->serialize();
    ASSERT_EQ(std::string(our_block.begin(), our_block.end()), sst_block) << "bytes differ";

    // Queries: the inserted keys and 100k+ keys never inserted, against
    // RocksDB's block, answered by RocksDB's reader and by pqfast.
    const KeySet outside = make_keys(50'000'000, 110'000);
    auto reader = peer::RocksDbFilter(bpk).reader(sst_block);
    auto view = LocalBloomView::parse(reinterpret_cast<const uint8_t*>(sst_block.data()),
                                      sst_block.size());
    ASSERT_TRUE(view.ok());
    std::vector<uint8_t> expected_in(n), expected_out(outside.size());
    for (size_t i = 0; i < n; ++i) {
      expected_in[i] = reader->MayMatch(rocksdb::Slice(keys.data.data() + 24 * i, 24));
      ASSERT_EQ(expected_in[i], 1);
    }
    size_t rocksdb_fp = 0;
    for (size_t i = 0; i < outside.size(); ++i) {
      expected_out[i] = reader->MayMatch(rocksdb::Slice(outside.data.data() + 24 * i, 24));
      rocksdb_fp += expected_out[i];
    }
    testing::for_each_simd_level([&](SimdLevel) {
      std::vector<uint8_t> out(outside.size());
      ASSERT_TRUE(view->check_keys(reinterpret_cast<const uint8_t*>(outside.data.data()),
                                   outside.data.size(), outside.offsets.data(), outside.size(),
                                   out.data())
                      .ok());
      size_t mismatches = 0;
      for (size_t i = 0; i < out.size(); ++i) mismatches += out[i] != expected_out[i];
      EXPECT_EQ(mismatches, 0u);
      std::vector<uint8_t> in(n);
      ASSERT_TRUE(view->check_keys(reinterpret_cast<const uint8_t*>(keys.data.data()),
                                   keys.data.size(), keys.offsets.data(), n, in.data())
                      .ok());
      EXPECT_EQ(in, expected_in);
      for (size_t i = 0; i < 1000; ++i) {
        ASSERT_EQ(view->check_key(outside.data.data() + 24 * i, 24), expected_out[i] != 0);
      }
    });
    queries_total += n + outside.size();
    // Below ~20 bits/key some outside keys must pass, so both answers are compared.
    if (bpk < 20) EXPECT_GT(rocksdb_fp, 0u);
  }
  EXPECT_GE(queries_total, 1'000'000u);
}

TEST(LocalBloomRocksDb, RocksDbReadsPqfastBlocks) {
  const size_t n = 3000;
  const KeySet keys = make_keys(7, n);
  peer::Keys rk;
  for (size_t i = 0; i < n; ++i) rk.add(keys.data.data() + 24 * i, 24);
  auto ours = *LocalBloom::build_from_keys(reinterpret_cast<const uint8_t*>(keys.data.data()),
                                           keys.data.size(), keys.offsets.data(), n, 7.3);
  const auto bytes = ours.serialize();
  const std::string block(bytes.begin(), bytes.end());
  auto reader = peer::RocksDbFilter(7.3).reader(block);
  for (size_t i = 0; i < n; ++i) ASSERT_TRUE(reader->MayMatch(rk[i]));
  const KeySet outside = make_keys(9'000'000, 20000);
  for (size_t i = 0; i < outside.size(); ++i) {
    const bool theirs = reader->MayMatch(rocksdb::Slice(outside.data.data() + 24 * i, 24));
    ASSERT_EQ(ours.view().check_key(outside.data.data() + 24 * i, 24), theirs);
  }
}

#else
TEST(LocalBloomRocksDb, SkippedWithoutRocksDb) {
  GTEST_SKIP() << "built without librocksdb-dev: RocksDB compatibility tests are off";
}
#endif

}  // namespace pqfast
