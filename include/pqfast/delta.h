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

class DeltaLengthByteArrayDecoder;
class DeltaByteArrayDecoder;

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

  // INT32 streams of lengths (DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY):
  // decodes the next min(n, values_remaining()) lengths and writes their
  // running sum instead, out[i] = offset + length[0] + ... + length[i]
  // (mod 2^32), in the same pass as the unpacking. On return `offset` is the
  // last sum and `max_length` the unsigned maximum of itself and every
  // length (a negative length shows as 2^31 or more): the caller checks the
  // batch once. Returns how many.
  Result<size_t> decode_offsets(uint32_t* out, size_t n, uint32_t& offset, uint32_t& max_length)
    requires(sizeof(T) == 4);

  uint64_t total_values() const { return total_; }
  uint64_t values_remaining() const { return remaining_; }
  DeltaGeometry geometry() const { return geometry_; }

  // Bytes of the stream consumed: the header, every block header read and
  // the full (padded) body of every miniblock started. Once every value has
  // been decoded or skipped this is the stream's length: where the bytes of
  // a DELTA_LENGTH_BYTE_ARRAY page begin.
  size_t bytes_consumed() const { return pos_; }

 private:
  friend class DeltaLengthByteArrayDecoder;
  friend class DeltaByteArrayDecoder;
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  DeltaBinaryPackedDecoder() = default;
  Status read_block_header();
  // Decodes the next miniblock (or the used part of it) into scratch_.
  Status fill_scratch();
  // Checks that the bits of the current miniblock's first `values` values are
  // there (all of its padded body unless it is the stream's last).
  Status check_miniblock_body(uint32_t w, uint32_t values, bool last) const;
  Error error_at(ErrorCode code, size_t offset, const std::string& what) const;
  friend Result<size_t> delta_stream_length(const uint8_t* data, size_t size);
  // Consumes every remaining value without decoding (block headers and
  // body sizes only): pos_ ends where decoding everything would leave it.
  Status seek_end();
  // decode() and decode_offsets() over one loop; Sink says what a run of
  // deltas becomes (values, or offsets).
  template <class Sink>
  Result<size_t> decode_into(Sink& sink, U* out, size_t n);
  template <class Sink>
  size_t decode_whole_blocks(Sink& sink, U* out, size_t count);

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

// Where a DELTA_BINARY_PACKED stream ends (what bytes_consumed() says after
// every value was read), found by walking its block headers without
// decoding: the bytes of DELTA_LENGTH_BYTE_ARRAY and the second stream of
// DELTA_BYTE_ARRAY begin there. Checks widths and that the values' bits are
// there, as the decoder does.
Result<size_t> delta_stream_length(const uint8_t* data, size_t size);

// Encodes n values as one DELTA_BINARY_PACKED stream the way Arrow C++ does
// (per miniblock the smallest width of delta - min delta, INT32 deltas mod
// 2^32, width 0 for the unused miniblocks of the last block, padded bodies).
// Fails only on an illegal geometry.
Result<std::vector<uint8_t>> delta_encode_int32(const int32_t* values, size_t n,
                                                DeltaGeometry geometry = kDeltaInt32DefaultGeometry);
Result<std::vector<uint8_t>> delta_encode_int64(const int64_t* values, size_t n,
                                                DeltaGeometry geometry = kDeltaInt64DefaultGeometry);

// The same, appended to `out` (no intermediate buffer).
Status delta_append_int32(std::vector<uint8_t>& out, const int32_t* values, size_t n,
                          DeltaGeometry geometry = kDeltaInt32DefaultGeometry);

// Decodes a whole stream into a fresh vector (sized from the checked header
// count). Convenience over the decoder.
Result<std::vector<int32_t>> delta_decode_int32(const uint8_t* data, size_t size);
Result<std::vector<int64_t>> delta_decode_int64(const uint8_t* data, size_t size);

// ---- DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY -------------------------
//
// Both decode one page's bytes (not owned; they must outlive the decoder)
// into Arrow's binary layouts, in batches:
//  - offsets + data (`binary`/`string` with int32 offsets, `large_*` with
//    int64): offsets[0] holds the current end of `data` (the bytes already
//    there); decode() writes offsets[1..k] and the values' bytes from
//    data + offsets[0], and returns k. It stops early (k < n, possibly 0)
//    when the next value would pass data_capacity or, with int32 offsets,
//    INT32_MAX: grow the buffer (or start a new array) and call again.
//    Bytes of `data` past the new end, up to data_capacity, may be
//    overwritten (the copies are wide); offsets past offsets[k] too, up to
//    offsets[n].
//  - views (`binary_view`/`string_view`): 16-byte BinaryView elements.
// Lengths become offsets inside the SIMD unpacking kernel (a second prefix
// sum); lengths, prefixes and sizes are checked a batch at a time; an error
// names the value and the byte. A page whose streams announce more values
// than its bytes can hold fails in make(); nothing is allocated from a count.

// Arrow's binary_view element: a value of up to 12 bytes sits inline (zero
// padded); a longer one is its first 4 bytes, a buffer index and an offset.
union BinaryView {
  struct {
    int32_t size;
    uint8_t data[12];
  } inlined;
  struct {
    int32_t size;
    uint8_t prefix[4];
    int32_t buffer_index;
    int32_t offset;
  } ref;
};
static_assert(sizeof(BinaryView) == 16);
inline constexpr int32_t kBinaryViewInlineSize = 12;

// DELTA_LENGTH_BYTE_ARRAY: an INT32 DELTA_BINARY_PACKED stream of lengths,
// then the values' bytes back to back.
class DeltaLengthByteArrayDecoder {
 public:
  static Result<DeltaLengthByteArrayDecoder> make(const uint8_t* data, size_t size);

  Result<size_t> decode(int32_t* offsets, uint8_t* data, size_t data_capacity, size_t n);
  Result<size_t> decode(int64_t* offsets, uint8_t* data, size_t data_capacity, size_t n);
  // Views of the page's own bytes: nothing is copied. `buffer_index` is the
  // caller's index of the page buffer; view offsets count from the `data`
  // given to make(). Pages over 2 GiB are refused (offsets are int32).
  Result<size_t> decode_views(BinaryView* views, int32_t buffer_index, size_t n);
  Result<size_t> skip(size_t n);

  uint64_t total_values() const { return lengths_.total_values(); }
  uint64_t values_remaining() const { return lengths_.values_remaining() + (held_len_ - held_pos_); }
  // The bytes of the values not yet decoded, at most (exact for a page as
  // writers write it, with nothing after the last value).
  size_t data_bytes_remaining() const { return size_ - bytes_pos_; }
  // Once every value was decoded or skipped: the end of the encoded data.
  size_t bytes_consumed() const { return bytes_pos_; }

  static constexpr size_t kChunk = 512;

 private:
  DeltaLengthByteArrayDecoder() = default;
  // Decodes up to kChunk lengths into held_ as page-relative end offsets, checked.
  Status refill();
  Status check_offsets(const uint32_t* ends, size_t k, uint32_t start, uint32_t max_length) const;
  template <class Offset>
  Result<size_t> decode_impl(Offset* offsets, uint8_t* data, size_t data_capacity, size_t n);

  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t bytes_pos_ = 0;  // the next value's first byte
  DeltaInt32Decoder lengths_;
  // Values decoded ahead (when a batch stopped early): their end offsets.
  uint32_t held_[kChunk]{};
  uint32_t held_pos_ = 0, held_len_ = 0;
};

// DELTA_BYTE_ARRAY (incremental encoding): INT32 DELTA_BINARY_PACKED prefix
// lengths, INT32 DELTA_BINARY_PACKED suffix lengths, the suffixes back to
// back. Value i is the first prefix[i] bytes of value i - 1 (nothing before
// the page's first value) followed by suffix i. Values are rebuilt with
// wide overlapping copies.
class DeltaByteArrayDecoder {
 public:
  // fixed_width >= 0: a FIXED_LEN_BYTE_ARRAY column of that width (every
  // value must have it); -1: BYTE_ARRAY.
  static Result<DeltaByteArrayDecoder> make(const uint8_t* data, size_t size, int32_t fixed_width = -1);

  Result<size_t> decode(int32_t* offsets, uint8_t* data, size_t data_capacity, size_t n);
  Result<size_t> decode(int64_t* offsets, uint8_t* data, size_t data_capacity, size_t n);
  // Views: every value is written to `data` from *data_size (advanced);
  // views of values up to 12 bytes hold them inline, longer ones refer to
  // `data` with `buffer_index`. Stops early, as decode() does, when `data`
  // is full.
  Result<size_t> decode_views(BinaryView* views, uint8_t* data, size_t data_capacity, size_t* data_size,
                              int32_t buffer_index, size_t n);
  // FIXED_LEN_BYTE_ARRAY: n values of fixed_width bytes, back to back.
  Result<size_t> decode_fixed(uint8_t* out, size_t n);
  Result<size_t> skip(size_t n);

  uint64_t total_values() const { return total_; }
  uint64_t values_remaining() const { return remaining_; }
  // Once every value was decoded or skipped: the end of the encoded data.
  size_t bytes_consumed() const { return suffix_pos_; }

  // The bytes the page's values take once rebuilt (the sum of every prefix
  // and suffix length), from the two length streams alone: what a caller
  // must allocate, known before anything is. A page whose values repeat the
  // one before grows quadratically (a few hundred bytes can announce GiBs);
  // the sum stops as soon as it passes `stop_above` (and is then returned as
  // is). Errors: those of the length streams, negative lengths.
  static Result<uint64_t> decoded_size(const uint8_t* data, size_t size, uint64_t stop_above);

  static constexpr size_t kChunk = 1024;

 private:
  DeltaByteArrayDecoder() = default;
  Status refill();
  template <class Offset>
  Result<size_t> decode_impl(Offset* offsets, uint8_t* data, size_t data_capacity, size_t n);
  void remember_last(const uint8_t* value, size_t len);
  const uint8_t* kept() const;  // the kept value, readable for 64 bytes at least
  // Writes chunk values [i, j) back to back at out (room bytes writable),
  // the value before i at prev.
  void write_values(size_t i, size_t j, uint8_t* out, size_t room, const uint8_t* prev);

  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  int32_t fixed_width_ = -1;
  uint64_t total_ = 0;
  uint64_t remaining_ = 0;
  DeltaInt32Decoder prefixes_;
  DeltaInt32Decoder suffixes_;
  size_t suffix_pos_ = 0;   // the next suffix's first byte, past the chunk
  // One chunk decoded ahead and checked: prefix lengths, and where each
  // suffix starts in the page (suffix i is [suffix_at_[i], suffix_at_[i + 1])).
  uint32_t prefix_[kChunk]{};
  uint32_t suffix_at_[kChunk + 1]{};
  uint32_t len_[kChunk]{};         // each value's length
  uint64_t chunk_end_[kChunk]{};   // where each value ends, from the chunk's first byte
  uint32_t chunk_pos_ = 0, chunk_len_ = 0;
  uint64_t last_len_ = 0;  // the length of the chunk's last value (checks the next chunk)
  uint32_t chunk_max_len_ = 0;  // at least the chunk's longest value
  // The last value handed out (the prefix source of the next one), in a
  // buffer that grows to the longest value and is reused.
  std::vector<uint8_t> last_;
  size_t last_size_ = 0;
};

// Encoders, byte for byte as Arrow C++ 26 writes these pages: lengths (and
// prefix lengths) as INT32 DELTA_BINARY_PACKED with 128 values per block in
// 4 miniblocks, then the bytes. `offsets` has n + 1 entries (Arrow layout;
// offsets[0] need not be 0). The DELTA_BYTE_ARRAY encoder finds common
// prefixes 8 bytes at a time. Fails on decreasing offsets or a value of
// 2 GiB or more.
Result<std::vector<uint8_t>> delta_encode_length_byte_array(const int32_t* offsets, const uint8_t* data, size_t n);
Result<std::vector<uint8_t>> delta_encode_length_byte_array(const int64_t* offsets, const uint8_t* data, size_t n);
Result<std::vector<uint8_t>> delta_encode_byte_array(const int32_t* offsets, const uint8_t* data, size_t n);
Result<std::vector<uint8_t>> delta_encode_byte_array(const int64_t* offsets, const uint8_t* data, size_t n);

}  // namespace pqfast
