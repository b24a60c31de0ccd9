// Internal: the order of a column's values (parquet.thrift ColumnOrder
// TYPE_ORDER), shared by min/max pruning, page indexes and scan filters.
#pragma once

#include <cstring>
#include <optional>
#include <string_view>

#include "pqfast/parquet.h"

namespace pqfast::parquet {

enum class Order { kSigned, kUnsigned, kFloat, kFloat16, kBytes, kDecimalBytes, kNone };

// A T from the first sizeof(T) bytes of a PLAIN value (little-endian, any
// alignment).
template <class T>
T load_plain(std::string_view s) {
  T v;
  std::memcpy(&v, s.data(), sizeof(T));
  return v;
}

// The order min/max statistics of the column are kept in: signed or
// unsigned integers, IEEE floats, FLOAT16, unsigned bytes, signed
// big-endian decimals; kNone for BOOLEAN, INT96 and unordered logical types.
Order sort_order(const ColumnDescriptor& d);

// Signed big-endian two's complement of any lengths (sign-extended).
int compare_decimal(std::string_view a, std::string_view b);
// Unsigned lexicographic.
int compare_bytes(std::string_view a, std::string_view b);
// IEEE 754 binary16 (little-endian) widened to float: exact, NaN stays NaN.
float half_to_float(std::string_view s);

// Compares PLAIN value v with b in `order`; nullopt when the comparison
// means nothing (wrong width, NaN, kNone).
std::optional<int> compare(Order order, PhysicalType type, std::string_view v, std::string_view b);

}  // namespace pqfast::parquet
