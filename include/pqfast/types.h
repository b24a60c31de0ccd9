// Parquet physical types, numbered as in parquet.thrift's `Type`.
#pragma once

#include <cstdint>
#include <string_view>

#include "pqfast/status.h"

namespace pqfast {

enum class PhysicalType : int8_t {
  kBoolean = 0,
  kInt32 = 1,
  kInt64 = 2,
  kInt96 = 3,
  kFloat = 4,
  kDouble = 5,
  kByteArray = 6,
  kFixedLenByteArray = 7,
};

// "BOOLEAN", "INT32", ..., "FIXED_LEN_BYTE_ARRAY".
const char* physical_type_name(PhysicalType type);

// Parses the names above; anything else is kInvalidArgument.
Result<PhysicalType> parse_physical_type(std::string_view name);

}  // namespace pqfast
