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
#include <atomic>
#include <cstdint>

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

// The active level as simd_level() keeps it: -1 until first use. Read by
// ActiveKernels on every call; written only by simd_level()/set_simd_level().
extern std::atomic<int> g_active_simd_level;

// Registers fn to run after every set_simd_level() (at most 16 listeners;
// families use it to clear caches that public headers read inline).
void on_simd_level_change(void (*fn)());

// A family's table for the active level, cached so that a single-key call
// costs two relaxed loads, a compare and the indirect call (no walk of the
// table list, no function-local static guard). The cache is one word: the
// table's address with (level + 2) in its low 3 bits (never
// 1, the tag of the 'not chosen yet' level -1, nor 0, the empty cache), so a reader never sees
// a table paired with the wrong level; set_simd_level() changes the level and
// the next call refreshes the word.
template <class Kernels>
class ActiveKernels {
 public:
  using TablesFn = const KernelTables<Kernels>& (*)();
  constexpr explicit ActiveKernels(TablesFn tables) : tables_(tables) {}

  const Kernels& get() const {
    const uintptr_t cached = cached_.load(std::memory_order_relaxed);
    const int level = g_active_simd_level.load(std::memory_order_relaxed);
    if (static_cast<int>(cached & 7u) == level + 2) [[likely]] {
      return *reinterpret_cast<const Kernels*>(cached & ~uintptr_t{7});
    }
    return refresh();
  }

 private:
  const Kernels& refresh() const {
    const SimdLevel level = simd_level();
    const Kernels& k = select_kernels(tables_(), level);
    static_assert(alignof(Kernels) >= 8, "the low 3 bits of a table address hold the level");
    cached_.store(reinterpret_cast<uintptr_t>(&k) | static_cast<uintptr_t>(static_cast<int>(level) + 2),
                  std::memory_order_relaxed);
    return k;
  }

  TablesFn tables_;
  mutable std::atomic<uintptr_t> cached_{0};
};

}  // namespace pqfast::detail
