// Internal: Parquet's RLE / bit-packed hybrid (definition levels, dictionary
// indices, RLE booleans). Runs are `<varint header>`: an odd header is
// (header >> 1) groups of 8 bit-packed values (LSB first), an even one a
// run of (header >> 1) copies of the value in the next ceil(width / 8) bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "pqfast/status.h"

namespace pqfast::parquet::detail {

// Decodes `count` values of width 1 (definition levels of a flat optional
// column with max level 1, or RLE booleans) straight into bits
// [bit_offset, bit_offset + count) of `bitmap` (bits already there past the
// range may be overwritten with zeros). Returns how many bits are set.
// `what` names the stream in errors ("definition levels of page at byte N").
Result<int64_t> decode_hybrid_bits(const uint8_t* data, size_t len, size_t count, uint8_t* bitmap,
                                   int64_t bit_offset, const std::string& what);

// Copies n bits from src (starting at bit 0) to dst at bit dst_offset;
// bits of dst past the range may be zeroed. Returns the number of set bits.
int64_t copy_bits(const uint8_t* src, size_t n, uint8_t* dst, int64_t dst_offset);
// Sets bits [offset, offset + n) of dst to `value`.
void fill_bits(uint8_t* dst, int64_t offset, size_t n, bool value);

// Unpacks `count` values of `width` bits (0..32) starting at value index
// `first` of a bit-packed stream of `nbytes` bytes (the caller checks that
// they lie inside it).
void unpack_bits32(const uint8_t* src, size_t nbytes, int width, size_t first, size_t count, uint32_t* out);
// The same for widths 1..8 into a byte per value.
void unpack_bits8(const uint8_t* src, size_t nbytes, int width, size_t first, size_t count, uint8_t* out);

// A reader of hybrid-encoded unsigned values of width 0..32 (dictionary
// indices), in batches.
class HybridReader {
 public:
  HybridReader(const uint8_t* data, size_t len, int width, std::string what)
      : data_(data), len_(len), width_(width), what_(std::move(what)) {}

  // The next batch of up to `max` values. For a repeated run nothing is
  // written: *repeat is set and *repeat_value holds the value. Otherwise the
  // values are unpacked into out. Returns the count (0 never: running out of
  // values before the caller has all it needs is an error).
  Result<size_t> next(uint32_t* out, size_t max, bool* repeat, uint32_t* repeat_value);
  // The same into one byte per value, for widths 1..8 (levels).
  Result<size_t> next_bytes(uint8_t* out, size_t max, bool* repeat, uint32_t* repeat_value);

  // A batch of a bit-packed run left packed, for a caller that unpacks it
  // itself (the dictionary gathers' one-pass kernel): values
  // [first, first + count) of the run at src, whose bytes are readable up to
  // src + nbytes (the run and the stream after it).
  struct PackedSpan {
    const uint8_t* src = nullptr;
    size_t nbytes = 0;
    size_t first = 0;
    int width = 0;
  };
  // As next(), but a bit-packed batch is described in *span, not unpacked.
  Result<size_t> next_span(size_t max, bool* repeat, uint32_t* repeat_value, PackedSpan* span);

 private:
  Status next_run();
  const uint8_t* data_;
  size_t len_;
  size_t pos_ = 0;
  int width_;
  std::string what_;
  bool repeat_ = false;
  uint32_t value_ = 0;
  size_t run_left_ = 0;      // values left in the current run
  const uint8_t* packed_ = nullptr;
  size_t packed_bytes_ = 0;  // bytes of the bit-packed run available
  // Bytes readable from packed_: the run and the stream after it. The
  // unpackers load whole words and keep only the run's values, so a run's
  // last groups need not take the byte-exact tail.
  size_t readable_ = 0;
  size_t packed_index_ = 0;  // next value index inside the bit-packed run
};

}  // namespace pqfast::parquet::detail
