// OverlayFile: a file seen with the tail a sidecar index keeps for it
// appended (see pqfast/parquet.h). The sidecar is untrusted input: its
// offsets are checked against the sidecar's size here, and the bytes it
// supplies go through the same bounded parsers as any file's.
#include <algorithm>
#include <cstdint>
#include <string>

#include "pqfast/parquet.h"

namespace pqfast::parquet {

Result<std::unique_ptr<OverlayFile>> OverlayFile::make(std::unique_ptr<RandomAccessFile> base, uint64_t base_size,
                                                       std::shared_ptr<RandomAccessFile> tail, uint64_t tail_offset,
                                                       uint64_t tail_size) {
  if (!base || !tail) return make_error(ErrorCode::kInvalidArgument, "overlay: no base or no tail file");
  if (base->size() != base_size) {
    return make_error(ErrorCode::kCorrupt, base->name() + ": " + std::to_string(base->size()) +
                                               " bytes, the sidecar index was written for " +
                                               std::to_string(base_size) + " (the file changed since)");
  }
  if (tail_offset > tail->size() || tail_size > tail->size() - tail_offset) {
    return make_error(ErrorCode::kCorrupt, tail->name() + ": the tail of " + base->name() + " (" +
                                               std::to_string(tail_size) + " bytes at " + std::to_string(tail_offset) +
                                               ") lies past the end of the " + std::to_string(tail->size()) +
                                               "-byte sidecar");
  }
  if (tail_size > UINT64_MAX - base_size) {
    return make_error(ErrorCode::kCorrupt, tail->name() + ": a tail of " + std::to_string(tail_size) +
                                               " bytes overflows the file's size");
  }
  return std::unique_ptr<OverlayFile>(
      new OverlayFile(std::move(base), base_size, std::move(tail), tail_offset, tail_size));
}

Status OverlayFile::read_at(uint64_t offset, size_t n, uint8_t* out) {
  const uint64_t size = base_size_ + tail_size_;
  if (offset > size || n > size - offset) {
    return make_error(ErrorCode::kTruncated, name() + ": read of " + std::to_string(n) + " bytes at byte " +
                                                 std::to_string(offset) + " goes past the end of the " +
                                                 std::to_string(size) + "-byte file (with its sidecar tail)");
  }
  for (const OverlaySpan& sp : overlay_spans(base_size_, tail_offset_, offset, n)) {
    RandomAccessFile& from = sp.in_tail ? *tail_ : *base_;
    PQFAST_RETURN_IF_ERROR(from.read_at(sp.offset, static_cast<size_t>(sp.length), out));
    out += sp.length;
  }
  return Status::Ok();
}

}  // namespace pqfast::parquet
