// Benchmark plumbing shared by every timing driver: a clock, a sink that
// keeps results alive, and the row format every driver returns.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace pqfast::bench {

// One measured row. `mode` and `implementation` follow each driver's
// vocabulary (classic, single, batched, ...; scalar, avx2, arrow, ...).
struct Row {
  std::string family;          // "sbbf", "local_bloom", "delta", ...
  std::string mode;
  std::string implementation;
  uint64_t footprint_bytes = 0;
  std::string label;           // free-form context, e.g. "0.5 MiB"
  double ns_per_op = 0;
  double ops = 0;              // operations timed in the best repetition
};

inline double now_ns() {
  return static_cast<double>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

// Prevents the compiler from discarding a computed value.
void keep(uint64_t value);

// Runs body() `reps` times and returns the minimum ns per op (ops per call).
template <class Body>
double best_ns_per_op(int reps, double ops, Body&& body) {
  double best = 1e300;
  for (int r = 0; r < reps; ++r) {
    const double t0 = now_ns();
    body();
    const double t = now_ns() - t0;
    if (t < best) best = t;
  }
  return best / ops;
}

}  // namespace pqfast::bench
