// Internal: a bounded reader and a small writer for Thrift's compact protocol,
// the encoding of every Parquet header and footer.
//
// The reader treats its input as hostile: every read is bounds-checked, nested
// structures are limited in depth, and lengths are checked against the bytes
// that remain before anything is allocated. Errors carry the byte offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pqfast/status.h"

namespace pqfast::thrift {

enum class CType : uint8_t {
  kStop = 0,
  kBoolTrue = 1,
  kBoolFalse = 2,
  kByte = 3,
  kI16 = 4,
  kI32 = 5,
  kI64 = 6,
  kDouble = 7,
  kBinary = 8,
  kList = 9,
  kSet = 10,
  kMap = 11,
  kStruct = 12,
};

struct FieldHeader {
  CType type = CType::kStop;
  int16_t id = 0;
  bool is_stop() const { return type == CType::kStop; }
  // For boolean fields the value lives in the type nibble.
  bool bool_value() const { return type == CType::kBoolTrue; }
};

struct ListHeader {
  CType elem_type = CType::kStop;
  uint32_t size = 0;
};

class CompactReader {
 public:
  // `what` names the structure in error messages ("BloomFilterHeader").
  CompactReader(const uint8_t* data, size_t len, std::string_view what, size_t base_offset = 0)
      : begin_(data), p_(data), end_(data + len), what_(what), base_offset_(base_offset) {}

  size_t position() const { return static_cast<size_t>(p_ - begin_); }
  // Where the input starts in its file (for messages and for locating
  // fields to read again later).
  size_t base_offset() const { return base_offset_; }
  size_t remaining() const { return static_cast<size_t>(end_ - p_); }

  // Struct framing: call begin_struct(), read_field_header() until stop,
  // end_struct(). Field ids are delta-encoded per struct. The hot paths are
  // inline (footers hold thousands of fields); errors are built out of line.
  Status begin_struct() {
    if (depth_ >= kMaxDepth) [[unlikely]] return depth_error();
    field_id_stack_[depth_++] = last_field_id_;
    last_field_id_ = 0;
    return Status::Ok();
  }
  Status end_struct() {
    if (depth_ == 0) [[unlikely]] return error(ErrorCode::kCorrupt, "unbalanced end of struct");
    last_field_id_ = field_id_stack_[--depth_];
    return Status::Ok();
  }
  Result<FieldHeader> read_field_header() {
    if (p_ >= end_) [[unlikely]] {
      return error(ErrorCode::kTruncated, "input ends before the end of a struct");
    }
    const uint8_t byte = *p_++;
    const uint8_t type = byte & 0x0f;
    if (type > static_cast<uint8_t>(CType::kStruct)) [[unlikely]] return bad_type(type);
    FieldHeader h;
    h.type = static_cast<CType>(type);
    if (h.type == CType::kStop) return h;
    const uint8_t delta = byte >> 4;
    if (delta != 0) [[likely]] {
      h.id = static_cast<int16_t>(last_field_id_ + delta);
    } else {
      auto id = read_i16();
      if (!id.ok()) return id.error();
      h.id = *id;
    }
    last_field_id_ = h.id;
    return h;
  }

  Result<ListHeader> read_list_header();
  Result<bool> read_bool_element();  // a bool inside a list (one byte)
  Result<int8_t> read_byte();
  Result<int16_t> read_i16();
  Result<int32_t> read_i32() {
    if (p_ < end_ && *p_ < 0x80) [[likely]] {  // one-byte varint
      const uint8_t v = *p_++;
      return static_cast<int32_t>((v >> 1) ^ (~(v & 1) + 1));
    }
    return read_i32_slow();
  }
  Result<int64_t> read_i64() {
    auto v = read_varint();
    if (!v.ok()) [[unlikely]] return v.error();
    return static_cast<int64_t>((*v >> 1) ^ (~(*v & 1) + 1));
  }
  Result<double> read_double();
  // Unsigned ULEB128, at most 10 bytes.
  Result<uint64_t> read_varint() {
    uint64_t value = 0;
    const uint8_t* p = p_;
    // Fast path: the whole varint lies in the input (<= 9 bytes, no overflow check needed).
    if (end_ - p >= 10) [[likely]] {
      for (int shift = 0; shift < 63; shift += 7) {
        const uint8_t byte = *p++;
        value |= static_cast<uint64_t>(byte & 0x7f) << shift;
        if ((byte & 0x80) == 0) {
          p_ = p;
          return value;
        }
      }
    }
    return read_varint_slow();
  }
  // A binary/string: a view into the input (no copy), length checked.
  Result<std::string_view> read_binary();

  // Skips a value of the given type, however nested (depth-limited),
  // iteratively and without decoding anything.
  Status skip(CType type);
  // The recursive reference implementation of skip() (tests compare them).
  Status skip_recursive(CType type);

  // An error at the current position, naming the structure.
  Error error(ErrorCode code, const std::string& message) const;

  static constexpr int kMaxDepth = 64;
  // Arrow C++'s thrift_string_size_limit: no string or binary field of a
  // footer or header is longer in any real file.
  static constexpr uint64_t kMaxBinaryBytes = 100000000;

 private:
  Status skip_at_depth(CType type, int depth);
  Result<uint64_t> read_varint_slow();
  Result<int32_t> read_i32_slow();
  Error depth_error() const;
  Error bad_type(uint8_t type) const;

  const uint8_t* begin_;
  const uint8_t* p_;
  const uint8_t* end_;
  std::string_view what_;
  size_t base_offset_;
  int16_t last_field_id_ = 0;
  int depth_ = 0;
  int16_t field_id_stack_[kMaxDepth];
};

// Skips one value of wire type `type` in [p, end) when it has the shapes
// footers are made of (the fast path of CompactReader::skip, nesting up to 16
// levels): returns the value's end, or nullptr for anything else, malformed
// or merely unusual, which the checked reader then decides. Never reads at or
// past `end`; accepts nothing CompactReader::skip would reject.
const uint8_t* skip_fast(const uint8_t* p, const uint8_t* end, CType type);

// A writer for the few structures pqfast serialises (BloomFilterHeader, test
// fixtures). Appends to a byte vector.
class CompactWriter {
 public:
  explicit CompactWriter(std::vector<uint8_t>* out) : out_(out) {}
  void begin_struct();
  void end_struct();  // writes the stop byte
  void field_header(CType type, int16_t id);
  void write_i32_field(int16_t id, int32_t v);
  void write_i64_field(int16_t id, int64_t v);
  void write_binary_field(int16_t id, std::string_view v);
  void write_varint(uint64_t v);
  void write_zigzag(int64_t v);

 private:
  std::vector<uint8_t>* out_;
  int16_t last_field_id_ = 0;
  std::vector<int16_t> field_id_stack_;
};

}  // namespace pqfast::thrift
