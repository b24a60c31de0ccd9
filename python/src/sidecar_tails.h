// Local files opened with the tails a sidecar index keeps for them
// (python/pqfast/_sidecar.py): the scan and the index planner read each one
// as the file `pqfast index` would have written.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "pqfast/parquet.h"

namespace pqfast::py {

// (data file size when the tail was planned, tail offset in the sidecar,
// tail length); a size < 0: the file is read as it is.
using SidecarTail = std::tuple<int64_t, uint64_t, uint64_t>;

// Opens every path; with a sidecar, those with a tail as an OverlayFile over
// the sidecar, opened once and shared. The first failure is the result.
inline Result<std::vector<std::unique_ptr<parquet::RandomAccessFile>>> open_with_tails(
    const std::vector<std::string>& paths, const std::optional<std::string>& sidecar,
    const std::optional<std::vector<SidecarTail>>& tails) {
  namespace pq = pqfast::parquet;
  std::shared_ptr<pq::RandomAccessFile> side;
  if (sidecar && tails) {
    auto s = pq::LocalFile::open(*sidecar);
    if (!s.ok()) return s.error();
    side = std::move(*s);
  }
  std::vector<std::unique_ptr<pq::RandomAccessFile>> files;
  for (size_t i = 0; i < paths.size(); ++i) {
    auto f = pq::LocalFile::open(paths[i]);
    if (!f.ok()) return f.error();
    const auto [base_size, offset, length] = tails ? (*tails)[i] : SidecarTail{-1, 0, 0};
    if (base_size < 0) {
      files.push_back(std::move(*f));
      continue;
    }
    auto o = pq::OverlayFile::make(std::move(*f), static_cast<uint64_t>(base_size), side, offset, length);
    if (!o.ok()) return o.error();
    files.push_back(std::move(*o));
  }
  return files;
}

}  // namespace pqfast::py
