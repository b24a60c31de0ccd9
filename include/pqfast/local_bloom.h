// RocksDB's cache-local Bloom filter ("FastLocalBloom", format_version=5 full
// and partitioned filters), bit-compatible in both directions: a filter block
// RocksDB wrote answers identically here, and a block built here for the same
// keys and bits/key is byte-identical to RocksDB's (optimize_filters_for_memory
// off).
//
// Layout. The payload is an array of 64-byte cache lines. A 64-bit key hash
// (rocksdb_hash64 of the key bytes, or the caller's own) splits in two:
//   - its low 32 bits pick the line: (low32 * num_lines) >> 32 (fastrange);
//   - its high 32 bits h give the probes: bit address h >> 23 (9 bits, a bit
//     of the 512-bit line, byte = addr >> 3, bit = addr & 7), then
//     h *= 0x9e3779b9 before the next probe; num_probes in 1..30.
// The block is the payload followed by a 5-byte trailer:
//   0xFF (new Bloom family), 0x00 (FastLocalBloom), num_probes in the low 5
//   bits with log2(line bytes) - 6 = 0 in the top 3, then two zero bytes.
// Payload bytes = ceil(num_keys * millibits_per_key / 8000) rounded up to 64
// (num_keys counts hashes after RocksDB's collapse of ADJACENT duplicates).
// A block of 5 bytes or fewer matches nothing (RocksDB's "always false");
// other trailers mean other filters (always-true, Legacy Bloom, Ribbon) that
// LocalBloom recognises and names rather than misreads.
//
//   auto f = *pqfast::LocalBloom::build_from_hashes(hashes, n, 9.9);
//   f.check_hashes(queries, m, verdicts);     // verdicts[i] = 1: maybe present
//   std::vector<uint8_t> block = f.serialize();  // what RocksDB stores
//   auto g = *pqfast::LocalBloom::parse(block.data(), block.size());
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "pqfast/status.h"

namespace pqfast {

namespace local_bloom {
struct LocalBloomKernels;  // internal: the per-ISA table (src/local_bloom/kernels.h)
}  // namespace local_bloom

// RocksDB's 64-bit key hash: Hash64(data, len) with seed 0, also known as
// GetSliceHash64 (a frozen preview of XXH3 from xxHash 0.7.2; it differs from
// released XXH3).
uint64_t rocksdb_hash64(const void* data, size_t len);

// Keys in Arrow layout: key i is data[offsets[i], offsets[i+1]). Offsets must
// be non-decreasing and within data_len; checked.
Status rocksdb_hash64_keys(const uint8_t* data, size_t data_len, const int64_t* offsets, size_t n,
                           uint64_t* out);

inline constexpr size_t kLocalBloomLineBytes = 64;
inline constexpr size_t kLocalBloomTrailerBytes = 5;
// The largest payload RocksDB's FastLocalBloom supports (lengths are 32-bit).
inline constexpr size_t kLocalBloomMaxPayloadBytes = 0xffffffc0;
inline constexpr int kLocalBloomMaxProbes = 30;

// RocksDB's sanitising of a bits/key setting into millibits/key: values in
// [0.5, 1) become 1, values >= 100 become 100, then round(bits * 1000) with
// RocksDB's nudge. Below 0.5 (RocksDB's "no filter") and NaN are
// kInvalidArgument.
Result<int> local_bloom_millibits_per_key(double bits_per_key);

// RocksDB's num_probes choice from millibits/key (1..24).
int local_bloom_num_probes(int millibits_per_key);

// Payload bytes for num_keys at millibits/key: ceil(n * mb / 8000), capped at
// kLocalBloomMaxPayloadBytes, rounded up to a multiple of 64.
size_t local_bloom_payload_bytes(size_t num_keys, int millibits_per_key);

// What a RocksDB full-filter block holds, decided from its trailer exactly as
// RocksDB 7.x's reader decides it.
enum class FilterBlockKind : uint8_t {
  kFastLocalBloom = 0,  // what this class reads and writes
  kAlwaysFalse,         // <= 5 bytes: no keys were added; matches nothing
  kAlwaysTrue,          // marker byte 0: matches everything
  kLegacyBloom,         // marker byte 1..127: format_version < 5 Bloom filter
  kRibbon,              // marker byte 0xFE: Standard128 Ribbon filter
  kReserved,            // anything else RocksDB reserves (reads as always-true)
};

// "fast_local_bloom", "always_false", ...
const char* filter_block_kind_name(FilterBlockKind kind);

// The trailer of a filter block, decoded without judging it.
struct FilterBlockInfo {
  FilterBlockKind kind = FilterBlockKind::kAlwaysFalse;
  size_t payload_bytes = 0;  // bytes before the 5-byte trailer
  int num_probes = 0;        // FastLocalBloom and Legacy Bloom only
  // For kReserved: why (sub-implementation, line size, probes, reserved bytes).
  const char* detail = "";
};
FilterBlockInfo inspect_filter_block(const uint8_t* block, size_t len);

// Read-only filter over a payload owned by the caller. Cheap to copy.
// kind() is kFastLocalBloom, kAlwaysFalse (payload empty) or kAlwaysTrue.
// A view binds the SIMD implementation active when it is made (so a query
// is one indirect call); make a new view after set_simd_level().
class LocalBloomView {
 public:
  LocalBloomView() = default;
  // Over a whole RocksDB filter block (payload + trailer) the caller keeps
  // alive. Always-false and always-true blocks give views answering all
  // false / all true; Legacy, Ribbon and reserved trailers are
  // kUnsupported errors naming the filter; blocks too large for RocksDB's
  // 32-bit lengths are kLimitExceeded; a payload that is not whole lines is
  // kCorrupt.
  static Result<LocalBloomView> parse(const uint8_t* block, size_t len);
  // Over a bare payload (a positive multiple of 64 bytes) and a probe count.
  static Result<LocalBloomView> make(const uint8_t* payload, size_t payload_bytes, int num_probes);

  FilterBlockKind kind() const { return kind_; }
  const uint8_t* payload() const { return data_; }
  size_t payload_bytes() const { return size_t{num_lines_} * kLocalBloomLineBytes; }
  uint32_t num_lines() const { return num_lines_; }
  int num_probes() const { return num_probes_; }

  // True when the key whose hash this is may be in the set.
  bool check_hash(uint64_t hash) const { return check_hash_(data_, num_lines_, num_probes_, hash); }
  // out[i] = 1 if hashes[i] may be present, else 0; one dispatch per batch,
  // lines prefetched ahead when the filter is larger than L2 (512 KiB).
  void check_hashes(const uint64_t* hashes, size_t n, uint8_t* out) const;
  // A key's bytes, hashed with rocksdb_hash64.
  bool check_key(const void* key, size_t len) const {
    return check_key_(data_, num_lines_, num_probes_, static_cast<const uint8_t*>(key), len);
  }
  // Keys in Arrow layout (n + 1 offsets), hashed then probed in chunks.
  Status check_keys(const uint8_t* data, size_t data_len, const int64_t* offsets, size_t n,
                    uint8_t* out) const;

  // Fraction of payload bits set, 0..1.
  double fill_ratio() const;

 private:
  LocalBloomView(const uint8_t* data, uint32_t num_lines, int num_probes, FilterBlockKind kind);
  // The single-query kernels are held directly so a query is one indirect
  // call from inlined code (always-false/true views get constant answers).
  using CheckHashFn = bool (*)(const uint8_t*, uint32_t, int, uint64_t);
  using CheckKeyFn = bool (*)(const uint8_t*, uint32_t, int, const uint8_t*, size_t);
  const local_bloom::LocalBloomKernels* kernels_ = nullptr;
  CheckHashFn check_hash_ = &answer_false_hash;
  CheckKeyFn check_key_ = &answer_false_key;
  static bool answer_false_hash(const uint8_t*, uint32_t, int, uint64_t) { return false; }
  static bool answer_false_key(const uint8_t*, uint32_t, int, const uint8_t*, size_t) { return false; }
  static bool answer_true_hash(const uint8_t*, uint32_t, int, uint64_t) { return true; }
  static bool answer_true_key(const uint8_t*, uint32_t, int, const uint8_t*, size_t) { return true; }
  const uint8_t* data_ = nullptr;
  uint32_t num_lines_ = 0;
  int num_probes_ = 0;
  FilterBlockKind kind_ = FilterBlockKind::kAlwaysFalse;
  friend class LocalBloom;
};

namespace detail {
struct LocalBloomFree {
  void operator()(uint8_t* p) const;
};
}  // namespace detail

// A filter that owns its block: a 64-byte aligned payload followed by the
// trailer, so serialize() is one copy and view() needs no allocation.
class LocalBloom {
 public:
  LocalBloom() = default;
  LocalBloom(LocalBloom&&) noexcept = default;
  LocalBloom& operator=(LocalBloom&&) noexcept = default;
  LocalBloom(const LocalBloom& other);
  LocalBloom& operator=(const LocalBloom& other);

  // What RocksDB's builder makes for these hashes at bits_per_key: sized by
  // the count of hashes after collapsing adjacent duplicates, num_probes
  // from the millibits/key setting. Zero hashes give a 5-byte always-false
  // block, as RocksDB writes.
  static Result<LocalBloom> build_from_hashes(const uint64_t* hashes, size_t n, double bits_per_key);
  // Keys in Arrow layout hashed with rocksdb_hash64, then as above.
  static Result<LocalBloom> build_from_keys(const uint8_t* data, size_t data_len,
                                            const int64_t* offsets, size_t n, double bits_per_key);
  // An empty FastLocalBloom filter of a given shape (payload a multiple of 64,
  // 0 allowed; num_probes 1..30) to fill with insert_hashes().
  static Result<LocalBloom> with_shape(size_t payload_bytes, int num_probes);
  // A copy of a RocksDB filter block (see LocalBloomView::parse for errors).
  static Result<LocalBloom> parse(const uint8_t* block, size_t len);

  LocalBloomView view() const;
  FilterBlockKind kind() const { return kind_; }
  size_t payload_bytes() const { return size_t{num_lines_} * kLocalBloomLineBytes; }
  uint32_t num_lines() const { return num_lines_; }
  int num_probes() const { return num_probes_; }
  // The whole block (payload + trailer), as RocksDB stores it.
  const uint8_t* block() const { return data_.get(); }
  size_t block_bytes() const { return block_bytes_; }
  std::vector<uint8_t> serialize() const;

  // Adds hashes (FastLocalBloom kind only; a no-op on other kinds).
  void insert_hashes(const uint64_t* hashes, size_t n);
  bool check_hash(uint64_t hash) const { return view().check_hash(hash); }
  void check_hashes(const uint64_t* hashes, size_t n, uint8_t* out) const {
    view().check_hashes(hashes, n, out);
  }
  Status check_keys(const uint8_t* data, size_t data_len, const int64_t* offsets, size_t n,
                    uint8_t* out) const {
    return view().check_keys(data, data_len, offsets, n, out);
  }

 private:
  static Result<LocalBloom> allocate(size_t payload_bytes, int num_probes);
  std::unique_ptr<uint8_t[], detail::LocalBloomFree> data_;
  size_t block_bytes_ = 0;
  uint32_t num_lines_ = 0;
  int num_probes_ = 0;
  FilterBlockKind kind_ = FilterBlockKind::kAlwaysFalse;
};

// One query against one of many filters: the unit of the multi-filter batch
// (a MultiGet across files). Filters with an empty payload answer false.
struct LocalBloomRef {
  const uint8_t* payload;
  uint32_t num_lines;
  int num_probes;
};
// out[i] = filters[filter_index[i]] may contain hashes[i]; lines of later
// queries are prefetched while earlier ones are answered, so misses overlap.
void local_bloom_check_many(const LocalBloomRef* filters, const uint32_t* filter_index,
                            const uint64_t* hashes, size_t n, uint8_t* out);

}  // namespace pqfast
