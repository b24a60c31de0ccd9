#include "thrift/compact.h"

#include <cstring>

namespace pqfast::thrift {
namespace {

int64_t unzigzag(uint64_t v) { return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1)); }

bool valid_type(uint8_t t) { return t <= static_cast<uint8_t>(CType::kStruct); }

// ---- the fast skip ----------------------------------------------------------------
//
// skip() first tries these: recursive, no Status, for the shapes footers are
// made of (struct fields with delta ids; scalars; binaries; lists of
// varints, binaries, bytes or structs; nesting up to kFastDepth). Each
// returns the end of the value, or nullptr for anything else, malformed or
// not; skip() then walks the same value again with the checked loop, which
// words the error. The fast path accepts a subset of what the checked path
// accepts and ends at the same byte.

constexpr int kFastDepth = 16;

inline const uint8_t* fast_varint(const uint8_t* p, const uint8_t* end) {
  // At most 9 bytes: the checked reader takes those without an overflow test.
  for (int i = 0; i < 9; ++i) {
    if (p >= end) return nullptr;
    if ((*p++ & 0x80) == 0) return p;
  }
  return nullptr;
}

inline const uint8_t* fast_binary(const uint8_t* p, const uint8_t* end) {
  uint64_t len = 0;
  for (int shift = 0; shift < 63; shift += 7) {
    if (p >= end) return nullptr;
    const uint8_t b = *p++;
    len |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      return len <= static_cast<uint64_t>(end - p) ? p + len : nullptr;
    }
  }
  return nullptr;
}

const uint8_t* fast_struct(const uint8_t* p, const uint8_t* end, int depth);

const uint8_t* fast_list(const uint8_t* p, const uint8_t* end, int depth) {
  if (p >= end) return nullptr;
  const uint8_t b = *p++;
  const uint8_t et = b & 0x0f;
  uint64_t n = b >> 4;
  if (n == 15) {
    n = 0;
    for (int shift = 0;; shift += 7) {
      if (shift > 28 || p >= end) return nullptr;
      const uint8_t c = *p++;
      n |= static_cast<uint64_t>(c & 0x7f) << shift;
      if ((c & 0x80) == 0) break;
    }
  }
  if (n > static_cast<uint64_t>(end - p)) return nullptr;
  switch (et) {
    case 3: return p + n;
    case 4:
    case 5:
    case 6:
      for (uint64_t i = 0; i < n && p; ++i) p = fast_varint(p, end);
      return p;
    case 8:
      for (uint64_t i = 0; i < n && p; ++i) p = fast_binary(p, end);
      return p;
    case 12:
      for (uint64_t i = 0; i < n && p; ++i) p = fast_struct(p, end, depth + 1);
      return p;
    default: return nullptr;  // bools, doubles, nested containers: the checked path
  }
}

// One value of a struct field (or a top-level value) of wire type t.
inline const uint8_t* fast_value(const uint8_t* p, const uint8_t* end, uint8_t t, int depth) {
  switch (t) {
    case 1:
    case 2: return p;  // a field's bool lives in its type nibble
    case 3: return p < end ? p + 1 : nullptr;
    case 4:
    case 5:
    case 6: return fast_varint(p, end);
    case 7: return end - p >= 8 ? p + 8 : nullptr;
    case 8: return fast_binary(p, end);
    case 9:
    case 10: return fast_list(p, end, depth);
    case 12: return fast_struct(p, end, depth + 1);
    default: return nullptr;
  }
}

const uint8_t* fast_struct(const uint8_t* p, const uint8_t* end, int depth) {
  if (depth > kFastDepth) return nullptr;
  while (true) {
    if (p >= end) return nullptr;
    const uint8_t b = *p++;
    const uint8_t ft = b & 0x0f;
    if (ft == 0) return p;
    if (ft > 12 || (b >> 4) == 0) return nullptr;  // bad type; long-form field id
    // Scalars inline; containers through fast_value.
    if (ft == 1 || ft == 2) continue;
    if (ft >= 4 && ft <= 6) {
      p = fast_varint(p, end);
    } else if (ft == 8) {
      p = fast_binary(p, end);
    } else {
      p = fast_value(p, end, ft, depth);
    }
    if (p == nullptr) return nullptr;
  }
}

}  // namespace

const uint8_t* skip_fast(const uint8_t* p, const uint8_t* end, CType type) {
  return fast_value(p, end, static_cast<uint8_t>(type), 0);
}

Error CompactReader::error(ErrorCode code, const std::string& message) const {
  return make_error(code, std::string(what_) + " at byte " +
                              std::to_string(base_offset_ + position()) + ": " + message);
}

Result<uint64_t> CompactReader::read_varint_slow() {
  uint64_t value = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (p_ >= end_) return error(ErrorCode::kTruncated, "input ends inside a varint");
    const uint8_t byte = *p_++;
    if (shift == 63 && (byte & 0x7e) != 0) {
      return error(ErrorCode::kCorrupt, "varint overflows 64 bits");
    }
    value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return value;
  }
  return error(ErrorCode::kCorrupt, "varint longer than 10 bytes");
}

Error CompactReader::depth_error() const {
  return error(ErrorCode::kLimitExceeded,
               "structures nested deeper than " + std::to_string(kMaxDepth) + " levels");
}

Error CompactReader::bad_type(uint8_t type) const {
  return error(ErrorCode::kCorrupt, "unknown field type " + std::to_string(type));
}

Result<ListHeader> CompactReader::read_list_header() {
  if (p_ >= end_) return error(ErrorCode::kTruncated, "input ends before a list header");
  const uint8_t byte = *p_++;
  ListHeader h;
  const uint8_t type = byte & 0x0f;
  if (!valid_type(type)) {
    return error(ErrorCode::kCorrupt, "unknown list element type " + std::to_string(type));
  }
  h.elem_type = static_cast<CType>(type);
  uint64_t size = byte >> 4;
  if (size == 15) {
    auto s = read_varint();
    if (!s.ok()) return s.error();
    size = *s;
  }
  // Element type 0 (STOP) names no type: fastparquet writes it for empty lists
  // (thrift's Python writer does), and Thrift's own readers accept it there.
  // A non-empty list of it cannot be read.
  if (type == 0 && size != 0) {
    return error(ErrorCode::kCorrupt, "unknown list element type 0 in a list of " +
                                          std::to_string(size) + " elements");
  }
  // Every element takes at least one byte, except bools packed... which also
  // take one byte each in lists. So a list cannot announce more elements than
  // bytes remain: this bounds every allocation made from `size`.
  if (size > remaining()) {
    return error(ErrorCode::kCorrupt, "list announces " + std::to_string(size) +
                                          " elements but only " + std::to_string(remaining()) +
                                          " bytes remain");
  }
  h.size = static_cast<uint32_t>(size);
  return h;
}

Result<bool> CompactReader::read_bool_element() {
  if (p_ >= end_) return error(ErrorCode::kTruncated, "input ends inside a bool");
  const uint8_t b = *p_++;
  if (b != 0 && b != 1 && b != 2) return error(ErrorCode::kCorrupt, "bad bool value");
  return b == 1;
}

Result<int8_t> CompactReader::read_byte() {
  if (p_ >= end_) return error(ErrorCode::kTruncated, "input ends inside a byte field");
  return static_cast<int8_t>(*p_++);
}

Result<int16_t> CompactReader::read_i16() {
  auto v = read_varint();
  if (!v.ok()) return v.error();
  const int64_t x = unzigzag(*v);
  if (x < INT16_MIN || x > INT16_MAX) return error(ErrorCode::kCorrupt, "i16 out of range");
  return static_cast<int16_t>(x);
}

Result<int32_t> CompactReader::read_i32_slow() {
  auto v = read_varint();
  if (!v.ok()) return v.error();
  const int64_t x = unzigzag(*v);
  if (x < INT32_MIN || x > INT32_MAX) return error(ErrorCode::kCorrupt, "i32 out of range");
  return static_cast<int32_t>(x);
}


Result<double> CompactReader::read_double() {
  if (remaining() < 8) return error(ErrorCode::kTruncated, "input ends inside a double");
  double d;
  std::memcpy(&d, p_, 8);
  p_ += 8;
  return d;
}

Result<std::string_view> CompactReader::read_binary() {
  auto len = read_varint();
  if (!len.ok()) return len.error();
  if (*len > remaining()) {
    return error(ErrorCode::kTruncated, "binary of " + std::to_string(*len) + " bytes but only " +
                                            std::to_string(remaining()) + " remain");
  }
  if (*len > kMaxBinaryBytes) {
    return error(ErrorCode::kLimitExceeded, "binary of " + std::to_string(*len) + " bytes passes the limit of " +
                                                std::to_string(kMaxBinaryBytes));
  }
  std::string_view v(reinterpret_cast<const char*>(p_), static_cast<size_t>(*len));
  p_ += *len;
  return v;
}

// Skips one value of any type without recursion or per-value Results: an
// explicit stack of open containers, varints skipped by their stop bit. The
// recursive skip_at_depth() below is kept as the reference (and for errors it
// words the same way); both enforce kMaxDepth and every bound.
Status CompactReader::skip(CType type) {
  if (const uint8_t* q = fast_value(p_, end_, static_cast<uint8_t>(type), 0)) [[likely]] {
    p_ = q;
    return Status::Ok();
  }
  struct Frame {
    uint8_t kind;       // 0 struct, 1 list/set, 2 map
    uint8_t t1, t2;     // list element type; map key and value types
    uint32_t remaining; // list elements or map key+value items left
  };
  Frame stack[kMaxDepth + 1];
  int sp = 0;
  uint8_t t = static_cast<uint8_t>(type);
  bool in_collection = false;  // a bool value inside a list or map is one byte
  while (true) {
    // Consume one value of type t.
    switch (t) {
      case 1:
      case 2:
        if (in_collection) {
          auto b = read_bool_element();
          if (!b.ok()) return b.error();
        }
        break;
      case 3:
        if (p_ >= end_) return error(ErrorCode::kTruncated, "input ends inside a byte field");
        ++p_;
        break;
      case 4:
      case 5:
      case 6: {
        auto v = read_varint();
        if (!v.ok()) return v.error();
        break;
      }
      case 7:
        if (remaining() < 8) return error(ErrorCode::kTruncated, "input ends inside a double");
        p_ += 8;
        break;
      case 8: {
        auto len = read_varint();
        if (!len.ok()) return len.error();
        if (*len > remaining()) {
          return error(ErrorCode::kTruncated, "binary of " + std::to_string(*len) +
                                                  " bytes but only " + std::to_string(remaining()) +
                                                  " remain");
        }
        p_ += *len;
        break;
      }
      case 9:
      case 10: {
        if (sp >= kMaxDepth) return depth_error();
        auto h = read_list_header();
        if (!h.ok()) return h.error();
        stack[sp++] = Frame{1, static_cast<uint8_t>(h->elem_type), 0, h->size};
        break;
      }
      case 11: {
        if (sp >= kMaxDepth) return depth_error();
        auto size = read_varint();
        if (!size.ok()) return size.error();
        if (*size == 0) break;
        if (*size > remaining()) return error(ErrorCode::kCorrupt, "map larger than its input");
        if (p_ >= end_) return error(ErrorCode::kTruncated, "input ends inside a map header");
        const uint8_t kv = *p_++;
        const uint8_t kt = kv >> 4, vt = kv & 0x0f;
        if (!valid_type(kt) || !valid_type(vt) || kt == 0 || vt == 0) {
          return error(ErrorCode::kCorrupt, "bad map key/value types");
        }
        stack[sp++] = Frame{2, kt, vt, static_cast<uint32_t>(*size * 2)};
        break;
      }
      case 12:
        if (sp >= kMaxDepth) return depth_error();
        stack[sp++] = Frame{0, 0, 0, 0};
        break;
      default:
        return error(ErrorCode::kCorrupt, "cannot skip a value of type " + std::to_string(t));
    }
    // Find the next value to consume, closing finished containers.
    while (true) {
      if (sp == 0) return Status::Ok();
      Frame& f = stack[sp - 1];
      if (f.kind == 0) {  // struct: the next field header (ids are not needed to skip)
        if (p_ >= end_) return error(ErrorCode::kTruncated, "input ends before the end of a struct");
        const uint8_t byte = *p_++;
        const uint8_t ft = byte & 0x0f;
        if (!valid_type(ft)) return bad_type(ft);
        if (ft == 0) {
          --sp;
          continue;
        }
        if ((byte >> 4) == 0) {
          auto id = read_i16();
          if (!id.ok()) return id.error();
        }
        t = ft;
        in_collection = false;
        break;
      }
      if (f.remaining == 0) {
        --sp;
        continue;
      }
      --f.remaining;
      t = f.kind == 1 ? f.t1 : ((f.remaining & 1) ? f.t1 : f.t2);
      in_collection = true;
      break;
    }
  }
}

Status CompactReader::skip_recursive(CType type) { return skip_at_depth(type, 0); }

Status CompactReader::skip_at_depth(CType type, int depth) {
  if (depth > kMaxDepth) {
    return error(ErrorCode::kLimitExceeded,
                 "values nested deeper than " + std::to_string(kMaxDepth) + " levels");
  }
  switch (type) {
    case CType::kStop:
      return error(ErrorCode::kCorrupt, "cannot skip a stop field");
    case CType::kBoolTrue:
    case CType::kBoolFalse:
      return Status::Ok();  // the value was in the field header
    case CType::kByte: {
      auto v = read_byte();
      return v.ok() ? Status::Ok() : Status(v.error());
    }
    case CType::kI16:
    case CType::kI32:
    case CType::kI64: {
      auto v = read_varint();
      return v.ok() ? Status::Ok() : Status(v.error());
    }
    case CType::kDouble: {
      auto v = read_double();
      return v.ok() ? Status::Ok() : Status(v.error());
    }
    case CType::kBinary: {
      auto v = read_binary();
      return v.ok() ? Status::Ok() : Status(v.error());
    }
    case CType::kList:
    case CType::kSet: {
      auto h = read_list_header();
      if (!h.ok()) return h.error();
      for (uint32_t i = 0; i < h->size; ++i) {
        if (h->elem_type == CType::kBoolTrue || h->elem_type == CType::kBoolFalse) {
          auto b = read_bool_element();
          if (!b.ok()) return b.error();
        } else {
          PQFAST_RETURN_IF_ERROR(skip_at_depth(h->elem_type, depth + 1));
        }
      }
      return Status::Ok();
    }
    case CType::kMap: {
      auto size = read_varint();
      if (!size.ok()) return size.error();
      if (*size == 0) return Status::Ok();
      if (*size > remaining()) return error(ErrorCode::kCorrupt, "map larger than its input");
      if (p_ >= end_) return error(ErrorCode::kTruncated, "input ends inside a map header");
      const uint8_t kv = *p_++;
      const uint8_t kt = kv >> 4, vt = kv & 0x0f;
      if (!valid_type(kt) || !valid_type(vt) || kt == 0 || vt == 0) {
        return error(ErrorCode::kCorrupt, "bad map key/value types");
      }
      for (uint64_t i = 0; i < *size; ++i) {
        for (uint8_t t : {kt, vt}) {
          if (t == 1 || t == 2) {
            auto b = read_bool_element();
            if (!b.ok()) return b.error();
          } else {
            PQFAST_RETURN_IF_ERROR(skip_at_depth(static_cast<CType>(t), depth + 1));
          }
        }
      }
      return Status::Ok();
    }
    case CType::kStruct: {
      PQFAST_RETURN_IF_ERROR(begin_struct());
      while (true) {
        auto f = read_field_header();
        if (!f.ok()) return f.error();
        if (f->is_stop()) break;
        PQFAST_RETURN_IF_ERROR(skip_at_depth(f->type, depth + 1));
      }
      return end_struct();
    }
  }
  return error(ErrorCode::kCorrupt, "unknown type");
}

// ---- writer ----------------------------------------------------------------

void CompactWriter::write_varint(uint64_t v) {
  while (v >= 0x80) {
    out_->push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  out_->push_back(static_cast<uint8_t>(v));
}

void CompactWriter::write_zigzag(int64_t v) {
  write_varint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
}

void CompactWriter::begin_struct() {
  field_id_stack_.push_back(last_field_id_);
  last_field_id_ = 0;
}

void CompactWriter::end_struct() {
  out_->push_back(0);
  last_field_id_ = field_id_stack_.back();
  field_id_stack_.pop_back();
}

void CompactWriter::field_header(CType type, int16_t id) {
  const int delta = id - last_field_id_;
  if (delta > 0 && delta <= 15) {
    out_->push_back(static_cast<uint8_t>((delta << 4) | static_cast<uint8_t>(type)));
  } else {
    out_->push_back(static_cast<uint8_t>(type));
    write_zigzag(id);
  }
  last_field_id_ = id;
}

void CompactWriter::write_i32_field(int16_t id, int32_t v) {
  field_header(CType::kI32, id);
  write_zigzag(v);
}

void CompactWriter::write_i64_field(int16_t id, int64_t v) {
  field_header(CType::kI64, id);
  write_zigzag(v);
}

void CompactWriter::write_binary_field(int16_t id, std::string_view v) {
  field_header(CType::kBinary, id);
  write_varint(v.size());
  out_->insert(out_->end(), v.begin(), v.end());
}

}  // namespace pqfast::thrift
