// Internal: what the CPU and operating system allow.
#pragma once

namespace pqfast::detail {

struct CpuFeatures {
  bool sse42 = false;
  bool popcnt = false;
  bool avx2 = false;
  bool bmi1 = false;
  bool bmi2 = false;
  bool fma = false;
  bool avx512f = false;
  bool avx512bw = false;
  bool avx512vl = false;
  bool avx512dq = false;
  bool avx512vbmi = false;
  bool avx512vbmi2 = false;
  bool neon = false;
};

// Detected once; the OS must also save the wide registers (XGETBV).
const CpuFeatures& cpu_features();

}  // namespace pqfast::detail
