// Internal: the SBBF family's per-ISA table and the block arithmetic and
// probe pipelines every implementation shares.
#pragma once

#include <cstddef>
#include <cstdint>

#include "hash/xxh64_scalar.h"
#include "pqfast/sbbf.h"
#include "simd/dispatch.h"

namespace pqfast::sbbf {

// Kernels take the bitset as 32-bit words (8 per block) and arrays of hashes
// or values, never single keys (except the two single-key calls, which the
// API caches). `distance` is the software-prefetch distance in probes: 0
// turns prefetching off (filters that fit in L2), anything else is the
// number of probes whose blocks are requested ahead of the one tested.
struct SbbfKernels {
  bool (*check_hash)(const uint32_t* words, uint32_t num_blocks, uint64_t hash);
  void (*insert_hash)(uint32_t* words, uint32_t num_blocks, uint64_t hash);
  // out[i] = 1 when every bit of hashes[i]'s mask is set in its block, else 0.
  void (*check_hashes)(const uint32_t* words, uint32_t num_blocks, const uint64_t* hashes,
                       size_t n, uint8_t* out, size_t distance);
  void (*insert_hashes)(uint32_t* words, uint32_t num_blocks, const uint64_t* hashes, size_t n,
                        size_t distance);
  // Many filters. out[h * num_filters + f] = hashes[h] may be in filters[f].
  void (*check_product)(const SbbfRef* filters, size_t num_filters, const uint64_t* hashes,
                        size_t num_hashes, uint8_t* out, size_t distance);
  // out[i] = hashes[i] may be in filters[filter_ids[i]] (ids checked by the API).
  void (*check_gather)(const SbbfRef* filters, const uint32_t* filter_ids, const uint64_t* hashes,
                       size_t n, uint8_t* out, size_t distance);
  // Value -> verdict in one pass: XXH64 of each value's 4 or 8 little-endian
  // bytes, then the probe. `values` may be unaligned.
  void (*check_fixed4)(const uint32_t* words, uint32_t num_blocks, const uint8_t* values,
                       size_t n, uint8_t* out, size_t distance);
  void (*check_fixed8)(const uint32_t* words, uint32_t num_blocks, const uint8_t* values,
                       size_t n, uint8_t* out, size_t distance);
};

extern const SbbfKernels kScalarSbbfKernels;
#if defined(PQFAST_ARCH_X86)
extern const SbbfKernels kSse4SbbfKernels;
extern const SbbfKernels kAvx2SbbfKernels;
extern const SbbfKernels kAvx512SbbfKernels;
#endif
#if defined(PQFAST_ARCH_ARM64)
extern const SbbfKernels kNeonSbbfKernels;
#endif

const detail::KernelTables<SbbfKernels>& sbbf_kernel_tables();

namespace {  // internal linkage: safe to include from ISA translation units

// Lemire's fastrange of the upper 32 hash bits over num_blocks.
inline uint32_t block_index(uint64_t hash, uint32_t num_blocks) {
  return static_cast<uint32_t>(((hash >> 32) * num_blocks) >> 32);
}

inline uint32_t block_key(uint64_t hash) { return static_cast<uint32_t>(hash); }

inline const uint32_t* block_ptr(const uint32_t* words, uint32_t num_blocks, uint64_t hash) {
  return words + size_t{block_index(hash, num_blocks)} * 8;
}

inline void prefetch_read(const void* p) { __builtin_prefetch(p, 0, 3); }
inline void prefetch_write(const void* p) { __builtin_prefetch(p, 1, 3); }

// ---- rolling prefetch pipelines ------------------------------------------
// A cursor walks a probe sequence: block() and key() describe the current
// probe, next() moves on. A pipeline runs two cursors over the same
// sequence, `distance` apart: the lead one only prefetches its block, the
// trailing one tests. Templates here are instantiated inside each ISA unit's
// anonymous namespace (internal linkage), with that unit's block test.

// One filter, an array of hashes.
struct HashCursor {
  const uint32_t* words;
  uint32_t num_blocks;
  const uint64_t* hashes;
  size_t i = 0;
  const uint32_t* block() const { return block_ptr(words, num_blocks, *hashes); }
  uint32_t key() const { return block_key(*hashes); }
  size_t slot() const { return i; }  // where the verdict goes
  void next() {
    ++hashes;
    ++i;
  }
};

// The IN-list x row-groups product, hash-major: (h0,f0) (h0,f1) ... (h1,f0).
struct ProductCursor {
  const SbbfRef* filters;
  size_t num_filters;
  const uint64_t* hashes;
  size_t f = 0;
  size_t i = 0;
  const uint32_t* block() const {
    return block_ptr(filters[f].words, filters[f].num_blocks, *hashes);
  }
  uint32_t key() const { return block_key(*hashes); }
  size_t slot() const { return i; }
  void next() {
    ++i;
    if (++f == num_filters) {
      f = 0;
      ++hashes;
    }
  }
};

// The same product walked filter by filter: (f0,h0) (f0,h1) ... (f1,h0),
// verdicts still stored hash-major. Used when there are many hashes: the
// same hash against equal-sized filters hits the same block offset in each,
// and a burst of misses to addresses that differ only in high bits appears to
// contend for the same DRAM banks (measured here: 1 GiB multi ~9 ns/probe
// hash-major, 3.6 filter-major).
struct FilterMajorCursor {
  const SbbfRef* filters;
  size_t num_filters;
  const uint64_t* hashes;
  size_t num_hashes;
  size_t f = 0;
  size_t h = 0;
  const uint32_t* block() const {
    return block_ptr(filters[f].words, filters[f].num_blocks, hashes[h]);
  }
  uint32_t key() const { return block_key(hashes[h]); }
  size_t slot() const { return h * num_filters + f; }
  void next() {
    if (++h == num_hashes) {
      h = 0;
      ++f;
    }
  }
};

// Hashes per filter from which the product is walked filter by filter.
constexpr size_t kFilterMajorFrom = 64;

// A filter chosen per probe.
struct GatherCursor {
  const SbbfRef* filters;
  const uint32_t* ids;
  const uint64_t* hashes;
  size_t i = 0;
  const uint32_t* block() const {
    const SbbfRef& r = filters[*ids];
    return block_ptr(r.words, r.num_blocks, *hashes);
  }
  uint32_t key() const { return block_key(*hashes); }
  size_t slot() const { return i; }
  void next() {
    ++ids;
    ++hashes;
    ++i;
  }
};

// out[slot_i] = test(block_i, key_i) for n probes, prefetching `distance` ahead.
template <class Cursor, class Test>
inline void check_pipeline(Cursor cursor, size_t n, uint8_t* out, size_t distance, Test test) {
  if (distance == 0) {
    for (size_t i = 0; i < n; ++i, cursor.next()) out[cursor.slot()] = test(cursor.block(), cursor.key());
    return;
  }
  Cursor lead = cursor;
  const size_t warm = distance < n ? distance : n;
  for (size_t i = 0; i < warm; ++i, lead.next()) prefetch_read(lead.block());
  size_t i = 0;
  for (; i + warm < n; ++i, cursor.next(), lead.next()) {
    prefetch_read(lead.block());
    out[cursor.slot()] = test(cursor.block(), cursor.key());
  }
  for (; i < n; ++i, cursor.next()) out[cursor.slot()] = test(cursor.block(), cursor.key());
}

// Either walk of the product, by its shape.
template <class Test>
inline void check_product_pipeline(const SbbfRef* filters, size_t num_filters, const uint64_t* hashes,
                                   size_t num_hashes, uint8_t* out, size_t distance, Test test) {
  if (num_hashes >= kFilterMajorFrom && num_filters > 1) {
    check_pipeline(FilterMajorCursor{filters, num_filters, hashes, num_hashes}, num_filters * num_hashes,
                   out, distance, test);
  } else {
    check_pipeline(ProductCursor{filters, num_filters, hashes}, num_filters * num_hashes, out, distance,
                   test);
  }
}

// insert(block_i, key_i) for n hashes, prefetching for write `distance` ahead.
template <class Insert>
inline void insert_pipeline(uint32_t* words, uint32_t num_blocks, const uint64_t* hashes, size_t n,
                            size_t distance, Insert insert) {
  size_t i = 0;
  if (distance != 0) {
    const size_t warm = distance < n ? distance : n;
    for (size_t j = 0; j < warm; ++j) prefetch_write(block_ptr(words, num_blocks, hashes[j]));
    for (; i + warm < n; ++i) {
      prefetch_write(block_ptr(words, num_blocks, hashes[i + warm]));
      insert(words + size_t{block_index(hashes[i], num_blocks)} * 8, block_key(hashes[i]));
    }
  }
  for (; i < n; ++i) {
    insert(words + size_t{block_index(hashes[i], num_blocks)} * 8, block_key(hashes[i]));
  }
}

// Value -> verdict: hashes a chunk of values into a ring on the stack ahead
// of the probes, so the prefetch pipeline never drains at chunk edges.
// hash_chunk(values, m, out) hashes m values of `width` bytes.
constexpr size_t kValueChunk = 256;
constexpr size_t kValueRing = 2 * kValueChunk;

template <class HashChunk, class Test>
inline void check_values_pipeline(const uint32_t* words, uint32_t num_blocks, const uint8_t* values,
                                  size_t width, size_t n, uint8_t* out, size_t distance,
                                  HashChunk hash_chunk, Test test) {
  if (distance > kValueChunk) distance = kValueChunk;
  alignas(64) uint64_t ring[kValueRing];
  size_t hashed = 0;  // values hashed so far (ring holds [hashed - kValueRing, hashed))
  auto hash_more = [&] {
    const size_t m = n - hashed < kValueChunk ? n - hashed : kValueChunk;
    hash_chunk(values + hashed * width, m, ring + (hashed % kValueRing));
    hashed += m;
  };
  if (n != 0) hash_more();
  for (size_t start = 0; start < n; start += kValueChunk) {
    const size_t m = n - start < kValueChunk ? n - start : kValueChunk;
    if (hashed < n) hash_more();  // the next chunk, so prefetches can look into it
    const uint64_t* h = ring + (start % kValueRing);
    const size_t ahead_limit = hashed - start;  // hashes available from `start`
    for (size_t i = 0; i < m; ++i) {
      if (distance != 0 && i + distance < ahead_limit) {
        prefetch_read(block_ptr(words, num_blocks, ring[(start + i + distance) % kValueRing]));
      }
      out[start + i] = test(block_ptr(words, num_blocks, h[i]), block_key(h[i]));
    }
  }
}

// The kernel table of an ISA whose only specific parts are the test and the
// insert of one block (scalar, SSE4, NEON): every call runs through the shared
// pipelines above, and value -> verdict hashes with the scalar XXH64. Block
// provides
//   static bool test(const uint32_t* block, uint32_t key);   // all 8 bits set?
//   static void insert(uint32_t* block, uint32_t key);       // set the 8 bits
template <class Block>
struct BlockKernels {
  struct Test {
    uint8_t operator()(const uint32_t* block, uint32_t key) const { return Block::test(block, key); }
  };

  static bool check_hash(const uint32_t* words, uint32_t num_blocks, uint64_t hash) {
    return Block::test(block_ptr(words, num_blocks, hash), block_key(hash));
  }
  static void insert_hash(uint32_t* words, uint32_t num_blocks, uint64_t hash) {
    Block::insert(words + size_t{block_index(hash, num_blocks)} * 8, block_key(hash));
  }
  static void check_hashes(const uint32_t* words, uint32_t num_blocks, const uint64_t* hashes,
                           size_t n, uint8_t* out, size_t distance) {
    check_pipeline(HashCursor{words, num_blocks, hashes}, n, out, distance, Test{});
  }
  static void insert_hashes(uint32_t* words, uint32_t num_blocks, const uint64_t* hashes, size_t n,
                            size_t distance) {
    insert_pipeline(words, num_blocks, hashes, n, distance,
                    [](uint32_t* block, uint32_t key) { Block::insert(block, key); });
  }
  static void check_product(const SbbfRef* filters, size_t num_filters, const uint64_t* hashes,
                            size_t num_hashes, uint8_t* out, size_t distance) {
    check_product_pipeline(filters, num_filters, hashes, num_hashes, out, distance, Test{});
  }
  static void check_gather(const SbbfRef* filters, const uint32_t* ids, const uint64_t* hashes,
                           size_t n, uint8_t* out, size_t distance) {
    check_pipeline(GatherCursor{filters, ids, hashes}, n, out, distance, Test{});
  }
  static void check_fixed4(const uint32_t* words, uint32_t num_blocks, const uint8_t* values,
                           size_t n, uint8_t* out, size_t distance) {
    check_values_pipeline(
        words, num_blocks, values, 4, n, out, distance,
        [](const uint8_t* v, size_t m, uint64_t* h) {
          for (size_t i = 0; i < m; ++i) h[i] = hash::xxh64_fixed4_scalar(hash::load_u32_le(v + 4 * i));
        },
        Test{});
  }
  static void check_fixed8(const uint32_t* words, uint32_t num_blocks, const uint8_t* values,
                           size_t n, uint8_t* out, size_t distance) {
    check_values_pipeline(
        words, num_blocks, values, 8, n, out, distance,
        [](const uint8_t* v, size_t m, uint64_t* h) {
          for (size_t i = 0; i < m; ++i) h[i] = hash::xxh64_fixed8_scalar(hash::load_u64_le(v + 8 * i));
        },
        Test{});
  }

  static constexpr SbbfKernels table() {
    return {check_hash,    insert_hash,  check_hashes, insert_hashes,
            check_product, check_gather, check_fixed4, check_fixed8};
  }
};

}  // namespace
}  // namespace pqfast::sbbf
