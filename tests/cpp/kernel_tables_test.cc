// Every implementation's kernel tables, called directly, against the scalar
// tables on the same inputs: the DELTA_BINARY_PACKED miniblock and block
// kernels at every width and the local_bloom kernels at every probe count.
// The API-level tests (delta_test.cc, local_bloom_test.cc) reach the kernels
// only through the decoder's and the filter's choices; here every table
// entry is hit, with extreme min deltas and running values (wrap-around),
// all-ones and all-zero bit patterns, garbage in the read slack, and guard
// values after the output. On AArch64 the cross build (scripts/test-neon.sh)
// runs this against the NEON tables under qemu.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "delta/kernels.h"
#include "local_bloom/kernels.h"
#include "simd/dispatch.h"
#include "test_util.h"

namespace pqfast {
namespace {

using testing::for_each_simd_level;

// The table the active level runs for a family.
const delta::DeltaKernels& delta_table(SimdLevel level) {
  return detail::select_kernels(delta::delta_kernel_tables(), level);
}
const local_bloom::LocalBloomKernels& bloom_table(SimdLevel level) {
  return detail::select_kernels(local_bloom::local_bloom_kernel_tables(), level);
}

TEST(KernelTables, NeonLevelHasItsOwnTables) {
#if defined(PQFAST_ARCH_ARM64)
  ASSERT_TRUE(simd_level_supported(SimdLevel::kNeon));
  EXPECT_EQ(&delta_table(SimdLevel::kNeon), &delta::kNeonDeltaKernels);
  EXPECT_EQ(&bloom_table(SimdLevel::kNeon), &local_bloom::kNeonLocalBloomKernels);
  EXPECT_NE(&delta_table(SimdLevel::kNeon), &delta::kScalarDeltaKernels);
  EXPECT_NE(&bloom_table(SimdLevel::kNeon), &local_bloom::kScalarLocalBloomKernels);
#else
  GTEST_SKIP() << "no NEON in this build (the AArch64 cross build checks it)";
#endif
}

// ---- DELTA_BINARY_PACKED ----------------------------------------------------

enum class Fill { kRandom, kOnes, kZeros, kSparse };

std::vector<uint8_t> packed_bytes(size_t n, std::mt19937_64& rng, Fill fill) {
  std::vector<uint8_t> b(n);
  for (auto& x : b) {
    switch (fill) {
      case Fill::kRandom: x = static_cast<uint8_t>(rng()); break;
      case Fill::kOnes: x = 0xFF; break;
      case Fill::kZeros: x = 0; break;
      case Fill::kSparse: x = static_cast<uint8_t>(rng() & rng() & rng()); break;
    }
  }
  return b;
}

// An exact-size heap buffer holding `body` then kReadSlack bytes of `slack`
// (ASan catches a read past the slack the kernels are allowed).
std::unique_ptr<uint8_t[]> with_slack(const std::vector<uint8_t>& body, uint8_t slack) {
  auto buf = std::make_unique<uint8_t[]>(body.size() + delta::kReadSlack);
  if (!body.empty()) std::memcpy(buf.get(), body.data(), body.size());
  std::memset(buf.get() + body.size(), slack, delta::kReadSlack);
  return buf;
}

constexpr size_t kGuard = 8;

template <class T>
struct Extremes;
template <>
struct Extremes<uint64_t> {
  static std::vector<uint64_t> values(std::mt19937_64& rng) {
    return {0, 1, ~uint64_t{0}, uint64_t{1} << 63, (uint64_t{1} << 63) - 1, rng(), rng() >> 40,
            static_cast<uint64_t>(-static_cast<int64_t>(rng() >> 40))};
  }
};
template <>
struct Extremes<uint32_t> {
  static std::vector<uint32_t> values(std::mt19937_64& rng) {
    return {0, 1, ~uint32_t{0}, uint32_t{1} << 31, (uint32_t{1} << 31) - 1, static_cast<uint32_t>(rng()),
            static_cast<uint32_t>(rng() >> 50), static_cast<uint32_t>(-static_cast<int32_t>(rng() >> 50))};
  }
};

template <class T, class Fn>
void check_miniblocks(const Fn* got_fns, const Fn* ref_fns, int max_width) {
  std::mt19937_64 rng(sizeof(T) * 1000 + max_width);
  const auto extremes = Extremes<T>::values(rng);
  for (int w = 0; w <= max_width; ++w) {
    for (size_t n : {size_t{32}, size_t{64}, size_t{96}, size_t{256}, size_t{1056}}) {
      for (Fill fill : {Fill::kRandom, Fill::kOnes, Fill::kZeros, Fill::kSparse}) {
        for (size_t e = 0; e < extremes.size(); ++e) {
          const T min_delta = extremes[e];
          const T last = extremes[(e * 5 + 3) % extremes.size()];
          SCOPED_TRACE("width " + std::to_string(w) + ", n " + std::to_string(n) + ", fill " +
                       std::to_string(static_cast<int>(fill)) + ", min delta " + std::to_string(min_delta) +
                       ", last " + std::to_string(last));
          const auto body = packed_bytes(n * w / 8, rng, fill);
          // Different slack contents: they must not change the result.
          auto ref_in = with_slack(body, 0x00);
          auto got_in = with_slack(body, 0xA5);
          std::vector<T> want(n + kGuard, T(0x5A5A5A5A5A5A5A5AULL));
          std::vector<T> got(n + kGuard, T(0x5A5A5A5A5A5A5A5AULL));
          const T want_last = ref_fns[w](ref_in.get(), n, min_delta, last, want.data());
          const T got_last = got_fns[w](got_in.get(), n, min_delta, last, got.data());
          ASSERT_EQ(got_last, want_last);
          ASSERT_EQ(got_last, want[n - 1]);
          for (size_t i = 0; i < n + kGuard; ++i) ASSERT_EQ(got[i], want[i]) << "value " << i;
        }
      }
    }
  }
}

TEST(KernelTables, DeltaMiniblocksEqualScalarAtEveryWidth) {
  const delta::DeltaKernels& ref = delta::kScalarDeltaKernels;
  for_each_simd_level([&](SimdLevel level) {
    const delta::DeltaKernels& k = delta_table(level);
    {
      SCOPED_TRACE("int64");
      check_miniblocks<uint64_t>(k.int64, ref.int64, 64);
    }
    {
      SCOPED_TRACE("int32 (widths above 32 wrap)");
      check_miniblocks<uint32_t>(k.int32, ref.int32, 64);
    }
  });
}

TEST(KernelTables, DeltaMiniblockWithNothingToDoReturnsLast) {
  for_each_simd_level([&](SimdLevel level) {
    const delta::DeltaKernels& k = delta_table(level);
    const uint8_t in[delta::kReadSlack] = {};
    uint64_t out64 = 7;
    uint32_t out32 = 7;
    for (int w = 0; w <= 64; ++w) {
      EXPECT_EQ(k.int64[w](in, 0, 5, 123, &out64), 123u) << w;
      EXPECT_EQ(k.int32[w](in, 0, 5, 123, &out32), 123u) << w;
    }
    EXPECT_EQ(out64, 7u);
    EXPECT_EQ(out32, 7u);
  });
}

// Whole blocks: each miniblock at its own width (the edge widths first, then
// random ones), the running value carried across miniblocks in registers.
template <class T, class BlockFn>
void check_blocks(BlockFn got_fn, BlockFn ref_fn) {
  std::mt19937_64 rng(sizeof(T));
  const auto extremes = Extremes<T>::values(rng);
  const int edge[] = {0, 1, 31, 32, 33, 63, 64, 57, 58, 25, 26, 8, 7};
  for (int iter = 0; iter < 300; ++iter) {
    const uint32_t m = 1 + static_cast<uint32_t>(rng() % 8);
    const uint32_t vpm = 32 * (1 + static_cast<uint32_t>(rng() % 8));
    std::vector<uint8_t> widths(m);
    size_t bytes = 0;
    for (uint32_t i = 0; i < m; ++i) {
      widths[i] = static_cast<uint8_t>(iter < 40 ? edge[(iter + i) % std::size(edge)] : rng() % 65);
      bytes += size_t{vpm} * widths[i] / 8;
    }
    const Fill fill = static_cast<Fill>(iter % 4);
    const auto body = packed_bytes(bytes, rng, fill);
    auto ref_in = with_slack(body, 0x00);
    auto got_in = with_slack(body, 0xFF);
    const T min_delta = extremes[rng() % extremes.size()];
    const T last = extremes[rng() % extremes.size()];
    const size_t n = size_t{m} * vpm;
    std::vector<T> want(n + kGuard, T(0x3C3C3C3C3C3C3C3CULL));
    std::vector<T> got(n + kGuard, T(0x3C3C3C3C3C3C3C3CULL));
    const T want_last = ref_fn(ref_in.get(), widths.data(), m, vpm, min_delta, last, want.data());
    const T got_last = got_fn(got_in.get(), widths.data(), m, vpm, min_delta, last, got.data());
    ASSERT_EQ(got_last, want_last) << "iteration " << iter;
    ASSERT_EQ(want_last, want[n - 1]) << "iteration " << iter;
    for (size_t i = 0; i < n + kGuard; ++i) ASSERT_EQ(got[i], want[i]) << "iteration " << iter << ", value " << i;
  }
}

TEST(KernelTables, DeltaBlocksEqualScalar) {
  const delta::DeltaKernels& ref = delta::kScalarDeltaKernels;
  for_each_simd_level([&](SimdLevel level) {
    const delta::DeltaKernels& k = delta_table(level);
    check_blocks<uint64_t>(k.block64, ref.block64);
    check_blocks<uint32_t>(k.block32, ref.block32);
  });
}

// The block kernel equals its miniblocks called one after another.
TEST(KernelTables, DeltaBlockEqualsChainedMiniblocks) {
  std::mt19937_64 rng(17);
  for_each_simd_level([&](SimdLevel level) {
    const delta::DeltaKernels& k = delta_table(level);
    for (int iter = 0; iter < 50; ++iter) {
      const uint32_t m = 4, vpm = 64;
      uint8_t widths[4];
      size_t bytes = 0;
      for (auto& w : widths) bytes += size_t{vpm} * (w = static_cast<uint8_t>(rng() % 65)) / 8;
      auto in = with_slack(packed_bytes(bytes, rng, Fill::kRandom), 0x11);
      const uint64_t min_delta = rng(), last = rng();
      std::vector<uint64_t> block(m * vpm), chained(m * vpm);
      const uint64_t b = k.block64(in.get(), widths, m, vpm, min_delta, last, block.data());
      uint64_t c = last;
      const uint8_t* p = in.get();
      for (uint32_t i = 0; i < m; ++i) {
        c = k.int64[widths[i]](p, vpm, min_delta, c, chained.data() + i * vpm);
        p += size_t{vpm} * widths[i] / 8;
      }
      ASSERT_EQ(b, c);
      ASSERT_EQ(block, chained);
    }
  });
}

// Lengths to offsets (DELTA_LENGTH_BYTE_ARRAY / DELTA_BYTE_ARRAY): the
// miniblock and block offset kernels against scalar at every width, and the
// offsets equal the running sum of what the plain kernel decodes.
TEST(KernelTables, DeltaOffsetKernelsEqualScalarAndTheRunningSum) {
  const delta::DeltaKernels& ref = delta::kScalarDeltaKernels;
  std::mt19937_64 rng(23);
  for_each_simd_level([&](SimdLevel level) {
    const delta::DeltaKernels& k = delta_table(level);
    const auto extremes = Extremes<uint32_t>::values(rng);
    for (int w = 0; w <= 64; ++w) {
      for (size_t n : {size_t{32}, size_t{96}, size_t{1056}}) {
        for (Fill fill : {Fill::kRandom, Fill::kSparse, Fill::kOnes}) {
          SCOPED_TRACE("width " + std::to_string(w) + ", n " + std::to_string(n));
          const auto body = packed_bytes(n * w / 8, rng, fill);
          auto ref_in = with_slack(body, 0x00);
          auto got_in = with_slack(body, 0x5A);
          const uint32_t min_delta = extremes[rng() % extremes.size()];
          const delta::OffsetCarry start{extremes[rng() % extremes.size()], static_cast<uint32_t>(rng()),
                                         static_cast<uint32_t>(rng() >> 40)};
          std::vector<uint32_t> want(n + kGuard, 0x3C3C3C3Cu), got(n + kGuard, 0x3C3C3C3Cu), lengths(n);
          delta::OffsetCarry want_c = start, got_c = start;
          ref.offsets32[w](ref_in.get(), n, min_delta, &want_c, want.data());
          k.offsets32[w](got_in.get(), n, min_delta, &got_c, got.data());
          ASSERT_EQ(got, want);
          ASSERT_EQ(got_c.length, want_c.length);
          ASSERT_EQ(got_c.offset, want_c.offset);
          ASSERT_EQ(got_c.max_length, want_c.max_length);
          // Independently: the plain kernel's values, summed.
          const uint32_t last = ref.int32[w](ref_in.get(), n, min_delta, start.length, lengths.data());
          ASSERT_EQ(last, want_c.length);
          uint32_t off = start.offset, mx = start.max_length;
          for (size_t i = 0; i < n; ++i) {
            off += lengths[i];
            mx = std::max(mx, lengths[i]);
            ASSERT_EQ(want[i], off) << i;
          }
          ASSERT_EQ(mx, want_c.max_length);
        }
      }
    }
    for (int iter = 0; iter < 200; ++iter) {
      const uint32_t m = 1 + static_cast<uint32_t>(rng() % 8), vpm = 32 * (1 + static_cast<uint32_t>(rng() % 8));
      std::vector<uint8_t> widths(m);
      size_t bytes = 0;
      for (auto& x : widths) bytes += size_t{vpm} * (x = static_cast<uint8_t>(rng() % 65)) / 8;
      auto in = with_slack(packed_bytes(bytes, rng, static_cast<Fill>(iter % 4)), 0x77);
      const uint32_t min_delta = static_cast<uint32_t>(rng());
      delta::OffsetCarry want_c{static_cast<uint32_t>(rng()), static_cast<uint32_t>(rng()), 0}, got_c = want_c;
      std::vector<uint32_t> want(size_t{m} * vpm + kGuard, 1), got(size_t{m} * vpm + kGuard, 1);
      ref.block_offsets32(in.get(), widths.data(), m, vpm, min_delta, &want_c, want.data());
      k.block_offsets32(in.get(), widths.data(), m, vpm, min_delta, &got_c, got.data());
      ASSERT_EQ(got, want) << "iteration " << iter;
      ASSERT_EQ(got_c.length, want_c.length);
      ASSERT_EQ(got_c.offset, want_c.offset);
      ASSERT_EQ(got_c.max_length, want_c.max_length);
    }
  });
}

// DELTA_BYTE_ARRAY rebuild and binary views: every level's kernel writes the
// scalar reference's bytes, for prefixes and suffixes of 0..200 bytes (the
// register-held prefix paths and the long-copy paths), with the slack the
// callers guarantee filled with different garbage.
TEST(KernelTables, DeltaRebuildAndViewsEqualScalar) {
  const delta::DeltaKernels& ref = delta::kScalarDeltaKernels;
  std::mt19937_64 rng(31);
  constexpr size_t kSlack = delta::kRebuildSlack;
  for (int iter = 0; iter < 300; ++iter) {
    const size_t k = 1 + rng() % 300;
    const size_t len_cap = iter % 4 == 0 ? 200 : iter % 4 == 1 ? 40 : iter % 4 == 2 ? 70 : 12;
    // Lengths and prefixes that chain (each prefix within the value before).
    std::vector<uint32_t> prefix(k), suffix_at(k + 1);
    std::vector<uint8_t> page(kSlack);
    for (auto& b : page) b = static_cast<uint8_t>(rng());
    const size_t prev_len = rng() % (len_cap + 1);
    size_t last = prev_len;
    for (size_t i = 0; i < k; ++i) {
      prefix[i] = static_cast<uint32_t>(rng() % (last + 1));
      const size_t s = rng() % (len_cap + 1);
      suffix_at[i] = static_cast<uint32_t>(page.size());
      for (size_t j = 0; j < s; ++j) page.push_back(static_cast<uint8_t>(rng()));
      last = prefix[i] + s;
    }
    suffix_at[k] = static_cast<uint32_t>(page.size());
    page.resize(page.size() + kSlack, 0xEE);
    std::vector<uint8_t> prev(prev_len + kSlack);
    for (auto& b : prev) b = static_cast<uint8_t>(rng());
    size_t total = 0;
    for (size_t i = 0; i < k; ++i) total += prefix[i] + (suffix_at[i + 1] - suffix_at[i]);
    std::vector<uint8_t> want(total + kSlack, 0x11);
    size_t max_len = 0;
    for (size_t i = 0; i < k; ++i) max_len = std::max<size_t>(max_len, prefix[i] + (suffix_at[i + 1] - suffix_at[i]));
    ref.rebuild(page.data(), prefix.data(), suffix_at.data(), k, prev.data(), want.data(), max_len);
    want.resize(total);
    // Views of those values (16 readable bytes after each start: the slack).
    std::vector<uint32_t> ends(k);
    size_t at = 0;
    for (size_t i = 0; i < k; ++i) ends[i] = static_cast<uint32_t>(at += prefix[i] + (suffix_at[i + 1] - suffix_at[i]));
    std::vector<uint8_t> values = want;
    values.resize(total + 16, 0x77);
    std::vector<uint8_t> want_views(16 * k, 0);
    ref.views(values.data(), 0, ends.data(), k, 5, want_views.data());
    for_each_simd_level([&](SimdLevel level) {
      const delta::DeltaKernels& kt = delta_table(level);
      std::vector<uint8_t> got(total + kSlack, 0x22);
      kt.rebuild(page.data(), prefix.data(), suffix_at.data(), k, prev.data(), got.data(), max_len);
      got.resize(total);
      ASSERT_EQ(got, want) << "iteration " << iter;
      std::vector<uint8_t> got_views(16 * k, 0xFF);
      auto garbage = values;
      for (size_t j = total; j < garbage.size(); ++j) garbage[j] = 0x99;  // past the values: must not matter
      kt.views(garbage.data(), 0, ends.data(), k, 5, got_views.data());
      ASSERT_EQ(got_views, want_views) << "iteration " << iter;
    });
  }
}

// ---- local_bloom --------------------------------------------------------------

// A payload at an offset from a 64-byte boundary (views parse blocks in place).
struct Payload {
  std::vector<uint8_t> storage;
  size_t offset;
  uint8_t* data() { return storage.data() + offset; }
};

// Density d: each bit set with probability 1 - 2^-d.
Payload random_payload(uint32_t lines, size_t offset, std::mt19937_64& rng, int density) {
  Payload p{std::vector<uint8_t>(size_t{lines} * kLocalBloomLineBytes + 64 + offset), offset};
  for (size_t i = 0; i < p.storage.size(); i += 8) {
    uint64_t x = rng();
    for (int d = 1; d < density; ++d) x |= rng();
    std::memcpy(p.storage.data() + i, &x, std::min<size_t>(8, p.storage.size() - i));
  }
  return p;
}

TEST(KernelTables, LocalBloomProbesEqualScalarAtEveryProbeCount) {
  const local_bloom::LocalBloomKernels& ref = local_bloom::kScalarLocalBloomKernels;
  std::mt19937_64 rng(23);
  // The same payloads for every level: each line count (9001 is above the
  // prefetch threshold) at offsets from a 64-byte boundary, at bit densities
  // that give both answers at low and high probe counts.
  const uint32_t kLines[] = {1, 2, 3, 64, 9001};
  const size_t kOffsets[] = {0, 1, 7, 32};
  constexpr int kDensities = 10;
  std::vector<Payload> payloads;
  for (uint32_t lines : kLines) {
    for (size_t offset : kOffsets) {
      for (int d = 1; d <= kDensities; ++d) payloads.push_back(random_payload(lines, offset, rng, d));
    }
  }
  const auto hashes = testing::random_u64(3000, 24);
  for_each_simd_level([&](SimdLevel level) {
    const local_bloom::LocalBloomKernels& k = bloom_table(level);
    size_t trues = 0, falses = 0, at = 0;
    for (uint32_t lines : kLines) {
      for (size_t offset : kOffsets) {
        for (int probes = 1; probes <= kLocalBloomMaxProbes; ++probes) {
          const int density = 1 + probes / 4 + probes % 2;
          Payload& p = payloads[at + static_cast<size_t>(density - 1)];
          SCOPED_TRACE("probes " + std::to_string(probes) + ", lines " + std::to_string(lines) + ", offset " +
                       std::to_string(offset) + ", density " + std::to_string(density));
          const size_t n = lines > 64 ? 3000 : 700;
          std::vector<uint8_t> want(n), got(n);
          ref.check_hashes(p.data(), lines, probes, hashes.data(), n, want.data());
          k.check_hashes(p.data(), lines, probes, hashes.data(), n, got.data());
          ASSERT_EQ(got, want);
          for (size_t i = 0; i < n; ++i) {
            ASSERT_EQ(k.check_hash(p.data(), lines, probes, hashes[i]), want[i] != 0) << "single " << i;
            (want[i] ? trues : falses) += 1;
          }
          // Batch lengths around the prefetch distance.
          for (size_t m : {size_t{0}, size_t{1}, local_bloom::kPrefetchDistance, local_bloom::kPrefetchDistance + 1}) {
            std::vector<uint8_t> part(m + 1, 0xEE);
            k.check_hashes(p.data(), lines, probes, hashes.data(), m, part.data());
            for (size_t i = 0; i < m; ++i) ASSERT_EQ(part[i], want[i]);
            ASSERT_EQ(part[m], 0xEE) << "wrote past n";
          }
        }
        at += kDensities;
      }
    }
    // Both answers were exercised at every level.
    EXPECT_GT(trues, 10000u);
    EXPECT_GT(falses, 10000u);
  });
}

TEST(KernelTables, LocalBloomInsertBuildsTheScalarBytes) {
  const local_bloom::LocalBloomKernels& ref = local_bloom::kScalarLocalBloomKernels;
  std::mt19937_64 rng(29);
  for_each_simd_level([&](SimdLevel level) {
    const local_bloom::LocalBloomKernels& k = bloom_table(level);
    for (int probes = 1; probes <= kLocalBloomMaxProbes; ++probes) {
      for (uint32_t lines : {1u, 5u, 9001u}) {
        for (size_t offset : {size_t{0}, size_t{3}}) {
          SCOPED_TRACE("probes " + std::to_string(probes) + ", lines " + std::to_string(lines));
          const auto hashes = testing::random_u64(lines * 8 / probes + 40, rng());
          Payload a = random_payload(lines, offset, rng, 1);
          std::memset(a.storage.data(), 0, a.storage.size());
          Payload b = a;
          ref.insert_hashes(a.data(), lines, probes, hashes.data(), hashes.size());
          k.insert_hashes(b.data(), lines, probes, hashes.data(), hashes.size());
          ASSERT_EQ(a.storage, b.storage);  // the bytes around the payload too
          std::vector<uint8_t> out(hashes.size());
          k.check_hashes(b.data(), lines, probes, hashes.data(), hashes.size(), out.data());
          for (uint8_t v : out) ASSERT_EQ(v, 1);
        }
      }
    }
  });
}

TEST(KernelTables, LocalBloomKeysAndManyFiltersEqualScalar) {
  const local_bloom::LocalBloomKernels& ref = local_bloom::kScalarLocalBloomKernels;
  std::mt19937_64 rng(31);
  // Keys of every length 0..80 in Arrow layout.
  std::vector<uint8_t> keys;
  std::vector<int64_t> offsets{0};
  for (int i = 0; i < 2000; ++i) {
    const size_t len = i % 81;
    for (size_t j = 0; j < len; ++j) keys.push_back(static_cast<uint8_t>(rng()));
    offsets.push_back(static_cast<int64_t>(keys.size()));
  }
  const size_t nkeys = offsets.size() - 1;
  // Filters of several shapes, one without lines (it matches nothing).
  std::vector<Payload> payloads;
  std::vector<LocalBloomRef> refs;
  for (int f = 0; f < 12; ++f) {
    const uint32_t lines = f == 5 ? 0u : 1u + static_cast<uint32_t>(rng() % 300);
    const int probes = 1 + static_cast<int>(rng() % kLocalBloomMaxProbes);
    payloads.push_back(random_payload(lines == 0 ? 1 : lines, static_cast<size_t>(f % 3), rng, 1 + probes / 4));
    refs.push_back({nullptr, lines, probes});
  }
  for (int f = 0; f < 12; ++f) refs[f].payload = payloads[f].data();
  for_each_simd_level([&](SimdLevel level) {
    const local_bloom::LocalBloomKernels& k = bloom_table(level);
    for (const LocalBloomRef& r : refs) {
      if (r.num_lines == 0) continue;
      std::vector<uint8_t> want(nkeys), got(nkeys);
      ref.check_keys(r.payload, r.num_lines, r.num_probes, keys.data(), offsets.data(), nkeys, want.data());
      k.check_keys(r.payload, r.num_lines, r.num_probes, keys.data(), offsets.data(), nkeys, got.data());
      ASSERT_EQ(got, want);
      for (size_t i = 0; i < nkeys; ++i) {
        ASSERT_EQ(k.check_key(r.payload, r.num_lines, r.num_probes, keys.data() + offsets[i],
                              static_cast<size_t>(offsets[i + 1] - offsets[i])),
                  want[i] != 0);
      }
    }
    for (size_t n : {size_t{0}, size_t{1}, size_t{31}, size_t{33}, size_t{5000}}) {
      const auto hashes = testing::random_u64(n, n + 1);
      std::vector<uint32_t> index(n);
      for (auto& x : index) x = static_cast<uint32_t>(rng() % refs.size());
      std::vector<uint8_t> want(n + 1, 0xEE), got(n + 1, 0xEE);
      ref.check_many(refs.data(), index.data(), hashes.data(), n, want.data());
      k.check_many(refs.data(), index.data(), hashes.data(), n, got.data());
      ASSERT_EQ(got, want) << n;
    }
  });
}

}  // namespace
}  // namespace pqfast
