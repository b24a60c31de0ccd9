// Fuzz target: scan::dictionary_lacks_values over a hostile dictionary page
// (first byte: codec bit 0, width bit 1, how many wanted values in bits 2-4;
// the next 8-byte words: the wanted values; the rest: the page). Never a
// read past the input; and a page it says lacks the values, when the full
// decoder reads it, holds none of them (differential).
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "pqfast/arrow_c_data.h"
#include "pqfast/parquet.h"
#include "pqfast/parquet_read.h"
#include "scan/dictionary_probe.h"

namespace pq = pqfast::parquet;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const int32_t codec = data[0] & 1;  // UNCOMPRESSED or SNAPPY
  const size_t width = (data[0] & 2) ? 8 : 4;
  const size_t m = (data[0] >> 2) & 7;
  if (size < 1 + 8 * m) return 0;
  std::vector<std::string> wanted;
  for (size_t i = 0; i < m; ++i) wanted.emplace_back(reinterpret_cast<const char*>(data + 1 + 8 * i), width);
  const uint8_t* page = data + 1 + 8 * m;
  const size_t len = size - 1 - 8 * m;
  if (!pq::scan::dictionary_lacks_values(page, len, codec, width, wanted)) return 0;
  pq::ColumnDescriptor d;
  d.physical_type = width == 8 ? pqfast::PhysicalType::kInt64 : pqfast::PhysicalType::kInt32;
  pq::ColumnReadOptions o;
  o.layout = width == 8 ? pq::ArrowLayout::kInt64 : pq::ArrowLayout::kInt32;
  auto dict = pq::decode_dictionary_page(page, len, 0, d, codec, o, "fuzz");
  if (!dict.ok()) return 0;
  ArrowArray array;
  ArrowSchema schema;
  std::move(*dict).export_to(&array, &schema);
  const auto* v = static_cast<const uint8_t*>(array.buffers[1]);
  for (int64_t i = 0; i < array.length; ++i) {
    for (const std::string& w : wanted) {
      if (std::memcmp(v + (array.offset + i) * static_cast<int64_t>(width), w.data(), width) == 0) __builtin_trap();
    }
  }
  array.release(&array);
  schema.release(&schema);
  return 0;
}
