// Internal: a ColumnIndex and an OffsetIndex for a column chunk written
// without them, in the form parquet-java and arrow-rs write: one entry per
// data page (dictionary pages excluded), min/max as PLAIN bytes in the
// column's sort order, null_pages, null_counts and the boundary order.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "pqfast/page_index.h"
#include "pqfast/parquet.h"
#include "pqfast/parquet_read.h"
#include "pqfast/status.h"

namespace pqfast::parquet::index {

struct ChunkPageIndex {
  OffsetIndex offset_index;
  std::optional<ColumnIndex> column_index;  // none when the order is undefined (INT96...) or a page is all NaN
};

// From the chunk's bytes (its pages, `offset` = where they start in the file)
// and its values decoded in a PLAIN-bytes layout (row order, num_rows long).
// Flat columns only: a v1 page's num_values is its row count. Errors: a page
// header that does not parse, pages whose rows do not add up to num_rows.
Result<ChunkPageIndex> build_chunk_page_index(const uint8_t* chunk, size_t len, uint64_t offset,
                                              const ColumnDescriptor& d, int64_t num_rows,
                                              const ColumnArray& values, const std::string& where);

// The Thrift compact bytes of the structures (parquet.thrift field ids).
std::vector<uint8_t> serialize_offset_index(const OffsetIndex& oi);
std::vector<uint8_t> serialize_column_index(const ColumnIndex& ci);

}  // namespace pqfast::parquet::index
