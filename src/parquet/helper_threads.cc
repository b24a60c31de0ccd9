#include "parquet/helper_threads.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace pqfast::parquet {

namespace {

// At most this many helpers, whatever the callers ask for.
constexpr size_t kMaxHelpers = 256;

struct Helper {
  pthread_t handle;
  int kept_off = -1;  // the CPU its affinity leaves out (-1: none)
};

struct Pool {
  std::mutex mu;
  std::condition_variable wake;
  std::deque<std::function<void()>> tasks;
  std::vector<Helper> helpers;
  size_t starting = 0;  // started, not yet waiting: each takes a task on its first look
  size_t parked = 0;    // waiting for a task
};

// Never destroyed: parked threads wait on it until the process exits. A
// fork's child gets a new one (the parent's threads did not come along).
Pool* g_pool = nullptr;

void before_fork() { g_pool->mu.lock(); }
void after_fork_in_parent() { g_pool->mu.unlock(); }
void after_fork_in_child() { g_pool = new Pool; }

Pool& pool() {
  static std::once_flag once;
  std::call_once(once, [] {
    g_pool = new Pool;
    pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
  });
  return *g_pool;
}

void helper_main(Pool* p) {
#if defined(__linux__)
  pthread_setname_np(pthread_self(), "pqfast-helper");
#endif
  std::unique_lock<std::mutex> lock(p->mu);
  --p->starting;
  for (;;) {
    ++p->parked;
    p->wake.wait(lock, [p] { return !p->tasks.empty(); });
    --p->parked;
    std::function<void()> task = std::move(p->tasks.front());
    p->tasks.pop_front();
    lock.unlock();
    task();
    task = nullptr;  // what it holds goes before the thread parks
    lock.lock();
  }
}

// Keeps the helpers off the caller's CPU. Kernels that pack runnable
// threads onto few CPUs (virtual machines whose idle CPUs are halted) may
// queue a new or woken thread behind its waker on that CPU, where it waits
// for the caller's time slice (the whole job) instead of working beside it.
// A helper may run on any other CPU the process is allowed; its mask is set
// again only when the caller's CPU changes. Linux only (elsewhere the
// scheduler decides); nothing changes on a single-CPU set.
void keep_off_callers_cpu([[maybe_unused]] Pool& p) {
#if defined(__linux__)
  const int here = sched_getcpu();
  if (here < 0 || here >= CPU_SETSIZE) return;
  if (std::all_of(p.helpers.begin(), p.helpers.end(), [here](const Helper& h) { return h.kept_off == here; })) {
    return;
  }
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0 || !CPU_ISSET(here, &allowed)) return;
  CPU_CLR(here, &allowed);
  if (CPU_COUNT(&allowed) == 0) return;
  for (Helper& h : p.helpers) {
    if (h.kept_off != here && pthread_setaffinity_np(h.handle, sizeof allowed, &allowed) == 0) h.kept_off = here;
  }
#endif
}

}  // namespace

void run_on_helpers(size_t n, const std::function<void()>& task) {
  if (n == 0) return;
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.mu);
  for (size_t i = 0; i < n; ++i) p.tasks.push_back(task);
  // Parked (and starting) threads take what they can; start threads for the rest.
  while (p.tasks.size() > p.parked + p.starting && p.helpers.size() < kMaxHelpers) {
    try {
      std::thread t(helper_main, &p);
      p.helpers.push_back(Helper{t.native_handle()});
      t.detach();
    } catch (const std::system_error&) {
      break;  // no more threads now: parked ones (or the caller) do the work
    }
    ++p.starting;
  }
  keep_off_callers_cpu(p);
  if (n == 1) {
    p.wake.notify_one();
  } else {
    p.wake.notify_all();
  }
}

}  // namespace pqfast::parquet
