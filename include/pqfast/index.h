// pqfast index: Bloom filters for the column chunks of existing Parquet files
// that have none, appended after the old footer; the data is not rewritten.
//
// For each requested column chunk without a filter an SBBF is built exactly
// as Arrow C++ (pyarrow's bloom_filter_options) builds one: XXH64 of every
// non-null value's PLAIN bytes, sized from (ndv, fpp) by
// Sbbf::optimal_num_bytes, then folded to fpp (Sbbf::fold). ndv is the
// chunk's exact number of distinct values unless given. A chunk whose data
// pages are all dictionary-encoded (by its encoding_stats, its encodings
// list, or else its page headers) is hashed from its dictionary page alone.
// With IndexOptions::page_index, chunks without page indexes also get a
// ColumnIndex and an OffsetIndex (as parquet-java and arrow-rs write them).
//
// The file then gets, after its old end: the filters, the page indexes, a
// new FileMetaData and the 8-byte trailer. Every byte before the old end stays as it was. The new
// FileMetaData is the old one's bytes re-encoded losslessly (unknown fields,
// created_by and key-value metadata kept), with bloom_filter_offset (14) and
// bloom_filter_length (15) set in each indexed chunk's ColumnMetaData, and
// ColumnChunk fields 4-7 (offset_index_offset/length, column_index_offset/
// length) for the page indexes.
//
// plan_index() is the sans-IO half (any RandomAccessFile: local, ranged GETs
// of an object store); index_local_file() plans and commits a local file.
//
// Local files are changed by copy and rename (see commit_local.cc and
// docs/architecture.md): the old size is cloned (FICLONE, else
// copy_file_range, else read/write) into a temporary file of the same
// directory, the new bytes appended, fsync, the original re-checked (device,
// inode, size, mtime and last 64 KiB unchanged since it was read), rename
// over it, fsync of the directory. Indexers of one file take turns (flock). At every instant the path names the old file or the whole
// new one; a crash leaves at most a stray ".<name>.pqfast-index-*" file; a
// file changed by another process meanwhile is left as that process made it.
//
//   pqfast::parquet::IndexOptions opt;
//   opt.columns = {"user_id"};
//   auto r = pqfast::parquet::index_local_file("x.parquet", opt);
//   // r->outcome, r->chunks_indexed, r->bytes_appended ...
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "pqfast/parquet.h"
#include "pqfast/status.h"

namespace pqfast::parquet {

struct IndexOptions {
  std::vector<std::string> columns;  // dotted leaf paths or top-level names
  double fpp = 0.01;                 // target false positive probability, 0 < fpp < 1
  uint64_t ndv = 0;                  // 0: each chunk's exact distinct count
  bool dry_run = false;              // plan and count, write nothing
  // Chunks of one file built at once. Above 1 the file's read_at is called
  // from several threads (LocalFile, the commit's descriptor and the Python
  // binding's callbacks allow it). The bytes do not depend on it.
  int threads = 1;
  // Also a ColumnIndex and an OffsetIndex for each requested chunk that has
  // neither (flat columns; needs every data page decoded, even where the
  // filter alone would read the dictionary page). The ColumnIndex is left out
  // where min/max mean nothing (INT96, a page of only NaN).
  bool page_index = true;
  ParseLimits limits;
  // Called by index_local_file after the new file is complete beside the old
  // one and before the re-check and rename (tests play a concurrent writer
  // or a crash here).
  std::function<void()> before_commit;
};

// What was done to one column chunk.
enum class ChunkAction : uint8_t {
  kIndexed = 0,        // a filter was built (and, unless dry_run, appended)
  kHadFilter = 1,      // it already had one: left alone
  kUnsupported = 2,    // BOOLEAN, nested, encrypted or in another file: no filter
};

struct ChunkIndexInfo {
  int32_t row_group = 0;
  int32_t leaf = 0;
  ChunkAction action = ChunkAction::kIndexed;
  bool from_dictionary = false;  // hashed from the dictionary page alone
  uint64_t ndv = 0;              // distinct values counted (or IndexOptions::ndv)
  uint32_t filter_bytes = 0;     // header + bitset written
  int64_t bloom_filter_offset = -1;
  bool offset_index = false;     // an OffsetIndex was built for it
  bool column_index = false;     // a ColumnIndex was built for it
  std::string reason;            // for kUnsupported
};

// The bytes to append to one file, planned without writing anything.
struct IndexPlan {
  uint64_t old_size = 0;
  std::vector<uint8_t> tail;  // filters + new FileMetaData + length + "PAR1"; empty: nothing to add
                              // (or options.dry_run, which plans the tail without assembling it)
  uint64_t tail_size = 0;     // the tail's bytes, also in a dry run; 0: nothing to add
  std::vector<ChunkIndexInfo> chunks;
  int32_t chunks_indexed = 0;
  int32_t chunks_had_filter = 0;
  int32_t chunks_unsupported = 0;
  int32_t chunks_from_dictionary = 0;
  int32_t offset_indexes = 0;  // page indexes built (OffsetIndex, ColumnIndex)
  int32_t column_indexes = 0;
};

// Plans the append for a file open for reading: reads the footer and the
// chunks it needs (dictionary pages, or whole chunks), builds the filters and
// the new footer. Errors: a bad or encrypted footer, a missing column, a
// chunk that does not decode; each names the file.
Result<IndexPlan> plan_index(RandomAccessFile& file, const IndexOptions& options);

enum class IndexOutcome : uint8_t {
  kIndexed = 0,    // the new bytes were appended (or would be, in a dry run)
  kUnchanged = 1,  // nothing to add: the file was not touched
  kConflict = 2,   // the file changed while it was indexed: left alone
};
// "indexed", "unchanged", "conflict".
const char* index_outcome_name(IndexOutcome o);

struct IndexFileResult {
  IndexOutcome outcome = IndexOutcome::kUnchanged;
  IndexPlan plan;               // plan.tail is released after the commit
  uint64_t bytes_appended = 0;  // plan's tail size when written
  uint64_t bytes_copied = 0;    // bytes copied by read/write (0 when cloned or copied in the kernel)
  bool cloned = false;          // the old bytes were shared by FICLONE (no data copied)
  std::string message;          // for kConflict: what changed
};

// Plans and commits one local file (see the top of this header for how the
// commit stays crash- and concurrency-safe).
Result<IndexFileResult> index_local_file(const std::string& path, const IndexOptions& options);

}  // namespace pqfast::parquet
