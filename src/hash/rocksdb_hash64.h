// Internal: RocksDB's 64-bit key hash (Hash64 / GetSliceHash64), written from
// the algorithm description: the XXH3 preview of xxHash 0.7.2 ("XXPH3") with
// seed 0, which RocksDB froze for its filters. It differs from released XXH3
// (e.g. in the 1-3, 4-8 and 129-240 byte paths and for the empty input), so
// libxxhash cannot stand in for it. The lengths take different paths:
//   0          a hash of the secret (RocksDB's change: never the same as XXH3)
//   1..3       the first, middle and last byte combined with the length
//   4..8       the first and last four bytes
//   9..16      the first and last eight bytes, one 64x64->128 multiply
//   17..128    up to eight 16-byte mixes from both ends
//   129..240   eight mixes, an avalanche, the rest, the last 16 bytes
//   241..      64-byte stripes into eight accumulators, scrambled every 16
//              stripes, merged at the end
// Kept in an anonymous namespace so ISA units may include it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace pqfast::hash {
namespace {

// The 192-byte default secret of XXH3 (the same bytes in the preview).
alignas(64) constexpr uint8_t kXxph3Secret[192] = {
    0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
    0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
    0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
    0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
    0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
    0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
    0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
    0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
    0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
    0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
    0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
    0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
};

constexpr uint32_t kP32_1 = 0x9E3779B1U;
constexpr uint32_t kP32_2 = 0x85EBCA77U;
constexpr uint32_t kP32_3 = 0xC2B2AE3DU;
constexpr uint64_t kP64_1 = 0x9E3779B185EBCA87ULL;
constexpr uint64_t kP64_2 = 0xC2B2AE3D27D4EB4FULL;
constexpr uint64_t kP64_3 = 0x165667B19E3779F9ULL;
constexpr uint64_t kP64_4 = 0x85EBCA77C2B2AE63ULL;
constexpr uint64_t kP64_5 = 0x27D4EB2F165667C5ULL;

inline uint64_t xp_read64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;  // little-endian hosts only (asserted in hash.cc)
}
inline uint32_t xp_read32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// The 128-bit product of a and b, its halves XORed.
inline uint64_t xp_mul_fold(uint64_t a, uint64_t b) {
  const unsigned __int128 p = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(p) ^ static_cast<uint64_t>(p >> 64);
}

inline uint64_t xp_avalanche(uint64_t h) {
  h ^= h >> 37;
  h *= kP64_3;
  return h ^ (h >> 32);
}

// 16 input bytes against 16 secret bytes.
inline uint64_t xp_mix16(const uint8_t* in, const uint8_t* secret) {
  return xp_mul_fold(xp_read64(in) ^ xp_read64(secret), xp_read64(in + 8) ^ xp_read64(secret + 8));
}

inline uint64_t xp_upto16(const uint8_t* p, size_t len) {
  const uint8_t* s = kXxph3Secret;
  if (len > 8) {
    const uint64_t lo = xp_read64(p) ^ xp_read64(s);
    const uint64_t hi = xp_read64(p + len - 8) ^ xp_read64(s + 8);
    return xp_avalanche(len + lo + hi + xp_mul_fold(lo, hi));
  }
  if (len >= 4) {
    const uint64_t v = xp_read32(p) | (static_cast<uint64_t>(xp_read32(p + len - 4)) << 32);
    const uint64_t keyed = v ^ xp_read64(s);
    const uint64_t mix = len + ((keyed ^ (keyed >> 51)) * kP32_1);
    return xp_avalanche((mix ^ (mix >> 47)) * kP64_2);
  }
  if (len > 0) {
    const uint32_t combined = uint32_t{p[0]} | (uint32_t{p[len >> 1]} << 8) |
                              (uint32_t{p[len - 1]} << 16) | (static_cast<uint32_t>(len) << 24);
    const uint64_t keyed = uint64_t{combined} ^ uint64_t{xp_read32(s)};
    return xp_avalanche(keyed * kP64_1);
  }
  return xp_mul_fold(xp_read64(s), kP64_2);  // RocksDB's empty-input rule
}

// 33..128 bytes: out of line, so callers hashing short keys keep a light frame.
[[gnu::noinline]] inline uint64_t xp_33to128(const uint8_t* p, size_t len) {
  const uint8_t* s = kXxph3Secret;
  uint64_t acc = len * kP64_1;
  // Pairs of 16-byte chunks from the front and the back, innermost last.
  if (len > 96) acc += xp_mix16(p + 48, s + 96) + xp_mix16(p + len - 64, s + 112);
  if (len > 64) acc += xp_mix16(p + 32, s + 64) + xp_mix16(p + len - 48, s + 80);
  acc += xp_mix16(p + 16, s + 32) + xp_mix16(p + len - 32, s + 48);
  acc += xp_mix16(p, s) + xp_mix16(p + len - 16, s + 16);
  return xp_avalanche(acc);
}

inline uint64_t xp_17to128(const uint8_t* p, size_t len) {
  if (len > 32) return xp_33to128(p, len);
  const uint8_t* s = kXxph3Secret;
  return xp_avalanche(len * kP64_1 + xp_mix16(p, s) + xp_mix16(p + len - 16, s + 16));
}

// Out of line (as in xxHash) so callers of the short paths keep a light frame.
[[gnu::noinline]] inline uint64_t xp_129to240(const uint8_t* p, size_t len) {
  const uint8_t* s = kXxph3Secret;
  uint64_t acc = len * kP64_1;
  for (size_t i = 0; i < 8; ++i) acc += xp_mix16(p + 16 * i, s + 16 * i);
  acc = xp_avalanche(acc);
  const size_t rounds = len / 16;
  for (size_t i = 8; i < rounds; ++i) acc += xp_mix16(p + 16 * i, s + 16 * (i - 8) + 3);
  acc += xp_mix16(p + len - 16, s + 136 - 17);
  return xp_avalanche(acc);
}

// One 64-byte stripe into the eight accumulators.
inline void xp_stripe(uint64_t* acc, const uint8_t* in, const uint8_t* secret) {
  for (int i = 0; i < 8; ++i) {
    const uint64_t v = xp_read64(in + 8 * i);
    const uint64_t k = v ^ xp_read64(secret + 8 * i);
    acc[i] += v + (k & 0xffffffffULL) * (k >> 32);
  }
}

inline void xp_scramble(uint64_t* acc, const uint8_t* secret) {
  for (int i = 0; i < 8; ++i) {
    uint64_t a = acc[i];
    a ^= a >> 47;
    a ^= xp_read64(secret + 8 * i);
    acc[i] = a * kP32_1;
  }
}

[[gnu::noinline]] inline uint64_t xp_long(const uint8_t* p, size_t len) {
  const uint8_t* s = kXxph3Secret;
  constexpr size_t kSecretSize = sizeof(kXxph3Secret);
  constexpr size_t kStripesPerBlock = (kSecretSize - 64) / 8;  // 16
  constexpr size_t kBlockLen = 64 * kStripesPerBlock;          // 1024
  uint64_t acc[8] = {kP32_3, kP64_1, kP64_2, kP64_3, kP64_4, kP32_2, kP64_5, kP32_1};
  const size_t blocks = len / kBlockLen;
  for (size_t b = 0; b < blocks; ++b) {
    for (size_t st = 0; st < kStripesPerBlock; ++st) xp_stripe(acc, p + b * kBlockLen + st * 64, s + st * 8);
    xp_scramble(acc, s + kSecretSize - 64);
  }
  const size_t stripes = (len - blocks * kBlockLen) / 64;
  for (size_t st = 0; st < stripes; ++st) xp_stripe(acc, p + blocks * kBlockLen + st * 64, s + st * 8);
  if (len % 64 != 0) xp_stripe(acc, p + len - 64, s + kSecretSize - 64 - 7);
  uint64_t h = len * kP64_1;
  for (int i = 0; i < 8; i += 2) {
    h += xp_mul_fold(acc[i] ^ xp_read64(s + 11 + 8 * i), acc[i + 1] ^ xp_read64(s + 11 + 8 * i + 8));
  }
  return xp_avalanche(h);
}

// RocksDB's Hash64(data, len) (seed 0) = GetSliceHash64.
inline uint64_t rocksdb_hash64_inline(const uint8_t* p, size_t len) {
  if (len <= 16) return xp_upto16(p, len);
  if (len <= 128) return xp_17to128(p, len);
  if (len <= 240) return xp_129to240(p, len);
  return xp_long(p, len);
}

}  // namespace
}  // namespace pqfast::hash
