// Fuzz target: one page header (data page v1/v2, dictionary, index).
#include <cstdint>
#include <cstdlib>

#include "pqfast/parquet.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto h = pqfast::parquet::parse_page_header(data, size);
  if (!h.ok() && h.error().message.empty()) std::abort();
  if (h.ok() && h->header_size > size) std::abort();
  return 0;
}
