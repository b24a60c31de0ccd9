// Internal: one column chunk's Bloom filter, built as Arrow C++ builds it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "parquet/read_buffer.h"
#include "pqfast/index.h"
#include "pqfast/parquet.h"
#include "pqfast/parquet_read.h"
#include "pqfast/sbbf.h"
#include "pqfast/status.h"

namespace pqfast::parquet {
struct TailBuffer;  // parquet/internal.h
}

namespace pqfast::parquet::index {

// True when the footer proves every data page of the chunk dictionary-encoded
// (without such proof, build_chunk_filter reads the chunk and checks its page
// headers before decoding anything):
// its encoding_stats say so, or (without them) its encodings list holds a
// dictionary encoding and nothing a data page could use instead.
// `encoding_stats` are the chunk's encoding_stats bytes (or null).
bool dictionary_only(const ColumnChunk& chunk, const uint8_t* encoding_stats, size_t encoding_stats_len);

// The XXH64 of every non-null value's PLAIN bytes of a decoded column
// (fixed-width layouts and large_binary), in row order.
Status hash_non_null_values(const ColumnArray& column, std::vector<uint64_t>* out);

// Number of distinct hashes; *hashes keeps one of each (first-seen order).
uint64_t count_distinct(std::vector<uint64_t>* hashes);

// A column chunk's pages read whole and its values decoded in the layout
// hashing and page indexes use (PLAIN bytes: fixed widths, large_binary;
// INT96 as FIXED_LEN_BYTE_ARRAY(12)).
struct DecodedChunk {
  detail::ReadBuffer bytes;    // the chunk's pages
  uint64_t offset = 0;         // where they start in the file
  ColumnArray values;
};
Result<DecodedChunk> read_decoded_chunk(RandomAccessFile& file, const FileMetaData& meta, int row_group, int leaf);

struct ChunkFilter {
  std::vector<uint8_t> bytes;  // BloomFilterHeader + bitset (none in a dry run)
  uint64_t size = 0;           // their count (also in a dry run)
  uint64_t ndv = 0;
  bool from_dictionary = false;
};

// Folds `filter` to options.fpp and puts its serialized bytes in *out (a dry
// run, which appends nothing, only counts them: no 64 KiB copy per chunk).
void finish_filter(Sbbf& filter, const IndexOptions& options, ChunkFilter* out);

// Builds the filter of chunk (row_group, leaf): hashes its values (from the
// dictionary page alone when dictionary_only()), sizes it for ndv (counted,
// or options.ndv) and fpp, folds it to fpp. The chunk must be flat, of a type
// other than BOOLEAN, unencrypted and in this file (the caller checks).
// `tail` (optional): the bytes read with the footer (page indexes often lie
// there). `decoded` (optional): the chunk already read and decoded, hashed
// as it is.
Result<ChunkFilter> build_chunk_filter(RandomAccessFile& file, const FileMetaData& meta, int row_group,
                                       int leaf, const uint8_t* encoding_stats, size_t encoding_stats_len,
                                       const IndexOptions& options, const TailBuffer* tail = nullptr,
                                       const DecodedChunk* decoded = nullptr);

// Why a chunk gets no filter ("" when it can have one).
std::string unsupported_reason(const FileMetaData& meta, int row_group, int leaf);

}  // namespace pqfast::parquet::index
