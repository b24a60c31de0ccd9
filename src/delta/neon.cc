// DELTA_BINARY_PACKED kernels for AArch64 Advanced SIMD: the AVX2 scheme in
// 128-bit registers.
//
// Unpack: a group of 8 values of width W fills exactly W bytes, so every
// value's first byte and bit offset within a group are constants of W. A
// vector of 2 x 64-bit (or 4 x 32-bit) lanes loads the 16 bytes from its
// first value's byte, one TBL moves each value's bytes into its lane
// (constant controls per width), then USHL by a negative count (NEON's
// per-lane variable right shift) and a mask. Widths that are whole bytes
// need neither: the control zeroes the bytes above the value.
// INT64 widths 58..63 (a value can straddle 9 bytes, two values more than
// 16): each value gets its own 16-byte load; the low and high 8 bytes are
// shifted right by s and left by 64 - s (USHL gives 0 at 64) and ORed.
// INT32 takes 4 x 32-bit lanes up to 25 bits (4 values then fit in a 16-byte
// window), and 64-bit extraction narrowed to the low 32 bits above (26..31,
// and DuckDB's 33..64-bit INT32 miniblocks, which wrap).
// Prefix sum: an in-register scan by EXT-shifted adds, each vector's total
// broadcast by DUP; within a group of 8 values the totals are summed off the
// critical path, so the running value takes one add per group.
// (INT64 narrow widths could scan in 32-bit lanes and widen, as AVX2 does
// up to 25 bits, for somewhat fewer operations per value; not done while
// there is no AArch64 hardware here to measure whether it pays.)
#include <arm_neon.h>

#include "delta/kernels.h"

namespace pqfast::delta {
namespace {

struct alignas(16) Control16 {
  uint8_t b[16];
};
struct alignas(16) Shifts2x64 {
  int64_t q[2];
};
struct alignas(16) Shifts4x32 {
  int32_t d[4];
};

// Lane v of `lanes` lanes of `bytes` bytes each takes value j0 + v, loaded
// from j0's first byte; bytes at or above the value's top are zeroed when the
// width is whole bytes (no mask needed then).
constexpr Control16 control(int w, int j0, int lanes, int bytes) {
  Control16 c{};
  for (int v = 0; v < lanes; ++v) {
    const int rel = first_byte(j0 + v, w) - first_byte(j0, w);
    for (int k = 0; k < bytes; ++k) {
      const bool above = w % 8 == 0 && k >= w / 8;
      c.b[bytes * v + k] = static_cast<uint8_t>(above || rel + k > 15 ? 0xFF : rel + k);
    }
  }
  return c;
}
constexpr Shifts2x64 right_shifts64(int w, int j0) {
  return {{-bit_shift(j0, w), -bit_shift(j0 + 1, w)}};
}
constexpr Shifts2x64 left_shifts64(int w, int j0) {
  return {{64 - bit_shift(j0, w), 64 - bit_shift(j0 + 1, w)}};
}
constexpr Shifts4x32 right_shifts32(int w, int j0) {
  return {{-bit_shift(j0, w), -bit_shift(j0 + 1, w), -bit_shift(j0 + 2, w), -bit_shift(j0 + 3, w)}};
}

// Values 2H and 2H + 1 of the 8-value group at p, as 64-bit lanes. Masked
// to W bits unless the caller keeps only the low 32 bits of a W >= 32 value.
template <int W, int H, bool kMasked = true>
inline uint64x2_t unpack2x64(const uint8_t* p) {
  static_assert(W >= 1 && W <= 64 && H >= 0 && H < 4);
  uint64x2_t v;
  if constexpr (W == 64) {
    return vreinterpretq_u64_u8(vld1q_u8(p + 16 * H));
  } else if constexpr (W <= 57) {
    static constexpr Control16 kCtl = control(W, 2 * H, 2, 8);
    v = vreinterpretq_u64_u8(vqtbl1q_u8(vld1q_u8(p + first_byte(2 * H, W)), vld1q_u8(kCtl.b)));
    if constexpr (W % 8 == 0) return v;  // the control already dropped the bytes above
    static constexpr Shifts2x64 kRight = right_shifts64(W, 2 * H);
    v = vshlq_u64(v, vld1q_s64(kRight.q));
  } else {
    static constexpr Shifts2x64 kRight = right_shifts64(W, 2 * H);
    static constexpr Shifts2x64 kLeft = left_shifts64(W, 2 * H);
    const uint64x2_t a = vreinterpretq_u64_u8(vld1q_u8(p + first_byte(2 * H, W)));
    const uint64x2_t b = vreinterpretq_u64_u8(vld1q_u8(p + first_byte(2 * H + 1, W)));
    const uint64x2_t lo = vshlq_u64(vzip1q_u64(a, b), vld1q_s64(kRight.q));  // bytes 0..7 >> s
    const uint64x2_t hi = vshlq_u64(vzip2q_u64(a, b), vld1q_s64(kLeft.q));   // bytes 8..15 << (64 - s)
    v = vorrq_u64(lo, hi);
  }
  if constexpr (kMasked) v = vandq_u64(v, vdupq_n_u64(low_mask64(W)));
  return v;
}

// Values 4Q..4Q + 3 of the 8-value group at p, as 32-bit lanes (the low 32
// bits for W > 32).
template <int W, int Q>
inline uint32x4_t unpack4x32(const uint8_t* p) {
  static_assert(W >= 1 && W <= 64 && Q >= 0 && Q < 2);
  if constexpr (W == 32) {
    return vreinterpretq_u32_u8(vld1q_u8(p + 16 * Q));
  } else if constexpr (W <= 25) {
    static constexpr Control16 kCtl = control(W, 4 * Q, 4, 4);
    const uint32x4_t v = vreinterpretq_u32_u8(vqtbl1q_u8(vld1q_u8(p + first_byte(4 * Q, W)), vld1q_u8(kCtl.b)));
    if constexpr (W % 8 == 0) return v;
    static constexpr Shifts4x32 kRight = right_shifts32(W, 4 * Q);
    return vandq_u32(vshlq_u32(v, vld1q_s32(kRight.d)), vdupq_n_u32(low_mask32(W)));
  } else {
    // 26..31 need up to 5 bytes each; above 32 only the low 32 bits count.
    constexpr bool kMasked = W < 32;
    const uint64x2_t a = unpack2x64<W, 2 * Q, kMasked>(p);
    const uint64x2_t b = unpack2x64<W, 2 * Q + 1, kMasked>(p);
    return vuzp1q_u32(vreinterpretq_u32_u64(a), vreinterpretq_u32_u64(b));  // the low halves, in order
  }
}

// Inclusive prefix sums within a register.
inline uint64x2_t scan2x64(uint64x2_t x) { return vaddq_u64(x, vextq_u64(vdupq_n_u64(0), x, 1)); }
inline uint32x4_t scan4x32(uint32x4_t x) {
  const uint32x4_t zero = vdupq_n_u32(0);
  x = vaddq_u32(x, vextq_u32(zero, x, 3));  // + [0, x0, x1, x2]
  return vaddq_u32(x, vextq_u32(zero, x, 2));  // + [0, 0, y0, y1]
}

// The ISA's part of VectorDeltaKernels (kernels.h): the run kernels below.
struct Neon {
  using V32 = uint32x4_t;
  using V64 = uint64x2_t;
  static V32 splat32(uint32_t x) { return vdupq_n_u32(x); }
  static V64 splat64(uint64_t x) { return vdupq_n_u64(x); }
  static uint32_t lane0_32(V32 v) { return vgetq_lane_u32(v, 0); }
  static uint64_t lane0_64(V64 v) { return vgetq_lane_u64(v, 0); }
  static void store32(uint32_t* p, V32 v) { vst1q_u32(p, v); }
  static void store64(uint64_t* p, V64 v) { vst1q_u64(p, v); }
  static V32 add32(V32 a, V32 b) { return vaddq_u32(a, b); }
  static V32 max32u(V32 a, V32 b) { return vmaxq_u32(a, b); }
  static V32 scan32(V32 v) { return scan4x32(v); }
  static V32 last32(V32 v) { return vdupq_laneq_u32(v, 3); }
  static uint32_t hmax32u(V32 v) { return vmaxvq_u32(v); }
  static void rebuild(const uint8_t* page, const uint32_t* prefix, const uint32_t* suffix_at, size_t k,
                      const uint8_t* prev, uint8_t* out, size_t /*max_len*/) {
    rebuild_values_wide(page, prefix, suffix_at, k, prev, out);
  }
  static void views(const uint8_t* base, uint32_t start, const uint32_t* ends, size_t k, int32_t buffer_index,
                    uint8_t* out) {
    make_views_portable(base, start, ends, k, buffer_index, out);
  }
  template <int W, class Out>
  static V32 run32(const uint8_t* in, size_t n, uint32_t min_delta, V32 md, V32 carry, Out& out);
  template <int W, class Out>
  static V64 run64(const uint8_t* in, size_t n, uint64_t min_delta, V64 md, V64 carry, Out& out);
};

// ---- INT64 ------------------------------------------------------------------

// Decodes n values (a multiple of 32); `carry` holds the running value in
// both lanes and is returned so.
template <int W, class Out>
inline Neon::V64 Neon::run64(const uint8_t* in, size_t n, uint64_t min_delta, uint64x2_t md, uint64x2_t carry,
                        Out& out) {
  if constexpr (W == 0) {
    // Every delta is min_delta: out[i] = last + (i + 1) * min_delta (wrapping, unsigned).
    const uint64_t ramp[2] = {min_delta, min_delta * 2};
    uint64x2_t v = vaddq_u64(carry, vld1q_u64(ramp));
    const uint64x2_t step = vdupq_n_u64(min_delta * 2);
    for (size_t i = 0; i < n; i += 2) {
      out.put(i, v);
      v = vaddq_u64(v, step);
    }
    return vaddq_u64(carry, vdupq_n_u64(min_delta * n));
  } else {
    for (size_t i = 0; i < n; i += 8, in += W) {
      const uint64x2_t s0 = scan2x64(vaddq_u64(unpack2x64<W, 0>(in), md));
      const uint64x2_t s1 = scan2x64(vaddq_u64(unpack2x64<W, 1>(in), md));
      const uint64x2_t s2 = scan2x64(vaddq_u64(unpack2x64<W, 2>(in), md));
      const uint64x2_t s3 = scan2x64(vaddq_u64(unpack2x64<W, 3>(in), md));
      const uint64x2_t t0 = vdupq_laneq_u64(s0, 1);
      const uint64x2_t t01 = vaddq_u64(t0, vdupq_laneq_u64(s1, 1));
      const uint64x2_t t012 = vaddq_u64(t01, vdupq_laneq_u64(s2, 1));
      out.put(i, vaddq_u64(carry, s0));
      out.put(i + 2, vaddq_u64(carry, vaddq_u64(s1, t0)));
      out.put(i + 4, vaddq_u64(carry, vaddq_u64(s2, t01)));
      out.put(i + 6, vaddq_u64(carry, vaddq_u64(s3, t012)));
      carry = vaddq_u64(carry, vaddq_u64(t012, vdupq_laneq_u64(s3, 1)));
    }
    return carry;
  }
}


// ---- INT32 ------------------------------------------------------------------

template <int W, class Out>
inline Neon::V32 Neon::run32(const uint8_t* in, size_t n, uint32_t min_delta, uint32x4_t md, uint32x4_t carry,
                        Out& out) {
  if constexpr (W == 0) {
    static constexpr uint32_t kOneToFour[4] = {1, 2, 3, 4};
    uint32x4_t v = vaddq_u32(carry, vmulq_u32(vld1q_u32(kOneToFour), md));
    const uint32x4_t step = vdupq_n_u32(min_delta * 4);
    for (size_t i = 0; i < n; i += 4) {
      out.put(i, v);
      v = vaddq_u32(v, step);
    }
    return vaddq_u32(carry, vdupq_n_u32(min_delta * static_cast<uint32_t>(n)));
  } else {
    for (size_t i = 0; i < n; i += 8, in += W) {
      const uint32x4_t s0 = scan4x32(vaddq_u32(unpack4x32<W, 0>(in), md));
      const uint32x4_t s1 = scan4x32(vaddq_u32(unpack4x32<W, 1>(in), md));
      const uint32x4_t t0 = vdupq_laneq_u32(s0, 3);
      out.put(i, vaddq_u32(carry, s0));
      out.put(i + 4, vaddq_u32(carry, vaddq_u32(s1, t0)));
      carry = vaddq_u32(carry, vaddq_u32(t0, vdupq_laneq_u32(s1, 3)));
    }
    return carry;
  }
}

}  // namespace

const DeltaKernels kNeonDeltaKernels = VectorDeltaKernels<Neon>::table();

}  // namespace pqfast::delta
