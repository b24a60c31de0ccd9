// Internal: a PLAIN dictionary page's header checked against its bytes: the
// page body (compressed as the chunk's codec says), its sizes and count.
// Shared by the readers that use a dictionary page without decoding it into
// an array (the index's filters, the scan's dictionary probe).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "pqfast/status.h"

namespace pqfast::parquet::detail {

struct PlainDictionaryPage {
  const uint8_t* body = nullptr;  // after the header; `csize` bytes
  size_t csize = 0;               // compressed_page_size
  size_t usize = 0;               // uncompressed_page_size
  size_t count = 0;               // num_values
};

// Errors (messages start with `at`): not a dictionary page, an encoding
// other than PLAIN / PLAIN_DICTIONARY, a body past the `len` bytes given.
Result<PlainDictionaryPage> plain_dictionary_page(const uint8_t* page, size_t len, uint64_t offset,
                                                  const std::string& at);

}  // namespace pqfast::parquet::detail
