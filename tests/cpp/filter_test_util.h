// Test helpers for filters: a FilterAtom over a fixed-width column from a list of values.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "pqfast/scan.h"

namespace pqfast::testing {

// An atom `col op values` (negated when `negate`) over an INT32 or INT64 column:
// the values are laid out as the scanner takes them, little-endian and packed.
template <class T>
parquet::FilterAtom fixed_atom(const std::string& col, parquet::FilterOp op, const std::vector<T>& values,
                               bool negate = false) {
  static_assert(std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>);
  parquet::FilterAtom a;
  a.column = col;
  a.op = op;
  a.negate = negate;
  a.values.type = sizeof(T) == 4 ? PhysicalType::kInt32 : PhysicalType::kInt64;
  a.values.data.resize(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(a.values.data.data(), values.data(), a.values.data.size());
  return a;
}

}  // namespace pqfast::testing
