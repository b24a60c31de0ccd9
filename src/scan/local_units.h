// Internal: what the streaming scanner's local driver (LocalScan) asks of
// the scan engine for filtered files, so that a filtered scan through the
// scanner prunes and reads as one engine call does: footers from the
// process-wide cache (metadata_cache.h), the pruner (statistics and Bloom
// filters on the lean footer) and the full footer's statistics before any
// unit is planned, files in parallel; then each row group left read by the
// engine straight from the file (dictionaries, page indexes, filter pages,
// projected pages) in one run, not in rounds of bytes fed. And for files a
// driver feeds (object storage, filesystems): each row group's runs over the
// bytes fed so far (RowGroupRuns), resumed where the last run stopped.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "parquet/internal.h"
#include "pqfast/parquet.h"
#include "pqfast/scan.h"

namespace pqfast::parquet::scan {

// A local file opened for a scan (open_local_file's): pruning keeps it for
// the file's units, which then do not open the file again.
struct OpenedLocalFile {
  std::shared_ptr<RandomAccessFile> file;
  std::optional<FileIdentity> id;  // none: its footer is not cached
};

struct PrunedFile {
  // Null when the lean footer's pruner ruled every row group out and the
  // whole footer was not wanted (prune_local_file's `footer_always`).
  std::shared_ptr<const FileMetaData> meta;
  uint64_t size = 0;  // the file's, when opened
  // The pruner's verdicts, for the units' runs (ScanOptions::pruner).
  std::shared_ptr<const PrunerVerdicts> pruner;
  std::vector<int32_t> row_groups;  // left, in the order given (empty: none)
  // What the pruning read, and the row groups it ruled out (counted in
  // row_groups and row_groups_pruned_by_*; those left are counted by their
  // units' runs).
  ScanStats stats;
  std::shared_ptr<OpenedLocalFile> opened;  // (prune_local_file) the file it read
};

// Local file `path`: its footer (cached), then the row groups of
// `row_groups` (null: every one) that statistics and Bloom filters leave.
// Fails as the engine does (a projected or filter column missing, a corrupt
// footer), the error naming the file. A file whose every row group the lean
// footer's Bloom filters and statistics rule out gets its whole footer
// (parsed or from the cache) only with `footer_always`; without it the
// file is done as the engine's call is done with it (meta null, nothing
// more checked: its columns and `row_groups` as a read of no row group).
// `overlay`: the file read with its tail from a sidecar index (its Bloom
// filters and page indexes then used as the file's own; open_local_file).
Result<PrunedFile> prune_local_file(const std::string& path, const std::vector<int32_t>* row_groups,
                                    const std::vector<ScanColumn>& columns, const ScanFilter& filter,
                                    const ScanOptions& options, bool footer_always = true,
                                    const LocalOverlay* overlay = nullptr);

// The whole footer of local file `path` (from the process-wide cache, or
// read and cached), checked for `columns` as a scan of it checks them.
Result<std::shared_ptr<const FileMetaData>> local_footer(const std::string& path,
                                                         const std::vector<ScanColumn>& columns,
                                                         const ScanOptions& options,
                                                         const LocalOverlay* overlay = nullptr);

// The same for a file read through `file` (the streaming scanner's fed
// bytes: a read of bytes not fed yet fails kNotFetched after recording them,
// and the scanner runs it again once they are in), its footer given by
// options.footer. `version` (the object's ETag and modification time; empty:
// none) keeps the pruner's lean footer and learned Bloom layouts per process
// (the footer cache of prune_local_file, under the file's name and version).
Result<PrunedFile> prune_file_scan(RandomAccessFile& file, const std::string& version,
                                   const std::vector<int32_t>* row_groups,
                                   const std::vector<ScanColumn>& columns, const ScanFilter& filter,
                                   const ScanOptions& options);

// Row group `rg` of local file `path` (pruned by prune_local_file: the
// pruner is not run again, options.pruner carries its verdicts), its footer
// from the cache; pieces carry `file_index`.
Result<ScanResult> scan_local_row_group(const std::string& path, int32_t file_index, int32_t rg,
                                        const std::vector<ScanColumn>& columns, const ScanFilter& filter,
                                        const ScanOptions& options, const LocalOverlay* overlay = nullptr);

// One row group of a local file for scan_local_row_groups: as
// scan_local_row_group takes it (`columns` and `filter` outlive the call).
struct LocalRowGroup {
  std::string path;
  int32_t file_index = 0;
  int32_t row_group = 0;
  const std::vector<ScanColumn>* columns = nullptr;
  const ScanFilter* filter = nullptr;
  ScanOptions options;  // (threads ignored: the call's)
  std::shared_ptr<const LocalOverlay> overlay;  // read with a sidecar's tail (null: the file alone)
  std::shared_ptr<OpenedLocalFile> opened;      // opened already (pruning's): not opened again
};

// Row groups of local files run together as one scan_files call runs its
// row groups: 1. each one's footer (cache) and selected rows, row groups
// in parallel on `threads`; 2. the projected columns of every row group
// with rows, as one pool of tasks, heaviest first. Per row group its own
// outcome, as scan_local_row_group gives it (an error fails only its own).
std::vector<Result<ScanResult>> scan_local_row_groups(const std::vector<LocalRowGroup>& groups, int threads);

// One filtered row group of a file fed by a driver (the streaming
// scanner's units on object storage and filesystems), read by the engine in
// runs over the bytes fed so far: a run that lacks bytes records them (its
// file answers kNotFetched; every range that run could ask for at once) and
// ends kNotFetched; the driver feeds them and runs it again. What a run
// settled is kept for the next: the footer's columns and filter plans, the
// page indexes loaded, the rows the filter selected, the projected columns
// read. So the filter is evaluated once per row group (each run used to
// start over: the run that read the projected pages evaluated the filter a
// second time) and a run after the projected pages' reads decodes them alone.
// `file`, `columns` and `filter` outlive it; options.footer is the file's
// parsed footer and options.pruner the file's verdicts (use_bloom is off:
// the pruner ran when the file was pruned); one thread at a time runs it.
class RowGroupRuns {
 public:
  RowGroupRuns(RandomAccessFile& file, int32_t file_index, int32_t row_group, const std::vector<ScanColumn>& columns,
               const ScanFilter& filter, const ScanOptions& options);
  ~RowGroupRuns();
  RowGroupRuns(const RowGroupRuns&) = delete;
  RowGroupRuns& operator=(const RowGroupRuns&) = delete;
  // The row group's piece (none when the filter selects no row) and its
  // counts, once every byte it reads was fed; kNotFetched before that.
  Result<ScanResult> run();

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace pqfast::parquet::scan
