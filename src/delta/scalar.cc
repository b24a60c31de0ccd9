// DELTA_BINARY_PACKED kernels in portable C++: the reference every SIMD
// implementation must equal, written from the spec. Values are read bit by
// bit-range, LSB-first, touching only the bytes that hold them.
#include "delta/kernels.h"

namespace pqfast::delta {
namespace {

// Bits [bit, bit + w) of an LSB-first bit stream, 1 <= w <= 64.
inline uint64_t extract_bits(const uint8_t* in, uint64_t bit, int w) {
  size_t byte = static_cast<size_t>(bit >> 3);
  const int shift = static_cast<int>(bit & 7);
  uint64_t v = in[byte++] >> shift;
  for (int got = 8 - shift; got < w; got += 8) v |= uint64_t{in[byte++]} << got;
  return v & low_mask64(w);
}

template <int W>
uint32_t miniblock32(const uint8_t* in, size_t n, uint32_t min_delta, uint32_t last, uint32_t* out) {
  for (size_t i = 0; i < n; ++i) {
    // Widths above 32 (DuckDB writes them for INT32) wrap: keep the low 32 bits.
    const uint32_t packed = W == 0 ? 0 : static_cast<uint32_t>(extract_bits(in, uint64_t{i} * W, W));
    last += packed + min_delta;
    out[i] = last;
  }
  return last;
}

template <int W>
uint64_t miniblock64(const uint8_t* in, size_t n, uint64_t min_delta, uint64_t last, uint64_t* out) {
  for (size_t i = 0; i < n; ++i) {
    const uint64_t packed = W == 0 ? 0 : extract_bits(in, uint64_t{i} * W, W);
    last += packed + min_delta;
    out[i] = last;
  }
  return last;
}

// Lengths to offsets: the same lengths as miniblock32, summed again.
template <int W>
void offsets32(const uint8_t* in, size_t n, uint32_t min_delta, OffsetCarry* carry, uint32_t* out) {
  uint32_t length = carry->length, offset = carry->offset, max_length = carry->max_length;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t packed = W == 0 ? 0 : static_cast<uint32_t>(extract_bits(in, uint64_t{i} * W, W));
    length += packed + min_delta;
    offset += length;
    max_length = length > max_length ? length : max_length;
    out[i] = offset;
  }
  *carry = OffsetCarry{length, offset, max_length};
}

#define PQFAST_DELTA_SCALAR32(w) miniblock32<w>,
#define PQFAST_DELTA_SCALAR64(w) miniblock64<w>,
constexpr Miniblock32Fn kMiniblock32[] = {PQFAST_DELTA_WIDTHS(PQFAST_DELTA_SCALAR32)};
constexpr Miniblock64Fn kMiniblock64[] = {PQFAST_DELTA_WIDTHS(PQFAST_DELTA_SCALAR64)};

uint32_t block32(const uint8_t* in, const uint8_t* widths, uint32_t m, uint32_t vpm, uint32_t min_delta,
                 uint32_t last, uint32_t* out) {
  for (uint32_t i = 0; i < m; ++i, out += vpm) {
    last = kMiniblock32[widths[i]](in, vpm, min_delta, last, out);
    in += size_t{vpm} * widths[i] / 8;
  }
  return last;
}

uint64_t block64(const uint8_t* in, const uint8_t* widths, uint32_t m, uint32_t vpm, uint64_t min_delta,
                 uint64_t last, uint64_t* out) {
  for (uint32_t i = 0; i < m; ++i, out += vpm) {
    last = kMiniblock64[widths[i]](in, vpm, min_delta, last, out);
    in += size_t{vpm} * widths[i] / 8;
  }
  return last;
}

#define PQFAST_DELTA_SCALAR_OFF32(w) offsets32<w>,
constexpr Offsets32Fn kOffsets32[] = {PQFAST_DELTA_WIDTHS(PQFAST_DELTA_SCALAR_OFF32)};

void block_offsets32(const uint8_t* in, const uint8_t* widths, uint32_t m, uint32_t vpm, uint32_t min_delta,
                     OffsetCarry* carry, uint32_t* out) {
  for (uint32_t i = 0; i < m; ++i, out += vpm) {
    kOffsets32[widths[i]](in, vpm, min_delta, carry, out);
    in += size_t{vpm} * widths[i] / 8;
  }
}

// DELTA_BYTE_ARRAY values with exact copies: the reference.
void rebuild(const uint8_t* page, const uint32_t* prefix, const uint32_t* suffix_at, size_t k, const uint8_t* prev,
             uint8_t* out, size_t /*max_len*/) {
  for (size_t i = 0; i < k; ++i) {
    const size_t p = prefix[i], s = suffix_at[i + 1] - suffix_at[i];
    std::memmove(out, prev, p);
    std::memcpy(out + p, page + suffix_at[i], s);
    prev = out;
    out += p + s;
  }
}

}  // namespace

const DeltaKernels kScalarDeltaKernels = {
    {PQFAST_DELTA_WIDTHS(PQFAST_DELTA_SCALAR32)},
    {PQFAST_DELTA_WIDTHS(PQFAST_DELTA_SCALAR64)},
    block32,
    block64,
    {PQFAST_DELTA_WIDTHS(PQFAST_DELTA_SCALAR_OFF32)},
    block_offsets32,
    rebuild,
    make_views_portable,
};
#undef PQFAST_DELTA_SCALAR32
#undef PQFAST_DELTA_SCALAR64
#undef PQFAST_DELTA_SCALAR_OFF32

}  // namespace pqfast::delta
