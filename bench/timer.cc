#include "timer.h"

#include <atomic>

namespace pqfast::bench {

static std::atomic<uint64_t> g_sink{0};

void keep(uint64_t value) { g_sink.fetch_xor(value, std::memory_order_relaxed); }

}  // namespace pqfast::bench
