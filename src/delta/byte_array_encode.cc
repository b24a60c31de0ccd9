// DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY encoders, byte for byte as
// Arrow C++ 26 writes them: the lengths (and prefix lengths) as INT32
// DELTA_BINARY_PACKED in Arrow's 128 / 4 geometry, then the bytes. Common
// prefixes are found 8 bytes at a time (the first differing byte is the
// lowest set byte of the XOR of two little-endian words).
#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <string>

#include "pqfast/delta.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace pqfast {
namespace {

template <class Offset>
Status check_offsets(const Offset* offsets, const uint8_t* data, size_t n, const char* what) {
  if (n > 0 && (offsets == nullptr || (data == nullptr && offsets[n] != offsets[0]))) {
    return make_error(ErrorCode::kInvalidArgument, std::string(what) + ": null input");
  }
  // One pass without a branch per value; the culprit is looked for only on failure.
  uint32_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    const int64_t len = static_cast<int64_t>(offsets[i + 1]) - static_cast<int64_t>(offsets[i]);
    bad |= static_cast<uint32_t>(len < 0) | static_cast<uint32_t>(len > std::numeric_limits<int32_t>::max());
  }
  for (size_t i = 0; bad != 0 && i < n; ++i) {
    const int64_t len = static_cast<int64_t>(offsets[i + 1]) - static_cast<int64_t>(offsets[i]);
    if (len < 0 || len > std::numeric_limits<int32_t>::max()) {
      return make_error(ErrorCode::kInvalidArgument, std::string(what) + ": value " + std::to_string(i) +
                                                         " has length " + std::to_string(len));
    }
  }
  return Status::Ok();
}

// The lengths as INT32 DELTA_BINARY_PACKED (Arrow's 128 / 4), appended to out.
Status append_lengths(std::vector<uint8_t>& out, const int32_t* lengths, size_t n) {
  return delta_append_int32(out, lengths, n, kDeltaInt32DefaultGeometry);
}

// Length of the common prefix of a and b, both at least n bytes long: 16
// bytes at a time where SSE2 is (every x86-64), then 8, then 1.
inline size_t common_prefix(const uint8_t* a, const uint8_t* b, size_t n) {
  size_t i = 0;
#if defined(__SSE2__)
  for (; i + 16 <= n; i += 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i));
    const __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i));
    const unsigned differ = ~static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, y))) & 0xffffu;
    if (differ != 0) return i + static_cast<size_t>(std::countr_zero(differ));
  }
#endif
  for (; i + 8 <= n; i += 8) {
    uint64_t x, y;
    std::memcpy(&x, a + i, 8);
    std::memcpy(&y, b + i, 8);
    if (x != y) return i + static_cast<size_t>(std::countr_zero(x ^ y)) / 8;  // little-endian
  }
  while (i < n && a[i] == b[i]) ++i;
  return i;
}

template <class Offset>
Result<std::vector<uint8_t>> encode_dlba(const Offset* offsets, const uint8_t* data, size_t n) {
  PQFAST_RETURN_IF_ERROR(check_offsets(offsets, data, n, "delta_encode_length_byte_array"));
  std::vector<int32_t> lengths(n);
  for (size_t i = 0; i < n; ++i) lengths[i] = static_cast<int32_t>(offsets[i + 1] - offsets[i]);
  const size_t bytes = n == 0 ? 0 : static_cast<size_t>(offsets[n] - offsets[0]);
  std::vector<uint8_t> out;
  out.reserve(32 + n * 5 / 2 + bytes);
  PQFAST_RETURN_IF_ERROR(append_lengths(out, lengths.data(), n));
  if (bytes != 0) out.insert(out.end(), data + offsets[0], data + offsets[0] + bytes);
  return out;
}

template <class Offset>
Result<std::vector<uint8_t>> encode_dba(const Offset* offsets, const uint8_t* data, size_t n) {
  PQFAST_RETURN_IF_ERROR(check_offsets(offsets, data, n, "delta_encode_byte_array"));
  // One pass finds each value's common prefix with the value before; the
  // suffixes are then copied straight from the input.
  std::vector<int32_t> prefixes(n), suffixes(n);
  size_t suffix_bytes = 0;
  const uint8_t* const end = data + (n == 0 ? 0 : offsets[n]);
  const uint8_t* prev = nullptr;
  size_t prev_len = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* v = data + offsets[i];
    const size_t len = static_cast<size_t>(offsets[i + 1] - offsets[i]);
    const size_t n_common = std::min(prev_len, len);
    size_t p = 0;
#if defined(__SSE2__)
    if (i > 0 && static_cast<size_t>(end - v) >= n_common + 16) {
      // 16 bytes at a time past the limit (the input is readable there: both
      // values lie before `end`), clamped to it: one exit per value.
      for (size_t at = 0;; at += 16) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(prev + at));
        const __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(v + at));
        const unsigned differ = ~static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, y))) & 0xffffu;
        if (differ != 0 || at + 16 >= n_common) {
          p = std::min(at + static_cast<size_t>(std::countr_zero(differ | 0x10000u)), n_common);
          break;
        }
      }
    } else
#endif
    if (i > 0) {
      p = common_prefix(prev, v, n_common);
    }
    prefixes[i] = static_cast<int32_t>(p);
    suffixes[i] = static_cast<int32_t>(len - p);
    suffix_bytes += len - p;
    prev = v;
    prev_len = len;
  }
  std::vector<uint8_t> out;
  out.reserve(64 + n * 5 + suffix_bytes);
  PQFAST_RETURN_IF_ERROR(append_lengths(out, prefixes.data(), n));
  PQFAST_RETURN_IF_ERROR(append_lengths(out, suffixes.data(), n));
  // Suffixes 16 bytes at a time, the first 32 always (no branch for short
  // ones) while the input has 32 readable bytes past them; the output has
  // slack until the final resize.
  size_t at = out.size();
  out.resize(at + suffix_bytes + 32);
  uint8_t* o = out.data() + at;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* src = data + offsets[i] + prefixes[i];
    const size_t s = static_cast<size_t>(suffixes[i]);
    if (static_cast<size_t>(end - src) >= s + 32) {
      std::memcpy(o, src, 32);  // fixed sizes: two 16-byte moves, no branch up to 32 bytes
      for (size_t j = 32; j < s; j += 16) std::memcpy(o + j, src + j, 16);
    } else if (s != 0) {
      std::memcpy(o, src, s);
    }
    o += s;
  }
  out.resize(at + suffix_bytes);
  return out;
}

}  // namespace

Result<std::vector<uint8_t>> delta_encode_length_byte_array(const int32_t* offsets, const uint8_t* data, size_t n) {
  return encode_dlba(offsets, data, n);
}
Result<std::vector<uint8_t>> delta_encode_length_byte_array(const int64_t* offsets, const uint8_t* data, size_t n) {
  return encode_dlba(offsets, data, n);
}
Result<std::vector<uint8_t>> delta_encode_byte_array(const int32_t* offsets, const uint8_t* data, size_t n) {
  return encode_dba(offsets, data, n);
}
Result<std::vector<uint8_t>> delta_encode_byte_array(const int64_t* offsets, const uint8_t* data, size_t n) {
  return encode_dba(offsets, data, n);
}

}  // namespace pqfast
