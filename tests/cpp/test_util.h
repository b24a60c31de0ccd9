// Test helpers: run a body once per SIMD implementation this CPU supports.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "pqfast/simd.h"

namespace pqfast::testing {

// Restores the active level when a test ends.
class ScopedSimdLevel {
 public:
  explicit ScopedSimdLevel(SimdLevel level) : saved_(simd_level()) {
    EXPECT_TRUE(set_simd_level(level).ok()) << simd_level_name(level);
  }
  ~ScopedSimdLevel() { (void)set_simd_level(saved_); }

 private:
  SimdLevel saved_;
};

// Calls body(level) with each supported implementation forced by name.
template <class Body>
void for_each_simd_level(Body&& body) {
  for (SimdLevel level : available_simd_levels()) {
    SCOPED_TRACE(std::string("implementation: ") + simd_level_name(level));
    ScopedSimdLevel scoped(level);
    body(level);
  }
}

// Long differential runs (>= 1e9 pairs) only when PQFAST_LONG_TESTS=1.
inline bool long_tests_enabled() {
  const char* v = std::getenv("PQFAST_LONG_TESTS");
  return v != nullptr && std::string(v) == "1";
}

inline std::vector<uint64_t> random_u64(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> v(n);
  for (auto& x : v) x = rng();
  return v;
}

}  // namespace pqfast::testing
