#include "index/footer_patch.h"

#include <string>

#include "thrift/compact_rewrite.h"

namespace pqfast::parquet::index {

Result<std::vector<uint8_t>> patch_footer(const uint8_t* footer, size_t len, uint64_t footer_offset,
                                          const std::vector<ChunkLocation>& bloom_filters) {
  thrift::StructPatch patch;
  for (const ChunkLocation& f : bloom_filters) {
    if (f.row_group < 0 || f.leaf < 0 || f.offset < 0 || f.length <= 0) {
      return make_error(ErrorCode::kInvalidArgument, "bad Bloom filter location for row group " +
                                                         std::to_string(f.row_group) + ", column " +
                                                         std::to_string(f.leaf));
    }
    thrift::StructPatch& meta = patch.element_at(kFileMetaDataRowGroups, static_cast<uint32_t>(f.row_group))
                                    .element_at(kRowGroupColumns, static_cast<uint32_t>(f.leaf))
                                    .child_at(kColumnChunkMetaData);
    meta.set[kColumnMetaDataBloomOffset] = thrift::EncodedField::i64(f.offset);
    meta.set[kColumnMetaDataBloomLength] = thrift::EncodedField::i32(f.length);
  }
  std::vector<uint8_t> out;
  out.reserve(len + bloom_filters.size() * 16 + 16);
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
