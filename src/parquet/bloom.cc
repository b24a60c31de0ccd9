// Locating and loading a column chunk's Bloom filter: the Thrift
// BloomFilterHeader then the bitset, at ColumnMetaData.bloom_filter_offset.
// bloom_filter_length (parquet-format 2.10+) allows one read; without it
// (parquet-java < 1.14) the header is read first, then the bitset.
#include <algorithm>
#include <cstring>
#include <string>

#include "parquet/internal.h"
#include "pqfast/parquet.h"

namespace pqfast::parquet {

Result<SbbfView> bloom_view_in_place(uint8_t* bytes, size_t len, uint64_t offset,
                                     const std::string& where, uint32_t* header_size) {
  auto h = parse_sbbf_header(bytes, len);
  if (!h.ok()) {
    return make_error(h.error().code, where + ": Bloom filter at byte " + std::to_string(offset) +
                                          ": " + h.error().message);
  }
  const size_t avail = len - h->header_size;
  if (h->num_bytes > avail) {
    return make_error(ErrorCode::kTruncated,
                      where + ": Bloom filter at byte " + std::to_string(offset) + " announces a " +
                          std::to_string(h->num_bytes) + "-byte bitset but only " +
                          std::to_string(avail) + " bytes follow its " +
                          std::to_string(h->header_size) + "-byte header");
  }
  // Views accept a bitset at any alignment (the kernels load words
  // unaligned): probe it where it lies, right after its header.
  const uint8_t* bitset = bytes + h->header_size;
  auto v = SbbfView::make(bitset, h->num_bytes);
  if (!v.ok()) {
    return make_error(ErrorCode::kCorrupt, where + ": Bloom filter at byte " + std::to_string(offset) +
                                               ": " + v.error().message);
  }
  if (header_size) *header_size = h->header_size;
  return v;
}

Result<ChunkBloomFilter> make_chunk_bloom_filter(std::vector<uint8_t>&& bytes, size_t len,
                                                 uint64_t offset, const std::string& where) {
  ChunkBloomFilter f;
  f.storage_ = std::move(bytes);
  len = std::min(len, f.storage_.size());
  uint32_t header_size = 0;
  auto v = bloom_view_in_place(f.storage_.data(), len, offset, where, &header_size);
  if (!v.ok()) return v.error();
  f.view_ = *v;
  f.offset_ = offset;
  f.header_size_ = header_size;
  return f;
}

Status check_bloom_location(const RandomAccessFile& file, const ColumnChunk& chunk) {
  return check_bloom_location(file, chunk.bloom_filter_offset, chunk.bloom_filter_length);
}

Status check_bloom_location(const RandomAccessFile& file, int64_t offset, int32_t length) {
  return check_bloom_location(file.name(), file.size(), offset, length);
}

Status check_bloom_location(const std::string& name, uint64_t size, int64_t offset, int32_t length) {
  const uint64_t off = static_cast<uint64_t>(offset);
  if (off >= size) {
    return make_error(ErrorCode::kCorrupt, name + ": bloom_filter_offset " +
                                               std::to_string(off) + " is beyond the " +
                                               std::to_string(size) + "-byte file");
  }
  if (length >= 0 && static_cast<uint64_t>(length) > size - off) {
    return make_error(ErrorCode::kCorrupt,
                      name + ": Bloom filter at byte " + std::to_string(off) + " of length " +
                          std::to_string(length) + " runs past the " +
                          std::to_string(size) + "-byte file");
  }
  return Status::Ok();
}

Result<std::optional<ChunkBloomFilter>> load_bloom_filter(RandomAccessFile& file,
                                                          const ColumnChunk& chunk) {
  if (chunk.bloom_filter_offset < 0) return std::optional<ChunkBloomFilter>();
  PQFAST_RETURN_IF_ERROR(check_bloom_location(file, chunk));
  const uint64_t off = static_cast<uint64_t>(chunk.bloom_filter_offset);
  const uint64_t size = file.size();
  if (chunk.bloom_filter_length >= 0) {
    const size_t n = static_cast<size_t>(chunk.bloom_filter_length);
    std::vector<uint8_t> buf(n);
    PQFAST_RETURN_IF_ERROR(file.read_at(off, n, buf.data()));
    auto f = make_chunk_bloom_filter(std::move(buf), n, off, file.name());
    if (!f.ok()) return f.error();
    return std::optional<ChunkBloomFilter>(std::move(*f));
  }
  // No length: read enough for any header a writer produces, then the bitset.
  const size_t head = static_cast<size_t>(std::min<uint64_t>(kMaxBloomHeaderBytes, size - off));
  std::vector<uint8_t> buf(head);
  PQFAST_RETURN_IF_ERROR(file.read_at(off, head, buf.data()));
  auto h = parse_sbbf_header(buf.data(), buf.size());
  if (!h.ok()) {
    return make_error(h.error().code, file.name() + ": Bloom filter at byte " + std::to_string(off) +
                                          ": " + h.error().message);
  }
  const uint64_t total = uint64_t{h->header_size} + h->num_bytes;
  if (total > size - off) {
    return make_error(ErrorCode::kTruncated,
                      file.name() + ": Bloom filter at byte " + std::to_string(off) + " announces " +
                          std::to_string(h->num_bytes) + " bytes of bitset, past the end of the " +
                          std::to_string(size) + "-byte file");
  }
  if (total > buf.size()) {
    const size_t have = buf.size();
    buf.resize(static_cast<size_t>(total));
    PQFAST_RETURN_IF_ERROR(file.read_at(off + have, buf.size() - have, buf.data() + have));
  }
  auto f = make_chunk_bloom_filter(std::move(buf), static_cast<size_t>(total), off, file.name());
  if (!f.ok()) return f.error();
  return std::optional<ChunkBloomFilter>(std::move(*f));
}

}  // namespace pqfast::parquet
