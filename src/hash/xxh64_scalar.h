// Internal: XXH64 written from the xxHash specification (doc/xxhash_spec.md),
// plain and readable; every other hash path must equal it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace pqfast::hash {
namespace {  // internal linkage: safe to include from ISA translation units

constexpr uint64_t kPrime1 = 0x9E3779B185EBCA87ULL;
constexpr uint64_t kPrime2 = 0xC2B2AE3D27D4EB4FULL;
constexpr uint64_t kPrime3 = 0x165667B19E3779F9ULL;
constexpr uint64_t kPrime4 = 0x85EBCA77C2B2AE63ULL;
constexpr uint64_t kPrime5 = 0x27D4EB2F165667C5ULL;

inline uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

inline uint64_t load_u64_le(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;  // pqfast targets little-endian machines only (static_assert in hash.cc)
}
inline uint32_t load_u32_le(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

inline uint64_t xxh64_round(uint64_t acc, uint64_t lane) {
  acc += lane * kPrime2;
  acc = rotl64(acc, 31);
  return acc * kPrime1;
}

inline uint64_t xxh64_merge_round(uint64_t acc, uint64_t val) {
  acc ^= xxh64_round(0, val);
  return acc * kPrime1 + kPrime4;
}

inline uint64_t xxh64_avalanche(uint64_t h) {
  h ^= h >> 33;
  h *= kPrime2;
  h ^= h >> 29;
  h *= kPrime3;
  h ^= h >> 32;
  return h;
}

inline uint64_t xxh64_scalar(const uint8_t* p, size_t len, uint64_t seed) {
  const uint8_t* const end = p + len;
  uint64_t h;
  if (len >= 32) {
    uint64_t v1 = seed + kPrime1 + kPrime2;
    uint64_t v2 = seed + kPrime2;
    uint64_t v3 = seed;
    uint64_t v4 = seed - kPrime1;
    const uint8_t* const limit = end - 32;
    do {
      v1 = xxh64_round(v1, load_u64_le(p));
      v2 = xxh64_round(v2, load_u64_le(p + 8));
      v3 = xxh64_round(v3, load_u64_le(p + 16));
      v4 = xxh64_round(v4, load_u64_le(p + 24));
      p += 32;
    } while (p <= limit);
    h = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18);
    h = xxh64_merge_round(h, v1);
    h = xxh64_merge_round(h, v2);
    h = xxh64_merge_round(h, v3);
    h = xxh64_merge_round(h, v4);
  } else {
    h = seed + kPrime5;
  }
  h += static_cast<uint64_t>(len);
  while (end - p >= 8) {
    h ^= xxh64_round(0, load_u64_le(p));
    h = rotl64(h, 27) * kPrime1 + kPrime4;
    p += 8;
  }
  if (end - p >= 4) {
    h ^= static_cast<uint64_t>(load_u32_le(p)) * kPrime1;
    h = rotl64(h, 23) * kPrime2 + kPrime3;
    p += 4;
  }
  while (p < end) {
    h ^= static_cast<uint64_t>(*p) * kPrime5;
    h = rotl64(h, 11) * kPrime1;
    ++p;
  }
  return xxh64_avalanche(h);
}

// The 4- and 8-byte cases, unrolled: what the SIMD kernels vectorise.
inline uint64_t xxh64_fixed4_scalar(uint32_t v) {
  uint64_t h = kPrime5 + 4;
  h ^= static_cast<uint64_t>(v) * kPrime1;
  h = rotl64(h, 23) * kPrime2 + kPrime3;
  return xxh64_avalanche(h);
}

inline uint64_t xxh64_fixed8_scalar(uint64_t v) {
  uint64_t h = kPrime5 + 8;
  h ^= xxh64_round(0, v);
  h = rotl64(h, 27) * kPrime1 + kPrime4;
  return xxh64_avalanche(h);
}

}  // namespace
}  // namespace pqfast::hash
