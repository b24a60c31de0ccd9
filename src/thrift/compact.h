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
  size_t remaining() const { return static_cast<size_t>(end_ - p_); }

  // Struct framing: call begin_struct(), read_field_header() until stop,
  // end_struct(). Field ids are delta-encoded per struct.
  Status begin_struct();
  Status end_struct();
  Result<FieldHeader> read_field_header();

  Result<ListHeader> read_list_header();
  Result<bool> read_bool_element();  // a bool inside a list (one byte)
  Result<int8_t> read_byte();
  Result<int16_t> read_i16();
  Result<int32_t> read_i32();
  Result<int64_t> read_i64();
  Result<double> read_double();
  Result<uint64_t> read_varint();  // unsigned ULEB128, at most 10 bytes
  // A binary/string: a view into the input (no copy), length checked.
  Result<std::string_view> read_binary();

  // Skips a value of the given type, however nested (depth-limited).
  Status skip(CType type);

  // An error at the current position, naming the structure.
  Error error(ErrorCode code, const std::string& message) const;

  static constexpr int kMaxDepth = 64;

 private:
  Status skip_at_depth(CType type, int depth);

  const uint8_t* begin_;
  const uint8_t* p_;
  const uint8_t* end_;
  std::string_view what_;
  size_t base_offset_;
  int16_t last_field_id_ = 0;
  std::vector<int16_t> field_id_stack_;
};

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
