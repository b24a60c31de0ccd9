// Internal: row ranges ([begin, end) lists, sorted and disjoint) and row
// bitmaps (LSB first, one bit per row of a row group), as the scan moves
// from pages to rows and back.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "pqfast/parquet_read.h"

namespace pqfast::parquet::scan {

// Appends [b, e), merging with the last range when they touch.
inline void append_range(std::vector<RowRange>* out, int64_t b, int64_t e) {
  if (b >= e) return;
  if (!out->empty() && out->back().end >= b) {
    out->back().end = std::max(out->back().end, e);
  } else {
    out->push_back({b, e});
  }
}

inline std::vector<RowRange> intersect_ranges(const std::vector<RowRange>& a, const std::vector<RowRange>& b) {
  std::vector<RowRange> out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const int64_t lo = std::max(a[i].begin, b[j].begin);
    const int64_t hi = std::min(a[i].end, b[j].end);
    if (lo < hi) append_range(&out, lo, hi);
    if (a[i].end < b[j].end) ++i; else ++j;
  }
  return out;
}

// Sets bits [b, e).
inline void set_range(uint64_t* bits, int64_t b, int64_t e) {
  for (int64_t r = b; r < e;) {
    const int count = static_cast<int>(std::min<int64_t>(64 - (r & 63), e - r));
    const uint64_t mask = (count == 64 ? ~uint64_t{0} : ((uint64_t{1} << count) - 1)) << (r & 63);
    bits[r >> 6] |= mask;
    r += count;
  }
}

// The runs of set bits among rows [0, n).
inline std::vector<RowRange> ranges_of(const uint64_t* bits, int64_t n) {
  std::vector<RowRange> out;
  const int64_t words = (n + 63) / 64;
  int64_t run_begin = -1;
  for (int64_t w = 0; w < words; ++w) {
    uint64_t x = bits[w];
    if (run_begin < 0 && x == 0) continue;
    if (run_begin >= 0 && x == ~uint64_t{0}) continue;
    for (int j = 0; j < 64; ++j) {
      const bool on = (x >> j) & 1;
      const int64_t r = w * 64 + j;
      if (on && run_begin < 0) run_begin = r;
      if (!on && run_begin >= 0) {
        out.push_back({run_begin, r});
        run_begin = -1;
      }
    }
  }
  if (run_begin >= 0) out.push_back({run_begin, n});
  if (!out.empty() && out.back().end > n) out.back().end = n;
  return out;
}

}  // namespace pqfast::parquet::scan
