// Internal: what the DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY decoders
// share: error wording, the check of a run of offsets, and building an
// Arrow binary view.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "delta/kernels.h"
#include "pqfast/delta.h"

namespace pqfast::delta {

// An error from an inner stream, said with the stream it came from.
inline Error prefixed(const char* what, const Error& e) { return make_error(e.code, std::string(what) + ": " + e.message); }

// Checks k end offsets from the offset kernels (ends[i] = start + len[0] +
// ... + len[i], mod 2^32): every length non-negative and no wrap past 2^32.
// max_length (the unsigned max of the lengths) settles it for the whole run
// when every length is below 2^31 and k of the largest cannot wrap; only
// otherwise are the offsets walked one by one, to find the culprit.
inline Status check_length_run(const char* what, const uint32_t* ends, size_t k, uint32_t start,
                               uint32_t max_length, uint64_t first_index) {
  constexpr uint32_t kNegative = uint32_t{1} << 31;
  if (max_length < kNegative && uint64_t{k} * max_length + start <= UINT32_MAX) return Status::Ok();
  uint32_t prev = start;
  for (size_t i = 0; i < k; ++i) {
    const uint32_t len = ends[i] - prev;
    if (len >= kNegative) {
      return make_error(ErrorCode::kCorrupt, std::string(what) + ": value " + std::to_string(first_index + i) +
                                                 " has negative length " +
                                                 std::to_string(static_cast<int32_t>(len)));
    }
    if (ends[i] < prev) {
      return make_error(ErrorCode::kCorrupt, std::string(what) + ": lengths up to value " +
                                                 std::to_string(first_index + i) + " add up past 4 GiB");
    }
    prev = ends[i];
  }
  return Status::Ok();
}

// The view of `len` bytes at base + start (start + len <= base_size): up to
// 12 bytes inline and zero padded, longer ones by reference. No branch on
// the length but the select at the end.
inline void make_view(BinaryView& v, const uint8_t* base, size_t base_size, uint32_t start, uint32_t len,
                      int32_t buffer_index) {
  uint64_t w0 = 0, w1 = 0;
  const uint8_t* p = base + start;
  if (start + size_t{16} <= base_size) {
    std::memcpy(&w0, p, 8);
    std::memcpy(&w1, p + 8, 8);
  } else {  // near the end of the buffer: len < 16
    uint8_t t[16] = {};
    std::memcpy(t, p, std::min<size_t>(len, 16));
    std::memcpy(&w0, t, 8);
    std::memcpy(&w1, t + 8, 8);
  }
  const uint64_t m0 = len >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * len)) - 1;
  const uint64_t m1 = len >= 12 ? 0xffffffffu : len <= 8 ? 0 : (uint64_t{1} << (8 * (len - 8))) - 1;
  w0 &= m0;
  w1 &= m1;
  const uint64_t q0 = uint64_t{len} | (w0 << 32);  // size, then the first 4 bytes (inline or prefix)
  const uint64_t inline_q1 = (w0 >> 32) | (w1 << 32);
  const uint64_t ref_q1 = static_cast<uint32_t>(buffer_index) | (uint64_t{start} << 32);
  const uint64_t q1 = len <= static_cast<uint32_t>(kBinaryViewInlineSize) ? inline_q1 : ref_q1;
  std::memcpy(reinterpret_cast<uint8_t*>(&v), &q0, 8);
  std::memcpy(reinterpret_cast<uint8_t*>(&v) + 8, &q1, 8);
}

// Views of values back to back from `start` (ends[i]: where value i ends):
// those with 16 readable bytes through the active kernel table, the rest
// one by one, checked.
inline void make_views(BinaryView* views, const uint8_t* base, size_t base_size, uint32_t start,
                       const uint32_t* ends, size_t k, int32_t buffer_index) {
  size_t fast = k;
  while (fast > 0 && (fast == 1 ? start : ends[fast - 2]) + size_t{16} > base_size) --fast;
  if (fast > 0) {
    active_delta_kernels().views(base, start, ends, fast, buffer_index, reinterpret_cast<uint8_t*>(views));
    start = ends[fast - 1];
  }
  for (size_t j = fast; j < k; ++j) {
    make_view(views[j], base, base_size, start, ends[j] - start, buffer_index);
    start = ends[j];
  }
}

}  // namespace pqfast::delta
