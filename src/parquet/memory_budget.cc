// MemoryBudget, the default limit, and the thread's current budget (see
// pqfast/memory_budget.h and parquet/memory_scope.h).
#include "pqfast/memory_budget.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "parquet/memory_scope.h"

namespace pqfast {

std::shared_ptr<MemoryBudget> MemoryBudget::make(int64_t limit_bytes) {
  return std::make_shared<MemoryBudget>(limit_bytes > 0 ? limit_bytes : default_memory_limit());
}

MemoryBudget::MemoryBudget(int64_t limit_bytes) : limit_(limit_bytes > 0 ? limit_bytes : default_memory_limit()) {}

std::shared_ptr<MemoryBudget> MemoryBudget::share_of_rest() const {
  const int64_t held = used();
  auto share = std::make_shared<MemoryBudget>(std::max<int64_t>(1, limit_ - held));
  share->reported_limit_ = reported_limit();
  share->held_outside_ = held_outside_ + held;
  return share;
}

bool MemoryBudget::try_charge(int64_t bytes) {
  int64_t now = used_.load(std::memory_order_relaxed);
  do {
    if (bytes > limit_ - now) return false;
  } while (!used_.compare_exchange_weak(now, now + bytes, std::memory_order_relaxed));
  int64_t peak = peak_.load(std::memory_order_relaxed);
  while (now + bytes > peak && !peak_.compare_exchange_weak(peak, now + bytes, std::memory_order_relaxed)) {
  }
  return true;
}

void MemoryBudget::force_charge(int64_t bytes) {
  const int64_t now = used_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  int64_t peak = peak_.load(std::memory_order_relaxed);
  while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

void MemoryBudget::release(int64_t bytes) { used_.fetch_sub(bytes, std::memory_order_relaxed); }

namespace {

constexpr int64_t kUnlimited = INT64_MAX;

int64_t physical_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? int64_t{pages} * page : kUnlimited;
}

// cgroup v2's memory.max for this process ("max": none), else v1's limit.
int64_t cgroup_memory_limit() {
  std::ifstream cg("/proc/self/cgroup");
  std::string line, v2_path;
  while (std::getline(cg, line)) {
    if (line.rfind("0::", 0) == 0) v2_path = line.substr(3);
  }
  auto read_number = [](const std::string& path) -> int64_t {
    std::ifstream f(path);
    std::string s;
    if (!(f >> s) || s == "max") return kUnlimited;
    try {
      const long long v = std::stoll(s);
      return v > 0 ? v : kUnlimited;
    } catch (...) {
      return kUnlimited;
    }
  };
  int64_t limit = kUnlimited;
  if (!v2_path.empty()) limit = std::min(limit, read_number("/sys/fs/cgroup" + v2_path + "/memory.max"));
  limit = std::min(limit, read_number("/sys/fs/cgroup/memory.max"));
  limit = std::min(limit, read_number("/sys/fs/cgroup/memory/memory.limit_in_bytes"));
  return limit;
}

// RLIMIT_AS less the address space mapped now (VmSize).
int64_t address_space_left() {
  struct rlimit rl;
  if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return kUnlimited;
  int64_t in_use = 0;
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmSize:", 0) == 0) in_use = std::atoll(line.c_str() + 7) * 1024;
  }
  const int64_t cap = static_cast<int64_t>(std::min<rlim_t>(rl.rlim_cur, static_cast<rlim_t>(kUnlimited)));
  return std::max<int64_t>(cap - in_use, 0);
}

}  // namespace

int64_t default_memory_limit() {
  static const int64_t limit = [] {
    const int64_t usable = std::min({physical_memory(), cgroup_memory_limit(), address_space_left()});
    const int64_t half = usable == kUnlimited ? (int64_t{1} << 40) : usable / 2;
    return std::max<int64_t>(half, int64_t{64} << 20);
  }();
  return limit;
}

std::string format_bytes(int64_t bytes) {
  static const char* const kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return std::to_string(bytes) + " bytes";
  double v = static_cast<double>(bytes);
  int u = -1;
  while (v >= 1024 && u < 5) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, v < 10 ? "%.1f %s" : "%.0f %s", v, kUnits[u]);
  return buf;
}

namespace parquet::detail {

namespace {
thread_local std::shared_ptr<MemoryBudget> t_budget;
}

const std::shared_ptr<MemoryBudget>& current_budget() { return t_budget; }

BudgetScope::BudgetScope(std::shared_ptr<MemoryBudget> budget) : previous_(std::move(t_budget)) {
  t_budget = std::move(budget);
}

BudgetScope::~BudgetScope() { t_budget = std::move(previous_); }

void charge_or_throw(int64_t bytes) {
  MemoryBudget* b = t_budget.get();
  if (b == nullptr || b->try_charge(bytes)) return;
  MemoryLimitExceeded e;
  e.asked = bytes;
  e.limit = b->reported_limit();
  e.used = b->reported_used();
  throw e;
}

void release_charge(int64_t bytes) {
  if (MemoryBudget* b = t_budget.get()) b->release(bytes);
}

Error memory_error(const std::string& where, const MemoryLimitExceeded& e) {
  return make_error(ErrorCode::kMemoryLimit,
                    where + ": decoding needs " + format_bytes(e.asked) + " more, past the memory limit of " +
                        format_bytes(e.limit) + " (" + format_bytes(e.used) +
                        " in use by this read; memory_limit= sets the limit)");
}

Error out_of_memory_error(const std::string& where) {
  return make_error(ErrorCode::kMemoryLimit, where + ": out of memory (an allocation failed)");
}

}  // namespace parquet::detail

}  // namespace pqfast
