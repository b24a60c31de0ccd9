// SBBF kernels for AVX-512. The batched probe takes eight hashes per step:
// their block offsets come from one vpmuludq (fastrange) over a register of
// hashes, and two blocks share a 512-bit register, so four multiplies, four
// variable shifts and four tests cover eight probes. Value -> verdict calls
// hash eight values per register with vpmullq (xxh64_avx512.h) into a ring
// on the stack and run the same eight-wide probe over it.
#include <immintrin.h>

#include <cstring>

#include "hash/xxh64_avx512.h"
#include "sbbf/insert_x86.h"
#include "sbbf/kernels.h"

namespace pqfast::sbbf {
namespace {

inline __m256i make_mask256(uint32_t key) {
  const __m256i salt = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kSbbfSalt));
  const __m256i prod = _mm256_mullo_epi32(_mm256_set1_epi32(static_cast<int>(key)), salt);
  return _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_srli_epi32(prod, 27));
}

inline bool test_block(const uint32_t* block, uint32_t key) {
  const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block));
  return _mm256_testc_si256(b, make_mask256(key));
}

inline void insert_block(uint32_t* block, uint32_t key) {
  auto* p = reinterpret_cast<__m256i*>(block);
  _mm256_storeu_si256(p, _mm256_or_si256(_mm256_loadu_si256(p), make_mask256(key)));
}

struct Avx512Block {
  static bool test(const uint32_t* block, uint32_t key) { return test_block(block, key); }
  static void insert(uint32_t* block, uint32_t key) { insert_block(block, key); }
};
// The calls this ISA does not specialise come from the shared template.
using Base = BlockKernels<Avx512Block>;
using Test = Base::Test;

// ---- eight probes per step ------------------------------------------------

// Byte offsets of the blocks of eight hashes: (((h >> 32) * nb) >> 32) * 32.
inline __m512i block_offsets8(__m512i h, __m512i nb) {
  return _mm512_slli_epi64(_mm512_srli_epi64(_mm512_mul_epu32(_mm512_srli_epi64(h, 32), nb), 32), 5);
}

alignas(64) constexpr uint32_t kSalt2[16] = {
    kSbbfSalt[0], kSbbfSalt[1], kSbbfSalt[2], kSbbfSalt[3], kSbbfSalt[4], kSbbfSalt[5],
    kSbbfSalt[6], kSbbfSalt[7], kSbbfSalt[0], kSbbfSalt[1], kSbbfSalt[2], kSbbfSalt[3],
    kSbbfSalt[4], kSbbfSalt[5], kSbbfSalt[6], kSbbfSalt[7]};

struct Probe8 {
  const uint8_t* base;
  __m512i nb;
  __m512i salt2;  // the salts twice: lanes 0-7 and 8-15

  explicit Probe8(const uint32_t* words, uint32_t num_blocks)
      : base(reinterpret_cast<const uint8_t*>(words)),
        nb(_mm512_set1_epi64(num_blocks)),
        salt2(_mm512_loadu_si512(kSalt2)) {}

  void offsets(__m512i h, uint64_t* off) const { _mm512_store_si512(off, block_offsets8(h, nb)); }

  // Eight verdict bytes (0 or 1), hash j in byte j. `ahead` (nullptr: none)
  // holds eight block offsets to prefetch, issued two per pair so the
  // requests spread over the step instead of leaving in a burst.
  uint64_t verdicts(const uint64_t* hp, const uint64_t* ahead) const {
    alignas(64) uint64_t off[8];
    _mm512_store_si512(off, block_offsets8(_mm512_loadu_si512(hp), nb));
    const uint32_t* kp = reinterpret_cast<const uint32_t*>(hp);  // key of hash j: dword 2j
    __mmask16 m[4];  // per pair: lanes whose mask bit is clear in the block
    for (int p = 0; p < 4; ++p) {
      if (ahead != nullptr) {
        prefetch_read(base + ahead[2 * p]);
        prefetch_read(base + ahead[2 * p + 1]);
      }
      // Broadcast loads (load ports, no shuffle): key 2p in lanes 0-7, 2p+1 in 8-15.
      const __m512i keys = _mm512_mask_set1_epi32(_mm512_set1_epi32(static_cast<int>(kp[4 * p])),
                                                  __mmask16{0xFF00}, static_cast<int>(kp[4 * p + 2]));
      const __m512i mask = _mm512_sllv_epi32(
          _mm512_set1_epi32(1), _mm512_srli_epi32(_mm512_mullo_epi32(keys, salt2), 27));
      const __m512i blocks = _mm512_inserti64x4(
          _mm512_zextsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(base + off[2 * p]))),
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(base + off[2 * p + 1])), 1);
      const __m512i clear = _mm512_andnot_si512(blocks, mask);
      m[p] = _mm512_test_epi32_mask(clear, clear);
    }
    // 8 bits per hash, hash j in byte j.
    const uint64_t missing = _cvtmask64_u64(
        _mm512_kunpackd(_mm512_kunpackw(m[3], m[2]), _mm512_kunpackw(m[1], m[0])));
    // A hash is present when its byte of `missing` is zero.
    const __m128i present = _mm_cmpeq_epi8(_mm_cvtsi64_si128(static_cast<long long>(missing)),
                                            _mm_setzero_si128());
    return static_cast<uint64_t>(_mm_cvtsi128_si64(_mm_and_si128(present, _mm_set1_epi8(1))));
  }
};

// Probes hashes[0, n) with the eight-wide step, prefetching `distance`
// (rounded up to a multiple of 8) ahead; hashes[n, n + distance) may be read
// for prefetching only when `readable_ahead` covers them.
inline void probe_run(const Probe8& probe, const uint32_t* words, uint32_t num_blocks,
                      const uint64_t* hashes, size_t n, size_t readable_ahead, uint8_t* out,
                      size_t distance) {
  const size_t d = (distance + 7) & ~size_t{7};
  const size_t limit = n + readable_ahead;  // hashes readable for prefetching
  size_t i = 0;
  alignas(64) uint64_t ahead[8];
  for (; i + 8 <= n; i += 8) {
    const uint64_t* pf = nullptr;
    if (d != 0) {
      if (i + d + 8 <= limit) {
        probe.offsets(_mm512_loadu_si512(hashes + i + d), ahead);
        pf = ahead;
      } else {
        for (size_t j = i + d; j < i + d + 8 && j < limit; ++j) {
          prefetch_read(block_ptr(words, num_blocks, hashes[j]));
        }
      }
    }
    const uint64_t v = probe.verdicts(hashes + i, pf);
    std::memcpy(out + i, &v, 8);
  }
  for (; i < n; ++i) out[i] = test_block(block_ptr(words, num_blocks, hashes[i]), block_key(hashes[i]));
}

void check_hashes(const uint32_t* words, uint32_t num_blocks, const uint64_t* hashes, size_t n,
                  uint8_t* out, size_t distance) {
  const Probe8 probe(words, num_blocks);
  if (distance != 0) {
    const size_t d = (distance + 7) & ~size_t{7};
    for (size_t j = 0; j < d && j < n; ++j) prefetch_read(block_ptr(words, num_blocks, hashes[j]));
  }
  probe_run(probe, words, num_blocks, hashes, n, 0, out, distance);
}

// ---- value -> verdict -------------------------------------------------------

void hash8_chunk(const uint8_t* v, size_t m, uint64_t* h) {
  size_t i = 0;
  for (; i + 8 <= m; i += 8) _mm512_storeu_si512(h + i, hash::xxh64_fixed8_x8(_mm512_loadu_si512(v + 8 * i)));
  if (i < m) {
    const __mmask8 k = static_cast<__mmask8>((1u << (m - i)) - 1u);
    _mm512_mask_storeu_epi64(h + i, k, hash::xxh64_fixed8_x8(_mm512_maskz_loadu_epi64(k, v + 8 * i)));
  }
}

void hash4_chunk(const uint8_t* v, size_t m, uint64_t* h) {
  size_t i = 0;
  for (; i + 8 <= m; i += 8) {
    _mm512_storeu_si512(h + i, hash::xxh64_fixed4_x8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(v + 4 * i))));
  }
  if (i < m) {
    const __mmask8 k = static_cast<__mmask8>((1u << (m - i)) - 1u);
    _mm512_mask_storeu_epi64(h + i, k, hash::xxh64_fixed4_x8(_mm256_maskz_loadu_epi32(k, v + 4 * i)));
  }
}

// Hashes a chunk ahead into a ring of two chunks, then probes the current
// chunk eight at a time; prefetches may look into the next chunk.
template <class HashChunk>
inline void check_values(const uint32_t* words, uint32_t num_blocks, const uint8_t* values,
                         size_t width, size_t n, uint8_t* out, size_t distance, HashChunk hash_chunk) {
  if (distance > kValueChunk) distance = kValueChunk;
  const Probe8 probe(words, num_blocks);
  // Two chunks back to back plus a copy of the first chunk's head after
  // them, so a prefetch window that wraps stays contiguous.
  alignas(64) uint64_t ring[kValueRing + kValueChunk];
  size_t hashed = 0;
  auto hash_more = [&] {
    const size_t m = n - hashed < kValueChunk ? n - hashed : kValueChunk;
    uint64_t* dst = ring + (hashed % kValueRing);
    hash_chunk(values + hashed * width, m, dst);
    if (dst == ring) std::memcpy(ring + kValueRing, ring, m * sizeof(uint64_t));
    hashed += m;
  };
  if (n != 0) hash_more();
  if (distance != 0) {
    for (size_t j = 0; j < distance && j < hashed; ++j) prefetch_read(block_ptr(words, num_blocks, ring[j]));
  }
  for (size_t start = 0; start < n; start += kValueChunk) {
    const size_t m = n - start < kValueChunk ? n - start : kValueChunk;
    if (hashed < n) hash_more();
    probe_run(probe, words, num_blocks, ring + (start % kValueRing), m, hashed - start - m,
              out + start, distance);
  }
}

void check_fixed4(const uint32_t* words, uint32_t num_blocks, const uint8_t* values, size_t n,
                  uint8_t* out, size_t distance) {
  check_values(words, num_blocks, values, 4, n, out, distance, hash4_chunk);
}

void check_fixed8(const uint32_t* words, uint32_t num_blocks, const uint8_t* values, size_t n,
                  uint8_t* out, size_t distance) {
  check_values(words, num_blocks, values, 8, n, out, distance, hash8_chunk);
}

}  // namespace

const SbbfKernels kAvx512SbbfKernels = {Base::check_hash,    Base::insert_hash,  check_hashes,
                                        insert_hashes_x86,   Base::check_product, Base::check_gather,
                                        check_fixed4,        check_fixed8};

}  // namespace pqfast::sbbf
