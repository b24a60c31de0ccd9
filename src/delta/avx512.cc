// DELTA_BINARY_PACKED kernels for AVX-512 (F/BW/VL/DQ + VBMI/VBMI2).
//
// Unpack: 8 values of width W fill exactly W bytes, so every group of 8
// (INT64) or 16 (INT32) values starts on a byte boundary and its values sit
// at fixed bit offsets. One unaligned 64-byte load, one vpermb that moves
// each value's bytes into its lane (constant indices per width), one
// variable shift and a mask; widths whose values straddle one byte more than
// a lane holds use VBMI2's funnel shift (vpshrdv) over a second vpermb.
// Prefix sum: log-step in-register scan (3 or 4 shifted adds) whose results
// do not depend on the previous vector; the carry chain between vectors is a
// single add of the broadcast vector total, off the scan's critical path.
// block32/block64 switch on each miniblock's width with the running value
// kept in a register.
//
// GCC 12 warns inside its own _mm512_undefined_* helpers when they are inlined here.
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

#include "delta/kernels.h"

namespace pqfast::delta {
namespace {

struct alignas(64) Table64 {
  uint8_t b[64];
};
struct alignas(64) Shifts64 {
  uint64_t q[8];
};
struct alignas(64) Shifts32 {
  uint32_t d[16];
};

// 64-bit lanes: lane j gets the 8 bytes from value j's first byte (+ extra).
constexpr Table64 lane64_bytes(int w, int extra) {
  Table64 t{};
  for (int j = 0; j < 8; ++j) {
    for (int k = 0; k < 8; ++k) t.b[8 * j + k] = static_cast<uint8_t>((first_byte(j, w) + extra + k) & 63);
  }
  return t;
}
constexpr Shifts64 lane64_shifts(int w) {
  Shifts64 s{};
  for (int j = 0; j < 8; ++j) s.q[j] = static_cast<uint64_t>(bit_shift(j, w));
  return s;
}
// 32-bit lanes over 16 values; `mod` 64 (one register) or 128 (two).
constexpr Table64 lane32_bytes(int w, int extra, int mod) {
  Table64 t{};
  for (int j = 0; j < 16; ++j) {
    for (int k = 0; k < 4; ++k) {
      t.b[4 * j + k] = static_cast<uint8_t>((first_byte(j, w) + extra + k) & (mod - 1));
    }
  }
  return t;
}
constexpr Shifts32 lane32_shifts(int w) {
  Shifts32 s{};
  for (int j = 0; j < 16; ++j) s.d[j] = static_cast<uint32_t>(bit_shift(j, w));
  return s;
}

inline __m512i load_table(const void* p) { return _mm512_load_si512(p); }

// Inclusive prefix sums within one register.
inline __m512i scan8x64(__m512i v) {
  v = _mm512_add_epi64(v, _mm512_bslli_epi128(v, 8));                            // pairs, in-lane
  v = _mm512_add_epi64(v, _mm512_maskz_permutex_epi64(0xCC, v, _MM_SHUFFLE(1, 1, 1, 1)));  // quads
  return _mm512_add_epi64(v, _mm512_maskz_permutexvar_epi64(0xF0, _mm512_set1_epi64(3), v));
}
inline __m512i scan16x32(__m512i v) {
  const __m512i z = _mm512_setzero_si512();
  v = _mm512_add_epi32(v, _mm512_alignr_epi32(v, z, 15));
  v = _mm512_add_epi32(v, _mm512_alignr_epi32(v, z, 14));
  v = _mm512_add_epi32(v, _mm512_alignr_epi32(v, z, 12));
  return _mm512_add_epi32(v, _mm512_alignr_epi32(v, z, 8));
}

// The ISA's part of VectorDeltaKernels (kernels.h): the run kernels below.
struct Avx512 {
  using V32 = __m512i;
  using V64 = __m512i;
  static V32 splat32(uint32_t x) { return _mm512_set1_epi32(static_cast<int>(x)); }
  static V64 splat64(uint64_t x) { return _mm512_set1_epi64(static_cast<long long>(x)); }
  static uint32_t lane0_32(V32 v) { return static_cast<uint32_t>(_mm_cvtsi128_si32(_mm512_castsi512_si128(v))); }
  static uint64_t lane0_64(V64 v) { return static_cast<uint64_t>(_mm_cvtsi128_si64(_mm512_castsi512_si128(v))); }
  static void store32(uint32_t* p, V32 v) { _mm512_storeu_si512(p, v); }
  static void store64(uint64_t* p, V64 v) { _mm512_storeu_si512(p, v); }
  static V32 add32(V32 a, V32 b) { return _mm512_add_epi32(a, b); }
  static V32 max32u(V32 a, V32 b) { return _mm512_max_epu32(a, b); }
  static V32 scan32(V32 v) { return scan16x32(v); }
  static V32 last32(V32 v) { return _mm512_permutexvar_epi32(_mm512_set1_epi32(15), v); }
  static uint32_t hmax32u(V32 v) { return _mm512_reduce_max_epu32(v); }
  static void rebuild(const uint8_t* page, const uint32_t* prefix, const uint32_t* suffix_at, size_t k,
                      const uint8_t* prev, uint8_t* out, size_t max_len);
  static void views(const uint8_t* base, uint32_t start, const uint32_t* ends, size_t k, int32_t buffer_index,
                    uint8_t* out);
  template <int W, class Out>
  static V32 run32(const uint8_t* in, size_t n, uint32_t min_delta, V32 md, V32 carry, Out& out);
  template <int W, class Out>
  static V64 run64(const uint8_t* in, size_t n, uint64_t min_delta, V64 md, V64 carry, Out& out);
};

// ---- INT64 ------------------------------------------------------------------

// Decodes n values (a multiple of 8) into out; `carry` holds the running
// value in every lane and is returned advanced past the last one.
template <int W, class Out>
inline Avx512::V64 Avx512::run64(const uint8_t* in, size_t n, uint64_t min_delta, __m512i md, __m512i carry, Out& out) {
  if constexpr (W == 0) {  // closed form: last + (i + 1) * min_delta
    const __m512i ramp = _mm512_setr_epi64(1, 2, 3, 4, 5, 6, 7, 8);
    __m512i v = _mm512_add_epi64(carry, _mm512_mullo_epi64(ramp, md));
    const __m512i step = _mm512_set1_epi64(static_cast<long long>(min_delta * 8));
    for (size_t i = 0; i < n; i += 8) {
      out.put(i, v);
      v = _mm512_add_epi64(v, step);
    }
    return _mm512_add_epi64(carry, _mm512_set1_epi64(static_cast<long long>(min_delta * n)));
  } else {
    static constexpr Table64 kLo = lane64_bytes(W, 0);
    static constexpr Table64 kHi = lane64_bytes(W, 8);
    static constexpr Shifts64 kShift = lane64_shifts(W);
    const __m512i lo_idx = load_table(kLo.b);
    const __m512i hi_idx = load_table(kHi.b);
    const __m512i shifts = load_table(kShift.q);
    const __m512i mask = _mm512_set1_epi64(static_cast<long long>(low_mask64(W)));
    const __m512i bcast_last = _mm512_set1_epi64(7);
    for (size_t i = 0; i < n; i += 8, in += W) {
      const __m512i bytes = _mm512_loadu_si512(in);
      __m512i d;
      if constexpr (W == 64) {
        d = bytes;
      } else if constexpr (W <= 57) {  // 7 + 57 bits fit one 8-byte lane
        d = _mm512_and_si512(_mm512_srlv_epi64(_mm512_permutexvar_epi8(lo_idx, bytes), shifts), mask);
      } else {  // values straddle 9 bytes: funnel-shift two lanes
        const __m512i lo = _mm512_permutexvar_epi8(lo_idx, bytes);
        const __m512i hi = _mm512_permutexvar_epi8(hi_idx, bytes);
        d = _mm512_and_si512(_mm512_shrdv_epi64(lo, hi, shifts), mask);
      }
      const __m512i s = scan8x64(_mm512_add_epi64(d, md));
      out.put(i, _mm512_add_epi64(s, carry));
      carry = _mm512_add_epi64(carry, _mm512_permutexvar_epi64(bcast_last, s));
    }
    return carry;
  }
}


// ---- INT32 ------------------------------------------------------------------

template <int W, class Out>
inline Avx512::V32 Avx512::run32(const uint8_t* in, size_t n, uint32_t min_delta, __m512i md, __m512i carry, Out& out) {
  if constexpr (W == 0) {
    const __m512i ramp = _mm512_setr_epi32(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
    __m512i v = _mm512_add_epi32(carry, _mm512_mullo_epi32(ramp, md));
    const __m512i step = _mm512_set1_epi32(static_cast<int>(min_delta * 16));
    for (size_t i = 0; i < n; i += 16) {
      out.put(i, v);
      v = _mm512_add_epi32(v, step);
    }
    return _mm512_add_epi32(carry, _mm512_set1_epi32(static_cast<int>(min_delta * static_cast<uint32_t>(n))));
  } else {
    // W <= 25: 4 bytes per lane; 26..31: + a fifth byte; 33..64: bytes from
    // two registers (16 values span 2W > 64 bytes), low 32 bits kept.
    constexpr int kMod = W > 32 ? 128 : 64;
    static constexpr Table64 kLo = lane32_bytes(W, 0, kMod);
    static constexpr Table64 kHi = lane32_bytes(W, 4, kMod);
    static constexpr Shifts32 kShift = lane32_shifts(W);
    const __m512i lo_idx = load_table(kLo.b);
    const __m512i hi_idx = load_table(kHi.b);
    const __m512i shifts = load_table(kShift.d);
    const __m512i mask = _mm512_set1_epi32(static_cast<int>(low_mask32(W)));
    const __m512i bcast_last = _mm512_set1_epi32(15);
    for (size_t i = 0; i < n; i += 16, in += 2 * W) {
      __m512i d;
      if constexpr (W == 32) {
        d = _mm512_loadu_si512(in);
      } else if constexpr (W <= 25) {
        const __m512i bytes = _mm512_loadu_si512(in);
        d = _mm512_and_si512(_mm512_srlv_epi32(_mm512_permutexvar_epi8(lo_idx, bytes), shifts), mask);
      } else if constexpr (W < 32) {
        const __m512i bytes = _mm512_loadu_si512(in);
        const __m512i lo = _mm512_permutexvar_epi8(lo_idx, bytes);
        const __m512i hi = _mm512_permutexvar_epi8(hi_idx, bytes);
        d = _mm512_and_si512(_mm512_shrdv_epi32(lo, hi, shifts), mask);
      } else {
        const __m512i a = _mm512_loadu_si512(in);
        const __m512i b = _mm512_loadu_si512(in + 64);
        const __m512i lo = _mm512_permutex2var_epi8(a, lo_idx, b);
        const __m512i hi = _mm512_permutex2var_epi8(a, hi_idx, b);
        d = _mm512_shrdv_epi32(lo, hi, shifts);
      }
      const __m512i s = scan16x32(_mm512_add_epi32(d, md));
      out.put(i, _mm512_add_epi32(s, carry));
      carry = _mm512_add_epi32(carry, _mm512_permutexvar_epi32(bcast_last, s));
    }
    return carry;
  }
}

// DELTA_BYTE_ARRAY values: the first 128 bytes of the value before stay in
// two registers (one, when no value of the run passes 64 bytes), so a
// prefix of up to 128 bytes never reads back what was just stored (which
// would wait for store forwarding). Value bytes 0..63 and 64..127 are each
// one blend under a mask of the prefix's bytes (the register; else the
// page, loaded from p bytes before the suffix) and one store; the second
// store only for values over 64 bytes. Longer values copy the rest 64
// bytes at a time.
void Avx512::rebuild(const uint8_t* page, const uint32_t* prefix, const uint32_t* suffix_at, size_t k,
                     const uint8_t* prev, uint8_t* out, size_t max_len) {
  __m512i pv0 = _mm512_loadu_si512(prev);
  if (max_len <= 64) {  // one register holds every value: half the work per value
    for (size_t i = 0; i < k; ++i) {
      const size_t p = prefix[i], at = suffix_at[i], len = p + (suffix_at[i + 1] - at);
      const __m512i v = _mm512_mask_blend_epi8(_bzhi_u64(~uint64_t{0}, static_cast<unsigned>(p)),
                                               _mm512_loadu_si512(page + at - p), pv0);
      _mm512_storeu_si512(out, v);
      pv0 = v;
      out += len;
    }
    return;
  }
  __m512i pv1 = _mm512_loadu_si512(prev + 64);
  for (size_t i = 0; i < k; ++i) {
    const size_t p = prefix[i], at = suffix_at[i], len = p + (suffix_at[i + 1] - at);
    if (p <= 128) {
      const uint8_t* from = page + at - p;  // value byte j is from[j] where j >= p
      const unsigned p0 = p < 64 ? static_cast<unsigned>(p) : 64u, p1 = static_cast<unsigned>(p) - p0;
      const __m512i v0 = _mm512_mask_blend_epi8(_bzhi_u64(~uint64_t{0}, p0), _mm512_loadu_si512(from), pv0);
      const __m512i v1 = _mm512_mask_blend_epi8(_bzhi_u64(~uint64_t{0}, p1), _mm512_loadu_si512(from + 64), pv1);
      _mm512_storeu_si512(out, v0);
      if (len > 64) _mm512_storeu_si512(out + 64, v1);
      for (size_t t = 128; t < len; t += 64) _mm512_storeu_si512(out + t, _mm512_loadu_si512(from + t));
      pv0 = v0;
      pv1 = v1;
    } else {  // the first 128 bytes are the value before's; the rest of the prefix from memory
      _mm512_storeu_si512(out, pv0);
      _mm512_storeu_si512(out + 64, pv1);
      for (size_t t = 128; t < p; t += 64) _mm512_storeu_si512(out + t, _mm512_loadu_si512(prev + t));
      for (size_t t = 0; t < len - p; t += 64) _mm512_storeu_si512(out + p + t, _mm512_loadu_si512(page + at + t));
    }
    prev = out;
    out += len;
  }
}

// Views, four per 512-bit register (one 128-bit lane each): the four
// values' first 16 bytes loaded into the lanes, every byte at or past its
// value's length zeroed under one compare against the lane's length
// (spread over its bytes by vpermb), the bytes shifted behind the length,
// and for values over 12 bytes the upper half replaced by the buffer index
// and offset under a mask (a table from the four comparisons). A view costs
// about five instructions instead of twenty.
alignas(64) constexpr uint8_t kLaneLengthBytes[64] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
    8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12};
alignas(64) constexpr uint8_t kByteInLane[64] = {
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
// Dword k of the register: lane k / 4 gets length (k % 4 == 0) or start (k % 4 == 3).
alignas(64) constexpr uint32_t kLaneDword[16] = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3};
// For each 4-bit set of "value over 12 bytes", the dwords 2 and 3 of those lanes.
constexpr uint16_t kRefDwords[16] = {0x0000, 0x000C, 0x00C0, 0x00CC, 0x0C00, 0x0C0C, 0x0CC0, 0x0CCC,
                                     0xC000, 0xC00C, 0xC0C0, 0xC0CC, 0xCC00, 0xCC0C, 0xCCC0, 0xCCCC};

void Avx512::views(const uint8_t* base, uint32_t start, const uint32_t* ends, size_t k, int32_t buffer_index,
                   uint8_t* out) {
  const __m512i lane_length_bytes = _mm512_load_si512(kLaneLengthBytes);
  const __m512i byte_in_lane = _mm512_load_si512(kByteInLane);
  const __m512i lane_dword = _mm512_load_si512(kLaneDword);
  const __m512i index = _mm512_set1_epi32(buffer_index);
  const __m128i sixteen = _mm_set1_epi32(16), twelve = _mm_set1_epi32(12);
  __m128i prev_ends = _mm_set1_epi32(static_cast<int>(start));
  size_t j = 0;
  for (; j + 4 <= k; j += 4, out += 64) {
    const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(ends + j));
    const __m128i starts = _mm_alignr_epi8(e, prev_ends, 12);  // [prev end, e0, e1, e2]
    prev_ends = e;
    const __m128i lens = _mm_sub_epi32(e, starts);
    const uint32_t s0 = j == 0 ? start : ends[j - 1];
    __m512i v = _mm512_castsi128_si512(_mm_loadu_si128(reinterpret_cast<const __m128i*>(base + s0)));
    v = _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(base + ends[j])), 1);
    v = _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(base + ends[j + 1])), 2);
    v = _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(base + ends[j + 2])), 3);
    // Each lane's length (at most 16) in every byte of the lane; keep the bytes below it.
    const __m512i clamped = _mm512_castsi128_si512(_mm_min_epu32(lens, sixteen));
    const __mmask64 keep = _mm512_cmplt_epu8_mask(byte_in_lane, _mm512_permutexvar_epi8(lane_length_bytes, clamped));
    __m512i view = _mm512_bslli_epi128(_mm512_maskz_mov_epi8(keep, v), 4);
    view = _mm512_or_si512(view, _mm512_maskz_permutexvar_epi32(0x1111, lane_dword, _mm512_castsi128_si512(lens)));
    // Over 12 bytes: dword 2 the buffer index, dword 3 the offset.
    const unsigned over = _mm_cmpgt_epu32_mask(lens, twelve);
    const __m512i ref = _mm512_mask_permutexvar_epi32(index, 0x8888, lane_dword, _mm512_castsi128_si512(starts));
    view = _mm512_mask_mov_epi32(view, kRefDwords[over], ref);
    _mm512_storeu_si512(out, view);
  }
  make_views_portable(base, j == 0 ? start : ends[j - 1], ends + j, k - j, buffer_index, out);
}

}  // namespace

const DeltaKernels kAvx512DeltaKernels = VectorDeltaKernels<Avx512>::table();

}  // namespace pqfast::delta
