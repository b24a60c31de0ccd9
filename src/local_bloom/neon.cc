// local_bloom kernels for AArch64 Advanced SIMD. NEON has no 32-bit lane
// permute like vpermd, but it has a 64-byte table lookup: the whole line is
// the table of TBL (four q registers) and each probe fetches its own byte,
// so probes are tested byte-addressed exactly as the scalar reference does.
// Probe hashes are seed * g^0..g^15 (vmul); a probe's 9-bit address is bits
// 23..31 of its hash: bits 26..31 pick the byte, bits 23..25 the bit. Up to 8
// probes (RocksDB's choice through 14 bits/key) take one 8-lane step; more
// take 16-lane steps, branch-free within a step.
// Insert, the batched loops and their prefetches are the shared LineKernels
// (scattered single-bit ORs: no SIMD form beats the word OR).
#include <arm_neon.h>

#include "local_bloom/line_kernels.h"

namespace pqfast::local_bloom {
namespace {

struct alignas(16) Powers16 {
  uint32_t p[16];
};
constexpr Powers16 make_powers() {
  Powers16 w{};
  for (int i = 0; i < 16; ++i) w.p[i] = probe_power(i);
  return w;
}
constexpr Powers16 kPowers = make_powers();

struct alignas(16) Iota16 {
  uint8_t b[16];
};
constexpr Iota16 kIota = {{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}};

inline uint8x16x4_t load_line(const uint8_t* line) {
  uint8x16x4_t t;
  t.val[0] = vld1q_u8(line);
  t.val[1] = vld1q_u8(line + 16);
  t.val[2] = vld1q_u8(line + 32);
  t.val[3] = vld1q_u8(line + 48);
  return t;
}

// Probes 0..7 from `seed`: true when every one below `active` (1..8) finds
// its bit set.
inline bool all_set_8(const uint8x16x4_t& line, uint32_t seed, int active) {
  const uint32x4_t s = vdupq_n_u32(seed);
  const uint32x4_t h0 = vmulq_u32(s, vld1q_u32(kPowers.p));
  const uint32x4_t h1 = vmulq_u32(s, vld1q_u32(kPowers.p + 4));
  // The high 16 bits of each hash, probes in order: address = top >> 7.
  const uint16x8_t top = vuzp2q_u16(vreinterpretq_u16_u32(h0), vreinterpretq_u16_u32(h1));
  const uint8x8_t byte = vshr_n_u8(vshrn_n_u16(top, 8), 2);               // hash >> 26
  const uint8x8_t bit = vand_u8(vshrn_n_u16(top, 7), vdup_n_u8(7));       // (hash >> 23) & 7
  const uint8x8_t mask = vshl_u8(vdup_n_u8(1), vreinterpret_s8_u8(bit));
  const uint8x8_t live = vclt_u8(vld1_u8(kIota.b), vdup_n_u8(static_cast<uint8_t>(active)));
  const uint8x8_t missing = vand_u8(vbic_u8(mask, vqtbl4_u8(line, byte)), live);
  return vget_lane_u64(vreinterpret_u64_u8(missing), 0) == 0;
}

// Probes 0..15 from `seed`, the same for 16 lanes (`active` 1..16).
inline bool all_set_16(const uint8x16x4_t& line, uint32_t seed, int active) {
  const uint32x4_t s = vdupq_n_u32(seed);
  const uint32x4_t h0 = vmulq_u32(s, vld1q_u32(kPowers.p));
  const uint32x4_t h1 = vmulq_u32(s, vld1q_u32(kPowers.p + 4));
  const uint32x4_t h2 = vmulq_u32(s, vld1q_u32(kPowers.p + 8));
  const uint32x4_t h3 = vmulq_u32(s, vld1q_u32(kPowers.p + 12));
  const uint16x8_t top_lo = vuzp2q_u16(vreinterpretq_u16_u32(h0), vreinterpretq_u16_u32(h1));
  const uint16x8_t top_hi = vuzp2q_u16(vreinterpretq_u16_u32(h2), vreinterpretq_u16_u32(h3));
  const uint8x16_t byte = vshrq_n_u8(vshrn_high_n_u16(vshrn_n_u16(top_lo, 8), top_hi, 8), 2);
  const uint8x16_t bit = vandq_u8(vshrn_high_n_u16(vshrn_n_u16(top_lo, 7), top_hi, 7), vdupq_n_u8(7));
  const uint8x16_t mask = vshlq_u8(vdupq_n_u8(1), vreinterpretq_s8_u8(bit));
  const uint8x16_t live = vcltq_u8(vld1q_u8(kIota.b), vdupq_n_u8(static_cast<uint8_t>(active)));
  const uint8x16_t missing = vandq_u8(vbicq_u8(mask, vqtbl4q_u8(line, byte)), live);
  return vmaxvq_u8(missing) == 0;
}

inline bool check_in_line(const uint8_t* line, int num_probes, uint32_t seed) {
  const uint8x16x4_t bytes = load_line(line);
  if (num_probes <= 8) return all_set_8(bytes, seed, num_probes);
  int remaining = num_probes;
  for (;;) {
    const bool all_set = all_set_16(bytes, seed, remaining);
    if (remaining <= 16 || !all_set) return all_set;
    seed *= probe_power(16);
    remaining -= 16;
  }
}

struct NeonLine {
  static bool check_in_line(const uint8_t* line, int num_probes, uint32_t seed) {
    return pqfast::local_bloom::check_in_line(line, num_probes, seed);
  }
};

}  // namespace

const LocalBloomKernels kNeonLocalBloomKernels = LineKernels<NeonLine>::table();

}  // namespace pqfast::local_bloom
