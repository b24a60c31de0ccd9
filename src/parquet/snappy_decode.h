// Internal: pqfast's own decoder of raw snappy streams (Parquet's SNAPPY
// pages), used instead of the snappy library's: on TPC-H lineitem's pages
// it inflates faster (fixed 16- or 8-byte moves while far from both ends,
// copy tags decoded from a table) than Debian's libsnappy 1.1.9, whose libc
// memmove calls for literals were a third of a whole-file read's CPU.
// Input is hostile: every tag, length and offset is checked; nothing is
// read outside [src, src + src_len) or written outside [dst, dst + dst_len).
#pragma once

#include <cstddef>
#include <cstdint>

namespace pqfast::parquet::detail {

enum class SnappyResult {
  kOk,
  kBadLength,   // the length header is malformed
  kWrongSize,   // the header announces another size than dst_len
  kCorrupt,     // a tag runs past the input, copies from before the output, or the output is not filled exactly
};

// Inflates the raw snappy stream src into exactly dst_len bytes at dst.
// *announced receives the header's length when it parses.
SnappyResult snappy_inflate(const uint8_t* src, size_t src_len, uint8_t* dst, size_t dst_len, uint64_t* announced);

}  // namespace pqfast::parquet::detail
