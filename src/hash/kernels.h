// Internal: the hash family's per-ISA table.
#pragma once

#include <cstddef>
#include <cstdint>

#include "simd/dispatch.h"

namespace pqfast::hash {

struct HashKernels {
  // out[i] = XXH64(4 little-endian bytes of values[i], seed 0)
  void (*xxh64_fixed4)(const uint32_t* values, size_t n, uint64_t* out);
  // out[i] = XXH64(8 little-endian bytes of values[i], seed 0)
  void (*xxh64_fixed8)(const uint64_t* values, size_t n, uint64_t* out);
};

extern const HashKernels kScalarHashKernels;

// The tables by level (entries for levels the family lacks are nullptr).
const detail::KernelTables<HashKernels>& hash_kernel_tables();

}  // namespace pqfast::hash
