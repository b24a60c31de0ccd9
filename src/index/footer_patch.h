// Internal: the new FileMetaData of an indexed file, re-encoded losslessly
// from the old one's bytes (thrift/compact_rewrite.h) with the locations of
// the appended structures set.
#pragma once

#include <cstdint>
#include <vector>

#include "pqfast/status.h"

namespace pqfast::parquet::index {

// The location of one appended structure for chunk (row_group, leaf).
struct ChunkLocation {
  int32_t row_group = 0;
  int32_t leaf = 0;
  int64_t offset = 0;
  int32_t length = 0;
};

// FileMetaData field ids (parquet.thrift).
inline constexpr int16_t kFileMetaDataRowGroups = 4;     // list<RowGroup>
inline constexpr int16_t kRowGroupColumns = 1;           // list<ColumnChunk>
inline constexpr int16_t kColumnChunkMetaData = 3;       // ColumnMetaData
inline constexpr int16_t kColumnChunkOffsetIndexOffset = 4;  // i64, then 5: i32 length
inline constexpr int16_t kColumnChunkColumnIndexOffset = 6;  // i64, then 7: i32 length
inline constexpr int16_t kColumnMetaDataBloomOffset = 14;  // i64 bloom_filter_offset
inline constexpr int16_t kColumnMetaDataBloomLength = 15;  // i32 bloom_filter_length

// The old serialized FileMetaData [footer, footer + len) re-encoded with
// bloom_filter_offset/length set in each listed chunk's ColumnMetaData, and
// offset_index_offset/length and column_index_offset/length in its
// ColumnChunk. The whole footer must be one struct (no trailing bytes).
// `footer_offset` is where it starts in the file (for messages).
Result<std::vector<uint8_t>> patch_footer(const uint8_t* footer, size_t len, uint64_t footer_offset,
                                          const std::vector<ChunkLocation>& bloom_filters,
                                          const std::vector<ChunkLocation>& offset_indexes = {},
                                          const std::vector<ChunkLocation>& column_indexes = {});

}  // namespace pqfast::parquet::index
