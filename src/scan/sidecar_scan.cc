// Local files read with the tails a sidecar index keeps for them
// (LocalSidecar, open_local_file: the one overlay of local reads, used by
// the streaming scanner's filtered files and scan_files_with_sidecar).
//
// A cached footer is served only to the same bytes: the overlay's cache key
// names the data file, the sidecar and the sidecar's identity (device,
// inode, size, mtime, ctime: an atomic rewrite makes a new inode, an
// in-place one moves the ctime) and the tail's place in it; the data file's
// size and mtime are the identity the cache checks, as for plain files. A
// file read alone keeps the plain key (its path), so lookups with and
// without the sidecar do not evict each other. As the Python side keeps
// fingerprints, a sidecar changed within the last seconds is not cached.
#include <sys/stat.h>
#include <time.h>

#include <algorithm>
#include <string>

#include "scan/windowed.h"

namespace pqfast::parquet {

namespace {

int64_t ns_of(const timespec& t) { return static_cast<int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec; }

}  // namespace

Result<std::shared_ptr<const LocalSidecar>> LocalSidecar::open(const std::string& path, int64_t settle_ns) {
  // Opened once and shared by the overlays; its identity from the open
  // descriptor, so the key describes the bytes the tails are read from.
  auto side = LocalFile::open(path);
  if (!side.ok()) return side.error();
  struct stat st;
  if (::fstat((*side)->fd(), &st) != 0) {
    return make_error(ErrorCode::kIoError, path + ": fstat failed");
  }
  timespec now;
  ::clock_gettime(CLOCK_REALTIME, &now);
  auto out = std::make_shared<LocalSidecar>();
  out->path = path;
  out->settled = ns_of(now) - std::max(ns_of(st.st_mtim), ns_of(st.st_ctim)) >= settle_ns;
  for (const int64_t v : {static_cast<int64_t>(st.st_dev), static_cast<int64_t>(st.st_ino),
                          static_cast<int64_t>(st.st_size), ns_of(st.st_mtim), ns_of(st.st_ctim)}) {
    out->identity += '\0';
    out->identity += std::to_string(v);
  }
  out->file = std::move(side).value();
  return std::shared_ptr<const LocalSidecar>(std::move(out));
}

namespace scan {

Result<OpenedFile> open_local_file(const std::string& path, const LocalOverlay* overlay) {
  auto f = LocalFile::open(path);  // fstat: the identity footers are cached under
  if (!f.ok()) return f.error();
  FileIdentity id{(*f)->size(), (*f)->mtime_ns()};
  if (overlay == nullptr || overlay->tail.base_size < 0) return OpenedFile{std::move(f).value(), std::move(id)};
  const SidecarTail& t = overlay->tail;
  const LocalSidecar& side = *overlay->sidecar;
  // The data file's key, the sidecar's identity and the tail's place: a
  // file read alone keeps its plain key (its path), so lookups with and
  // without the sidecar do not evict each other.
  std::string key = path;
  key += '\0';
  key += side.path;
  key += side.identity;
  for (const int64_t v : {t.base_size, static_cast<int64_t>(t.offset), static_cast<int64_t>(t.length)}) {
    key += '\0';
    key += std::to_string(v);
  }
  id.size = static_cast<uint64_t>(t.base_size) + t.length;
  id.cache_key = std::move(key);
  auto o = OverlayFile::make(std::move(f).value(), static_cast<uint64_t>(t.base_size), side.file, t.offset, t.length);
  if (!o.ok()) return o.error();
  if (!side.settled) return OpenedFile{std::move(o).value(), std::nullopt};
  return OpenedFile{std::move(o).value(), std::move(id)};
}

}  // namespace scan

Result<ScanResult> scan_files_with_sidecar(const std::vector<std::string>& paths, const std::string& sidecar_path,
                                           const std::vector<SidecarTail>& tails,
                                           const std::vector<ScanColumn>& columns, const ScanFilter& filter,
                                           const ScanOptions& options, int64_t settle_ns) {
  if (tails.size() != paths.size()) {
    return make_error(ErrorCode::kInvalidArgument, "scan with a sidecar: " + std::to_string(tails.size()) +
                                                       " tails for " + std::to_string(paths.size()) + " files");
  }
  auto side = LocalSidecar::open(sidecar_path, settle_ns);
  if (!side.ok()) return side.error();
  return scan::scan_windowed(
      paths,
      [&](size_t i) -> Result<scan::OpenedFile> {
        const LocalOverlay o{*side, tails[i]};
        return scan::open_local_file(paths[i], &o);
      },
      columns, filter, options);
}

}  // namespace pqfast::parquet
