// Internal: the local_bloom family's per-ISA table and the line arithmetic
// every implementation shares.
#pragma once

#include <cstddef>
#include <cstdint>

#include "hash/rocksdb_hash64.h"
#include "pqfast/local_bloom.h"
#include "simd/dispatch.h"

namespace pqfast::local_bloom {

// Kernels take the payload (num_lines >= 1 lines of 64 bytes), the probe
// count (1..30) and arrays of 64-bit hashes. They never fail.
struct LocalBloomKernels {
  bool (*check_hash)(const uint8_t* data, uint32_t num_lines, int num_probes, uint64_t hash);
  // out[i] = 1 when every probe bit of hashes[i] is set in its line, else 0.
  void (*check_hashes)(const uint8_t* data, uint32_t num_lines, int num_probes,
                       const uint64_t* hashes, size_t n, uint8_t* out);
  void (*insert_hashes)(uint8_t* data, uint32_t num_lines, int num_probes, const uint64_t* hashes,
                        size_t n);
  // The same for keys, hashed with RocksDB's Hash64 inside the kernel.
  bool (*check_key)(const uint8_t* data, uint32_t num_lines, int num_probes, const uint8_t* key,
                    size_t len);
  // Keys in Arrow layout (offsets already validated).
  void (*check_keys)(const uint8_t* data, uint32_t num_lines, int num_probes,
                     const uint8_t* keys, const int64_t* offsets, size_t n, uint8_t* out);
  // Each query against its own filter (see local_bloom_check_many).
  void (*check_many)(const LocalBloomRef* filters, const uint32_t* filter_index,
                     const uint64_t* hashes, size_t n, uint8_t* out);
};

extern const LocalBloomKernels kScalarLocalBloomKernels;
#if defined(PQFAST_ARCH_X86)
extern const LocalBloomKernels kAvx2LocalBloomKernels;
extern const LocalBloomKernels kAvx512LocalBloomKernels;
#endif
#if defined(PQFAST_ARCH_ARM64)
extern const LocalBloomKernels kNeonLocalBloomKernels;
#endif

const detail::KernelTables<LocalBloomKernels>& local_bloom_kernel_tables();

namespace {  // internal linkage: safe to include from ISA translation units

// 32-bit fastrange of the hash's low half over the lines.
inline uint32_t line_index(uint64_t hash, uint32_t num_lines) {
  return static_cast<uint32_t>((uint64_t{static_cast<uint32_t>(hash)} * num_lines) >> 32);
}

inline const uint8_t* line_of(const uint8_t* data, uint32_t num_lines, uint64_t hash) {
  return data + size_t{line_index(hash, num_lines)} * kLocalBloomLineBytes;
}

// The hash's high half: the first probe's seed.
inline uint32_t probe_seed(uint64_t hash) { return static_cast<uint32_t>(hash >> 32); }

// The multiplier between consecutive probes (the 32-bit golden ratio).
constexpr uint32_t kProbeMultiplier = 0x9e3779b9U;

// kProbeMultiplier^i mod 2^32: probe i's hash is seed * kProbePower[i], so
// SIMD kernels compute 8 or 16 probes with one multiply.
constexpr uint32_t probe_power(int i) {
  uint32_t p = 1;
  for (int k = 0; k < i; ++k) p *= kProbeMultiplier;
  return p;
}

// Queries ahead that batched loops over one filter prefetch.
constexpr size_t kPrefetchDistance = 16;
// Below this many lines (512 KiB) a filter is L2-resident: no prefetching.
constexpr uint32_t kPrefetchMinLines = 8192;
// Queries ahead across many filters (cold lines, DRAM latency ~100 ns).
constexpr size_t kManyPrefetchDistance = 32;

// Keys hashed per step of a batched key check.
constexpr size_t kKeyChunk = 256;

// The key kernels of an ISA unit, from its check_hash / check_hashes (each
// unit instantiates these with its own flags, in its own anonymous namespace).
template <bool (*CheckHash)(const uint8_t*, uint32_t, int, uint64_t)>
bool check_key_with(const uint8_t* data, uint32_t num_lines, int num_probes, const uint8_t* key,
                    size_t len) {
  return CheckHash(data, num_lines, num_probes, hash::rocksdb_hash64_inline(key, len));
}

template <void (*CheckHashes)(const uint8_t*, uint32_t, int, const uint64_t*, size_t, uint8_t*)>
void check_keys_with(const uint8_t* data, uint32_t num_lines, int num_probes, const uint8_t* keys,
                     const int64_t* offsets, size_t n, uint8_t* out) {
  uint64_t hashes[kKeyChunk];
  for (size_t i = 0; i < n; i += kKeyChunk) {
    const size_t m = n - i < kKeyChunk ? n - i : kKeyChunk;
    for (size_t j = 0; j < m; ++j) {
      hashes[j] = hash::rocksdb_hash64_inline(
          keys + offsets[i + j], static_cast<size_t>(offsets[i + j + 1] - offsets[i + j]));
    }
    CheckHashes(data, num_lines, num_probes, hashes, m, out + i);
  }
}

}  // namespace
}  // namespace pqfast::local_bloom
