// The reference: each value from a 64-bit window at its first byte (the
// window is assembled byte by byte near the end of the input).
#include <algorithm>
#include <cstring>

#include "unpack/kernels.h"

namespace pqfast::unpack {
namespace {

size_t unpack32(const uint8_t* src, size_t nbytes, int width, size_t groups, uint32_t* out) {
  const uint64_t mask = width >= 32 ? 0xffffffffull : (uint64_t{1} << width) - 1;
  const size_t w = static_cast<size_t>(width);
  for (size_t i = 0, n = groups * 8; i < n; ++i) {
    const size_t bit = i * w, byte = bit >> 3;
    uint64_t v = 0;
    if (byte + 8 <= nbytes) {
      std::memcpy(&v, src + byte, 8);
    } else {
      for (size_t k = 0; byte + k < nbytes && k < 8; ++k) v |= uint64_t{src[byte + k]} << (8 * k);
    }
    out[i] = static_cast<uint32_t>((v >> (bit & 7)) & mask);
  }
  return groups;
}

size_t unpack8(const uint8_t* src, size_t nbytes, int width, size_t groups, uint8_t* out) {
  const uint64_t mask = (uint64_t{1} << width) - 1;
  const size_t w = static_cast<size_t>(width);
  for (size_t g = 0; g < groups; ++g) {
    // The group's `width` bytes hold its 8 values, LSB first.
    uint64_t v = 0;
    for (size_t k = 0; k < w && g * w + k < nbytes; ++k) v |= uint64_t{src[g * w + k]} << (8 * k);
    for (size_t i = 0; i < 8; ++i) out[g * 8 + i] = static_cast<uint8_t>((v >> (i * w)) & mask);
  }
  return groups;
}

uint32_t max32(const uint32_t* v, size_t n) {
  uint32_t m = 0;
  for (size_t i = 0; i < n; ++i) m = v[i] > m ? v[i] : m;
  return m;
}

template <size_t E>
void gather(const uint8_t* dict, const uint32_t* idx, size_t n, uint8_t* out) {
  for (size_t i = 0; i < n; ++i) std::memcpy(out + i * E, dict + size_t{idx[i]} * E, E);
}

void gather4(const uint8_t* dict, const uint32_t* idx, size_t n, uint8_t* out) { gather<4>(dict, idx, n, out); }
void gather8(const uint8_t* dict, const uint32_t* idx, size_t n, uint8_t* out) { gather<8>(dict, idx, n, out); }

// The one-pass dictionary gather's reference: blocks of 1,024 indices
// unpacked, then gathered with the bound check folded in as a clamp (no read
// outside the dictionary, no second pass over the indices).
template <size_t E>
void gather_clamped(const uint8_t* dict, uint32_t last, const uint32_t* idx, size_t n, uint8_t* out,
                           uint32_t* over) {
  uint32_t any = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t v = idx[i];
    any |= static_cast<uint32_t>(v > last);
    std::memcpy(out + i * E, dict + size_t{std::min(v, last)} * E, E);
  }
  *over |= any;
}

size_t unpack_gather(const uint8_t* src, size_t nbytes, int width, size_t groups,
                     const uint8_t* dict, uint32_t dict_size, int elem, uint8_t* out, bool* bad) {
  if (dict_size == 0 || width < 1 || width > 32 || (elem != 1 && elem != 2 && elem != 4 && elem != 8 && elem != 16)) {
    return 0;
  }
  constexpr size_t kBlockGroups = 128;  // 1,024 indices: 4 KiB of L1
  alignas(64) uint32_t idx[kBlockGroups * 8];
  const uint32_t last = dict_size - 1;
  const size_t w = static_cast<size_t>(width), e = static_cast<size_t>(elem);
  uint32_t over = 0;
  size_t g = 0;
  while (g < groups) {
    const size_t want = std::min(kBlockGroups, groups - g);
    const size_t got = unpack32(src + g * w, nbytes - g * w, width, want, idx);
    if (got == 0) break;
    uint8_t* o = out + g * 8 * e;
    switch (e) {
      case 1: gather_clamped<1>(dict, last, idx, got * 8, o, &over); break;
      case 2: gather_clamped<2>(dict, last, idx, got * 8, o, &over); break;
      case 4: gather_clamped<4>(dict, last, idx, got * 8, o, &over); break;
      case 8: gather_clamped<8>(dict, last, idx, got * 8, o, &over); break;
      default: gather_clamped<16>(dict, last, idx, got * 8, o, &over); break;
    }
    g += got;
    if (got < want) break;
  }
  *bad = *bad || over != 0;
  return g;
}

}  // namespace

const UnpackKernels kScalarUnpackKernels{unpack32, unpack8, max32, gather4, gather8, unpack_gather};

}  // namespace pqfast::unpack
