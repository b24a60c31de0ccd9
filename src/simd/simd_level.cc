#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "pqfast/simd.h"
#include "simd/cpu_features.h"
#include "simd/dispatch.h"

namespace pqfast {
namespace {

constexpr const char* kNames[kNumSimdLevels] = {"scalar", "sse4", "avx2", "avx512", "neon"};

// Which levels this build compiled kernels for.
bool compiled_in(SimdLevel level) {
  switch (level) {
    case SimdLevel::kScalar:
      return true;
    case SimdLevel::kSse4:
    case SimdLevel::kAvx2:
    case SimdLevel::kAvx512:
#if defined(PQFAST_ARCH_X86)
      return true;
#else
      return false;
#endif
    case SimdLevel::kNeon:
#if defined(PQFAST_ARCH_ARM64)
      return true;
#else
      return false;
#endif
  }
  return false;
}

bool cpu_runs(SimdLevel level) {
  const auto& f = detail::cpu_features();
  switch (level) {
    case SimdLevel::kScalar:
      return true;
    case SimdLevel::kSse4:
      return f.sse42 && f.popcnt;
    case SimdLevel::kAvx2:
      return f.sse42 && f.popcnt && f.avx2 && f.bmi1 && f.bmi2 && f.fma;
    case SimdLevel::kAvx512:
      // Ice Lake / Zen 4 class: kernels may use VBMI and VBMI2 byte permutes.
      return cpu_runs(SimdLevel::kAvx2) && f.avx512f && f.avx512bw && f.avx512vl && f.avx512dq &&
             f.avx512vbmi && f.avx512vbmi2;
    case SimdLevel::kNeon:
      return f.neon;
  }
  return false;
}

struct Selection {
  SimdLevel level = SimdLevel::kScalar;
  Status status;
};

Selection choose_from_environment() {
  Selection s;
  s.level = best_simd_level();
  const char* env = std::getenv("PQFAST_SIMD");
  if (env == nullptr || env[0] == '\0') return s;
  auto parsed = parse_simd_level(env);
  if (!parsed.ok()) {
    s.status = make_error(ErrorCode::kInvalidArgument,
                          "PQFAST_SIMD=" + std::string(env) + ": " + parsed.error().message);
    return s;
  }
  if (!simd_level_supported(*parsed)) {
    std::string avail;
    for (SimdLevel l : available_simd_levels()) {
      avail += avail.empty() ? "" : ", ";
      avail += simd_level_name(l);
    }
    s.status = make_error(ErrorCode::kUnsupported,
                          "PQFAST_SIMD=" + std::string(env) +
                              ": this CPU or build cannot run it; available: " + avail);
    return s;
  }
  s.level = *parsed;
  return s;
}

const Selection& initial_selection() {
  static const Selection selection = choose_from_environment();
  return selection;
}

}  // namespace

// -1 until first use; then the active level. set_simd_level() overrides it.
std::atomic<int> detail::g_active_simd_level{-1};

namespace {
constexpr int kMaxListeners = 16;
std::atomic<void (*)()> g_listeners[kMaxListeners];
std::atomic<int> g_num_listeners{0};
}  // namespace

void detail::on_simd_level_change(void (*fn)()) {
  const int i = g_num_listeners.fetch_add(1);
  if (i >= kMaxListeners) std::abort();  // a build with more families than slots
  g_listeners[i].store(fn);
}

const char* simd_level_name(SimdLevel level) {
  const int i = static_cast<int>(level);
  return (i >= 0 && i < kNumSimdLevels) ? kNames[i] : "unknown";
}

Result<SimdLevel> parse_simd_level(std::string_view name) {
  for (int i = 0; i < kNumSimdLevels; ++i) {
    if (name == kNames[i]) return static_cast<SimdLevel>(i);
  }
  return make_error(ErrorCode::kInvalidArgument,
                    "unknown SIMD implementation '" + std::string(name) +
                        "'; expected one of scalar, sse4, avx2, avx512, neon");
}

bool simd_level_supported(SimdLevel level) { return compiled_in(level) && cpu_runs(level); }

std::vector<SimdLevel> available_simd_levels() {
  std::vector<SimdLevel> levels;
  for (int i = 0; i < kNumSimdLevels; ++i) {
    const auto level = static_cast<SimdLevel>(i);
    if (simd_level_supported(level)) levels.push_back(level);
  }
  return levels;
}

SimdLevel best_simd_level() {
  SimdLevel best = SimdLevel::kScalar;
  for (SimdLevel l : available_simd_levels()) best = l;  // ordered best last
  return best;
}

Status simd_status() { return initial_selection().status; }

SimdLevel simd_level() {
  int active = detail::g_active_simd_level.load(std::memory_order_relaxed);
  if (active >= 0) return static_cast<SimdLevel>(active);
  const Selection& s = initial_selection();
  if (!s.status.ok()) {
    std::fprintf(stderr, "pqfast: %s\n", s.status.error().message.c_str());
    std::abort();
  }
  int expected = -1;
  detail::g_active_simd_level.compare_exchange_strong(expected, static_cast<int>(s.level));
  return static_cast<SimdLevel>(detail::g_active_simd_level.load(std::memory_order_relaxed));
}

Status set_simd_level(SimdLevel level) {
  if (!simd_level_supported(level)) {
    return make_error(ErrorCode::kUnsupported, std::string("SIMD implementation '") +
                                                   simd_level_name(level) +
                                                   "' is not supported by this CPU or build");
  }
  detail::g_active_simd_level.store(static_cast<int>(level), std::memory_order_relaxed);
  const int n = std::min(g_num_listeners.load(), kMaxListeners);
  for (int i = 0; i < n; ++i) {
    if (auto* fn = g_listeners[i].load()) fn();
  }
  return Status::Ok();
}

}  // namespace pqfast
