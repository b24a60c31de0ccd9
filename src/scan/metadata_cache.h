// Internal: parsed footers kept across scans of the same lake (a user's
// lookups, key after key), with the tail bytes read beside them (page
// indexes usually lie there). Keyed by path; an entry serves only the file
// of the same size and modification time. Bounded in entries and bytes
// (oldest leave first); thread-safe.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "parquet/internal.h"
#include "pqfast/parquet.h"

namespace pqfast::parquet::scan {

struct CachedFooter {
  std::shared_ptr<const FileMetaData> meta;
  std::shared_ptr<const TailBuffer> tail;
};

class MetadataCache {
 public:
  MetadataCache(size_t max_entries, size_t max_bytes) : max_entries_(max_entries), max_bytes_(max_bytes) {}
  // The process's cache behind ScanOptions::cache_footers.
  static MetadataCache& process();
  std::optional<CachedFooter> get(const std::string& path, const FileIdentity& id);
  void put(const std::string& path, const FileIdentity& id, CachedFooter footer, size_t bytes);
  void clear();

 private:
  struct Entry {
    FileIdentity id;
    CachedFooter footer;
    size_t bytes;
  };
  size_t max_entries_, max_bytes_;
  size_t bytes_ = 0;
  std::mutex mu_;
  std::unordered_map<std::string, Entry> map_;
  std::deque<std::string> order_;
};

// The pruner's cache of lean footers (pqfast/parquet.h FooterCache) for scans.
FooterCache& process_prune_cache();

}  // namespace pqfast::parquet::scan
