// Physical values -> Arrow layouts: which layouts a physical type can be
// read as, narrowing of INT32, decimals (sign-extended little-endian
// 128/256-bit integers from INT32, INT64 and big-endian byte arrays), INT96
// timestamps, and the plain Arrow format strings.
#include <cstring>

#include "parquet/decode.h"

namespace pqfast::parquet::detail {

int32_t physical_width(PhysicalType type, int32_t type_length) {
  switch (type) {
    case PhysicalType::kInt32: case PhysicalType::kFloat: return 4;
    case PhysicalType::kInt64: case PhysicalType::kDouble: return 8;
    case PhysicalType::kInt96: return 12;
    case PhysicalType::kFixedLenByteArray: return type_length;
    default: return 0;
  }
}

int32_t layout_width(ArrowLayout layout, int32_t type_length) {
  switch (layout) {
    case ArrowLayout::kInt8: case ArrowLayout::kUInt8: return 1;
    case ArrowLayout::kInt16: case ArrowLayout::kUInt16: case ArrowLayout::kFloat16: return 2;
    case ArrowLayout::kInt32: case ArrowLayout::kUInt32: case ArrowLayout::kFloat32: return 4;
    case ArrowLayout::kInt64: case ArrowLayout::kUInt64: case ArrowLayout::kFloat64:
    case ArrowLayout::kTimestampNanos: return 8;
    case ArrowLayout::kDecimal128: case ArrowLayout::kBinaryView: return 16;
    case ArrowLayout::kDecimal256: return 32;
    case ArrowLayout::kFixedSizeBinary: return type_length;
    default: return 0;
  }
}

ArrowLayout default_layout(PhysicalType type) {
  switch (type) {
    case PhysicalType::kBoolean: return ArrowLayout::kBool;
    case PhysicalType::kInt32: return ArrowLayout::kInt32;
    case PhysicalType::kInt64: return ArrowLayout::kInt64;
    case PhysicalType::kInt96: return ArrowLayout::kTimestampNanos;
    case PhysicalType::kFloat: return ArrowLayout::kFloat32;
    case PhysicalType::kDouble: return ArrowLayout::kFloat64;
    case PhysicalType::kByteArray: return ArrowLayout::kBinary;
    case PhysicalType::kFixedLenByteArray: return ArrowLayout::kFixedSizeBinary;
  }
  return ArrowLayout::kBinary;
}

bool layout_fits(ArrowLayout layout, const ColumnDescriptor& d) {
  using L = ArrowLayout;
  if (layout == L::kNull) return true;
  switch (d.physical_type) {
    case PhysicalType::kBoolean: return layout == L::kBool;
    case PhysicalType::kInt32:
      return layout == L::kInt8 || layout == L::kInt16 || layout == L::kInt32 || layout == L::kUInt8 ||
             layout == L::kUInt16 || layout == L::kUInt32 || layout == L::kDecimal128 || layout == L::kDecimal256;
    case PhysicalType::kInt64:
      return layout == L::kInt64 || layout == L::kUInt64 || layout == L::kDecimal128 || layout == L::kDecimal256;
    case PhysicalType::kInt96: return layout == L::kTimestampNanos;
    case PhysicalType::kFloat: return layout == L::kFloat32;
    case PhysicalType::kDouble: return layout == L::kFloat64;
    case PhysicalType::kByteArray:
      return layout == L::kBinary || layout == L::kLargeBinary || layout == L::kBinaryView ||
             layout == L::kDecimal128 || layout == L::kDecimal256;
    case PhysicalType::kFixedLenByteArray:
      return layout == L::kFixedSizeBinary || (layout == L::kFloat16 && d.type_length == 2) ||
             ((layout == L::kDecimal128 || layout == L::kDecimal256) && d.type_length >= 1 && d.type_length <= 32);
  }
  return false;
}

bool is_identity(ArrowLayout layout, PhysicalType type, int32_t type_length) {
  using L = ArrowLayout;
  switch (type) {
    case PhysicalType::kInt32: return layout == L::kInt32 || layout == L::kUInt32;
    case PhysicalType::kInt64: return layout == L::kInt64 || layout == L::kUInt64;
    case PhysicalType::kFloat: return layout == L::kFloat32;
    case PhysicalType::kDouble: return layout == L::kFloat64;
    case PhysicalType::kFixedLenByteArray: return layout == L::kFixedSizeBinary || layout == L::kFloat16;
    default: return false;
  }
}

std::string default_format(ArrowLayout layout, int32_t type_length, const ColumnDescriptor& d) {
  using L = ArrowLayout;
  switch (layout) {
    case L::kBool: return "b";
    case L::kInt8: return "c";
    case L::kInt16: return "s";
    case L::kInt32: return "i";
    case L::kInt64: return "l";
    case L::kUInt8: return "C";
    case L::kUInt16: return "S";
    case L::kUInt32: return "I";
    case L::kUInt64: return "L";
    case L::kFloat16: return "e";
    case L::kFloat32: return "f";
    case L::kFloat64: return "g";
    case L::kBinary: return "z";
    case L::kLargeBinary: return "Z";
    case L::kBinaryView: return "vz";
    case L::kFixedSizeBinary: return "w:" + std::to_string(type_length);
    case L::kDecimal128:
    case L::kDecimal256: {
      const int32_t p = d.logical.decimal_precision > 0 ? d.logical.decimal_precision : (layout == L::kDecimal128 ? 38 : 76);
      std::string f = "d:" + std::to_string(p) + "," + std::to_string(d.logical.decimal_scale);
      if (layout == L::kDecimal256) f += ",256";
      return f;
    }
    case L::kTimestampNanos: return "tsn:";
    case L::kNull: return "n";
    default: return "z";
  }
}

namespace {

// Sign-extends a big-endian two's complement integer of `len` bytes (1..32)
// into `width` little-endian bytes.
void be_to_le_signed(const uint8_t* be, size_t len, uint8_t* out, size_t width) {
  const uint8_t fill = (len > 0 && (be[0] & 0x80)) ? 0xff : 0x00;
  for (size_t k = 0; k < len; ++k) out[k] = be[len - 1 - k];
  std::memset(out + len, fill, width - len);
}

// The width a template argument: with it a runtime one, the sign fill was
// a call to memset per value.
template <class T, size_t W>
void sign_extend(const uint8_t* in, size_t n, uint8_t* out) {
  for (size_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, in + i * sizeof(T), sizeof(T));
    const int64_t x = v;
    const int64_t hi = x >> 63;
    std::memcpy(out + i * W, &x, 8);
    for (size_t k = 8; k < W; k += 8) std::memcpy(out + i * W + k, &hi, 8);
  }
}

template <class T>
void sign_extend(const uint8_t* in, size_t n, uint8_t* out, size_t width) {
  if (width == 16) sign_extend<T, 16>(in, n, out);
  else sign_extend<T, 32>(in, n, out);
}

// Big-endian decimals of `len` bytes (1..8: what writers use up to
// precision 18, pyarrow's FIXED_LEN_BYTE_ARRAY(7) for decimal(15, 2)) by one
// 8-byte load, a byte swap and an arithmetic shift, where the byte loop
// above took a load and a store per byte. The load starts at the value and
// must not pass the input: the last values (fewer than 8 bytes left) go
// through the byte loop.
void be_to_le_short(const uint8_t* in, size_t n, size_t len, uint8_t* out, size_t width) {
  const int shift = static_cast<int>(64 - 8 * len);
  const size_t total = n * len;
  size_t i = 0;
  if (total >= 8) {
    const size_t fast = (total - 8) / len + 1;  // values i with i * len + 8 <= total
    for (; i < fast; ++i) {
      uint64_t raw;
      std::memcpy(&raw, in + i * len, 8);
      const int64_t v = static_cast<int64_t>(__builtin_bswap64(raw)) >> shift;
      const int64_t hi = v >> 63;
      std::memcpy(out + i * width, &v, 8);
      for (size_t k = 8; k < width; k += 8) std::memcpy(out + i * width + k, &hi, 8);
    }
  }
  for (; i < n; ++i) be_to_le_signed(in + i * len, len, out + i * width, width);
}

template <class To>
void narrow(const uint8_t* in, size_t n, uint8_t* out) {
  for (size_t i = 0; i < n; ++i) {
    int32_t v;
    std::memcpy(&v, in + i * 4, 4);
    const To t = static_cast<To>(v);
    std::memcpy(out + i * sizeof(To), &t, sizeof(To));
  }
}

}  // namespace

Status convert_fixed(const ColumnDescriptor& d, ArrowLayout layout, const uint8_t* in, size_t n, uint8_t* out,
                     const std::string& where) {
  using L = ArrowLayout;
  const PhysicalType t = d.physical_type;
  if (is_identity(layout, t, d.type_length)) {
    if (n) std::memcpy(out, in, n * static_cast<size_t>(physical_width(t, d.type_length)));
    return Status::Ok();
  }
  switch (layout) {
    case L::kInt8: narrow<int8_t>(in, n, out); return Status::Ok();
    case L::kUInt8: narrow<uint8_t>(in, n, out); return Status::Ok();
    case L::kInt16: narrow<int16_t>(in, n, out); return Status::Ok();
    case L::kUInt16: narrow<uint16_t>(in, n, out); return Status::Ok();
    case L::kDecimal128:
    case L::kDecimal256: {
      const size_t w = layout == L::kDecimal128 ? 16 : 32;
      if (t == PhysicalType::kInt32) { sign_extend<int32_t>(in, n, out, w); return Status::Ok(); }
      if (t == PhysicalType::kInt64) { sign_extend<int64_t>(in, n, out, w); return Status::Ok(); }
      const size_t len = static_cast<size_t>(d.type_length);
      if (len > w) {
        return make_error(ErrorCode::kUnsupported, where + ": a " + std::to_string(len) +
                                                       "-byte decimal does not fit " + std::to_string(w * 8) + " bits");
      }
      if (len <= 8) {
        be_to_le_short(in, n, len, out, w);
      } else {
        for (size_t i = 0; i < n; ++i) be_to_le_signed(in + i * len, len, out + i * w, w);
      }
      return Status::Ok();
    }
    case L::kTimestampNanos: {
      // INT96: 8 bytes of nanoseconds in the day, then a 4-byte Julian day.
      for (size_t i = 0; i < n; ++i) {
        uint64_t nanos;
        uint32_t day;
        std::memcpy(&nanos, in + i * 12, 8);
        std::memcpy(&day, in + i * 12 + 8, 4);
        const int64_t v = int96_nanos(nanos, day);
        std::memcpy(out + i * 8, &v, 8);
      }
      return Status::Ok();
    }
    default:
      return make_error(ErrorCode::kInvalidArgument, where + ": cannot convert " +
                                                         std::string(physical_type_name(t)) + " to " +
                                                         arrow_layout_name(layout));
  }
}

Status convert_binary_to_decimal(ArrowLayout layout, const int64_t* offsets, const uint8_t* bytes, size_t n,
                                 uint8_t* out, const std::string& where) {
  const size_t w = layout == ArrowLayout::kDecimal128 ? 16 : 32;
  for (size_t i = 0; i < n; ++i) {
    const size_t len = static_cast<size_t>(offsets[i + 1] - offsets[i]);
    if (len > w) {
      return make_error(ErrorCode::kCorrupt, where + ": decimal value " + std::to_string(i) + " of " +
                                                 std::to_string(len) + " bytes does not fit " + std::to_string(w * 8) + " bits");
    }
    if (len == 0) {
      std::memset(out + i * w, 0, w);
      continue;
    }
    be_to_le_signed(bytes + offsets[i], len, out + i * w, w);
  }
  return Status::Ok();
}

}  // namespace pqfast::parquet::detail
