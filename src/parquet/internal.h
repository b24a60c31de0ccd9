// Internal: shared pieces of the parquet layer (read accounting, the tail
// buffer kept from the footer read, error prefixing).
#pragma once

#include <fcntl.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pqfast/parquet.h"

namespace pqfast::parquet {

// The tail read that finds the footer: most footers (and, for writers that
// put Bloom filters just before the footer, the filters too) fit in it.
inline constexpr size_t kSpeculativeTailBytes = 16 * 1024;

struct ReadStats {
  int32_t reads = 0;
  int64_t bytes = 0;
};

// Bytes of the file's tail kept from the footer read: [offset, offset + size).
// Not zero-filled first: a read fills it whole or fails.
struct TailBuffer {
  uint64_t offset = 0;
  size_t size = 0;
  std::unique_ptr<uint8_t[]> bytes;
  uint8_t* data() const { return bytes.get(); }
  bool covers(uint64_t off, uint64_t len) const {
    return off >= offset && off - offset <= size && len <= size - (off - offset);
  }
};

Error prefix_error(const std::string& name, const Error& e);

// kInvalidArgument "no column 'x' (leaf columns: a, b, ...)": what a probe of
// a column the file lacks answers (the first 12 leaves are named).
Error missing_column_error(const FileMetaData& meta, std::string_view column);

// The serialized FileMetaData, found by one speculative read of the file's
// tail (kept in *tail) and read again on its own only when larger:
// [data, data + len) at file offset `start`. Trailer errors (magic, length,
// limits) name the file.
struct FooterBytes {
  const uint8_t* data = nullptr;  // into tail->bytes or `owned`
  uint32_t len = 0;
  uint64_t start = 0;
  std::vector<uint8_t> owned;
};
Result<FooterBytes> read_footer_bytes(RandomAccessFile& file, const ParseLimits& limits,
                                     ReadStats* stats, TailBuffer* tail,
                                     size_t tail_bytes = kSpeculativeTailBytes);

// read_file_metadata that counts reads and keeps the tail it read.
Result<FileMetaData> read_file_metadata_tail(RandomAccessFile& file, const ParseLimits& limits,
                                             ReadStats* stats, TailBuffer* tail,
                                             size_t tail_bytes = kSpeculativeTailBytes);

}  // namespace pqfast::parquet

namespace pqfast::parquet {

// Bytes read for a Bloom filter header when the footer gives no length.
inline constexpr size_t kMaxBloomHeaderBytes = 256;
// Without bloom_filter_length, bytes read at most on a guess of the filter's end.
inline constexpr size_t kMaxBloomEstimateBytes = 1 << 20;

// Parses header + bitset in `bytes` and returns a view over the bitset, in place.
Result<SbbfView> bloom_view_in_place(uint8_t* bytes, size_t len, uint64_t offset,
                                     const std::string& where, uint32_t* header_size);

// Checks bloom_filter_offset/length against the file's size.
Status check_bloom_location(const RandomAccessFile& file, const ColumnChunk& chunk);
Status check_bloom_location(const RandomAccessFile& file, int64_t offset, int32_t length);
Status check_bloom_location(const std::string& name, uint64_t size, int64_t offset, int32_t length);

}  // namespace pqfast::parquet

namespace pqfast::parquet {

// What identifies a file's version for the footer caches.
struct FileIdentity {
  uint64_t size;
  int64_t mtime_ns;
  // The name the caches keep the file's footer under; empty: its name().
  // A file read with a sidecar index's tail has one that also names the
  // sidecar's identity and the tail's place in it (scan_files_with_sidecar),
  // so neither a changed data file nor a rewritten sidecar is served a
  // footer parsed before, and the file read alone keeps its own entry.
  std::string cache_key = {};

  const std::string& key_or(const std::string& name) const { return cache_key.empty() ? name : cache_key; }
};

// prune_file for a local file whose identity (size, mtime) is known: the
// footer cache of `options` applies.
FilePruneResult prune_file_identified(RandomAccessFile& file, const FileIdentity& identity, std::string_view column,
                                      const ProbeValues& values, const PruneOptions& options);

// A local file known by stat(2) and opened on its first read (pruning with a
// cached footer often needs no read at all). The opened file must still be
// the one stat() saw (same size and mtime), else reads fail.
class LazyLocalFile final : public RandomAccessFile {
 public:
  static Result<LazyLocalFile> make(const std::string& path) { return make_at(AT_FDCWD, path, 0); }
  // stat(2) of path.substr(name_offset) under an open directory (fstatat):
  // one name lookup instead of the whole path's (see prune_files).
  static Result<LazyLocalFile> make_at(int dir_fd, const std::string& path, size_t name_offset);
  uint64_t size() const override { return size_; }
  int64_t mtime_ns() const { return mtime_ns_; }
  Status read_at(uint64_t offset, size_t n, uint8_t* out) override;
  const std::string& name() const override { return path_; }

 private:
  LazyLocalFile(std::string path, uint64_t size, int64_t mtime_ns)
      : path_(std::move(path)), size_(size), mtime_ns_(mtime_ns) {}
  std::string path_;
  uint64_t size_;
  int64_t mtime_ns_;
  std::unique_ptr<LocalFile> file_;
};

}  // namespace pqfast::parquet
