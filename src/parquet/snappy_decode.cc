// pqfast's raw snappy decoder (see snappy_decode.h). The format: a varint
// of the uncompressed length, then elements, each a tag byte whose low two
// bits say literal (00: length-1 in the upper six bits, or in 1-4 bytes
// after them for 60..63) or copy of earlier output (01: 4..11 bytes from
// up to 2 KiB back, one offset byte more; 10: 1..64 bytes, two offset
// bytes; 11: 1..64 bytes, four offset bytes). Written from the format's
// description (snappy's format_description.txt), not from its sources.
//
// Two loops: while at least kInMargin input bytes and kOutMargin output
// bytes remain, every element is moved by fixed 16-byte (or 8-byte) copies
// that may run past its end (the next element overwrites those bytes, and
// the margins keep them inside both buffers); near either end, exact
// copies with every bound checked.
#include "parquet/snappy_decode.h"

#include <cstring>

namespace pqfast::parquet::detail {

namespace {

constexpr size_t kInMargin = 32;   // > a tag, 4 length bytes and a 16-byte literal move
constexpr size_t kOutMargin = 64;  // the longest copy (64 bytes), moved 16 or 8 at a time

inline void move16(uint8_t* d, const uint8_t* s) {
  uint8_t t[16];
  std::memcpy(t, s, 16);
  std::memcpy(d, t, 16);
}

inline void move8(uint8_t* d, const uint8_t* s) {
  uint8_t t[8];
  std::memcpy(t, s, 8);
  std::memcpy(d, t, 8);
}

inline uint32_t le32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;  // (x86 and ARM64: little-endian)
}

// For each copy tag: its length (bits 0-6), the offset bytes after it
// (bits 7-9) and the offset's bits 8-10 held in the tag (bits 10-12).
constexpr auto kCopyTable = [] {
  struct Table {
    uint16_t v[256];
    constexpr uint16_t operator[](size_t i) const { return v[i]; }
  } t{};
  for (unsigned tag = 0; tag < 256; ++tag) {
    unsigned len = 0, nb = 0, hi = 0;
    switch (tag & 3) {
      case 1: len = 4 + ((tag >> 2) & 7); nb = 1; hi = tag >> 5; break;
      case 2: len = (tag >> 2) + 1; nb = 2; break;
      case 3: len = (tag >> 2) + 1; nb = 4; break;
      default: break;  // literals: not read from the table
    }
    t.v[tag] = static_cast<uint16_t>(len | (nb << 7) | (hi << 10));
  }
  return t;
}();
constexpr uint32_t kOffsetMask[5] = {0, 0xffu, 0xffffu, 0, 0xffffffffu};

}  // namespace

SnappyResult snappy_inflate(const uint8_t* src, size_t src_len, uint8_t* dst, size_t dst_len, uint64_t* announced) {
  size_t p = 0;
  uint64_t total = 0;
  for (int shift = 0;; shift += 7) {
    if (p >= src_len || shift > 28) return SnappyResult::kBadLength;
    const uint8_t b = src[p++];
    total |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) break;
  }
  if (total > 0xffffffffu) return SnappyResult::kBadLength;
  if (announced) *announced = total;
  if (total != dst_len) return SnappyResult::kWrongSize;

  const uint8_t* ip = src + p;
  const uint8_t* const ip_end = src + src_len;
  uint8_t* op = dst;
  uint8_t* const op_end = dst + dst_len;

  // Fast loop: far from both ends.
  while (static_cast<size_t>(ip_end - ip) >= kInMargin && static_cast<size_t>(op_end - op) >= kOutMargin) {
    const uint8_t tag = *ip;
    if ((tag & 3) == 0) {
      size_t len = static_cast<size_t>(tag >> 2) + 1;
      if (len <= 16) {
        move16(op, ip + 1);
        ip += 1 + len;
        op += len;
        continue;
      }
      ++ip;
      if (len > 60) {
        const size_t nb = len - 60;  // 1..4 length bytes (the margin holds them)
        const uint32_t l = le32(ip) & (nb == 4 ? 0xffffffffu : ((1u << (8 * nb)) - 1));
        ip += nb;
        len = static_cast<size_t>(l) + 1;
      }
      if (len > static_cast<size_t>(ip_end - ip) || len > static_cast<size_t>(op_end - op)) {
        return SnappyResult::kCorrupt;
      }
      std::memcpy(op, ip, len);
      ip += len;
      op += len;
      continue;
    }
    // A copy: its length, offset bytes and offset's high bits from a table
    // (no branch on the three copy kinds, which text mixes).
    const uint16_t e = kCopyTable[tag];
    const size_t len = e & 0x7f;
    const size_t nb = (e >> 7) & 7;
    const size_t off = (le32(ip + 1) & kOffsetMask[nb]) | (static_cast<size_t>(e >> 10) << 8);
    ip += 1 + nb;
    if (off == 0 || off > static_cast<size_t>(op - dst)) return SnappyResult::kCorrupt;
    // len <= 64 <= op_end - op: the moves below stay inside the output.
    const uint8_t* s = op - off;
    if (off >= 16) {
      // Each 16-byte piece's source ends at or before its destination: it
      // was written before it is read (also by the pieces before it).
      move16(op, s);
      if (len > 16) {
        move16(op + 16, s + 16);
        if (len > 32) {
          move16(op + 32, s + 32);
          move16(op + 48, s + 48);
        }
      }
    } else if (off >= 8) {
      for (size_t i = 0; i < len; i += 8) move8(op + i, s + i);
    } else {
      for (size_t i = 0; i < len; ++i) op[i] = s[i];  // a pattern shorter than 8 bytes repeated
    }
    op += len;
  }

  // Near the ends: exact, every bound checked.
  while (ip < ip_end) {
    const uint8_t tag = *ip++;
    if ((tag & 3) == 0) {
      size_t len = static_cast<size_t>(tag >> 2) + 1;
      if (len > 60) {
        const size_t nb = len - 60;
        if (static_cast<size_t>(ip_end - ip) < nb) return SnappyResult::kCorrupt;
        uint32_t l = 0;
        for (size_t k = 0; k < nb; ++k) l |= static_cast<uint32_t>(ip[k]) << (8 * k);
        ip += nb;
        len = static_cast<size_t>(l) + 1;
      }
      if (len > static_cast<size_t>(ip_end - ip) || len > static_cast<size_t>(op_end - op)) {
        return SnappyResult::kCorrupt;
      }
      std::memcpy(op, ip, len);
      ip += len;
      op += len;
      continue;
    }
    size_t len, off;
    const size_t left = static_cast<size_t>(ip_end - ip);
    switch (tag & 3) {
      case 1:
        if (left < 1) return SnappyResult::kCorrupt;
        len = 4 + ((tag >> 2) & 7);
        off = (static_cast<size_t>(tag >> 5) << 8) | ip[0];
        ip += 1;
        break;
      case 2:
        if (left < 2) return SnappyResult::kCorrupt;
        len = static_cast<size_t>(tag >> 2) + 1;
        off = static_cast<size_t>(ip[0]) | (static_cast<size_t>(ip[1]) << 8);
        ip += 2;
        break;
      default:
        if (left < 4) return SnappyResult::kCorrupt;
        len = static_cast<size_t>(tag >> 2) + 1;
        off = le32(ip);
        ip += 4;
        break;
    }
    if (off == 0 || off > static_cast<size_t>(op - dst) || len > static_cast<size_t>(op_end - op)) {
      return SnappyResult::kCorrupt;
    }
    const uint8_t* s = op - off;
    for (size_t i = 0; i < len; ++i) op[i] = s[i];
    op += len;
  }
  return op == op_end ? SnappyResult::kOk : SnappyResult::kCorrupt;
}

}  // namespace pqfast::parquet::detail
