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
#pragma once

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
  // spec allows, power of two or not) and at most kSbbfMaxBytes.
  static Result<SbbfView> make(const uint8_t* bitset, size_t num_bytes);

  const uint8_t* data() const { return data_; }
  size_t num_bytes() const { return num_blocks_ * kSbbfBytesPerBlock; }
  uint32_t num_blocks() const { return num_blocks_; }
  const uint32_t* words() const { return reinterpret_cast<const uint32_t*>(data_); }

  // True when the value whose hash this is may be in the set.
  bool check_hash(uint64_t hash) const;
  // out[i] = 1 if hashes[i] may be present, else 0. One dispatch per call.
  void check_hashes(const uint64_t* hashes, size_t n, uint8_t* out) const;

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
  void insert_hashes(const uint64_t* hashes, size_t n);
  bool check_hash(uint64_t hash) const { return view().check_hash(hash); }
  void check_hashes(const uint64_t* hashes, size_t n, uint8_t* out) const {
    view().check_hashes(hashes, n, out);
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
