// DELTA_BINARY_PACKED kernels for AVX2 (+ BMI2).
//
// Unpack: a group of 8 values of width W fills exactly W bytes. Each 128-bit
// lane loads the 16 bytes from its first value's byte and one vpshufb moves
// every value's bytes into place (constant controls per width), then a
// variable shift and a mask. INT64 widths 58..63 (9 bytes per value) funnel two
// scalar loads per value. INT32 uses 8 x 32-bit lanes up to 25
// bits and 64-bit extraction narrowed to 32 bits above (the wrap of DuckDB's
// 33..64-bit INT32 miniblocks). Prefix sum: in-register scan, then the
// carry between vectors is one add of the broadcast vector total.
#include <immintrin.h>

#include "delta/kernels.h"

namespace pqfast::delta {
namespace {

struct alignas(32) Control32 {
  uint8_t b[32];
};
struct alignas(32) Lanes4x64 {
  uint64_t q[4];
};
struct alignas(32) Lanes8x32 {
  uint32_t d[8];
};

// Values 4h..4h+3 of a group as 64-bit lanes; 128-bit lane L holds values
// j0 = 4h + 2L and j0 + 1 and loads from j0's first byte.
constexpr Control32 shuffle64(int w, int h) {
  Control32 c{};
  for (int lane = 0; lane < 2; ++lane) {
    const int j0 = 4 * h + 2 * lane;
    for (int v = 0; v < 2; ++v) {
      const int rel = first_byte(j0 + v, w) - first_byte(j0, w);
      for (int k = 0; k < 8; ++k) c.b[16 * lane + 8 * v + k] = static_cast<uint8_t>(rel + k > 15 ? 0x80 : rel + k);
    }
  }
  return c;
}
constexpr Lanes4x64 shifts64(int w, int h) {
  Lanes4x64 s{};
  for (int i = 0; i < 4; ++i) s.q[i] = static_cast<uint64_t>(bit_shift(4 * h + i, w));
  return s;
}
// Values 0..7 of a group as 32-bit lanes (w <= 25); lane L loads from value 4L's byte.
constexpr Control32 shuffle32(int w) {
  Control32 c{};
  for (int lane = 0; lane < 2; ++lane) {
    for (int v = 0; v < 4; ++v) {
      const int rel = first_byte(4 * lane + v, w) - first_byte(4 * lane, w);
      for (int k = 0; k < 4; ++k) c.b[16 * lane + 4 * v + k] = static_cast<uint8_t>(rel + k > 15 ? 0x80 : rel + k);
    }
  }
  return c;
}
constexpr Lanes8x32 shifts32(int w) {
  Lanes8x32 s{};
  for (int i = 0; i < 8; ++i) s.d[i] = static_cast<uint32_t>(bit_shift(i, w));
  return s;
}

inline __m256i load2x128(const uint8_t* lo, const uint8_t* hi) {
  return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(lo))),
                                 _mm_loadu_si128(reinterpret_cast<const __m128i*>(hi)), 1);
}
inline __m256i load256(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }

// The 4 values 4h..4h+3 of the group at p, as 64-bit lanes, masked to W bits.
template <int W, int H>
inline __m256i unpack4x64(const uint8_t* p) {
  if constexpr (W == 64) {
    return load256(p + 32 * H);
  } else if constexpr (W <= 57) {
    static constexpr Control32 kCtl = shuffle64(W, H);
    static constexpr Lanes4x64 kShift = shifts64(W, H);
    const __m256i bytes = load2x128(p + first_byte(4 * H, W), p + first_byte(4 * H + 2, W));
    const __m256i v = _mm256_srlv_epi64(_mm256_shuffle_epi8(bytes, load256(kCtl.b)), load256(kShift.q));
    return _mm256_and_si256(v, _mm256_set1_epi64x(static_cast<long long>(low_mask64(W))));
  } else {
    // 58..63 bits: a value can straddle 9 bytes. Funnel two scalar loads per
    // value (no gathers: slow on many cores, and microcoded after Intel's
    // GDS mitigation).
    // (Built with inserts, not stored and reloaded: four narrow stores do
    // not forward to one wide load.)
    auto value = [p](int j) {
      const uint8_t* q = p + first_byte(j, W);
      const int s = bit_shift(j, W);
      return static_cast<long long>(s == 0 ? load_u64(q) : (load_u64(q) >> s) | (uint64_t{q[8]} << (64 - s)));
    };
    const __m256i v = _mm256_setr_epi64x(value(4 * H), value(4 * H + 1), value(4 * H + 2), value(4 * H + 3));
    return _mm256_and_si256(v, _mm256_set1_epi64x(static_cast<long long>(low_mask64(W))));
  }
}

inline __m256i scan4x64(__m256i x) {
  x = _mm256_add_epi64(x, _mm256_slli_si256(x, 8));  // within each 128-bit lane
  const __m256i t = _mm256_permute4x64_epi64(x, _MM_SHUFFLE(1, 1, 1, 1));
  return _mm256_add_epi64(x, _mm256_blend_epi32(_mm256_setzero_si256(), t, 0xF0));
}
inline __m256i scan8x32(__m256i x) {
  x = _mm256_add_epi32(x, _mm256_slli_si256(x, 4));
  x = _mm256_add_epi32(x, _mm256_slli_si256(x, 8));
  const __m256i t = _mm256_shuffle_epi32(x, 0xFF);  // each lane's total, broadcast in-lane
  return _mm256_add_epi32(x, _mm256_permute2x128_si256(t, t, 0x08));  // [0, low lane's total]
}

// Low 32 bits of two 4 x 64-bit vectors, in order.
inline __m256i narrow(__m256i a, __m256i b) {
  const __m256 packed = _mm256_shuffle_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), _MM_SHUFFLE(2, 0, 2, 0));
  return _mm256_permute4x64_epi64(_mm256_castps_si256(packed), _MM_SHUFFLE(3, 1, 2, 0));
}

template <int W>
inline __m256i unpack8x32(const uint8_t* p) {
  if constexpr (W == 32) {
    return load256(p);
  } else if constexpr (W <= 25) {
    static constexpr Control32 kCtl = shuffle32(W);
    static constexpr Lanes8x32 kShift = shifts32(W);
    const __m256i bytes = load2x128(p, p + first_byte(4, W));
    const __m256i v = _mm256_srlv_epi32(_mm256_shuffle_epi8(bytes, load256(kCtl.b)), load256(kShift.d));
    return _mm256_and_si256(v, _mm256_set1_epi32(static_cast<int>(low_mask32(W))));
  } else {  // 26..31 and 33..64: extract 64-bit, keep the low 32 bits
    return narrow(unpack4x64<W, 0>(p), unpack4x64<W, 1>(p));
  }
}

// The ISA's part of VectorDeltaKernels (kernels.h): the run kernels below.
struct Avx2 {
  using V32 = __m256i;
  using V64 = __m256i;
  static V32 splat32(uint32_t x) { return _mm256_set1_epi32(static_cast<int>(x)); }
  static V64 splat64(uint64_t x) { return _mm256_set1_epi64x(static_cast<long long>(x)); }
  static uint32_t lane0_32(V32 v) { return static_cast<uint32_t>(_mm_cvtsi128_si32(_mm256_castsi256_si128(v))); }
  static uint64_t lane0_64(V64 v) { return static_cast<uint64_t>(_mm_cvtsi128_si64(_mm256_castsi256_si128(v))); }
  static void store32(uint32_t* p, V32 v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
  static void store64(uint64_t* p, V64 v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
  static V32 add32(V32 a, V32 b) { return _mm256_add_epi32(a, b); }
  static V32 max32u(V32 a, V32 b) { return _mm256_max_epu32(a, b); }
  static V32 scan32(V32 v) { return scan8x32(v); }
  static V32 last32(V32 v) { return _mm256_permutevar8x32_epi32(v, _mm256_set1_epi32(7)); }
  static uint32_t hmax32u(V32 v) {
    __m128i m = _mm_max_epu32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    m = _mm_max_epu32(m, _mm_shuffle_epi32(m, _MM_SHUFFLE(1, 0, 3, 2)));
    m = _mm_max_epu32(m, _mm_shuffle_epi32(m, _MM_SHUFFLE(2, 3, 0, 1)));
    return static_cast<uint32_t>(_mm_cvtsi128_si32(m));
  }
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

template <int W, class Out>
inline Avx2::V64 Avx2::run64(const uint8_t* in, size_t n, uint64_t min_delta, __m256i md, __m256i carry, Out& out) {
  if constexpr (W == 0) {
    auto times = [&](uint64_t k) { return static_cast<long long>(min_delta * k); };  // wraps, unsigned
    __m256i v = _mm256_add_epi64(carry, _mm256_setr_epi64x(times(1), times(2), times(3), times(4)));
    const __m256i step = _mm256_set1_epi64x(times(4));
    for (size_t i = 0; i < n; i += 4) {
      out.put(i, v);
      v = _mm256_add_epi64(v, step);
    }
    return _mm256_add_epi64(carry, _mm256_set1_epi64x(times(n)));
  } else if constexpr (W <= 25) {
    // Narrow path: unpack 8 values into 32-bit lanes and scan them there (8
    // values below 2^25 cannot overflow 32 bits), then widen and add the
    // min delta as a ramp (i + 1) * min_delta in 64 bits: fewer operations
    // than scanning two 4 x 64-bit vectors.
    // The running value is kept pre-added to the ramps: base_lo = carry +
    // (1..4) * min_delta, base_hi = carry + (5..8) * min_delta. The ramps are
    // built with adds and blends (no 64-bit multiply in AVX2), once per call.
    const __m256i md2 = _mm256_add_epi64(md, md);
    const __m256i md4 = _mm256_add_epi64(md2, md2);
    __m256i ramp = _mm256_blend_epi32(md, md2, 0x0C);
    ramp = _mm256_blend_epi32(ramp, _mm256_add_epi64(md2, md), 0x30);
    ramp = _mm256_blend_epi32(ramp, md4, 0xC0);
    __m256i base_lo = _mm256_add_epi64(carry, ramp);
    __m256i base_hi = _mm256_add_epi64(base_lo, md4);
    const __m256i step = _mm256_add_epi64(md4, md4);
    for (size_t i = 0; i < n; i += 8, in += W) {
      __m256i s = unpack8x32<W>(in);
      s = _mm256_add_epi32(s, _mm256_slli_si256(s, 4));  // scan within each 128-bit lane
      s = _mm256_add_epi32(s, _mm256_slli_si256(s, 8));
      const __m256i lo = _mm256_cvtepu32_epi64(_mm256_castsi256_si128(s));
      __m256i hi = _mm256_cvtepu32_epi64(_mm256_extracti128_si256(s, 1));
      hi = _mm256_add_epi64(hi, _mm256_permute4x64_epi64(lo, 0xFF));  // the low half's total, in 64 bits
      out.put(i, _mm256_add_epi64(lo, base_lo));
      out.put(i + 4, _mm256_add_epi64(hi, base_hi));
      const __m256i t = _mm256_add_epi64(step, _mm256_permute4x64_epi64(hi, 0xFF));
      base_lo = _mm256_add_epi64(base_lo, t);
      base_hi = _mm256_add_epi64(base_hi, t);
    }
    // Lane 0 of base_lo is carry + min_delta: recover the carry in every lane.
    return _mm256_sub_epi64(_mm256_permute4x64_epi64(base_lo, 0), md);
  } else {
    for (size_t i = 0; i < n; i += 8, in += W) {
      const __m256i s0 = scan4x64(_mm256_add_epi64(unpack4x64<W, 0>(in), md));
      const __m256i s1 = scan4x64(_mm256_add_epi64(unpack4x64<W, 1>(in), md));
      const __m256i t0 = _mm256_permute4x64_epi64(s0, 0xFF);
      const __m256i t1 = _mm256_permute4x64_epi64(s1, 0xFF);
      out.put(i, _mm256_add_epi64(s0, carry));
      const __m256i c1 = _mm256_add_epi64(carry, t0);
      out.put(i + 4, _mm256_add_epi64(s1, c1));
      carry = _mm256_add_epi64(carry, _mm256_add_epi64(t0, t1));
    }
    return carry;
  }
}


// ---- INT32 ------------------------------------------------------------------

template <int W, class Out>
inline Avx2::V32 Avx2::run32(const uint8_t* in, size_t n, uint32_t min_delta, __m256i md, __m256i carry, Out& out) {
  if constexpr (W == 0) {
    __m256i v = _mm256_add_epi32(carry, _mm256_mullo_epi32(_mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 8), md));
    const __m256i step = _mm256_set1_epi32(static_cast<int>(min_delta * 8));
    for (size_t i = 0; i < n; i += 8) {
      out.put(i, v);
      v = _mm256_add_epi32(v, step);
    }
    return _mm256_add_epi32(carry, _mm256_set1_epi32(static_cast<int>(min_delta * static_cast<uint32_t>(n))));
  } else {
    const __m256i bcast_last = _mm256_set1_epi32(7);
    for (size_t i = 0; i < n; i += 16, in += 2 * W) {
      const __m256i s0 = scan8x32(_mm256_add_epi32(unpack8x32<W>(in), md));
      const __m256i s1 = scan8x32(_mm256_add_epi32(unpack8x32<W>(in + W), md));
      const __m256i t0 = _mm256_permutevar8x32_epi32(s0, bcast_last);
      const __m256i t1 = _mm256_permutevar8x32_epi32(s1, bcast_last);
      out.put(i, _mm256_add_epi32(s0, carry));
      const __m256i c1 = _mm256_add_epi32(carry, t0);
      out.put(i + 8, _mm256_add_epi32(s1, c1));
      carry = _mm256_add_epi32(carry, _mm256_add_epi32(t0, t1));
    }
    return carry;
  }
}

// DELTA_BYTE_ARRAY values: the first 32 bytes of the value before stay in a
// register (64 in two, when a value of the run passes 32 bytes), so a
// prefix that fits never reads back what was just stored (which would wait
// for store forwarding): each 32 bytes of a value are one blend (bytes
// below the prefix length from the register, else the page loaded from p
// bytes before the suffix) and one store. Longer values copy the rest 32
// bytes at a time.
alignas(64) constexpr uint8_t kFirstBytes[64] = {
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

// Bytes below p (0..32) set.
inline __m256i first_bytes(size_t p) { return load256(kFirstBytes + 32 - p); }

void Avx2::rebuild(const uint8_t* page, const uint32_t* prefix, const uint32_t* suffix_at, size_t k,
                   const uint8_t* prev, uint8_t* out, size_t max_len) {
  __m256i pv0 = load256(prev);
  if (max_len <= 32) {  // one register holds every value
    for (size_t i = 0; i < k; ++i) {
      const size_t p = prefix[i], at = suffix_at[i], len = p + (suffix_at[i + 1] - at);
      const __m256i v = _mm256_blendv_epi8(load256(page + at - p), pv0, first_bytes(p));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), v);
      pv0 = v;
      out += len;
    }
    return;
  }
  __m256i pv1 = load256(prev + 32);
  for (size_t i = 0; i < k; ++i) {
    const size_t p = prefix[i], at = suffix_at[i], len = p + (suffix_at[i + 1] - at);
    if (p <= 64) {
      const uint8_t* from = page + at - p;  // value byte j is from[j] where j >= p
      const size_t p0 = p < 32 ? p : 32;
      const __m256i v0 = _mm256_blendv_epi8(load256(from), pv0, first_bytes(p0));
      const __m256i v1 = _mm256_blendv_epi8(load256(from + 32), pv1, first_bytes(p - p0));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), v0);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 32), v1);  // within the slack: no branch
      for (size_t t = 64; t < len; t += 32) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + t), load256(from + t));
      }
      pv0 = v0;
      pv1 = v1;
    } else {  // the first 64 bytes are the value before's; the rest of the prefix from memory
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), pv0);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 32), pv1);
      for (size_t t = 64; t < p; t += 32) _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + t), load256(prev + t));
      for (size_t t = 0; t < len - p; t += 32) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + p + t), load256(page + at + t));
      }
    }
    prev = out;
    out += len;
  }
}

// Views: the value's first 16 bytes, bytes at or past its length zeroed
// (a compare against 0..15), shifted behind the length; a value over 12
// bytes then takes the buffer index and offset in its upper half (a blend,
// not a branch: lengths of mixed data would mispredict).
void Avx2::views(const uint8_t* base, uint32_t start, const uint32_t* ends, size_t k, int32_t buffer_index,
                 uint8_t* out) {
  const __m128i iota = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  for (size_t j = 0; j < k; ++j, out += 16) {
    const uint32_t len = ends[j] - start;
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(base + start));
    const __m128i keep = _mm_cmpgt_epi8(_mm_set1_epi8(static_cast<char>(len < 16 ? len : 16)), iota);
    const __m128i inl = _mm_or_si128(_mm_slli_si128(_mm_and_si128(bytes, keep), 4),
                                     _mm_cvtsi32_si128(static_cast<int>(len)));
    const __m128i ref = _mm_insert_epi64(
        inl, static_cast<long long>(static_cast<uint32_t>(buffer_index) | (uint64_t{start} << 32)), 1);
    const __m128i v = _mm_blendv_epi8(inl, ref, _mm_set1_epi8(static_cast<char>(len > 12 ? -1 : 0)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), v);
    start = ends[j];
  }
}

}  // namespace

const DeltaKernels kAvx2DeltaKernels = VectorDeltaKernels<Avx2>::table();

}  // namespace pqfast::delta
