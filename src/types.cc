#include <string>

#include "pqfast/types.h"

namespace pqfast {
namespace {
constexpr const char* kTypeNames[] = {"BOOLEAN", "INT32",  "INT64",      "INT96",
                                      "FLOAT",   "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
}

const char* physical_type_name(PhysicalType type) {
  const int i = static_cast<int>(type);
  return (i >= 0 && i < 8) ? kTypeNames[i] : "UNKNOWN";
}

Result<PhysicalType> parse_physical_type(std::string_view name) {
  for (int i = 0; i < 8; ++i) {
    if (name == kTypeNames[i]) return static_cast<PhysicalType>(i);
  }
  return make_error(ErrorCode::kInvalidArgument,
                    "unknown Parquet physical type '" + std::string(name) +
                        "'; expected INT32, INT64, FLOAT, DOUBLE, BYTE_ARRAY, "
                        "FIXED_LEN_BYTE_ARRAY, INT96 or BOOLEAN");
}

}  // namespace pqfast
