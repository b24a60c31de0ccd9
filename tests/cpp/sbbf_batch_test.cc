// Batched, multi-filter and value -> verdict SBBF calls, and the batched
// XXH64 kernels, against scalar references on every implementation. No
// timings here.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "pqfast/hash.h"
#include "pqfast/sbbf.h"
#include "test_util.h"

namespace pqfast {
namespace {

// Branch-free reference probe straight from BloomFilter.md.
bool reference_check(const SbbfRef& f, uint64_t hash) {
  const uint64_t block = ((hash >> 32) * f.num_blocks) >> 32;
  const uint32_t key = static_cast<uint32_t>(hash);
  for (int i = 0; i < 8; ++i) {
    if ((f.words[block * 8 + i] & (uint32_t{1} << ((key * kSbbfSalt[i]) >> 27))) == 0) return false;
  }
  return true;
}

// A filter about half full, holding every other hash of `queries`.
Sbbf make_filter(size_t blocks, const std::vector<uint64_t>& queries, uint64_t seed) {
  Sbbf f = *Sbbf::with_num_bytes(blocks * 32);
  testing::ScopedSimdLevel scalar(SimdLevel::kScalar);
  const auto noise = testing::random_u64(blocks * 8, seed);
  f.insert_hashes(noise.data(), noise.size());
  for (size_t i = 0; i < queries.size(); i += 2) f.insert_hash(queries[i]);
  return f;
}

const size_t kBlockCounts[] = {1, 3, 100, 4099};
const size_t kDistances[] = {0, 1, 7, 8, 13, 64, 1000, kSbbfAutoPrefetch};

// Every length 0..80 (all tails of the 8-wide steps and 256-value chunks'
// neighbours), then a few long ones.
std::vector<size_t> lengths() {
  std::vector<size_t> v;
  for (size_t n = 0; n <= 80; ++n) v.push_back(n);
  for (size_t n : {255, 256, 257, 511, 512, 513, 1000, 4099}) v.push_back(n);
  return v;
}

}  // namespace

TEST(SbbfBatch, CheckHashesEqualsReferenceForEveryDistanceAndLength) {
  uint64_t seed = 10;
  for (size_t blocks : kBlockCounts) {
    const auto queries = testing::random_u64(5000, seed++);
    const Sbbf f = make_filter(blocks, queries, seed++);
    const SbbfRef ref = f.view().ref();
    std::vector<uint8_t> expected(queries.size());
    for (size_t i = 0; i < queries.size(); ++i) expected[i] = reference_check(ref, queries[i]);
    testing::for_each_simd_level([&](SimdLevel) {
      for (size_t d : kDistances) {
        for (size_t n : lengths()) {
          std::vector<uint8_t> got(n + 1, 0xAA);
          f.check_hashes(queries.data(), n, got.data(), d);
          ASSERT_EQ(got[n], 0xAA) << "wrote past n=" << n;
          for (size_t i = 0; i < n; ++i) {
            ASSERT_EQ(got[i], expected[i]) << "blocks " << blocks << " d " << d << " n " << n << " i " << i;
          }
        }
      }
      for (size_t i = 0; i < 200; ++i) ASSERT_EQ(f.check_hash(queries[i]), expected[i] != 0);
    });
  }
}

TEST(SbbfBatch, ViewsOverUnalignedBitsetsAnswerTheSame) {
  // A bitset right after a Thrift header in a file buffer sits at any offset.
  const auto queries = testing::random_u64(3000, 15);
  const Sbbf f = make_filter(257, queries, 16);
  std::vector<uint8_t> expected(queries.size());
  for (size_t i = 0; i < queries.size(); ++i) expected[i] = reference_check(f.view().ref(), queries[i]);
  std::vector<uint8_t> buffer(f.num_bytes() + 8);
  for (size_t offset = 1; offset < 4; ++offset) {
    std::memcpy(buffer.data() + offset, f.data(), f.num_bytes());
    const SbbfView v = *SbbfView::make(buffer.data() + offset, f.num_bytes());
    testing::for_each_simd_level([&](SimdLevel) {
      std::vector<uint8_t> got(queries.size());
      v.check_hashes(queries.data(), queries.size(), got.data());
      ASSERT_EQ(got, expected) << "offset " << offset;
      for (size_t i = 0; i < 100; ++i) ASSERT_EQ(v.check_hash(queries[i]), expected[i] != 0);
      const SbbfRef refs[2] = {v.ref(), f.view().ref()};
      std::vector<uint8_t> product(2 * 100);
      sbbf_check_product(refs, 2, queries.data(), 100, product.data());
      for (size_t i = 0; i < 100; ++i) ASSERT_EQ(product[2 * i], expected[i]);
    });
  }
}

TEST(SbbfBatch, InsertHashesWithPrefetchBuildsTheReferenceBytes) {
  uint64_t seed = 20;
  for (size_t blocks : kBlockCounts) {
    const auto keys = testing::random_u64(blocks * 12 + 37, seed++);
    Sbbf expected = *Sbbf::with_num_bytes(blocks * 32);
    {
      testing::ScopedSimdLevel scalar(SimdLevel::kScalar);
      for (uint64_t k : keys) expected.insert_hash(k);
    }
    testing::for_each_simd_level([&](SimdLevel) {
      for (size_t d : kDistances) {
        Sbbf got = *Sbbf::with_num_bytes(blocks * 32);
        got.insert_hashes(keys.data(), keys.size(), d);
        ASSERT_EQ(0, std::memcmp(got.data(), expected.data(), got.num_bytes())) << "d " << d;
      }
    });
  }
}

TEST(SbbfBatch, MultiFilterProductAnyAndGatherEqualReference) {
  // Row-group filters of different sizes, some a single block.
  std::vector<Sbbf> filters;
  std::vector<SbbfRef> refs;
  const auto members = testing::random_u64(400, 30);
  for (size_t f = 0; f < 67; ++f) {  // > 64: the mask spans two words
    const size_t blocks = kBlockCounts[f % std::size(kBlockCounts)] + f;
    std::vector<uint64_t> mine;
    for (size_t i = f; i < members.size(); i += 67) mine.push_back(members[i]);
    filters.push_back(make_filter(blocks, mine, 100 + f));
    refs.push_back(filters.back().view().ref());
  }
  auto hashes = testing::random_u64(100, 31);
  for (size_t i = 0; i < hashes.size(); i += 3) hashes[i] = members[i * 7 % members.size()];
  const size_t nf = refs.size();

  testing::for_each_simd_level([&](SimdLevel) {
    for (size_t num_filters : {size_t{1}, size_t{2}, size_t{8}, size_t{63}, size_t{64}, nf}) {
      for (size_t nh : {size_t{0}, size_t{1}, size_t{3}, size_t{63}, size_t{64}, hashes.size()}) {
        for (size_t d : {size_t{0}, size_t{5}, size_t{64}, kSbbfAutoPrefetch}) {
          std::vector<uint8_t> product(nh * num_filters + 1, 0xAA);
          sbbf_check_product(refs.data(), num_filters, hashes.data(), nh, product.data(), d);
          ASSERT_EQ(product[nh * num_filters], 0xAA);
          std::vector<uint64_t> mask((num_filters + 63) / 64, ~uint64_t{0});
          sbbf_check_any(refs.data(), num_filters, hashes.data(), nh, mask.data());
          for (size_t f = 0; f < num_filters; ++f) {
            bool any = false;
            for (size_t h = 0; h < nh; ++h) {
              const bool want = reference_check(refs[f], hashes[h]);
              any |= want;
              ASSERT_EQ(product[h * num_filters + f], want ? 1 : 0) << "f " << f << " h " << h;
            }
            ASSERT_EQ((mask[f / 64] >> (f % 64)) & 1, any ? 1u : 0u) << "f " << f << " nh " << nh;
          }
          for (size_t f = num_filters; f < mask.size() * 64; ++f) ASSERT_EQ((mask[f / 64] >> (f % 64)) & 1, 0u);
        }
      }
    }
    // Gather: a filter per probe.
    const auto qs = testing::random_u64(3000, 32);
    std::vector<uint32_t> ids(qs.size());
    for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<uint32_t>((qs[i] >> 7) % nf);
    for (size_t d : kDistances) {
      for (size_t n : {size_t{0}, size_t{1}, size_t{9}, qs.size()}) {
        std::vector<uint8_t> got(n);
        ASSERT_TRUE(sbbf_check_gather(refs.data(), nf, ids.data(), qs.data(), n, got.data(), d).ok());
        for (size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], reference_check(refs[ids[i]], qs[i]) ? 1 : 0) << i;
      }
    }
    std::vector<uint8_t> out(1);
    const uint32_t bad = static_cast<uint32_t>(nf);
    EXPECT_EQ(sbbf_check_gather(refs.data(), nf, &bad, qs.data(), 1, out.data()).error().code,
              ErrorCode::kInvalidArgument);
  });
}

TEST(SbbfBatch, AnyValuesHashesAsTheSpecSays) {
  std::vector<Sbbf> filters;
  std::vector<SbbfRef> refs;
  for (int f = 0; f < 5; ++f) {
    filters.push_back(*Sbbf::with_num_bytes(1024));
    const int64_t v = 1000 + f;
    ASSERT_TRUE(filters.back().insert_values(PhysicalType::kInt64, reinterpret_cast<const uint8_t*>(&v), 8, 1, 0).ok());
    refs.push_back(filters.back().view().ref());
  }
  const int64_t in_list[] = {1001, 1003};
  uint64_t mask = 0;
  ASSERT_TRUE(sbbf_check_any_values(refs.data(), refs.size(), PhysicalType::kInt64,
                                    reinterpret_cast<const uint8_t*>(in_list), sizeof in_list, 2, 0, &mask)
                  .ok());
  EXPECT_EQ(mask & 0b01010, 0b01010u);  // row groups 1 and 3 hold the values
}

namespace {

// Edge values for every fixed width: zero, all ones, extremes, NaN payloads,
// negative zero, infinities, then random bits.
std::vector<uint64_t> edge_and_random_u64(size_t random_count) {
  std::vector<uint64_t> v = {0,
                             ~uint64_t{0},
                             1,
                             0x8000000000000000ULL,
                             0x7fffffffffffffffULL,
                             0x7ff8000000000000ULL,  // quiet NaN
                             0x7ff0000000000001ULL,  // signalling NaN payload
                             0xfff8000000000001ULL,  // negative NaN with payload
                             0x7ff0000000000000ULL,  // +inf
                             0xfff0000000000000ULL,  // -inf
                             0x0000000000000001ULL,  // smallest subnormal
                             0x7fc00000ULL,          // float NaN in the low half
                             0x7fc00001ffc00001ULL,  // two float NaNs with payloads
                             0x80000000ULL,          // float -0.0
                             0x8000000080000000ULL,
                             0xffffffffULL,
                             0x7fffffffULL,
                             0xffffffff00000000ULL};
  double d = -0.0;
  uint64_t bits;
  std::memcpy(&bits, &d, 8);
  v.push_back(bits);
  d = std::numeric_limits<double>::quiet_NaN();
  std::memcpy(&bits, &d, 8);
  v.push_back(bits);
  const auto r = testing::random_u64(random_count, 77);
  v.insert(v.end(), r.begin(), r.end());
  return v;
}

}  // namespace

TEST(Xxh64Batch, FixedWidthKernelsEqualScalarOnEveryValueLengthAndAlignment) {
  const auto words = edge_and_random_u64(2000);
  // The same bytes seen as int32/float (both halves of each word) and int64/double.
  std::vector<uint8_t> bytes(words.size() * 8 + 64);
  testing::for_each_simd_level([&](SimdLevel) {
    for (size_t misalign : {0, 1, 3}) {
      uint8_t* base = bytes.data() + misalign;
      std::memcpy(base, words.data(), words.size() * 8);
      for (size_t width : {size_t{4}, size_t{8}}) {
        const size_t total = words.size() * 8 / width;
        for (size_t n : lengths()) {
          if (n > total) continue;
          std::vector<uint64_t> got(n + 1, 0x5555);
          ASSERT_TRUE(hash_fixed_width_values(width == 4 ? PhysicalType::kInt32 : PhysicalType::kInt64,
                                              base, n * width, n, 0, got.data())
                          .ok());
          ASSERT_EQ(got[n], 0x5555u);
          for (size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], xxh64(base + i * width, width)) << width << " " << i;
        }
        std::vector<uint64_t> all(total), viaint(total);
        ASSERT_TRUE(hash_fixed_width_values(width == 4 ? PhysicalType::kFloat : PhysicalType::kDouble, base,
                                            total * width, total, 0, all.data())
                        .ok());
        for (size_t i = 0; i < total; ++i) ASSERT_EQ(all[i], xxh64(base + i * width, width)) << i;
        if (misalign == 0) {
          if (width == 4) {
            hash_float(reinterpret_cast<const float*>(base), total, viaint.data());
            ASSERT_EQ(viaint, all);
            hash_int32(reinterpret_cast<const int32_t*>(base), total, viaint.data());
          } else {
            hash_double(reinterpret_cast<const double*>(base), total, viaint.data());
            ASSERT_EQ(viaint, all);
            hash_int64(reinterpret_cast<const int64_t*>(base), total, viaint.data());
          }
          ASSERT_EQ(viaint, all);
        }
      }
      // FIXED_LEN_BYTE_ARRAY of every small width, INT96 (12) included.
      for (size_t width = 1; width <= 40; ++width) {
        const size_t total = words.size() * 8 / width;
        for (size_t n : {size_t{0}, size_t{1}, size_t{3}, size_t{4}, size_t{7}, size_t{8}, size_t{9},
                         size_t{17}, total}) {
          std::vector<uint64_t> got(n);
          hash_fixed_len(base, width, n, got.data());
          for (size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], xxh64(base + i * width, width)) << width << " " << i;
        }
      }
    }
  });
}

TEST(SbbfBatch, ValueToVerdictEqualsHashThenProbe) {
  const auto words = edge_and_random_u64(3000);
  std::vector<uint8_t> bytes(words.size() * 8 + 16);
  uint64_t seed = 40;
  for (size_t blocks : kBlockCounts) {
    // Insert the hashes of every other int64 and every third int32.
    Sbbf f = *Sbbf::with_num_bytes(blocks * 32);
    {
      testing::ScopedSimdLevel scalar(SimdLevel::kScalar);
      const auto noise = testing::random_u64(blocks * 6, seed++);
      f.insert_hashes(noise.data(), noise.size());
      for (size_t i = 0; i < words.size(); i += 2) f.insert_hash(xxh64(&words[i], 8));
      for (size_t i = 0; i < words.size() * 2; i += 3) {
        f.insert_hash(xxh64(reinterpret_cast<const uint8_t*>(words.data()) + 4 * i, 4));
      }
    }
    const SbbfRef ref = f.view().ref();
    testing::for_each_simd_level([&](SimdLevel) {
      for (size_t misalign : {0, 5}) {
        uint8_t* base = bytes.data() + misalign;
        std::memcpy(base, words.data(), words.size() * 8);
        for (size_t width : {size_t{4}, size_t{8}}) {
          const size_t total = words.size() * 8 / width;
          auto check_n = [&](size_t n) {
            std::vector<uint8_t> got(n + 1, 0xAA), typed(n + 1, 0xAA);
            ASSERT_TRUE(f.view()
                            .check_values(width == 4 ? PhysicalType::kInt32 : PhysicalType::kInt64, base,
                                          n * width, n, 0, got.data())
                            .ok());
            ASSERT_EQ(got[n], 0xAA);
            for (size_t i = 0; i < n; ++i) {
              ASSERT_EQ(got[i], reference_check(ref, xxh64(base + i * width, width)) ? 1 : 0)
                  << "width " << width << " n " << n << " i " << i;
            }
            if (misalign == 0) {
              if (width == 4) {
                f.view().check_int32(reinterpret_cast<const int32_t*>(base), n, typed.data());
                ASSERT_EQ(typed, got);
                f.view().check_float(reinterpret_cast<const float*>(base), n, typed.data());
              } else {
                f.view().check_int64(reinterpret_cast<const int64_t*>(base), n, typed.data());
                ASSERT_EQ(typed, got);
                f.view().check_double(reinterpret_cast<const double*>(base), n, typed.data());
              }
              ASSERT_EQ(typed, got);
            }
          };
          for (size_t n : lengths()) {
            if (n <= total) check_n(n);
          }
          check_n(total);
        }
      }
    });
  }
}

TEST(SbbfBatch, LongMultiFilterAndValueRun) {
  if (!testing::long_tests_enabled()) GTEST_SKIP() << "set PQFAST_LONG_TESTS=1";
  // ~1e9 (value, filter) pairs across implementations: gather and int64
  // value -> verdict against the reference, filters up to 4 MiB.
  uint64_t pairs = 0, seed = 5000;
  while (pairs < 1'000'000'000ULL) {
    std::vector<Sbbf> filters;
    std::vector<SbbfRef> refs;
    for (int f = 0; f < 4; ++f) {
      const size_t blocks = 1 + (seed * 2654435761ULL + f) % (1 << 17);
      const auto q = testing::random_u64(blocks * 4, seed + f);
      filters.push_back(make_filter(blocks, q, seed + 10 + f));
      refs.push_back(filters.back().view().ref());
    }
    const auto qs = testing::random_u64(1 << 20, seed++);
    std::vector<uint32_t> ids(qs.size());
    for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<uint32_t>(qs[i] & 3);
    std::vector<uint8_t> expected(qs.size()), got(qs.size()), vexp(qs.size()), vgot(qs.size());
    for (size_t i = 0; i < qs.size(); ++i) {
      expected[i] = reference_check(refs[ids[i]], qs[i]);
      vexp[i] = reference_check(refs[0], xxh64(&qs[i], 8));
    }
    testing::for_each_simd_level([&](SimdLevel) {
      ASSERT_TRUE(sbbf_check_gather(refs.data(), refs.size(), ids.data(), qs.data(), qs.size(), got.data()).ok());
      ASSERT_EQ(got, expected);
      SbbfView::make(reinterpret_cast<const uint8_t*>(refs[0].words), refs[0].num_blocks * 32)
          ->check_int64(reinterpret_cast<const int64_t*>(qs.data()), qs.size(), vgot.data());
      ASSERT_EQ(vgot, vexp);
    });
    pairs += 2 * qs.size() * available_simd_levels().size();
  }
}

}  // namespace pqfast

namespace pqfast {

namespace {

[[noreturn]] void first_call_batched() {
  Sbbf f = *Sbbf::with_num_bytes(64);
  const uint64_t h[2] = {1, 0x123456789abcdefULL};
  f.insert_hashes(h, 2);
  uint8_t out[2] = {0, 0};
  f.check_hashes(h, 2, out);
  std::exit(f.check_hash(h[1]) && out[0] == 1 && out[1] == 1 ? 0 : 1);
}

[[noreturn]] void first_call_single() {
  const uint8_t zeros[32] = {};
  // The inline single-key path first, on an all-zero block: "absent".
  std::exit(SbbfView::make(zeros, 32)->check_hash(7) ? 1 : 0);
}

}  // namespace

// The kernel caches must work when a kernel call (not simd_level()) is the
// first thing a process does. Each EXPECT_EXIT forks a child (the default
// "fast" style, which also works under qemu-user, unlike re-exec); *DeathTest
// suites run before every other test and ctest runs each test in its own
// process, so the parent has not chosen a level yet when the children fork.
TEST(SbbfDispatchDeathTest, KernelCallsWorkAsTheFirstCallOfAProcess) {
  EXPECT_EXIT(first_call_batched(), ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(first_call_single(), ::testing::ExitedWithCode(0), "");
}

}  // namespace pqfast
