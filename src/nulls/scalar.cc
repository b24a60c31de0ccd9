// The scalar reference of the nulls family.
#include <array>
#include <cstring>

#include "nulls/kernels.h"
#include "nulls/spread_scalar.h"

namespace pqfast::nulls {

void spread8_scalar(uint8_t* base, const uint8_t* validity, int64_t off, size_t count, size_t nonnull) {
  spread_scalar<8>(base, validity, off, count, nonnull);
}

void spread4_scalar(uint8_t* base, const uint8_t* validity, int64_t off, size_t count, size_t nonnull) {
  spread_scalar<4>(base, validity, off, count, nonnull);
}

namespace {

void spread_bits(const uint8_t* src, uint8_t* dst, const uint8_t* validity, int64_t off, size_t count) {
  size_t j = 0;
  for (size_t i = 0; i < count; ++i) {
    const int64_t k = off + static_cast<int64_t>(i);
    bool v = false;
    if (valid_bit(validity, k)) {
      v = valid_bit(src, static_cast<int64_t>(j));
      ++j;
    }
    if (v) dst[k >> 3] |= uint8_t(1u << (k & 7));
    else dst[k >> 3] &= uint8_t(~(1u << (k & 7)));
  }
}

// kCompress4[m << 4 | v]: the bits of nibble v where nibble m is set,
// packed from bit 0 (a software pext of 4 bits).
constexpr std::array<uint8_t, 256> make_compress4() {
  std::array<uint8_t, 256> t{};
  for (int m = 0; m < 16; ++m) {
    for (int v = 0; v < 16; ++v) {
      int out = 0, k = 0;
      for (int j = 0; j < 4; ++j) {
        if ((m >> j) & 1) out |= ((v >> j) & 1) << k++;
      }
      t[static_cast<size_t>(m << 4 | v)] = static_cast<uint8_t>(out);
    }
  }
  return t;
}
constexpr std::array<uint8_t, 256> kCompress4 = make_compress4();
constexpr uint8_t kBits4[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};

uint64_t extract_bits(uint64_t v, uint64_t mask) {
  uint64_t out = 0;
  int k = 0;
  for (int i = 0; i < 64 && (mask >> i) != 0; i += 4) {
    const unsigned m = static_cast<unsigned>(mask >> i) & 15;
    out |= uint64_t{kCompress4[m << 4 | (static_cast<unsigned>(v >> i) & 15)]} << k;
    k += kBits4[m];
  }
  return out;
}

// Every element written, the cursor advanced by its bit (no branch per
// element; one element past the last appended may be written).
template <size_t W>
size_t compress(const uint8_t* src, uint64_t bits, int count, uint8_t* dst) {
  size_t at = 0;
  for (int j = 0; j < count; ++j) {
    std::memcpy(dst + at * W, src + static_cast<size_t>(j) * W, W);
    at += static_cast<size_t>((bits >> j) & 1);
  }
  return at;
}

}  // namespace

const NullKernels kScalarNullKernels = {spread8_scalar, spread4_scalar, spread_bits, extract_bits, compress<8>,
                                        compress<4>};

}  // namespace pqfast::nulls
