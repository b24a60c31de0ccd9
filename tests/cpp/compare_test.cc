// The compare family (values against a constant or a small set, into
// bitmaps) on every SIMD level the CPU has, against a per-value loop over
// the same inputs: every operator and element type, signed and unsigned
// extremes, NaN and -0.0, lengths around every vector and word boundary.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "compare/kernels.h"
#include "compare/typed.h"
#include "pqfast/simd.h"

namespace {

namespace cm = pqfast::compare;
using cm::CmpOp;

std::vector<std::pair<pqfast::SimdLevel, const cm::CompareKernels*>> supported_tables() {
  std::vector<std::pair<pqfast::SimdLevel, const cm::CompareKernels*>> out;
  const auto& tables = cm::compare_kernel_tables();
  for (auto l : pqfast::available_simd_levels()) {
    const auto* k = tables.by_level[static_cast<int>(l)];
    if (k != nullptr) out.emplace_back(l, k);
  }
  return out;
}

constexpr CmpOp kOps[] = {CmpOp::kEq, CmpOp::kNe, CmpOp::kLt, CmpOp::kLe, CmpOp::kGt, CmpOp::kGe};
constexpr size_t kLengths[] = {0, 1, 3, 4, 7, 8, 15, 16, 17, 31, 63, 64, 65, 100, 127, 128, 129, 1000};

template <class T>
bool holds(T x, CmpOp op, T v) {
  switch (op) {
    case CmpOp::kEq: return x == v;
    case CmpOp::kNe: return x != v;
    case CmpOp::kLt: return x < v;
    case CmpOp::kLe: return x <= v;
    case CmpOp::kGt: return x > v;
    case CmpOp::kGe: return x >= v;
  }
  return false;
}

// Values drawn mostly from a few "interesting" ones, so that each operator
// sees equal, smaller and larger values (and NaN, -0.0 for floats).
template <class T>
std::vector<T> specials() {
  using L = std::numeric_limits<T>;
  std::vector<T> s = {T(0), T(1), T(2), L::max(), L::lowest(), static_cast<T>(L::max() - 1)};
  if constexpr (std::is_signed_v<T> || std::is_floating_point_v<T>) s.push_back(T(-1));
  if constexpr (std::is_floating_point_v<T>) {
    s.push_back(L::quiet_NaN());
    s.push_back(-L::quiet_NaN());
    s.push_back(T(-0.0));
    s.push_back(L::infinity());
    s.push_back(-L::infinity());
    s.push_back(L::denorm_min());
  }
  return s;
}

template <class T>
std::vector<T> values(size_t n, std::mt19937_64& rng) {
  const std::vector<T> s = specials<T>();
  std::vector<T> x(n);
  for (auto& v : x) {
    if (rng() % 3 == 0) {
      uint64_t r = rng();
      std::memcpy(&v, &r, sizeof v);
    } else {
      v = s[rng() % s.size()];
    }
  }
  return x;
}

// Kernel output for x against v, with poisoned words to show every word
// is written and bits past n are zero.
template <class T>
std::vector<uint64_t> run(const cm::CompareKernels& k, const std::vector<T>& x, CmpOp op, T v) {
  std::vector<uint64_t> out((x.size() + 63) / 64, 0xA5A5A5A5A5A5A5A5ull);
  cm::compare_values(k, x.data(), x.size(), op, v, out.data());
  return out;
}

template <class T>
void check_type() {
  std::mt19937_64 rng(sizeof(T) * 7 + std::is_floating_point_v<T> + 2 * std::is_signed_v<T>);
  for (auto [level, k] : supported_tables()) {
    for (size_t n : kLengths) {
      for (int rep = 0; rep < 4; ++rep) {
        const std::vector<T> x = values<T>(n, rng);
        const std::vector<T> s = specials<T>();
        for (size_t vi = 0; vi < s.size() + 1; ++vi) {
          const T v = vi < s.size() ? s[vi] : (n ? x[rng() % n] : T(3));
          for (CmpOp op : kOps) {
            const std::vector<uint64_t> got = run(*k, x, op, v);
            for (size_t i = 0; i < got.size() * 64; ++i) {
              const bool want = i < n && holds(x[i], op, v);
              const bool bit = (got[i / 64] >> (i % 64)) & 1;
              ASSERT_EQ(bit, want) << pqfast::simd_level_name(level) << " n=" << n << " i=" << i
                                   << " op=" << static_cast<int>(op);
            }
          }
        }
      }
    }
  }
}

TEST(CompareKernels, Int32EveryLevel) { check_type<int32_t>(); }
TEST(CompareKernels, Uint32EveryLevel) { check_type<uint32_t>(); }
TEST(CompareKernels, Int64EveryLevel) { check_type<int64_t>(); }
TEST(CompareKernels, Uint64EveryLevel) { check_type<uint64_t>(); }
TEST(CompareKernels, FloatEveryLevel) { check_type<float>(); }
TEST(CompareKernels, DoubleEveryLevel) { check_type<double>(); }

template <class U>
void check_set() {
  std::mt19937_64 rng(sizeof(U));
  for (auto [level, k] : supported_tables()) {
    for (size_t n : kLengths) {
      for (size_t m : {size_t{0}, size_t{1}, size_t{2}, size_t{5}, size_t{32}}) {
        std::vector<U> x(n), set(m);
        for (auto& v : x) v = static_cast<U>(rng() % 50);  // small values: many members hit
        for (auto& v : set) v = static_cast<U>(rng() % 60);
        std::vector<uint64_t> got((n + 63) / 64, 0xA5A5A5A5A5A5A5A5ull);
        if constexpr (sizeof(U) == 4) k->in_u32(x.data(), n, set.data(), m, got.data());
        else k->in_u64(x.data(), n, set.data(), m, got.data());
        for (size_t i = 0; i < got.size() * 64; ++i) {
          bool want = false;
          for (size_t j = 0; i < n && j < m; ++j) want = want || x[i] == set[j];
          ASSERT_EQ(((got[i / 64] >> (i % 64)) & 1) != 0, want)
              << pqfast::simd_level_name(level) << " n=" << n << " m=" << m << " i=" << i;
        }
      }
    }
  }
}

TEST(CompareKernels, SetOf32BitPatternsEveryLevel) { check_set<uint32_t>(); }
TEST(CompareKernels, SetOf64BitPatternsEveryLevel) { check_set<uint64_t>(); }

TEST(CompareKernels, EveryLevelHasATableOrFallsBackToScalar) {
  // The scalar table is always there; on x86 the AVX2 and AVX-512 ones too.
  const auto& t = cm::compare_kernel_tables();
  EXPECT_EQ(t.by_level[static_cast<int>(pqfast::SimdLevel::kScalar)], &cm::kScalarCompareKernels);
  EXPECT_FALSE(supported_tables().empty());
}

}  // namespace
