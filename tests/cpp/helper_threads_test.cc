// The parked helper threads of prune_files (src/parquet/helper_threads.h):
// every task handed over runs, what a task holds is let go once it ran, the
// threads serve call after call, and a fork's child gets helpers of its own.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "parquet/helper_threads.h"

namespace pqfast {
namespace {

namespace pq = pqfast::parquet;

// Waits for `done()`; a generous bound only guards against a hang.
template <class Done>
bool wait_for(Done done) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!done()) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

TEST(HelperThreads, EveryTaskRunsOnceAndLetsGoOfWhatItHolds) {
  for (size_t n : {1, 2, 3, 5}) {
    for (int call = 0; call < 20; ++call) {
      auto held = std::make_shared<std::atomic<int>>(0);
      pq::run_on_helpers(n, [held] { held->fetch_add(1); });
      ASSERT_TRUE(wait_for([&] { return held->load() == static_cast<int>(n); })) << n;
      // The copies of the task (and of `held`) go once they ran.
      ASSERT_TRUE(wait_for([&] { return held.use_count() == 1; })) << n;
      EXPECT_EQ(held->load(), static_cast<int>(n));
    }
  }
}

TEST(HelperThreads, TasksRunBesideTheCaller) {
  // Two tasks that each wait for the other: they can only finish on two
  // threads at once.
  std::mutex mu;
  std::condition_variable cv;
  int arrived = 0;
  std::atomic<int> finished{0};
  pq::run_on_helpers(2, [&] {
    std::unique_lock<std::mutex> lock(mu);
    ++arrived;
    cv.notify_all();
    cv.wait_for(lock, std::chrono::seconds(60), [&] { return arrived == 2; });
    if (arrived == 2) finished.fetch_add(1);
  });
  ASSERT_TRUE(wait_for([&] { return finished.load() == 2; }));
}

TEST(HelperThreads, AForksChildGetsItsOwn) {
#if defined(PQFAST_TESTS_UNDER_EMULATOR)
  GTEST_SKIP() << "qemu-user aborts when a forked child of a threaded process starts threads";
#endif
  std::atomic<int> ran{0};
  pq::run_on_helpers(1, [&] { ran.fetch_add(1); });  // the parent's threads exist
  ASSERT_TRUE(wait_for([&] { return ran.load() == 1; }));
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::atomic<int> in_child{0};
    pq::run_on_helpers(2, [&] { in_child.fetch_add(1); });
    _exit(wait_for([&] { return in_child.load() == 2; }) ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace pqfast
