// The order of a column's values (parquet.thrift ColumnOrder TYPE_ORDER):
// how min/max statistics, page indexes and filters compare PLAIN values.
#include "parquet/value_order.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace pqfast::parquet {

Order sort_order(const ColumnDescriptor& d) {
  const auto& lt = d.logical;
  switch (d.physical_type) {
    case PhysicalType::kInt32:
    case PhysicalType::kInt64: {
      const bool is_unsigned = (lt.kind == LogicalType::kInteger && !lt.is_signed) ||
                               (d.converted_type >= 11 && d.converted_type <= 14);
      return is_unsigned ? Order::kUnsigned : Order::kSigned;
    }
    case PhysicalType::kFloat:
    case PhysicalType::kDouble: return Order::kFloat;
    case PhysicalType::kByteArray:
    case PhysicalType::kFixedLenByteArray:
      if (lt.kind == LogicalType::kDecimal || d.converted_type == 5) return Order::kDecimalBytes;
      if (lt.kind == LogicalType::kFloat16) {
        return d.physical_type == PhysicalType::kFixedLenByteArray && d.type_length == 2 ? Order::kFloat16
                                                                                         : Order::kNone;
      }
      if (lt.kind == LogicalType::kOther ||
          lt.kind == LogicalType::kVariant || lt.kind == LogicalType::kGeometry ||
          lt.kind == LogicalType::kGeography || d.converted_type == 21) {
        return Order::kNone;
      }
      return Order::kBytes;
    default: return Order::kNone;  // BOOLEAN (no filters), INT96 (undefined order)
  }
}


// Signed big-endian two's complement, any lengths (sign-extended).
int compare_decimal(std::string_view a, std::string_view b) {
  const bool na = !a.empty() && (static_cast<uint8_t>(a[0]) & 0x80);
  const bool nb = !b.empty() && (static_cast<uint8_t>(b[0]) & 0x80);
  if (na != nb) return na ? -1 : 1;
  const size_t n = std::max(a.size(), b.size());
  const uint8_t fill = na ? 0xff : 0x00;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t x = i < n - a.size() ? fill : static_cast<uint8_t>(a[i - (n - a.size())]);
    const uint8_t y = i < n - b.size() ? fill : static_cast<uint8_t>(b[i - (n - b.size())]);
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

int compare_bytes(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  const int c = n ? std::memcmp(a.data(), b.data(), n) : 0;  // (an empty view may have no data pointer)
  if (c != 0) return c < 0 ? -1 : 1;
  return a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
}

// IEEE 754 binary16 (little-endian, as FLOAT16 is stored) widened to float:
// exact for every half value, NaN stays NaN.
float half_to_float(std::string_view s) {
  const uint16_t h = static_cast<uint16_t>(static_cast<uint8_t>(s[0]) | (static_cast<uint8_t>(s[1]) << 8));
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  const uint32_t exp = (h >> 10) & 0x1f;
  const uint32_t mant = h & 0x3ff;
  float magnitude;
  if (exp == 0) {
    magnitude = std::ldexp(static_cast<float>(mant), -24);  // zero or subnormal
  } else if (exp == 31) {
    magnitude = mant ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  } else {
    magnitude = std::ldexp(static_cast<float>(mant | 0x400), static_cast<int>(exp) - 25);
  }
  return sign ? -magnitude : magnitude;
}

// Compares value v with bound b in `order`; returns nullopt when the
// comparison means nothing (wrong width, NaN).
std::optional<int> compare(Order order, PhysicalType type, std::string_view v, std::string_view b) {
  auto cmp = [](auto x, auto y) { return x < y ? -1 : (y < x ? 1 : 0); };
  switch (order) {
    case Order::kSigned:
    case Order::kUnsigned: {
      const size_t w = type == PhysicalType::kInt32 ? 4 : 8;
      if (v.size() != w || b.size() != w) return std::nullopt;
      if (w == 4) {
        return order == Order::kSigned ? cmp(load_plain<int32_t>(v), load_plain<int32_t>(b))
                                       : cmp(load_plain<uint32_t>(v), load_plain<uint32_t>(b));
      }
      return order == Order::kSigned ? cmp(load_plain<int64_t>(v), load_plain<int64_t>(b))
                                     : cmp(load_plain<uint64_t>(v), load_plain<uint64_t>(b));
    }
    case Order::kFloat: {
      if (type == PhysicalType::kFloat) {
        if (v.size() != 4 || b.size() != 4) return std::nullopt;
        const float x = load_plain<float>(v), y = load_plain<float>(b);
        if (std::isnan(x) || std::isnan(y)) return std::nullopt;
        return cmp(x, y);  // -0.0 == +0.0
      }
      if (v.size() != 8 || b.size() != 8) return std::nullopt;
      const double x = load_plain<double>(v), y = load_plain<double>(b);
      if (std::isnan(x) || std::isnan(y)) return std::nullopt;
      return cmp(x, y);
    }
    case Order::kFloat16: {
      if (v.size() != 2 || b.size() != 2) return std::nullopt;
      const float x = half_to_float(v), y = half_to_float(b);
      if (std::isnan(x) || std::isnan(y)) return std::nullopt;
      return cmp(x, y);  // -0.0 == +0.0
    }
    case Order::kBytes: return compare_bytes(v, b);
    case Order::kDecimalBytes: return compare_decimal(v, b);
    case Order::kNone: return std::nullopt;
  }
  return std::nullopt;
}


}  // namespace pqfast::parquet
