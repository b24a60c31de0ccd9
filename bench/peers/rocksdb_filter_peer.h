// Driving RocksDB 7.8 (Debian's librocksdb-dev) as a peer for the
// local_bloom family, from tests and the benchmark. Header-only; include it
// only in targets that link librocksdb (PQFAST_HAVE_ROCKSDB).
//
// Two routes:
//  - sst_filter_block(): the public route end to end. Writes an SST with
//    SstFileWriter (block-based table, format_version=5, NewBloomFilterPolicy,
//    optimize_filters_for_memory off, whole-key filtering) and returns the
//    bytes of its filter meta block `fullfilter.rocksdb.BuiltinBloomFilter`,
//    found by reading the SST footer and metaindex block ourselves.
//  - RocksDbFilter: RocksDB's own filter builder and reader, obtained from the
//    public FilterPolicy entry points (GetBuilderWithContext,
//    GetFilterBitsReader). RocksDB 7 only forward-declares the returned
//    classes, so their virtual interface is declared here as RocksDB 7.8.3
//    defines it (table/block_based/filter_policy_internal.h); the calls go
//    through RocksDB's own vtables. Valid for RocksDB 7.x only.
#pragma once

#include <rocksdb/env.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/slice.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/table.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace rocksdb {
// RocksDB 7.8.3's internal interfaces, in vtable order.
class FilterBitsBuilder {
 public:
  virtual ~FilterBitsBuilder() {}
  virtual void AddKey(const Slice& key) = 0;
  virtual size_t EstimateEntriesAdded() = 0;
  virtual Slice Finish(std::unique_ptr<const char[]>* buf) = 0;
  virtual Slice Finish(std::unique_ptr<const char[]>* buf, Status* status) = 0;
  virtual Status MaybePostVerify(const Slice& filter_content) = 0;
  virtual size_t ApproximateNumEntries(size_t bytes) = 0;
};
class FilterBitsReader {
 public:
  virtual ~FilterBitsReader() {}
  virtual bool MayMatch(const Slice& entry) = 0;
  virtual void MayMatch(int num_keys, Slice** keys, bool* may_match) = 0;
};
}  // namespace rocksdb

namespace pqfast::peer {

// Key i of n in Arrow layout (data + n + 1 offsets).
struct Keys {
  std::string data;
  std::vector<int64_t> offsets{0};
  void add(const void* p, size_t len) {
    data.append(static_cast<const char*>(p), len);
    offsets.push_back(static_cast<int64_t>(data.size()));
  }
  size_t size() const { return offsets.size() - 1; }
  rocksdb::Slice operator[](size_t i) const {
    return rocksdb::Slice(data.data() + offsets[i], static_cast<size_t>(offsets[i + 1] - offsets[i]));
  }
};

inline rocksdb::BlockBasedTableOptions table_options(double bits_per_key) {
  rocksdb::BlockBasedTableOptions t;
  t.filter_policy.reset(rocksdb::NewBloomFilterPolicy(bits_per_key));
  t.format_version = 5;
  t.optimize_filters_for_memory = false;
  t.whole_key_filtering = true;
  t.partition_filters = false;
  return t;
}

class RocksDbFilter {
 public:
  explicit RocksDbFilter(double bits_per_key) : options_(table_options(bits_per_key)) {}

  // RocksDB's builder over these keys: the full filter block (with trailer).
  std::string build(const Keys& keys) const {
    rocksdb::FilterBuildingContext ctx(options_);
    std::unique_ptr<rocksdb::FilterBitsBuilder> b(options_.filter_policy->GetBuilderWithContext(ctx));
    for (size_t i = 0; i < keys.size(); ++i) b->AddKey(keys[i]);
    std::unique_ptr<const char[]> buf;
    rocksdb::Slice s = b->Finish(&buf);
    return std::string(s.data(), s.size());
  }

  const rocksdb::FilterPolicy& policy() const { return *options_.filter_policy; }

  // RocksDB's reader over a block the caller keeps alive.
  std::unique_ptr<rocksdb::FilterBitsReader> reader(const std::string& block) const {
    return std::unique_ptr<rocksdb::FilterBitsReader>(
        options_.filter_policy->GetFilterBitsReader(rocksdb::Slice(block)));
  }

 private:
  rocksdb::BlockBasedTableOptions options_;
};

namespace sst {

inline uint64_t varint(const std::string& s, size_t* pos) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*pos >= s.size()) throw std::runtime_error("SST: varint runs past the buffer");
    const uint8_t b = static_cast<uint8_t>(s[(*pos)++]);
    v |= uint64_t{b & 0x7fu} << shift;
    if ((b & 0x80) == 0) return v;
  }
  throw std::runtime_error("SST: varint too long");
}

inline uint32_t fixed32(const std::string& s, size_t pos) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t{static_cast<uint8_t>(s[pos + i])} << (8 * i);
  return v;
}

// The value of `key` in the (uncompressed) metaindex block, or "".
inline std::string metaindex_value(const std::string& block, const std::string& key) {
  const uint32_t num_restarts = fixed32(block, block.size() - 4) & 0x7fffffffu;
  const size_t end = block.size() - 4 - 4 * size_t{num_restarts};
  size_t pos = 0;
  std::string current;
  while (pos < end) {
    const uint64_t shared = varint(block, &pos);
    const uint64_t non_shared = varint(block, &pos);
    const uint64_t value_len = varint(block, &pos);
    current = current.substr(0, shared) + block.substr(pos, non_shared);
    pos += non_shared;
    if (current == key) return block.substr(pos, value_len);
    pos += value_len;
  }
  return "";
}

}  // namespace sst

// Writes the keys (sorted, distinct) to an SST at `path` and returns its
// full-filter block, trailer included.
inline std::string sst_filter_block(const Keys& keys, double bits_per_key, const std::string& path) {
  rocksdb::Options options;
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table_options(bits_per_key)));
  options.compression = rocksdb::kNoCompression;
  rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), options);
  if (!writer.Open(path).ok()) throw std::runtime_error("SstFileWriter::Open failed: " + path);
  for (size_t i = 0; i < keys.size(); ++i) {
    rocksdb::Status s = writer.Put(keys[i], rocksdb::Slice("v", 1));
    if (!s.ok()) throw std::runtime_error("SstFileWriter::Put: " + s.ToString());
  }
  if (!writer.Finish().ok()) throw std::runtime_error("SstFileWriter::Finish failed");

  std::ifstream in(path, std::ios::binary);
  const std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::remove(path.c_str());
  // Footer (format_version 1..5): checksum type, metaindex handle, index
  // handle, padding to 41 bytes, format_version (4), magic (8): 53 bytes.
  constexpr size_t kFooter = 53;
  if (file.size() < kFooter) throw std::runtime_error("SST smaller than its footer");
  size_t pos = file.size() - kFooter + 1;
  const uint64_t meta_offset = sst::varint(file, &pos);
  const uint64_t meta_size = sst::varint(file, &pos);
  const std::string metaindex = file.substr(meta_offset, meta_size);
  const std::string handle =
      sst::metaindex_value(metaindex, "fullfilter.rocksdb.BuiltinBloomFilter");
  if (handle.empty()) throw std::runtime_error("SST has no fullfilter.rocksdb.BuiltinBloomFilter");
  size_t hp = 0;
  const uint64_t off = sst::varint(handle, &hp);
  const uint64_t size = sst::varint(handle, &hp);
  return file.substr(off, size);
}

}  // namespace pqfast::peer
