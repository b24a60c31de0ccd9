// Internal: how the reader charges a MemoryBudget (pqfast/memory_budget.h).
//
// The decoders allocate through ReadBuffer, deep inside loops that return
// Status for the input's errors; threading a budget through every one of
// them would touch each signature for a check that belongs to the
// allocator. Instead a reader's entry point names the budget of the calling
// thread (BudgetScope), ReadBuffer charges each block it allocates to that
// budget (and gives it back when freed, wherever that happens), and a refused
// charge throws MemoryLimitExceeded, which the same entry point turns into
// an Error (guard_memory). Nothing throws past an entry point: kernels never
// allocate, and std::bad_alloc from anywhere below is caught the same way.
#pragma once

#include <cstdint>
#include <memory>
#include <new>
#include <string>

#include "pqfast/memory_budget.h"
#include "pqfast/status.h"

namespace pqfast::parquet::detail {

// A charge the current budget refused.
struct MemoryLimitExceeded : std::bad_alloc {
  int64_t asked = 0;
  int64_t limit = 0;
  int64_t used = 0;
  const char* what() const noexcept override { return "pqfast memory limit exceeded"; }
};

// The budget the calling thread's allocations are charged to (may be null).
const std::shared_ptr<MemoryBudget>& current_budget();

// Sets the calling thread's budget for its lifetime (restores the one before).
class BudgetScope {
 public:
  explicit BudgetScope(std::shared_ptr<MemoryBudget> budget);
  ~BudgetScope();
  BudgetScope(const BudgetScope&) = delete;
  BudgetScope& operator=(const BudgetScope&) = delete;

 private:
  std::shared_ptr<MemoryBudget> previous_;
};

// Charges `bytes` to the current budget or throws MemoryLimitExceeded (for
// allocations that do not go through ReadBuffer; release with
// release_charge).
void charge_or_throw(int64_t bytes);
void release_charge(int64_t bytes);

// A charge held for a scope, for memory that is not a ReadBuffer (a row
// group's selection bitmaps). ok() false: refused, nothing charged.
class ScopedCharge {
 public:
  ScopedCharge(std::shared_ptr<MemoryBudget> budget, int64_t bytes) : budget_(std::move(budget)), bytes_(bytes) {
    if (budget_ && !budget_->try_charge(bytes_)) ok_ = false;
  }
  ~ScopedCharge() {
    if (budget_ && ok_) budget_->release(bytes_);
  }
  ScopedCharge(const ScopedCharge&) = delete;
  ScopedCharge& operator=(const ScopedCharge&) = delete;
  bool ok() const { return ok_; }
  // The refusal, for memory_error().
  MemoryLimitExceeded refusal() const {
    MemoryLimitExceeded e;
    e.asked = bytes_;
    e.limit = budget_ ? budget_->reported_limit() : 0;
    e.used = budget_ ? budget_->reported_used() : 0;
    return e;
  }

 private:
  std::shared_ptr<MemoryBudget> budget_;
  int64_t bytes_;
  bool ok_ = true;
};

// kMemoryLimit errors for what guard_memory catches; `where` names the read.
Error memory_error(const std::string& where, const MemoryLimitExceeded& e);
Error out_of_memory_error(const std::string& where);

// Runs f() (which returns a Result or a Status) under `budget` (the
// default-limit budget when null), turning a refused charge or
// std::bad_alloc into an Error.
template <class F>
auto guard_memory(const std::shared_ptr<MemoryBudget>& budget, const std::string& where, F&& f) -> decltype(f()) {
  try {
    // A nested entry point without a budget of its own keeps its caller's.
    BudgetScope scope(budget ? budget : current_budget() ? current_budget() : MemoryBudget::make());
    return f();
  } catch (const MemoryLimitExceeded& e) {
    return memory_error(where, e);
  } catch (const std::bad_alloc&) {
    return out_of_memory_error(where);
  }
}

}  // namespace pqfast::parquet::detail
