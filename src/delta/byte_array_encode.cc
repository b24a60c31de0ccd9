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

namespace pqfast {
namespace {

template <class Offset>
Status check_offsets(const Offset* offsets, const uint8_t* data, size_t n, const char* what) {
  if (n > 0 && (offsets == nullptr || (data == nullptr && offsets[n] != offsets[0]))) {
    return make_error(ErrorCode::kInvalidArgument, std::string(what) + ": null input");
  }
  for (size_t i = 0; i < n; ++i) {
    const int64_t len = static_cast<int64_t>(offsets[i + 1]) - static_cast<int64_t>(offsets[i]);
    if (len < 0 || len > std::numeric_limits<int32_t>::max()) {
      return make_error(ErrorCode::kInvalidArgument, std::string(what) + ": value " + std::to_string(i) +
                                                         " has length " + std::to_string(len));
    }
  }
  return Status::Ok();
}

template <class Offset>
Result<std::vector<uint8_t>> encode_lengths_then_bytes(const Offset* offsets, const uint8_t* data, size_t n,
                                                       std::vector<uint8_t> out) {
  std::vector<int32_t> lengths(n);
  for (size_t i = 0; i < n; ++i) lengths[i] = static_cast<int32_t>(offsets[i + 1] - offsets[i]);
  auto stream = delta_encode_int32(lengths.data(), n, kDeltaInt32DefaultGeometry);
  if (!stream.ok()) return stream.error();
  const size_t bytes = n == 0 ? 0 : static_cast<size_t>(offsets[n] - offsets[0]);
  out.reserve(out.size() + stream->size() + bytes);
  out.insert(out.end(), stream->begin(), stream->end());
  if (bytes != 0) out.insert(out.end(), data + offsets[0], data + offsets[0] + bytes);
  return out;
}

// Length of the common prefix of a and b, both at least n bytes long.
inline size_t common_prefix(const uint8_t* a, const uint8_t* b, size_t n) {
  size_t i = 0;
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
  return encode_lengths_then_bytes(offsets, data, n, {});
}

template <class Offset>
Result<std::vector<uint8_t>> encode_dba(const Offset* offsets, const uint8_t* data, size_t n) {
  PQFAST_RETURN_IF_ERROR(check_offsets(offsets, data, n, "delta_encode_byte_array"));
  std::vector<int32_t> prefixes(n);
  // Suffixes as (offset, length) pairs laid out for the DLBA encoder:
  // their bytes are gathered into one buffer.
  std::vector<int64_t> suffix_offsets(n + 1);
  std::vector<uint8_t> suffix_bytes;
  suffix_bytes.reserve(n == 0 ? 0 : static_cast<size_t>(offsets[n] - offsets[0]));
  const uint8_t* prev = nullptr;
  size_t prev_len = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* v = data + offsets[i];
    const size_t len = static_cast<size_t>(offsets[i + 1] - offsets[i]);
    const size_t p = i == 0 ? 0 : common_prefix(prev, v, std::min(prev_len, len));
    prefixes[i] = static_cast<int32_t>(p);
    suffix_bytes.insert(suffix_bytes.end(), v + p, v + len);
    suffix_offsets[i + 1] = static_cast<int64_t>(suffix_bytes.size());
    prev = v;
    prev_len = len;
  }
  auto out = delta_encode_int32(prefixes.data(), n, kDeltaInt32DefaultGeometry);
  if (!out.ok()) return out.error();
  return encode_lengths_then_bytes(suffix_offsets.data(), suffix_bytes.data(), n, std::move(*out));
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
