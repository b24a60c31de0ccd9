// Internal: scan_files' engine (files in windows: footers and pruners in
// parallel, then every row group left on one pool) over any way of opening
// its files: local files as they are, or read with a sidecar index's tails.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "parquet/internal.h"
#include "pqfast/scan.h"

namespace pqfast::parquet::scan {

// File i of a windowed scan, opened, and the identity its parsed footer is
// cached under (none: never cached).
struct OpenedFile {
  std::unique_ptr<RandomAccessFile> file;
  std::optional<FileIdentity> id;
};
using FileOpener = std::function<Result<OpenedFile>(size_t i)>;

// Local file `path` opened for a scan, with the identity its footer is
// cached under: its (size, mtime); read with a sidecar's tail (`overlay`
// non-null, its tail's base_size >= 0) as data file + tail, the identity
// also naming the sidecar's and the tail's place in it, or none while the
// sidecar is not settled. A data file no longer the size the tail was
// planned for is refused (OverlayFile::make).
Result<OpenedFile> open_local_file(const std::string& path, const LocalOverlay* overlay = nullptr);

// scan_files with file i opened by open(i) (called from the scan's threads)
// and named paths[i] in errors; with options.cache_footers, footers are
// cached under the identities open() gives.
Result<ScanResult> scan_windowed(const std::vector<std::string>& paths, const FileOpener& open,
                                 const std::vector<ScanColumn>& columns, const ScanFilter& filter,
                                 const ScanOptions& options);

}  // namespace pqfast::parquet::scan
