// The scan engine: the rows of Parquet files that a filter keeps, reading
// only what it must.
//
// A filter is an OR of ANDs of atoms (column op value). Each step works
// only on what the step before kept:
//   1. row groups: min/max statistics and null counts, then the Bloom
//      filters of `=`/`in` atoms (the pruner: header and blocks only);
//   2. the dictionary page, when every data page of the chunk is
//      dictionary-encoded (encoding_stats): no dictionary value matches,
//      no row does (exact);
//   3. the ColumnIndex: pages whose min/max or null counts rule the atom
//      out, mapped to rows through the OffsetIndex;
//   4. the filter columns' surviving pages are decoded and the atoms
//      evaluated in bulk, one after the other, each on the rows the ones
//      before kept: a row selection;
//   5. the projected columns are read for the selected rows only: with an
//      OffsetIndex only the pages holding a selected row are read,
//      decompressed and decoded; without one, pages are skipped by their
//      headers' value counts. A projected column that step 4 decoded in
//      its output layout, holding every selected row, is taken from those
//      values (decoded once; a dictionary-encoded number column the
//      output also takes is evaluated on its values for that, not on its
//      dictionary). An empty selection reads nothing more.
//
// Atom semantics follow Arrow's (pyarrow.dataset): a row is kept when the
// filter is TRUE (Kleene logic); a comparison with a null row is NULL;
// `in` is never NULL (a null row matches when the set holds null); NaN
// compares false except `!=`, and `in` matches NaN to NaN.
//
//   pqfast::parquet::ScanFilter f;
//   f.active = true;
//   f.any_of.push_back({atom});                // id IN (...)
//   auto r = pqfast::parquet::scan_files(paths, {{"id", {}}, {"name", {}}}, f, {});
//   for (auto& piece : r->pieces) ...           // one per row group with rows
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pqfast/parquet.h"
#include "pqfast/parquet_read.h"
#include "pqfast/status.h"

namespace pqfast::parquet {

enum class FilterOp : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe, kIn, kIsNull };

struct FilterAtom {
  std::string column;  // dotted path of a flat leaf
  FilterOp op = FilterOp::kEq;
  // NOT of the atom: flips TRUE and FALSE, NULL stays NULL (so `not in` is
  // kIn negated and `is_valid` is kIsNull negated).
  bool negate = false;
  // PLAIN values of the column's physical type (BOOLEAN: one byte 0 or 1
  // each; INT96: 12 bytes). Comparisons take one; kIn takes the set
  // (without null); kIsNull none.
  ProbeValues values;
  bool set_has_null = false;  // kIn: null rows are members
  // For a DECIMAL column: the scale the values were typed for. A file that
  // stores the column in another physical type (INT32, INT64, FIXED_LEN_BYTE_ARRAY
  // of another width, BYTE_ARRAY) at this scale gets the values converted.
  int32_t decimal_scale = -1;
};

struct ScanFilter {
  bool active = false;                       // false: every row
  std::vector<std::vector<FilterAtom>> any_of;  // OR of ANDs; active and empty: no row
};

struct ScanColumn {
  std::string name;              // dotted path of a flat leaf
  ColumnReadOptions options;     // the Arrow layout and format to read it as
};

// What the pruner (statistics and Bloom filters on the lean footer) said of
// a file, per conjunct of the filter and per row group: 0 where it ruled the
// conjunct out (by_bloom: 1 where a Bloom filter did); a conjunct it had no
// verdict for is empty.
struct PrunerVerdicts {
  std::vector<std::vector<uint8_t>> alive;
  std::vector<std::vector<uint8_t>> by_bloom;
};

struct ScanOptions {
  int threads = 0;  // files in parallel; 0: one per hardware thread
  bool use_statistics = true;
  bool use_bloom = true;
  bool use_dictionary = true;
  bool use_page_index = true;
  // scan_files: keep parsed footers (and the tail bytes read with them)
  // for the next scans of the same files, each entry checked against the
  // file's size and modification time on use. Process-wide, bounded (16,384
  // files, 256 MiB).
  bool cache_footers = true;
  // scan_file: only these row groups (empty: every row group).
  std::vector<int32_t> row_groups;
  // scan_file: the file's footer, parsed already (the streaming scanner's,
  // for each run over a row group's bytes): not read nor parsed again, and
  // its bytes not counted in bytes_read (as a cached footer's are not).
  std::shared_ptr<const FileMetaData> footer;
  // scan_file: the verdicts of the file's pruner run before (the streaming
  // scanner prunes every file first): used instead of running it again, so
  // a conjunct a Bloom filter ruled out in a row group is not evaluated there.
  std::shared_ptr<const PrunerVerdicts> pruner;
  // The pruner reads a Bloom filter's header and the blocks the length the
  // footer gives implies in one read (PruneOptions::predict_blocks): for a
  // staged reader (object storage fed to the streaming scanner), where a
  // round of requests costs more than a few KiB more of one.
  bool predict_bloom_blocks = false;
  ParseLimits limits;
  // What the scan may allocate for pages and values, shared by its threads
  // (pqfast/memory_budget.h); when null, a budget of memory_limit bytes
  // (<= 0: default_memory_limit()) made for the call. Past it:
  // ErrorCode::kMemoryLimit naming the column.
  std::shared_ptr<MemoryBudget> budget;
  int64_t memory_limit = 0;
  // Each piece keeps its row selection (ScanPiece::selection): callers that
  // read more of the matching rows elsewhere (nested columns) take them so.
  bool keep_selection = false;
};

struct ScanStats {
  int64_t files = 0;
  int64_t files_read = 0;          // files whose pages were read
  int64_t row_groups = 0;
  int64_t row_groups_pruned_by_statistics = 0;
  int64_t row_groups_pruned_by_bloom = 0;
  int64_t row_groups_pruned_by_dictionary = 0;
  int64_t row_groups_pruned_by_page_index = 0;
  int64_t row_groups_read = 0;     // whose filter or projected pages were read
  int64_t row_groups_matched = 0;  // with selected rows
  int64_t pages_read = 0;          // data pages decoded
  int64_t pages_skipped = 0;       // data pages walked past (header only) or not read
  int64_t bytes_read = 0;
  int64_t reads = 0;
  int64_t rows = 0;
  void add(const ScanStats& o);
};

// The selected rows of one row group: one array per projected column.
struct ScanPiece {
  int32_t file = 0;
  int32_t row_group = 0;
  int64_t num_rows = 0;
  std::vector<ColumnArray> columns;
  // With ScanOptions::keep_selection: the rows selected, a bitmap over the
  // row group's rows (LSB first; ceil(rows / 64) words).
  std::vector<uint64_t> selection;
};

struct ScanResult {
  std::vector<ScanPiece> pieces;  // in file, then row group order
  ScanStats stats;
};

// One file already opened; pieces carry `file_index`.
Result<ScanResult> scan_file(RandomAccessFile& file, int32_t file_index, const std::vector<ScanColumn>& columns,
                             const ScanFilter& filter, const ScanOptions& options = {});

// Files already opened (any RandomAccessFile: local, in memory, ranges
// fetched from object storage), in parallel on `options.threads`;
// `row_groups[i]` (when given) restricts file i. The first file that fails
// fails the call.
Result<ScanResult> scan_opened(const std::vector<RandomAccessFile*>& files,
                               const std::vector<std::vector<int32_t>>& row_groups,
                               const std::vector<ScanColumn>& columns, const ScanFilter& filter,
                               const ScanOptions& options = {});

// As scan_opened, each file's outcome apart. For staged readers: a file
// whose RandomAccessFile answers ErrorCode::kNotFetched for bytes it has
// not fetched yet records every range that run needed (all row groups and
// columns that could go on), ends with kNotFetched and does not stop the
// others; the caller fetches and runs it again. Any other error stops the
// files not started yet (they answer "not run").
std::vector<Result<ScanResult>> scan_opened_each(const std::vector<RandomAccessFile*>& files,
                                                 const std::vector<std::vector<int32_t>>& row_groups,
                                                 const std::vector<ScanColumn>& columns, const ScanFilter& filter,
                                                 const ScanOptions& options = {});

// Local files on a small thread pool (files in parallel). The first file
// that fails fails the call, its error naming it.
Result<ScanResult> scan_files(const std::vector<std::string>& paths, const std::vector<ScanColumn>& columns,
                              const ScanFilter& filter, const ScanOptions& options = {});

// Where a sidecar index (`pqfast index --sidecar`) keeps the tail of one
// data file: the data file's size when the tail was planned, and the tail's
// offset and length in the sidecar. base_size < 0: the file is read alone.
struct SidecarTail {
  int64_t base_size = -1;
  uint64_t offset = 0;
  uint64_t length = 0;
};

// A sidecar index opened for reading tails: its file, shared by every
// overlay over it, and its identity (device, inode, size, mtime, ctime, from
// the open descriptor: an atomic rewrite makes a new inode, an in-place one
// moves the ctime), which the footer cache keys of the files read with its
// tails name. `settled`: last changed `settle_ns` or more before it was
// opened; otherwise footers read through it are not cached (a rewrite in
// place within one tick of a coarse file-system clock can leave the whole
// stat unchanged).
struct LocalSidecar {
  std::string path;
  std::shared_ptr<RandomAccessFile> file;
  std::string identity;
  bool settled = false;
  static Result<std::shared_ptr<const LocalSidecar>> open(const std::string& path,
                                                          int64_t settle_ns = int64_t{2} * 1000000000);
};

// A local data file read as data file + its tail from a sidecar (the one
// overlay of local reads: the scan engine's files and the streaming
// scanner's filtered files, ScanPlanFile::overlay).
struct LocalOverlay {
  std::shared_ptr<const LocalSidecar> sidecar;
  SidecarTail tail;
};

// scan_files with file i read with tails[i] from the sidecar at
// `sidecar_path` appended (OverlayFile), as if the index had been appended to
// it. Parsed footers are cached as scan_files caches them, under the data
// file's (size, mtime) and the sidecar's (device, inode, size, mtime, ctime)
// and the tail's place: a changed data file or a rewritten sidecar is never
// served a footer parsed before. A sidecar changed less than `settle_ns`
// before the scan is read without the cache (a rewrite in place within one
// tick of a coarse file-system clock can leave its whole stat unchanged).
Result<ScanResult> scan_files_with_sidecar(const std::vector<std::string>& paths, const std::string& sidecar_path,
                                           const std::vector<SidecarTail>& tails,
                                           const std::vector<ScanColumn>& columns, const ScanFilter& filter,
                                           const ScanOptions& options = {},
                                           int64_t settle_ns = int64_t{2} * 1000000000);

}  // namespace pqfast::parquet
