// scan_files_with_sidecar: local files read with the tails a sidecar index
// keeps for them, through scan_files' engine and its footer cache.
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

std::string overlay_key(const std::string& path, const std::string& sidecar, const struct stat& st,
                        const SidecarTail& t) {
  std::string key = path;
  key += '\0';
  key += sidecar;
  for (const int64_t v : {static_cast<int64_t>(st.st_dev), static_cast<int64_t>(st.st_ino),
                          static_cast<int64_t>(st.st_size),
                          ns_of(st.st_mtim), ns_of(st.st_ctim), t.base_size,
                          static_cast<int64_t>(t.offset), static_cast<int64_t>(t.length)}) {
    key += '\0';
    key += std::to_string(v);
  }
  return key;
}

}  // namespace

Result<ScanResult> scan_files_with_sidecar(const std::vector<std::string>& paths, const std::string& sidecar_path,
                                           const std::vector<SidecarTail>& tails,
                                           const std::vector<ScanColumn>& columns, const ScanFilter& filter,
                                           const ScanOptions& options, int64_t settle_ns) {
  if (tails.size() != paths.size()) {
    return make_error(ErrorCode::kInvalidArgument, "scan with a sidecar: " + std::to_string(tails.size()) +
                                                       " tails for " + std::to_string(paths.size()) + " files");
  }
  // Opened once and shared by the overlays; its identity from the open
  // descriptor, so the key describes the bytes the tails are read from.
  auto side = LocalFile::open(sidecar_path);
  if (!side.ok()) return side.error();
  struct stat st;
  if (::fstat((*side)->fd(), &st) != 0) {
    return make_error(ErrorCode::kIoError, sidecar_path + ": fstat failed");
  }
  timespec now;
  ::clock_gettime(CLOCK_REALTIME, &now);
  const bool settled = ns_of(now) - std::max(ns_of(st.st_mtim), ns_of(st.st_ctim)) >= settle_ns;
  std::shared_ptr<RandomAccessFile> sidecar = std::move(side).value();
  return scan::scan_windowed(
      paths,
      [&](size_t i) -> Result<scan::OpenedFile> {
        auto f = LocalFile::open(paths[i]);
        if (!f.ok()) return f.error();
        const SidecarTail& t = tails[i];
        FileIdentity id{(*f)->size(), (*f)->mtime_ns()};
        if (t.base_size < 0) return scan::OpenedFile{std::move(f).value(), std::move(id)};
        id.size = static_cast<uint64_t>(t.base_size) + t.length;
        id.cache_key = overlay_key(paths[i], sidecar_path, st, t);
        auto o = OverlayFile::make(std::move(f).value(), static_cast<uint64_t>(t.base_size), sidecar, t.offset,
                                   t.length);
        if (!o.ok()) return o.error();
        if (!settled) return scan::OpenedFile{std::move(o).value(), std::nullopt};
        return scan::OpenedFile{std::move(o).value(), std::move(id)};
      },
      columns, filter, options);
}

}  // namespace pqfast::parquet
