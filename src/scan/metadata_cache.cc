#include "scan/metadata_cache.h"

namespace pqfast::parquet::scan {

MetadataCache& MetadataCache::process() {
  static MetadataCache cache(1 << 14, size_t{256} << 20);
  return cache;
}

FooterCache& process_prune_cache() {
  static FooterCache cache(1 << 16);
  return cache;
}

std::optional<CachedFooter> MetadataCache::get(const std::string& path, const FileIdentity& id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = map_.find(path);
  if (it == map_.end() || it->second.id.size != id.size || it->second.id.mtime_ns != id.mtime_ns) return std::nullopt;
  return it->second.footer;
}

void MetadataCache::put(const std::string& path, const FileIdentity& id, CachedFooter footer, size_t bytes) {
  if (id.mtime_ns < 0 || bytes > max_bytes_ / 4) return;  // unknown identity, or too big to keep
  std::lock_guard<std::mutex> lock(mu_);
  auto it = map_.find(path);
  if (it != map_.end()) {
    bytes_ -= it->second.bytes;
    it->second = Entry{id, std::move(footer), bytes};
    bytes_ += bytes;
    return;
  }
  while (!order_.empty() && (map_.size() >= max_entries_ || bytes_ + bytes > max_bytes_)) {
    auto old = map_.find(order_.front());
    if (old != map_.end()) {
      bytes_ -= old->second.bytes;
      map_.erase(old);
    }
    order_.pop_front();
  }
  map_.emplace(path, Entry{id, std::move(footer), bytes});
  order_.push_back(path);
  bytes_ += bytes;
}

void MetadataCache::clear() {
  std::lock_guard<std::mutex> lock(mu_);
  map_.clear();
  order_.clear();
  bytes_ = 0;
}

}  // namespace pqfast::parquet::scan
