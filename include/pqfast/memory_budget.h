// A read's memory budget: the bytes it may hold in decompressed pages and
// decoded values, shared by its threads and checked before each allocation.
//
// A Parquet file says how much it will decode into (row counts, page sizes,
// value widths, run lengths), and a small file can say a great deal: a few KB
// of RLE runs announce terabytes of int64, a DELTA_BYTE_ARRAY page whose
// every value repeats the one before grows quadratically. Checks against the
// input's size refuse what the bytes cannot justify; the budget bounds what
// they can (a legal file whose output does not fit) before it is allocated,
// with an error that names the column, the size asked and the limit, instead
// of std::bad_alloc on some thread or the kernel's OOM killer.
//
// The default limit (default_memory_limit()) is half of the memory the
// process can use: the smallest of physical memory, the cgroup's
// memory.max and what RLIMIT_AS leaves above the address space already
// mapped. A real file whose decoded columns fit in memory stays under it.
//
//   auto budget = pqfast::MemoryBudget::make(2LL << 30);  // 2 GiB
//   pqfast::parquet::ColumnReadOptions options;
//   options.budget = budget;                      // shared by every chunk read
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace pqfast {

class MemoryBudget {
 public:
  // limit_bytes <= 0: default_memory_limit().
  static std::shared_ptr<MemoryBudget> make(int64_t limit_bytes = 0);

  explicit MemoryBudget(int64_t limit_bytes);
  MemoryBudget(const MemoryBudget&) = delete;
  MemoryBudget& operator=(const MemoryBudget&) = delete;

  int64_t limit() const { return limit_; }
  // A budget for one task of a read: as much as this one has left now. Its
  // errors name the read's own limit, and count as in use what the read
  // already held besides (the task's share is an internal detail: a user
  // who set 256 KiB is told of 256 KiB, not of the 137 KiB a row group
  // found left).
  std::shared_ptr<MemoryBudget> share_of_rest() const;
  // The limit and the bytes in use that errors report: limit() and used()
  // for a read's own budget; for a share, the read's limit and what the
  // read held outside the share when the share was made, plus the share's use.
  int64_t reported_limit() const { return reported_limit_ > 0 ? reported_limit_ : limit_; }
  int64_t reported_used() const { return held_outside_ + used(); }
  // Bytes charged now, and the most ever charged at once.
  int64_t used() const { return used_.load(std::memory_order_relaxed); }
  int64_t peak() const { return peak_.load(std::memory_order_relaxed); }

  // Charges `bytes` if the total stays within the limit; false (and nothing
  // charged) otherwise.
  bool try_charge(int64_t bytes);
  // Charges without a check (an allocator that handed out a little more
  // than was asked).
  void force_charge(int64_t bytes);
  void release(int64_t bytes);

 private:
  int64_t limit_;
  int64_t reported_limit_ = 0;  // (a share: the read's limit)
  int64_t held_outside_ = 0;    // (a share: the read's bytes outside it)
  std::atomic<int64_t> used_{0};
  std::atomic<int64_t> peak_{0};
};

// Half of min(physical memory, cgroup memory.max, RLIMIT_AS minus the address
// space in use), read once per process; at least 64 MiB.
int64_t default_memory_limit();

// "1.5 GiB", "640 MiB", "12 KiB", "100 bytes": sizes in error messages.
std::string format_bytes(int64_t bytes);

}  // namespace pqfast
