#include "index/footer_patch.h"

#include <string>

#include "thrift/compact_rewrite.h"

namespace pqfast::parquet::index {

Result<std::vector<uint8_t>> patch_footer(const uint8_t* footer, size_t len, uint64_t footer_offset,
                                          const std::vector<ChunkLocation>& bloom_filters,
                                          const std::vector<ChunkLocation>& offset_indexes,
                                          const std::vector<ChunkLocation>& column_indexes) {
  thrift::StructPatch patch;
  auto chunk_patch = [&](const ChunkLocation& f, const char* what) -> Result<thrift::StructPatch*> {
    if (f.row_group < 0 || f.leaf < 0 || f.offset < 0 || f.length <= 0) {
      return make_error(ErrorCode::kInvalidArgument, std::string("bad ") + what + " location for row group " +
                                                         std::to_string(f.row_group) + ", column " +
                                                         std::to_string(f.leaf));
    }
    return &patch.element_at(kFileMetaDataRowGroups, static_cast<uint32_t>(f.row_group))
                .element_at(kRowGroupColumns, static_cast<uint32_t>(f.leaf));
  };
  for (const ChunkLocation& f : bloom_filters) {
    auto chunk = chunk_patch(f, "Bloom filter");
    if (!chunk.ok()) return chunk.error();
    thrift::StructPatch& meta = (*chunk)->child_at(kColumnChunkMetaData);
    meta.set[kColumnMetaDataBloomOffset] = thrift::EncodedField::i64(f.offset);
    meta.set[kColumnMetaDataBloomLength] = thrift::EncodedField::i32(f.length);
  }
  for (int which = 0; which < 2; ++which) {
    const int16_t id = which == 0 ? kColumnChunkOffsetIndexOffset : kColumnChunkColumnIndexOffset;
    for (const ChunkLocation& f : which == 0 ? offset_indexes : column_indexes) {
      auto chunk = chunk_patch(f, which == 0 ? "OffsetIndex" : "ColumnIndex");
      if (!chunk.ok()) return chunk.error();
      (*chunk)->set[id] = thrift::EncodedField::i64(f.offset);
      (*chunk)->set[static_cast<int16_t>(id + 1)] = thrift::EncodedField::i32(f.length);
    }
  }
  std::vector<uint8_t> out;
  out.reserve(len + (bloom_filters.size() + offset_indexes.size() + column_indexes.size()) * 16 + 16);
  size_t consumed = 0;
  PQFAST_RETURN_IF_ERROR(thrift::rewrite_struct(footer, len, patch, &out, &consumed, "FileMetaData", footer_offset));
  if (consumed != len) {
    return make_error(ErrorCode::kCorrupt, "FileMetaData at byte " + std::to_string(footer_offset) + " ends after " +
                                               std::to_string(consumed) + " of the " + std::to_string(len) +
                                               " bytes the trailer gives it");
  }
  return out;
}

}  // namespace pqfast::parquet::index
