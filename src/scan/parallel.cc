// parallel_for over the parked helpers of prune_files (helper_threads.h).
#include "scan/parallel.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>

#include "parquet/helper_threads.h"

namespace pqfast::parquet::scan {

namespace {

struct Shared {
  explicit Shared(size_t count, const std::function<void(size_t)>& fn) : n(count), f(&fn) {}
  const size_t n;
  const std::function<void(size_t)>* f;  // valid while done < n
  std::atomic<size_t> next{0};
  std::mutex mu;
  std::condition_variable cv;
  size_t done = 0;
  std::exception_ptr error;

  // Claims and runs indices until none is left.
  void work() {
    for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;) {
      std::exception_ptr e;
      try {
        (*f)(i);
      } catch (...) {
        e = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(mu);
      if (e && !error) error = e;
      if (++done == n) cv.notify_all();
    }
  }
};

}  // namespace

void parallel_for(size_t n, int threads, const std::function<void(size_t)>& f) {
  if (n == 0) return;
  const size_t helpers = std::min<size_t>(n - 1, threads > 1 ? static_cast<size_t>(threads - 1) : 0);
  if (helpers == 0) {
    for (size_t i = 0; i < n; ++i) f(i);
    return;
  }
  auto shared = std::make_shared<Shared>(n, f);
  run_on_helpers(helpers, [shared] { shared->work(); });
  shared->work();
  std::unique_lock<std::mutex> lock(shared->mu);
  shared->cv.wait(lock, [&] { return shared->done == n; });
  if (shared->error) std::rethrow_exception(shared->error);
}

}  // namespace pqfast::parquet::scan
