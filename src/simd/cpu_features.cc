#include "simd/cpu_features.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <cpuid.h>
#endif

namespace pqfast::detail {
namespace {

#if defined(__x86_64__) || defined(_M_X64)
// XCR0: which register files the OS saves on context switch.
unsigned long long read_xcr0() {
  unsigned int eax = 0, edx = 0;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return (static_cast<unsigned long long>(edx) << 32) | eax;
}

CpuFeatures detect() {
  CpuFeatures f;
  unsigned int eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return f;
  f.sse42 = (ecx >> 20) & 1;
  f.popcnt = (ecx >> 23) & 1;
  f.fma = (ecx >> 12) & 1;
  const bool osxsave = (ecx >> 27) & 1;
  const bool avx = (ecx >> 28) & 1;
  bool ymm_saved = false, zmm_saved = false;
  if (osxsave) {
    const unsigned long long xcr0 = read_xcr0();
    ymm_saved = (xcr0 & 0x6) == 0x6;            // XMM and YMM state
    zmm_saved = (xcr0 & 0xe6) == 0xe6;          // plus opmask, ZMM_Hi256, Hi16_ZMM
  }
  if (__get_cpuid_max(0, nullptr) < 7) return f;
  __cpuid_count(7, 0, eax, ebx, ecx, edx);
  f.bmi1 = (ebx >> 3) & 1;
  f.bmi2 = (ebx >> 8) & 1;
  f.avx2 = avx && ymm_saved && ((ebx >> 5) & 1);
  f.fma = f.fma && ymm_saved;
  if (zmm_saved) {
    f.avx512f = (ebx >> 16) & 1;
    f.avx512dq = (ebx >> 17) & 1;
    f.avx512bw = (ebx >> 30) & 1;
    f.avx512vl = (ebx >> 31) & 1;
    f.avx512vbmi = (ecx >> 1) & 1;
    f.avx512vbmi2 = (ecx >> 6) & 1;
  }
  return f;
}
#elif defined(__aarch64__)
CpuFeatures detect() {
  CpuFeatures f;
  f.neon = true;  // Advanced SIMD is mandatory on AArch64
  return f;
}
#else
CpuFeatures detect() { return CpuFeatures{}; }
#endif

}  // namespace

const CpuFeatures& cpu_features() {
  static const CpuFeatures features = detect();
  return features;
}

}  // namespace pqfast::detail
