// Where a column chunk's pages lie, bounds-checked (chunk_extent.h).
#include "parquet/chunk_extent.h"

#include <algorithm>

#include "pqfast/types.h"

namespace pqfast::parquet {

Result<ChunkExtent> chunk_extent(const ColumnChunk& c, uint64_t file_size, bool parquet_mr_816,
                                 const std::string& where) {
  int64_t start = c.data_page_offset;
  if (c.dictionary_page_offset > 0 && c.dictionary_page_offset < start) start = c.dictionary_page_offset;
  const int64_t len = c.total_compressed_size;
  if (start < 0 || len < 0 || static_cast<uint64_t>(start) > file_size ||
      static_cast<uint64_t>(len) > file_size - static_cast<uint64_t>(start)) {
    return make_error(ErrorCode::kCorrupt, where + ": column chunk at byte " + std::to_string(start) + " of " +
                                               std::to_string(len) + " bytes lies outside the " +
                                               std::to_string(file_size) + "-byte file");
  }
  ChunkExtent e{static_cast<uint64_t>(start), static_cast<uint64_t>(len)};
  if (parquet_mr_816) e.length += std::min<uint64_t>(100, file_size - (e.begin + e.length));
  return e;
}

Status check_column_chunk(const RowGroup& g, int leaf, const ColumnDescriptor& d, const std::string& where) {
  if (leaf < 0 || static_cast<size_t>(leaf) >= g.columns.size()) {
    return make_error(ErrorCode::kCorrupt,
                      where + ": the row group has only " + std::to_string(g.columns.size()) + " column chunks");
  }
  const ColumnChunk& c = g.columns[static_cast<size_t>(leaf)];
  if (c.encrypted || !c.has_meta_data) return make_error(ErrorCode::kUnsupported, where + ": encrypted column chunk");
  if (!c.file_path.empty()) {
    return make_error(ErrorCode::kUnsupported, where + ": column chunk in another file (" + c.file_path + ")");
  }
  if (c.type != d.physical_type) {
    return make_error(ErrorCode::kCorrupt, where + ": chunk type " + physical_type_name(c.type) +
                                               " differs from the schema's " + physical_type_name(d.physical_type));
  }
  return Status::Ok();
}

}  // namespace pqfast::parquet
