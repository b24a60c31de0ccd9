// Parquet Split Block Bloom Filters (parquet-format BloomFilter.md).
//
// A filter is an array of 256-bit blocks, each eight little-endian 32-bit
// words. A 64-bit hash (XXH64 of the value's PLAIN bytes, see hash.h) picks a
// block from its upper 32 bits, ((hash >> 32) * num_blocks) >> 32, and its
// lower 32 bits (the key) set or test one bit in each word:
// bit (key * SALT[i]) >> 27 of word i. Results are bit-identical to the spec,
// Arrow C++ and arrow-rs on every SIMD implementation.
//
//   pqfast::Sbbf f = *pqfast::Sbbf::for_ndv(1'000'000, 0.01);
//   f.insert_hashes(hashes, n);
//   f.check_hashes(queries, m, verdicts);   // verdicts[i] = 1: maybe present
//
// SbbfView answers queries over bytes owned elsewhere (a mapped file page).
//
// Batched calls (check_hashes, insert_hashes, the typed checks and the
// multi-filter calls below) dispatch once per call and run a rolling
// software-prefetch pipeline: block addresses are computed `distance` probes
// ahead, so a filter in DRAM keeps many misses in flight. The default
// distance (kSbbfAutoPrefetch) is 0 for filters that fit in L2 and
// kSbbfDramPrefetch otherwise; callers may pass their own.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "pqfast/status.h"
#include "pqfast/types.h"

namespace pqfast {

inline constexpr uint32_t kSbbfSalt[8] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
                                          0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U};
inline constexpr size_t kSbbfBytesPerBlock = 32;
// Sizing bounds Arrow C++ applies when it chooses a size from (ndv, fpp).
inline constexpr size_t kSbbfMinBytes = 32;
inline constexpr size_t kSbbfMaxOptimalBytes = size_t{128} << 20;
// The on-disk header stores numBytes as a Thrift i32.
inline constexpr size_t kSbbfMaxBytes = 0x7fffffe0;

// Prefetch distances (in probes) for the batched calls.
inline constexpr size_t kSbbfAutoPrefetch = ~size_t{0};  // pick from the footprint
inline constexpr size_t kSbbfDramPrefetch = 128;         // what auto picks past L2
// Footprints (bytes of all filters a call touches) up to this are probed
// without prefetching.
inline constexpr size_t kSbbfPrefetchAbove = size_t{1} << 20;

// One filter as the multi-filter calls take it: plain data (the bitset as
// 32-bit words and its block count), so arrays of them are cheap to build
// from row-group metadata and cross the dispatch line as they are. The words
// must stay alive for the call; they need not be 4-byte aligned (a bitset
// right after a Thrift header in a file buffer is not): kernels read them
// with unaligned loads.
struct SbbfRef {
  const uint32_t* words = nullptr;
  uint32_t num_blocks = 0;
};

// The decoded Thrift BloomFilterHeader that precedes a bitset on disk.
struct SbbfHeader {
  uint32_t num_bytes = 0;    // bitset size announced by the header
  uint32_t header_size = 0;  // bytes the header itself occupies
};

// Parses a BloomFilterHeader (BLOCK / XXHASH / UNCOMPRESSED only) from the
// start of `data`. Only the header bytes are read; the bitset may follow or
// not. Errors name the field and the offset.
Result<SbbfHeader> parse_sbbf_header(const uint8_t* data, size_t len);

// The header bytes Arrow C++ and parquet-java write for a bitset size.
std::vector<uint8_t> serialize_sbbf_header(uint32_t num_bytes);

// Read-only filter over a bitset owned by the caller. Cheap to copy.
class SbbfView {
 public:
  SbbfView() = default;
  // `num_bytes` must be a positive multiple of 32 (any number of blocks the
  // spec allows, power of two or not) and at most kSbbfMaxBytes. `bitset`
  // may have any alignment (e.g. right after the header in a file buffer).
  static Result<SbbfView> make(const uint8_t* bitset, size_t num_bytes);

  const uint8_t* data() const { return data_; }
  size_t num_bytes() const { return num_blocks_ * kSbbfBytesPerBlock; }
  uint32_t num_blocks() const { return num_blocks_; }
  const uint32_t* words() const { return reinterpret_cast<const uint32_t*>(data_); }
  SbbfRef ref() const { return SbbfRef{words(), num_blocks_}; }

  // True when the value whose hash this is may be in the set. The kernel
  // table is cached: about 1-2 ns in cache, but batch when you can.
  bool check_hash(uint64_t hash) const;
  // out[i] = 1 if hashes[i] may be present, else 0. One dispatch per call;
  // prefetch_distance in probes (0: none; kSbbfAutoPrefetch: by size).
  void check_hashes(const uint64_t* hashes, size_t n, uint8_t* out,
                    size_t prefetch_distance = kSbbfAutoPrefetch) const;

  // Value -> verdict in one pass: XXH64 of each value's PLAIN bytes (SIMD
  // where the CPU allows) fused with the batched probe. Values may be
  // unaligned; out[i] = 1 when values[i] may be present.
  void check_int32(const int32_t* values, size_t n, uint8_t* out) const;
  void check_int64(const int64_t* values, size_t n, uint8_t* out) const;
  void check_float(const float* values, size_t n, uint8_t* out) const;
  void check_double(const double* values, size_t n, uint8_t* out) const;

  // Typed checks: hash each value as the spec says, then probe. `data` holds
  // n fixed-width values back to back (see hash_fixed_width_values).
  Status check_values(PhysicalType type, const uint8_t* data, size_t data_len, size_t n,
                      int32_t type_length, uint8_t* out) const;
  // BYTE_ARRAY values in Arrow layout (n + 1 offsets into data).
  Status check_byte_arrays(const uint8_t* data, size_t data_len, const int64_t* offsets, size_t n,
                           uint8_t* out) const;

  // Fraction of bits set, 0..1 (useful to judge a filter's saturation).
  double fill_ratio() const;

 private:
  SbbfView(const uint8_t* data, uint32_t num_blocks) : data_(data), num_blocks_(num_blocks) {}
  const uint8_t* data_ = nullptr;
  uint32_t num_blocks_ = 0;
  friend class Sbbf;
};

namespace detail {
using SbbfCheckHashFn = bool (*)(const uint32_t* words, uint32_t num_blocks, uint64_t hash);
// The active implementation's single-key probe, read by the inline
// SbbfView::check_hash: nullptr until the first call and after every
// set_simd_level(), which the first call after it refreshes.
extern std::atomic<SbbfCheckHashFn> g_sbbf_check_hash;
bool sbbf_check_hash_first(const uint32_t* words, uint32_t num_blocks, uint64_t hash);
}  // namespace detail

// One relaxed load and an indirect call into the active kernel.
inline bool SbbfView::check_hash(uint64_t hash) const {
  const detail::SbbfCheckHashFn fn = detail::g_sbbf_check_hash.load(std::memory_order_relaxed);
  if (fn != nullptr) [[likely]] return fn(words(), num_blocks_, hash);
  return detail::sbbf_check_hash_first(words(), num_blocks_, hash);
}

// ---- many filters: one column's row groups ---------------------------------
// The calls a reader makes to decide which row groups can hold a value or an
// IN-list. Filters may differ in size (any block count). One dispatch per
// call; probes of all (hash, filter) pairs run through one prefetch pipeline.

// The IN-list x row-groups product: out[h * num_filters + f] = 1 when
// hashes[h] may be in filters[f] (out holds num_hashes * num_filters bytes).
void sbbf_check_product(const SbbfRef* filters, size_t num_filters, const uint64_t* hashes,
                        size_t num_hashes, uint8_t* out,
                        size_t prefetch_distance = kSbbfAutoPrefetch);

// Row-group mask: bit f of row_group_mask (word f / 64, bit f % 64) is set
// when filters[f] may hold at least one of the hashes, i.e. row group f must
// be read for `col IN (...)`. row_group_mask holds (num_filters + 63) / 64
// words; it is overwritten. No hashes: every bit clear.
void sbbf_check_any(const SbbfRef* filters, size_t num_filters, const uint64_t* hashes,
                    size_t num_hashes, uint64_t* row_group_mask);

// The same for typed values (hashed as the spec says): fixed-width physical
// types as in hash_fixed_width_values().
Status sbbf_check_any_values(const SbbfRef* filters, size_t num_filters, PhysicalType type,
                             const uint8_t* data, size_t data_len, size_t n, int32_t type_length,
                             uint64_t* row_group_mask);

// A filter chosen per probe: out[i] = 1 when hashes[i] may be in
// filters[filter_ids[i]]. An id >= num_filters is kInvalidArgument (checked
// before any probe).
Status sbbf_check_gather(const SbbfRef* filters, size_t num_filters, const uint32_t* filter_ids,
                         const uint64_t* hashes, size_t n, uint8_t* out,
                         size_t prefetch_distance = kSbbfAutoPrefetch);

namespace detail {
// Frees memory from std::aligned_alloc.
struct FreeAligned {
  void operator()(uint8_t* p) const;
};
}  // namespace detail

// A filter that owns its bitset (64-byte aligned; large filters are aligned
// to 2 MiB and offered to the OS for huge pages).
class Sbbf {
 public:
  Sbbf() = default;
  Sbbf(Sbbf&&) noexcept = default;
  Sbbf& operator=(Sbbf&&) noexcept = default;
  Sbbf(const Sbbf& other);
  Sbbf& operator=(const Sbbf& other);

  // An empty filter of `num_bytes` (a positive multiple of 32).
  static Result<Sbbf> with_num_bytes(size_t num_bytes);
  // An empty filter sized as Arrow C++ sizes it for ndv values at false
  // positive probability fpp (0 < fpp < 1): see optimal_num_bytes().
  static Result<Sbbf> for_ndv(uint64_t ndv, double fpp);
  // Arrow C++'s size: m = -8 * ndv / ln(1 - fpp^(1/8)) bits, clamped to
  // [32 B, 128 MiB], rounded up to a power of two.
  static size_t optimal_num_bytes(uint64_t ndv, double fpp);
  // A copy of a raw bitset.
  static Result<Sbbf> from_bitset(const uint8_t* bitset, size_t num_bytes);
  // Header + bitset as stored in a Parquet file. `consumed` (optional)
  // receives header + bitset bytes. Bytes after the bitset are ignored.
  static Result<Sbbf> parse(const uint8_t* data, size_t len, size_t* consumed = nullptr);

  SbbfView view() const { return SbbfView(data_.get(), num_blocks_); }
  const uint8_t* data() const { return data_.get(); }
  uint8_t* mutable_data() { return data_.get(); }
  size_t num_bytes() const { return size_t{num_blocks_} * kSbbfBytesPerBlock; }
  uint32_t num_blocks() const { return num_blocks_; }

  void insert_hash(uint64_t hash);
  // Bulk insert with write prefetching (distance as for check_hashes).
  void insert_hashes(const uint64_t* hashes, size_t n,
                     size_t prefetch_distance = kSbbfAutoPrefetch);
  bool check_hash(uint64_t hash) const { return view().check_hash(hash); }
  void check_hashes(const uint64_t* hashes, size_t n, uint8_t* out,
                    size_t prefetch_distance = kSbbfAutoPrefetch) const {
    view().check_hashes(hashes, n, out, prefetch_distance);
  }

  Status insert_values(PhysicalType type, const uint8_t* data, size_t data_len, size_t n,
                       int32_t type_length);
  Status insert_byte_arrays(const uint8_t* data, size_t data_len, const int64_t* offsets,
                            size_t n);

  // Folds to the smallest size whose estimated fpp stays <= target_fpp, as
  // Arrow C++ 25+ does before writing: groups of 2^k consecutive blocks are
  // ORed together (which keeps every inserted hash present). An empty filter
  // becomes 32 bytes. Returns the number of halvings applied.
  uint32_t fold(double target_fpp);

  // Header + bitset, the bytes a Parquet writer stores.
  std::vector<uint8_t> serialize() const;

 private:
  static Result<Sbbf> allocate(size_t num_bytes);

  std::unique_ptr<uint8_t[], detail::FreeAligned> data_;
  uint32_t num_blocks_ = 0;
};

}  // namespace pqfast
