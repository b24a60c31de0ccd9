// The nulls family (dense values spread over validity bitmaps, and the
// packing of selected elements and bits) against its scalar reference and a
// plain loop on every SIMD level the CPU has: every element width it
// serves, every bit offset, null and selection rates from none to all.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "nulls/kernels.h"
#include "pqfast/simd.h"

namespace {

namespace nu = pqfast::nulls;

std::vector<const nu::NullKernels*> supported_tables() {
  std::vector<const nu::NullKernels*> out;
  const auto& tables = nu::null_kernel_tables();
  for (auto l : pqfast::available_simd_levels()) {
    const auto* k = tables.by_level[static_cast<int>(l)];
    if (k != nullptr) out.push_back(k);
  }
  return out;
}

TEST(NullKernels, EveryLevelEqualsScalar) {
  std::mt19937_64 rng(5);
  const auto& ref = nu::kScalarNullKernels;
  for (const nu::NullKernels* k : supported_tables()) {
    for (size_t count : {size_t{0}, size_t{1}, size_t{7}, size_t{8}, size_t{17}, size_t{64}, size_t{100}, size_t{1000}}) {
      for (int64_t off : {0, 1, 9, 63, 64, 130}) {
        for (int null_pct : {0, 10, 50, 100}) {
          const size_t vbytes = static_cast<size_t>(off + static_cast<int64_t>(count)) / 8 + 32;
          std::vector<uint8_t> validity(vbytes, 0);
          size_t nonnull = 0;
          for (size_t i = 0; i < count; ++i) {
            if (static_cast<int>(rng() % 100) >= null_pct) {
              const int64_t b = off + static_cast<int64_t>(i);
              validity[static_cast<size_t>(b >> 3)] |= static_cast<uint8_t>(1u << (b & 7));
              ++nonnull;
            }
          }
          for (size_t elem : {size_t{4}, size_t{8}}) {
            std::vector<uint8_t> want(count * elem + 64), got;
            for (size_t i = 0; i < nonnull * elem; ++i) want[i] = static_cast<uint8_t>(rng());
            got = want;
            auto fn_ref = elem == 8 ? ref.spread8 : ref.spread4;
            auto fn = elem == 8 ? k->spread8 : k->spread4;
            fn_ref(want.data(), validity.data(), off, count, nonnull);
            fn(got.data(), validity.data(), off, count, nonnull);
            ASSERT_TRUE(std::equal(want.begin(), want.begin() + static_cast<long>(count * elem), got.begin()))
                << "elem " << elem << " count " << count << " off " << off << " nulls " << null_pct;
          }
          std::vector<uint8_t> src(count / 8 + 32);
          for (auto& b : src) b = static_cast<uint8_t>(rng());
          std::vector<uint8_t> want(vbytes, 0);
          for (auto& b : want) b = static_cast<uint8_t>(rng());
          std::vector<uint8_t> got = want;  // bits outside the range must survive
          ref.spread_bits(src.data(), want.data(), validity.data(), off, count);
          k->spread_bits(src.data(), got.data(), validity.data(), off, count);
          ASSERT_EQ(got, want) << "bits count " << count << " off " << off << " nulls " << null_pct;
        }
      }
    }
  }
}

// What the packing kernels must do, one element or bit at a time.
uint64_t extract_reference(uint64_t v, uint64_t mask) {
  uint64_t out = 0;
  int k = 0;
  for (int i = 0; i < 64; ++i) {
    if ((mask >> i) & 1) out |= ((v >> i) & 1) << k++;
  }
  return out;
}

TEST(NullKernels, PackingEveryLevelEqualsReference) {
  std::mt19937_64 rng(9);
  for (const nu::NullKernels* k : supported_tables()) {
    for (int round = 0; round < 2000; ++round) {
      // Selections from empty to full, dense and sparse, any length to 64.
      const int pct = static_cast<int>(rng() % 5) * 25;
      uint64_t bits = 0;
      for (int i = 0; i < 64; ++i) {
        if (static_cast<int>(rng() % 100) < pct) bits |= uint64_t{1} << i;
      }
      const int count = round % 65;
      if (count < 64) bits &= (uint64_t{1} << count) - 1;
      const uint64_t v = rng();
      ASSERT_EQ(k->extract_bits(v, bits), extract_reference(v, bits)) << std::hex << v << " " << bits;
      ASSERT_EQ(nu::kScalarNullKernels.extract_bits(v, bits), extract_reference(v, bits));
      for (size_t w : {size_t{4}, size_t{8}}) {
        // Exactly the source and the promised 32 bytes of output slack (for
        // AddressSanitizer to see any read or write past them).
        std::vector<uint8_t> src(static_cast<size_t>(count) * w);
        for (auto& b : src) b = static_cast<uint8_t>(rng());
        const size_t kept = static_cast<size_t>(__builtin_popcountll(bits));
        std::vector<uint8_t> want;
        for (int i = 0; i < count; ++i) {
          if ((bits >> i) & 1) want.insert(want.end(), src.begin() + i * static_cast<long>(w), src.begin() + (i + 1) * static_cast<long>(w));
        }
        std::vector<uint8_t> got(kept * w + 32);
        auto fn = w == 8 ? k->compress8 : k->compress4;
        ASSERT_EQ(fn(src.data(), bits, count, got.data()), kept) << "w " << w << " count " << count;
        ASSERT_TRUE(std::equal(want.begin(), want.end(), got.begin())) << "w " << w << " count " << count;
      }
    }
  }
}

}  // namespace
