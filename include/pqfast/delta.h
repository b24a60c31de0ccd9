// DELTA_BINARY_PACKED: Parquet's delta encoding of INT32 and INT64 values.
//
// A stream is a header `<block size> <miniblocks per block> <total count>
// <first value (zigzag)>` (ULEB128 varints) and then blocks, each
// `<min delta (zigzag)> <one bit-width byte per miniblock> <miniblocks>`,
// the deltas minus the min delta bit-packed LSB-first. All arithmetic wraps
// (two's complement); INT32 wraps at 2^32.
//
// The decoder reads one page's bytes, which it does not own, in batches:
// each miniblock is unpacked and prefix-summed by one SIMD kernel chosen per
// bit width (dispatch once per miniblock, never per value). It treats the
// bytes as hostile: every read is bounds-checked, a header count is checked
// against what the bytes can hold before anything trusts it, and errors say
// what and where. It accepts what real writers produce beyond the letter of
// the spec: INT32 miniblocks 33..64 bits wide (DuckDB 2.0; the deltas wrap
// mod 2^32), any width byte for the unused miniblocks of the last block, any
// padding bits, and a last miniblock whose padding is cut short.
//
//   auto dec = pqfast::DeltaInt64Decoder::make(page, page_len);
//   if (!dec.ok()) { ... dec.error().to_string() ... }
//   std::vector<int64_t> out(dec->values_remaining());
//   auto n = dec->decode(out.data(), out.size());
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "pqfast/status.h"

namespace pqfast {

// Block geometry: values per block (a positive multiple of 128) and
// miniblocks per block (values per miniblock a positive multiple of 32).
struct DeltaGeometry {
  uint32_t block_size = 128;
  uint32_t miniblocks_per_block = 4;

  uint32_t values_per_miniblock() const { return block_size / miniblocks_per_block; }
};

// Arrow C++'s (and parquet-java's, arrow-rs's) defaults; DuckDB 2.0 writes 2048 / 8.
inline constexpr DeltaGeometry kDeltaInt32DefaultGeometry{128, 4};
inline constexpr DeltaGeometry kDeltaInt64DefaultGeometry{256, 4};

// The largest block pqfast accepts (no known writer exceeds 2048); it bounds
// the decoder's scratch memory whatever the header says.
inline constexpr uint32_t kDeltaMaxBlockSize = uint32_t{1} << 16;

// Checks a geometry (the encoder's and the decoder's rules).
Status validate_delta_geometry(DeltaGeometry geometry);

// Decoder over one DELTA_BINARY_PACKED stream. T is int32_t or int64_t.
// Not thread-safe; cheap to move. The bytes must outlive the decoder.
template <class T>
class DeltaBinaryPackedDecoder {
 public:
  static_assert(sizeof(T) == 4 || sizeof(T) == 8);

  // Parses and checks the header. Fails on a bad varint, an illegal
  // geometry, or a total count that `size` bytes cannot hold.
  static Result<DeltaBinaryPackedDecoder> make(const uint8_t* data, size_t size);

  // Decodes the next min(n, values_remaining()) values into out and returns
  // how many. On an error (a truncated or corrupt block) the contents of out
  // are unspecified and the decoder must not be used further.
  Result<size_t> decode(T* out, size_t n);

  // Skips the next min(n, values_remaining()) values, keeping the running
  // value, without writing them anywhere; returns how many.
  Result<size_t> skip(size_t n);

  uint64_t total_values() const { return total_; }
  uint64_t values_remaining() const { return remaining_; }
  DeltaGeometry geometry() const { return geometry_; }

  // Bytes of the stream consumed: the header, every block header read and
  // the full (padded) body of every miniblock started. Once every value has
  // been decoded or skipped this is the stream's length: where the bytes of
  // a DELTA_LENGTH_BYTE_ARRAY page begin.
  size_t bytes_consumed() const { return pos_; }

 private:
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  DeltaBinaryPackedDecoder() = default;
  Status read_block_header();
  // Decodes whole blocks (count >= block size) on the fast path; returns
  // the values written (0 when the next block needs the careful path).
  size_t decode_whole_blocks(U* out, size_t count);
  // Decodes the next miniblock (or the used part of it) into scratch_.
  Status fill_scratch();
  Error error_at(ErrorCode code, size_t offset, const std::string& what) const;

  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t pos_ = 0;  // next unread byte
  DeltaGeometry geometry_{};
  uint32_t values_per_miniblock_ = 0;
  uint64_t total_ = 0;
  uint64_t remaining_ = 0;   // values not yet returned
  bool first_pending_ = false;
  U last_ = 0;               // the running value (the last one produced)
  // The current block.
  uint64_t block_index_ = 0;
  U min_delta_ = 0;
  uint32_t miniblock_ = 0;          // next miniblock of the current block
  uint32_t miniblocks_in_block_ = 0;  // miniblocks holding values (0: no block)
  std::vector<uint8_t> widths_;
  // A miniblock decoded ahead for a partial batch.
  std::vector<U> scratch_;
  std::vector<uint8_t> padded_;  // a miniblock's body copied away from the buffer end
  uint32_t scratch_pos_ = 0;
  uint32_t scratch_len_ = 0;
};

extern template class DeltaBinaryPackedDecoder<int32_t>;
extern template class DeltaBinaryPackedDecoder<int64_t>;
using DeltaInt32Decoder = DeltaBinaryPackedDecoder<int32_t>;
using DeltaInt64Decoder = DeltaBinaryPackedDecoder<int64_t>;

// Encodes n values as one DELTA_BINARY_PACKED stream the way Arrow C++ does
// (per miniblock the smallest width of delta - min delta, INT32 deltas mod
// 2^32, width 0 for the unused miniblocks of the last block, padded bodies).
// Fails only on an illegal geometry.
Result<std::vector<uint8_t>> delta_encode_int32(const int32_t* values, size_t n,
                                                DeltaGeometry geometry = kDeltaInt32DefaultGeometry);
Result<std::vector<uint8_t>> delta_encode_int64(const int64_t* values, size_t n,
                                                DeltaGeometry geometry = kDeltaInt64DefaultGeometry);

// Decodes a whole stream into a fresh vector (sized from the checked header
// count). Convenience over the decoder.
Result<std::vector<int32_t>> delta_decode_int32(const uint8_t* data, size_t size);
Result<std::vector<int64_t>> delta_decode_int64(const uint8_t* data, size_t size);

}  // namespace pqfast
