// The common case of prune() in native code: a user's few plain values
// encoded for the probed column, and that column's descriptor in a local
// file, memoised. Together they let one native call serve a lookup
// (bind_parquet.cc's _prune_local) without the Python steps around it.
#pragma once

#include <optional>
#include <string>

#include "common.h"
#include "pqfast/parquet.h"

namespace pqfast::py {

// PLAIN bytes of a short list (1 to kSmallListMax values) of exactly-int
// values for an INT32/INT64 column without a logical or converted type, or
// of exactly-str values (UTF-8) for a BYTE_ARRAY column that is not a
// DECIMAL. nullopt for anything else (other types or values, out of range,
// a str that is not valid Unicode): the general Python encoder takes those
// and words their errors.
inline constexpr size_t kSmallListMax = 64;
struct ValueTyping {
  PhysicalType physical_type;
  bool annotated;  // a logical or converted type (dates, unsigned, ...)
  bool decimal;    // a DECIMAL logical or converted type
};
ValueTyping value_typing(const parquet::ColumnDescriptor& column);
std::optional<parquet::ProbeValues> encode_small_list(const ValueTyping& column, nb::handle values);

// The descriptor of `column` in the local file `path`, from a footer decoded
// for that column only; kept by (path, column) and checked against the
// file's size and mtime on each use (a stat instead of a footer read). It
// only types probe values: pruning checks each file's column again.
Result<parquet::ColumnDescriptor> local_column_descriptor(const std::string& path, const std::string& column);
void clear_column_descriptors();

}  // namespace pqfast::py
