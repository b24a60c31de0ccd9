// Internal: the Encoding values of parquet.thrift, as pages and chunks
// carry them (encoding_name() in pqfast/parquet.h names them).
#pragma once

#include <cstdint>

namespace pqfast::parquet::detail {

enum : int32_t {
  kPlain = 0, kPlainDictionary = 2, kRle = 3, kBitPacked = 4, kDeltaBinaryPacked = 5,
  kDeltaLengthByteArray = 6, kDeltaByteArray = 7, kRleDictionary = 8, kByteStreamSplit = 9,
};

// A data page of this encoding holds indices into the chunk's dictionary.
inline bool is_dictionary_encoding(int32_t e) { return e == kPlainDictionary || e == kRleDictionary; }

}  // namespace pqfast::parquet::detail
