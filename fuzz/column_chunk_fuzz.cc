// Fuzz target: a whole column chunk (its pages) decoded by the column
// reader. The first 6 bytes choose the column: physical type, codec,
// optional or required, the Arrow layout variant, row count, type length;
// the rest are the chunk's bytes. Differential: every SIMD implementation
// must give the same values or the same error code; the chunk cut into
// ranges (SplitChunk) must read where the whole chunk reads, with the same
// values, and fail where it fails. Never out of bounds.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "pqfast/parquet_read.h"
#include "pqfast/simd.h"
#include "differential.h"
#include "parquet/column_values.h"

namespace pq = pqfast::parquet;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 6) return 0;
  pq::ColumnDescriptor d;
  d.physical_type = static_cast<pqfast::PhysicalType>(data[0] % 8);
  const int32_t codecs[] = {0, 1, 2, 4, 5, 6, 7, 3};
  const int32_t codec = codecs[data[1] % 8];
  d.max_definition_level = (data[2] & 1) ? 1 : 0;
  d.repetition = d.max_definition_level ? pq::Repetition::kOptional : pq::Repetition::kRequired;
  d.path = {"c"};
  d.dotted_path = "c";
  d.type_length = data[5] % 40;
  pq::ColumnReadOptions o;
  o.max_page_values = 1 << 20;
  o.max_page_bytes = 1 << 24;
  o.budget = pqfast::MemoryBudget::make(32 << 20);
  // Layout variants: the default, then per type a converting one.
  const int variant = (data[2] >> 1) & 3;
  using L = pq::ArrowLayout;
  if (variant == 1) {
    switch (d.physical_type) {
      case pqfast::PhysicalType::kInt32: o.layout = L::kInt8; break;
      case pqfast::PhysicalType::kInt64: o.layout = L::kDecimal128; break;
      case pqfast::PhysicalType::kByteArray: o.layout = L::kBinaryView; break;
      case pqfast::PhysicalType::kFixedLenByteArray: o.layout = L::kDecimal256; break;
      default: break;
    }
  } else if (variant == 2 && d.physical_type == pqfast::PhysicalType::kByteArray) {
    o.layout = L::kLargeBinary;
  } else if (variant == 3 && d.physical_type == pqfast::PhysicalType::kByteArray) {
    o.layout = L::kDecimal128;
  }
  const int64_t rows = data[3] | (data[4] << 8);
  const uint8_t* chunk = data + 6;
  const size_t len = size - 6;

  pqfast::fuzz::same_on_every_level([&]() -> pqfast::Result<pqfast::fuzz::Values> {
    auto r = pq::decode_column_chunk(chunk, len, 0, d, codec, rows, o);
    if (!r.ok()) return r.error();
    if (r->length() != rows) std::abort();
    return pq::detail::column_values(*r->impl());
  });

  // The ranges one after the other (their threads are the tests' concern).
  auto whole = pq::decode_column_chunk(chunk, len, 0, d, codec, rows, o);
  auto split = pq::SplitChunk::plan(chunk, len, 0, d, codec, rows, o, 3);
  for (int p = 0; p < split->parts(); ++p) split->decode(p);
  auto cut = split->finish();
  if (cut.ok() && !whole.ok()) std::abort();
  if (!cut.ok() && whole.ok() && cut.error().code != pqfast::ErrorCode::kMemoryLimit) std::abort();
  if (cut.ok() && whole.ok() && pq::detail::column_values(*cut->impl()) != pq::detail::column_values(*whole->impl())) {
    std::abort();
  }
  return 0;
}
