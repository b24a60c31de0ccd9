// local_bloom kernels for AVX2: eight probes per step. The eight probe
// hashes are seed * g^0..g^7 (one vpmulld); each one's top 4 bits pick a
// 32-bit word of the line and the next 5 a bit of it. The line sits in two
// registers: vpermd fetches the addressed word from each half and the top
// address bit blends the two, so the test is one vptest, branch-free for up
// to 8 probes (9..16 take a second step, and so on).
#include <immintrin.h>

#include "local_bloom/line_kernels.h"

namespace pqfast::local_bloom {
namespace {

inline bool check_in_line(const uint8_t* line, int num_probes, uint32_t seed) {
  const __m256i powers = _mm256_setr_epi32(
      static_cast<int>(probe_power(0)), static_cast<int>(probe_power(1)),
      static_cast<int>(probe_power(2)), static_cast<int>(probe_power(3)),
      static_cast<int>(probe_power(4)), static_cast<int>(probe_power(5)),
      static_cast<int>(probe_power(6)), static_cast<int>(probe_power(7)));
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(line));
  const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(line + 32));
  int remaining = num_probes;
  for (;;) {
    const __m256i h = _mm256_mullo_epi32(_mm256_set1_epi32(static_cast<int>(seed)), powers);
    const __m256i word = _mm256_srli_epi32(h, 28);
    const __m256i from_lo = _mm256_permutevar8x32_epi32(lo, word);
    const __m256i from_hi = _mm256_permutevar8x32_epi32(hi, word);
    const __m256i value = _mm256_blendv_epi8(from_lo, from_hi, _mm256_srai_epi32(h, 31));
    const __m256i bit = _mm256_srli_epi32(_mm256_slli_epi32(h, 4), 27);
    // Lanes at or beyond the remaining probe count test nothing.
    const __m256i active = _mm256_cmpgt_epi32(_mm256_set1_epi32(remaining), lane);
    const __m256i mask = _mm256_and_si256(_mm256_sllv_epi32(_mm256_set1_epi32(1), bit), active);
    const bool all_set = _mm256_testc_si256(value, mask) != 0;  // (~value & mask) == 0
    if (remaining <= 8) return all_set;
    if (!all_set) return false;
    seed *= probe_power(8);
    remaining -= 8;
  }
}

struct Avx2Line {
  static bool check_in_line(const uint8_t* line, int num_probes, uint32_t seed) {
    return pqfast::local_bloom::check_in_line(line, num_probes, seed);
  }
};

}  // namespace

const LocalBloomKernels kAvx2LocalBloomKernels = LineKernels<Avx2Line>::table();

}  // namespace pqfast::local_bloom
