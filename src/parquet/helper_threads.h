// Internal: threads kept parked for the helpers of prune_files.
//
// Starting a thread costs its caller about 20 us, and 60-80 us when the
// caller's caches are cold (a user's one lookup between other work): a
// tenth of a 200-file prune from a footer cache. A parked thread is woken
// instead, for one futex call. Threads start on first use, as many as were
// ever wanted at once, and then stay parked for the life of the process; a
// fork's child starts its own.
#pragma once

#include <cstddef>
#include <functional>

namespace pqfast::parquet {

// Runs `task` once on each of `n` helper threads and returns at once. A
// thread that cannot be started is left out: callers must not count on
// helpers (prune_files' caller works through every file it does not see
// claimed).
void run_on_helpers(size_t n, const std::function<void()>& task);

}  // namespace pqfast::parquet
