// Run-time selection of the SIMD implementation.
//
// Every kernel family (sbbf, local_bloom, delta, hash) ships one
// implementation per instruction set, each compiled in its own translation
// unit with its own target flags. The active implementation is chosen once,
// at first use: the best one the CPU supports, unless the environment
// variable PQFAST_SIMD names one (scalar, sse4, avx2, avx512, neon). An
// unknown or unsupported name is an error, never a silent fallback: see
// simd_status().
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "pqfast/status.h"

namespace pqfast {

// Ordered from least to most capable within an architecture.
enum class SimdLevel : int {
  kScalar = 0,  // portable C++, the reference every other path must equal
  kSse4 = 1,    // x86-64-v2: SSE4.2 + POPCNT
  kAvx2 = 2,    // x86-64-v3: AVX2, BMI1/2, FMA
  kAvx512 = 3,  // AVX-512 F, BW, VL, DQ (+ VBMI/VBMI2 where a kernel wants them)
  kNeon = 4,    // AArch64 Advanced SIMD
};
inline constexpr int kNumSimdLevels = 5;

// "scalar", "sse4", "avx2", "avx512", "neon".
const char* simd_level_name(SimdLevel level);

// Parses a level name; an unknown name is kInvalidArgument.
Result<SimdLevel> parse_simd_level(std::string_view name);

// True when this build contains the level's kernels and this CPU (and OS)
// can run them.
bool simd_level_supported(SimdLevel level);

// Every supported level, scalar first, best last.
std::vector<SimdLevel> available_simd_levels();

// The best supported level, ignoring PQFAST_SIMD.
SimdLevel best_simd_level();

// The active level. Chosen once from PQFAST_SIMD or best_simd_level(). If
// PQFAST_SIMD is invalid, the first call prints the error to stderr and
// aborts: callers that want to report it themselves check simd_status()
// first (the Python module and the CLI do).
SimdLevel simd_level();

// Ok, or the error that PQFAST_SIMD causes (unknown or unsupported name).
Status simd_status();

// Forces the active level for the whole process (tests and benchmarks use
// it to run every implementation by name). Fails for unsupported levels.
// Not meant to be called while other threads run kernels.
Status set_simd_level(SimdLevel level);

}  // namespace pqfast
