// Internal: work shared between the caller and parked helper threads.
#pragma once

#include <cstddef>
#include <functional>

namespace pqfast::parquet::scan {

// Runs f(i) for every i in [0, n): the caller takes indices one by one and
// up to `threads` - 1 parked helpers (helper_threads.h) join it; returns when
// every call has returned. A helper that wakes late finds nothing left and
// touches nothing of the caller's. An exception thrown by f (bad_alloc) is
// caught where it happens and rethrown here, in the caller, after the others
// have finished: none escapes a helper thread.
void parallel_for(size_t n, int threads, const std::function<void(size_t)>& f);

}  // namespace pqfast::parquet::scan
