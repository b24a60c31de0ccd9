// Random access into a raw snappy stream (see snappy_range.h). The format:
// a varint of the uncompressed length, then elements, each a tag byte whose
// low two bits say literal (00: length-1 in the upper six bits, or in 1-4
// bytes after them for 60..63), or copy of 4..11 bytes from up to 2 KiB back
// (01, one offset byte more), of 1..64 bytes from up to 64 KiB back (10, two
// offset bytes) or from up to 4 GiB back (11, four offset bytes).
#include "parquet/snappy_range.h"

#include <algorithm>
#include <cstring>

namespace pqfast::parquet::detail {

namespace {

// Copies followed back for one byte before giving up (a hostile or highly
// repetitive stream: the caller decompresses the whole page instead).
constexpr int kMaxSteps = 4096;

}  // namespace

Result<SnappyIndex> SnappyIndex::build(const uint8_t* src, size_t len, const std::string& where) {
  SnappyIndex x;
  x.src_ = src;
  x.src_len_ = len;
  x.where_ = where;
  auto bad = [&](const std::string& m) { return make_error(ErrorCode::kCorrupt, where + ": snappy stream: " + m); };
  size_t p = 0;
  uint64_t total = 0;
  for (int shift = 0;; shift += 7) {
    if (p >= len || shift > 28) return bad("bad uncompressed length");
    const uint8_t b = src[p++];
    total |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) break;
  }
  x.size_ = total;
  uint64_t out = 0;
  while (p < len) {
    const uint8_t tag = src[p++];
    Element e{out, 0, 0, false};
    switch (tag & 3) {
      case 0: {
        uint64_t l = tag >> 2;
        if (l >= 60) {
          const size_t bytes = l - 59;
          if (len - p < bytes) return bad("literal length runs past the input");
          l = 0;
          for (size_t i = 0; i < bytes; ++i) l |= static_cast<uint64_t>(src[p + i]) << (8 * i);
          p += bytes;
        }
        l += 1;
        if (l > len - p) return bad("literal runs past the input");
        e.literal = true;
        e.len = l;
        e.from = p;
        p += l;
        break;
      }
      case 1: {
        if (p >= len) return bad("copy tag cut off");
        e.len = ((tag >> 2) & 7) + 4;
        e.from = (static_cast<uint64_t>(tag >> 5) << 8) | src[p++];
        break;
      }
      case 2: {
        if (len - p < 2) return bad("copy tag cut off");
        e.len = (tag >> 2) + 1;
        e.from = src[p] | (static_cast<uint64_t>(src[p + 1]) << 8);
        p += 2;
        break;
      }
      default: {
        if (len - p < 4) return bad("copy tag cut off");
        e.len = (tag >> 2) + 1;
        e.from = 0;
        for (int i = 0; i < 4; ++i) e.from |= static_cast<uint64_t>(src[p + i]) << (8 * i);
        p += 4;
        break;
      }
    }
    if (!e.literal && (e.from == 0 || e.from > out)) return bad("copy from before the start of the output");
    if (e.len > total - out) return bad("output runs past the announced " + std::to_string(total) + " bytes");
    out += e.len;
    x.elems_.push_back(e);
  }
  if (out != total) return bad("output ends at " + std::to_string(out) + " of " + std::to_string(total) + " bytes");
  return x;
}

Status SnappyIndex::read(uint64_t offset, size_t n, uint8_t* out) const {
  if (offset > size_ || n > size_ - offset) {
    return make_error(ErrorCode::kCorrupt, where_ + ": bytes " + std::to_string(offset) + "+" + std::to_string(n) +
                                               " lie past the " + std::to_string(size_) + " the stream holds");
  }
  while (n > 0) {
    // Follow the byte at `offset` back through copies to the literal it
    // repeats; `span` bytes from there are contiguous in both places.
    uint64_t p = offset;
    uint64_t span = n;
    for (int steps = 0;; ++steps) {
      if (steps > kMaxSteps) {
        return make_error(ErrorCode::kLimitExceeded, where_ + ": snappy copies chained more than " +
                                                         std::to_string(kMaxSteps) + " deep");
      }
      auto it = std::upper_bound(elems_.begin(), elems_.end(), p,
                                 [](uint64_t o, const Element& e) { return o < e.out_pos; });
      const Element& e = *(it - 1);
      const uint64_t in = p - e.out_pos;
      if (e.literal) {
        span = std::min(span, e.len - in);
        std::memcpy(out, src_ + e.from + in, static_cast<size_t>(span));
        break;
      }
      // A copy repeats the `from` bytes before it with period `from`.
      const uint64_t phase = in % e.from;
      span = std::min({span, e.len - in, e.from - phase});
      p = e.out_pos - e.from + phase;
    }
    out += span;
    offset += span;
    n -= static_cast<size_t>(span);
  }
  return Status::Ok();
}

}  // namespace pqfast::parquet::detail
