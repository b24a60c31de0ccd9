// Where a column chunk's pages lie in its file, and the checks of the chunk
// against its row group and the schema, as every reader of a chunk needs
// them (the column reader, the scan engine, the streaming scanner, the
// index's chunk filters, the page-header walk): one place, one wording.
#pragma once

#include <cstdint>
#include <string>

#include "pqfast/parquet.h"
#include "pqfast/status.h"

namespace pqfast::parquet {

struct ChunkExtent {
  uint64_t begin = 0;   // the first page's header (the dictionary page's when there is one)
  uint64_t length = 0;  // bytes to read from begin
};

// [begin, begin + length) of chunk `c` in a file of `file_size` bytes: an
// error (kCorrupt, `where` first) when it lies outside the file. With
// `parquet_mr_816` (parquet_mr_before_1_2_9 of the writer: its
// total_compressed_size leaves the dictionary page header out, PARQUET-816)
// up to 100 bytes more, as Arrow C++ reads such chunks.
Result<ChunkExtent> chunk_extent(const ColumnChunk& c, uint64_t file_size, bool parquet_mr_816,
                                 const std::string& where);

// Leaf `leaf`'s chunk in row group `g` is there, in plaintext, in this file,
// and of the schema's physical type `d`: else an error naming `where`.
Status check_column_chunk(const RowGroup& g, int leaf, const ColumnDescriptor& d, const std::string& where);

}  // namespace pqfast::parquet
