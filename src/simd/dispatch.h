// Internal: picking a kernel family's table for the active SIMD level.
//
// Each family declares one table type (a struct of function pointers that
// take arrays, never single keys) and one instance per ISA translation unit.
// A family need not implement every level: select_kernels() walks down from
// the requested level to the best table the family has (avx512 -> avx2 ->
// sse4 -> scalar; neon -> scalar).
//
// Rule for ISA translation units (compiled with -mavx2, -mavx512f, ...): put
// everything in an anonymous namespace except the exported table, and do not
// instantiate standard-library templates there. An inline function or
// template instantiated in an ISA unit is a COMDAT that the linker may pick
// for every caller, which would run AVX-512 code on CPUs without it.
#pragma once

#include <array>

#include "pqfast/simd.h"

namespace pqfast::detail {

template <class Kernels>
struct KernelTables {
  // Indexed by SimdLevel; nullptr where the family or build has no table.
  std::array<const Kernels*, kNumSimdLevels> by_level{};
};

template <class Kernels>
const Kernels& select_kernels(const KernelTables<Kernels>& tables, SimdLevel level) {
  int l = static_cast<int>(level);
  if (level == SimdLevel::kNeon) {
    if (tables.by_level[l] != nullptr) return *tables.by_level[l];
    l = static_cast<int>(SimdLevel::kScalar);
  }
  for (; l > 0; --l) {
    if (l != static_cast<int>(SimdLevel::kNeon) && tables.by_level[l] != nullptr) {
      return *tables.by_level[l];
    }
  }
  return *tables.by_level[0];
}

// The family's table for the active level (one call per batch).
template <class Kernels>
const Kernels& active_kernels(const KernelTables<Kernels>& tables) {
  return select_kernels(tables, simd_level());
}

}  // namespace pqfast::detail
