// Test helper: Parquet pages built by hand.
#pragma once

#include <cstdint>
#include <vector>

#include "thrift/compact.h"

namespace pqfast::testing {

// A PLAIN dictionary page: a PageHeader (type 2; sizes of `body` unless
// `compressed_size`/`uncompressed_size` say otherwise), then `body`.
inline std::vector<uint8_t> dictionary_page(const std::vector<uint8_t>& body, int32_t num_values,
                                            int32_t compressed_size = -1, int32_t encoding = 0,
                                            int32_t uncompressed_size = -1) {
  std::vector<uint8_t> out;
  thrift::CompactWriter w(&out);
  w.begin_struct();
  w.write_i32_field(1, 2);  // DICTIONARY_PAGE
  w.write_i32_field(2, uncompressed_size >= 0 ? uncompressed_size : static_cast<int32_t>(body.size()));
  w.write_i32_field(3, compressed_size >= 0 ? compressed_size : static_cast<int32_t>(body.size()));
  w.field_header(thrift::CType::kStruct, 7);  // DictionaryPageHeader
  w.begin_struct();
  w.write_i32_field(1, num_values);
  w.write_i32_field(2, encoding);
  w.end_struct();
  w.end_struct();
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

}  // namespace pqfast::testing
