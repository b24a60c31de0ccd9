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

// The first row at or after `from` (below n) whose bit is `value`; n when none.
inline int64_t next_bit(const uint64_t* bits, int64_t n, int64_t from, bool value) {
  if (from >= n) return n;
  const int64_t words = (n + 63) / 64;
  int64_t w = from >> 6;
  uint64_t x = (value ? bits[w] : ~bits[w]) & (~uint64_t{0} << (from & 63));
  while (x == 0) {
    if (++w >= words) return n;
    x = value ? bits[w] : ~bits[w];
  }
  return std::min(n, w * 64 + __builtin_ctzll(x));
}

// Whether every row among [0, n) that `bits` sets lies in `ranges`
// (sorted, disjoint): no set bit in the gaps between them.
inline bool set_bits_within(const uint64_t* bits, int64_t n, const std::vector<RowRange>& ranges) {
  int64_t from = 0;
  for (const RowRange& r : ranges) {
    if (next_bit(bits, std::min(r.begin, n), from, true) < std::min(r.begin, n)) return false;
    from = std::max(from, r.end);
  }
  return next_bit(bits, n, from, true) >= n;
}

// Rows closer than this between two runs of selected rows are decoded with
// them (and dropped by the bitmap after): a filter keeping one row in ten,
// scattered, made a range of each row, and the per-range work (the range
// list itself, a decode and a copy of each) took most of the scan
// (ranges_of 10%, memmove 12% of a polars filter over 50 M rows). Well
// under a page: pages without a selected row are still skipped.
inline constexpr int64_t kRangeGap = 256;

// The runs of set bits among rows [0, n), runs less than `gap` rows apart
// merged into one (gap 1: the exact runs).
inline std::vector<RowRange> ranges_of(const uint64_t* bits, int64_t n, int64_t gap = 1) {
  std::vector<RowRange> out;
  const int64_t words = (n + 63) / 64;
  if (gap >= 64) {
    // Word by word (a run inside a word, or one word to the next, is under
    // the gap): a range from a nonzero word's first set bit to the last set
    // bit of the last nonzero word fewer than gap / 64 words further.
    const int64_t gap_words = gap / 64;
    // (the last word without its bits at or past n)
    const uint64_t tail = n % 64 == 0 ? ~uint64_t{0} : (uint64_t{1} << (n % 64)) - 1;
    auto word = [&](int64_t w) { return w == words - 1 ? bits[w] & tail : bits[w]; };
    for (int64_t w = 0; w < words;) {
      if (word(w) == 0) {
        ++w;
        continue;
      }
      const int64_t first = w;
      int64_t last = w;
      for (++w; w < words && w - last <= gap_words; ++w) {
        if (word(w) != 0) last = w;
      }
      out.push_back({first * 64 + __builtin_ctzll(word(first)), last * 64 + 64 - __builtin_clzll(word(last))});
    }
    return out;
  }
  int64_t b = next_bit(bits, n, 0, true);
  while (b < n) {
    int64_t e = next_bit(bits, n, b, false);
    int64_t next = next_bit(bits, n, e, true);
    while (next < n && next - e < gap) {
      e = next_bit(bits, n, next, false);
      next = next_bit(bits, n, e, true);
    }
    out.push_back({b, e});
    b = next;
  }
  return out;
}

}  // namespace pqfast::parquet::scan
