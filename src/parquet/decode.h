// Internal: the value decoders of the column reader, one concept per file:
//   plain.cc              PLAIN (fixed width, BYTE_ARRAY, BOOLEAN)
//   byte_stream_split.cc  BYTE_STREAM_SPLIT
//   dictionary.cc         dictionary pages and RLE_DICTIONARY gathers
//   convert.cc            physical values -> the Arrow layout (narrowing, decimals, INT96)
//   nulls.cc              dense values spread over the validity bitmap
// The page loop that calls them is column_reader.cc; export to the C Data
// Interface is arrow_export.cc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "pqfast/delta.h"
#include "pqfast/parquet.h"
#include "pqfast/parquet_read.h"
#include "pqfast/status.h"
#include "parquet/read_buffer.h"

namespace pqfast::parquet::detail {
// Arrow's 16-byte binary_view element (declared with the DELTA string decoders).
using BinaryViewElem = pqfast::BinaryView;
}  // namespace pqfast::parquet::detail

namespace pqfast::parquet {

// parquet-mr up to 1.2.8 left the dictionary page header out of
// total_compressed_size (PARQUET-816): readers of its chunks read up to 100
// bytes more, as Arrow C++ does.
bool parquet_mr_before_1_2_9(const std::string& created_by);

// An INT96 timestamp (nanoseconds of the day, then the Julian day) as
// nanoseconds since the epoch, exactly as pyarrow 26 converts it: the day
// arithmetic wraps modulo 2^64 (a day far from 1970 gives Arrow's wrapped
// value, not an error), and Julian day 0, which writers such as Velox and
// Drill leave in unset values, is the epoch itself whatever its nanoseconds.
inline int64_t int96_nanos(uint64_t nanos_of_day, uint32_t julian_day) {
  if (julian_day == 0) return 0;
  return static_cast<int64_t>((uint64_t{julian_day} - 2440588u) * 86400000000000ull + nanos_of_day);
}

struct ColumnArray::Impl {
  ArrowLayout layout = ArrowLayout::kDefault;
  std::string format;
  int32_t width = 0;  // bytes per element of fixed layouts; FixedSizeBinary's width
  int64_t length = 0;
  int64_t null_count = 0;
  bool nullable = false;
  detail::ReadBuffer validity;
  detail::ReadBuffer values;   // fixed elements, offsets (int32/int64), views, or bits (bool)
  detail::ReadBuffer data;     // binary bytes
  std::vector<detail::ReadBuffer> view_buffers;  // binary_view's variadic buffers
  // Nested arrays (pqfast/parquet_nested.h): a list or map keeps its int32
  // offsets in `values`; children are exported under their names.
  enum class Nest : uint8_t { kNone, kList, kStruct, kMap };
  Nest nest = Nest::kNone;
  std::string name;
  std::vector<std::unique_ptr<Impl>> children;
  // A dictionary array (ColumnReadOptions::dictionary_indices): this holds
  // the indices, `dictionary` the values they point at (exported as the C
  // Data Interface's dictionary member).
  std::unique_ptr<Impl> dictionary;
};

namespace detail {

// Bytes per value of a physical type (BYTE_ARRAY: 0, BOOLEAN: 0: bits).
int32_t physical_width(PhysicalType type, int32_t type_length);

// Bytes per element of a fixed-width layout (0 for binary, bool, null).
int32_t layout_width(ArrowLayout layout, int32_t type_length);

// The plain Arrow format string of a layout.
std::string default_format(ArrowLayout layout, int32_t type_length, const ColumnDescriptor& d);

// The layout kDefault stands for.
ArrowLayout default_layout(PhysicalType type);

// The layout a read with `layout` makes of `type` (kDefault resolved).
inline ArrowLayout read_layout(ArrowLayout layout, PhysicalType type) {
  return layout == ArrowLayout::kDefault ? default_layout(type) : layout;
}

// Whether a layout can be produced from a physical type.
bool layout_fits(ArrowLayout layout, const ColumnDescriptor& d);

// True when the physical values are the layout's elements bit for bit.
bool is_identity(ArrowLayout layout, PhysicalType type, int32_t type_length);

// Converts n physical fixed-width values (PLAIN layout, `in`) into n
// elements of the layout at out. Errors: decimal values too wide.
Status convert_fixed(const ColumnDescriptor& d, ArrowLayout layout, const uint8_t* in, size_t n, uint8_t* out,
                     const std::string& where);
// Converts n BYTE_ARRAY values (int64 offsets, bytes) to decimal elements.
Status convert_binary_to_decimal(ArrowLayout layout, const int64_t* offsets, const uint8_t* bytes, size_t n,
                                 uint8_t* out, const std::string& where);

// A view of `len` bytes at src (buffer `index`, `offset`). `src` must have
// 16 readable bytes (the caller checks, or pads): an inline value is two
// 8-byte loads masked by its length (tables, no branch on the length), never
// a call per value.
struct ViewMasks {
  uint64_t lo[13], hi[13];
  constexpr ViewMasks() : lo(), hi() {
    for (int n = 0; n <= 12; ++n) {
      // lo: the length (low 32 bits) and data bytes 0..3; hi: data bytes 4..11.
      const int a = n < 4 ? n : 4, b = n > 4 ? n - 4 : 0;
      lo[n] = 0xffffffffull | (a == 4 ? 0xffffffff00000000ull : (((uint64_t{1} << (8 * a)) - 1) << 32));
      hi[n] = b == 8 ? ~uint64_t{0} : ((uint64_t{1} << (8 * b)) - 1);
    }
  }
};
inline constexpr ViewMasks kViewMasks{};

// make_view without reading past src + len (for bytes without 16 bytes of
// padding after them, such as a dictionary's last entry).
inline BinaryViewElem make_view_exact(const uint8_t* src, size_t len, int32_t index, int32_t offset) {
  BinaryViewElem v;
  std::memset(&v, 0, sizeof v);
  v.inlined.size = static_cast<int32_t>(len);
  if (len <= 12) {
    if (len) std::memcpy(v.inlined.data, src, len);
  } else {
    std::memcpy(v.ref.prefix, src, 4);
    v.ref.buffer_index = index;
    v.ref.offset = offset;
  }
  return v;
}

inline BinaryViewElem make_view(const uint8_t* src, uint32_t len, int32_t index, int32_t offset) {
  BinaryViewElem v;
  uint64_t a, b;
  std::memcpy(&a, src, 8);
  std::memcpy(&b, src + 8, 8);
  if (len <= 12) {
    const uint64_t lo = (uint64_t{len} | (a << 32)) & kViewMasks.lo[len];
    const uint64_t hi = ((a >> 32) | (b << 32)) & kViewMasks.hi[len];
    std::memcpy(reinterpret_cast<uint8_t*>(&v), &lo, 8);
    std::memcpy(reinterpret_cast<uint8_t*>(&v) + 8, &hi, 8);
  } else {
    v.ref.size = static_cast<int32_t>(len);
    std::memcpy(v.ref.prefix, src, 4);
    v.ref.buffer_index = index;
    v.ref.offset = offset;
  }
  return v;
}

// ---- PLAIN ----
// n fixed-width values of `width` bytes: needs n * width bytes.
Status plain_fixed(const uint8_t* p, size_t len, size_t n, int32_t width, uint8_t* out, const std::string& where);
// n booleans, bit-packed LSB first, into bits [bit_offset, ...) of out.
Status plain_bools(const uint8_t* p, size_t len, size_t n, uint8_t* out, int64_t bit_offset, const std::string& where);
// Walks n PLAIN BYTE_ARRAY values of p[0, len) (each a 4-byte
// little-endian length, then its bytes), each checked against the page
// first: visit(i, pos, length) sees value i at p + pos and returns false to
// stop the walk there. Returns the bytes walked; errors name `where`.
template <class Visit>
Result<size_t> walk_plain_binary(const uint8_t* p, size_t len, size_t n, const std::string& where, Visit&& visit) {
  size_t pos = 0;
  for (size_t i = 0; i < n; ++i) {
    if (len - pos < 4) {
      return make_error(ErrorCode::kTruncated, where + ": BYTE_ARRAY value " + std::to_string(i) + " of " +
                                                   std::to_string(n) + " lacks its length (byte " +
                                                   std::to_string(pos) + " of " + std::to_string(len) + ")");
    }
    uint32_t l;
    std::memcpy(&l, p + pos, 4);
    pos += 4;
    if (l > len - pos) {
      return make_error(ErrorCode::kTruncated, where + ": BYTE_ARRAY value " + std::to_string(i) + " of " +
                                                   std::to_string(l) + " bytes runs past the page (byte " +
                                                   std::to_string(pos) + " of " + std::to_string(len) + ")");
    }
    if (!visit(i, pos, static_cast<size_t>(l))) return pos;
    pos += l;
  }
  return pos;
}

// n BYTE_ARRAY values (4-byte length + bytes each). Offsets are written at
// offsets[1..n] relative to offsets[0] (the current end of `data`).
template <class Offset>
Status plain_binary(const uint8_t* p, size_t len, size_t n, Offset* offsets, ReadBuffer& data, size_t* consumed,
                    const std::string& where);
// The same as views: short values inline, long ones referring to buffer
// `buffer_index`, which holds the page's value bytes from offset `base` (the
// caller's copy of them, or the decompressed page itself; base + len <= 2^31 - 1).
// *refers is set when some value is longer than 12 bytes (the buffer is needed).
Status plain_binary_views(const uint8_t* p, size_t len, size_t n, BinaryViewElem* out, int32_t buffer_index,
                          size_t base, bool* refers, const std::string& where);

// ---- BYTE_STREAM_SPLIT ----
// n values of `width` bytes from `width` streams; the stride is len / width.
Status byte_stream_split(const uint8_t* p, size_t len, size_t n, int32_t width, uint8_t* out, const std::string& where);

// ---- dictionaries ----
struct Dictionary {
  bool present = false;
  size_t size = 0;
  // Fixed layouts: `size` elements of the layout (already converted).
  ReadBuffer fixed;
  // BYTE_ARRAY: int64 offsets (size + 1) and bytes, and the longest
  // entry's length (kUnknownLength: not measured).
  ReadBuffer offsets;
  ReadBuffer bytes;
  static constexpr size_t kUnknownLength = ~size_t{0};
  size_t max_len = kUnknownLength;
  // Every entry exactly this long (1, 2, 4 or 8 bytes, such as one-letter
  // flags), else 0: a batch then gathers its bytes as fixed-width values.
  size_t same_len = 0;
  // binary_view: the views, referring to bytes moved into the output's
  // view buffer `view_buffer` (set when the output is binary_view).
  ReadBuffer views;
};

// The n hybrid-encoded indices in [p, p+len) (the first byte is the index
// width) into out, each checked below dict_size.
Status dict_indices(size_t dict_size, const uint8_t* p, size_t len, size_t n, uint32_t* out, const std::string& where);

// Gathers n dictionary entries by the hybrid-encoded indices in [p, p+len)
// (the first byte is the index width).
Status dict_gather_fixed(const Dictionary& dict, int32_t elem, const uint8_t* p, size_t len, size_t n, uint8_t* out,
                         const std::string& where);
template <class Offset>
Status dict_gather_binary(const Dictionary& dict, const uint8_t* p, size_t len, size_t n, Offset* offsets,
                          ReadBuffer& data, const std::string& where);
Status dict_gather_views(const Dictionary& dict, const uint8_t* p, size_t len, size_t n, BinaryViewElem* out,
                         const std::string& where);

// ---- nulls ----
// Spreads `nonnull` dense elements of `elem` bytes at base[0..nonnull) over
// the `count` slots whose validity bits start at bit `bit_offset`; null
// slots are zeroed.
void spread_fixed(uint8_t* base, size_t elem, const uint8_t* validity, int64_t bit_offset, size_t count,
                  size_t nonnull);
// Offsets: o[1..nonnull] dense ends become o[1..count], a null repeating
// the previous end.
template <class Offset>
void spread_offsets(Offset* o, const uint8_t* validity, int64_t bit_offset, size_t count, size_t nonnull);
// Bits: dense bits src[0..nonnull) into dst bits [bit_offset, +count) where valid.
void spread_bits(const uint8_t* src, uint8_t* dst, const uint8_t* validity, int64_t bit_offset, size_t count);

}  // namespace detail
}  // namespace pqfast::parquet
