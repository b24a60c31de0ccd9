// Fuzz target: DELTA_BINARY_PACKED streams as INT32 and INT64, decoded in
// uneven batches with skips. Every SIMD implementation must give the scalar
// reference's values, or the same error code, and never read out of bounds.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "pqfast/delta.h"
#include "pqfast/simd.h"

namespace {

struct Outcome {
  bool ok = true;
  pqfast::ErrorCode code = pqfast::ErrorCode::kOk;
  std::vector<int64_t> values;
  size_t consumed = 0;
};

template <class T>
Outcome decode_all(const uint8_t* data, size_t size, uint8_t pattern) {
  Outcome o;
  auto dec = pqfast::DeltaBinaryPackedDecoder<T>::make(data, size);
  if (!dec.ok()) {
    o.ok = false;
    o.code = dec.error().code;
    return o;
  }
  // The header bounds the count by the input size; cap the work anyway.
  const size_t budget = 1 << 16;
  std::vector<T> buf(97);
  size_t step = 0;
  while (dec->values_remaining() > 0 && o.values.size() < budget) {
    const size_t want = 1 + (pattern + step * 37) % buf.size();
    const bool skip = ((pattern >> (step % 8)) & 1) != 0 && step % 3 == 1;
    ++step;
    auto got = skip ? dec->skip(want) : dec->decode(buf.data(), want);
    if (!got.ok()) {
      o.ok = false;
      o.code = got.error().code;
      if (got.error().message.empty()) std::abort();
      return o;
    }
    if (*got == 0 || *got > want) std::abort();
    if (!skip) o.values.insert(o.values.end(), buf.begin(), buf.begin() + static_cast<long>(*got));
    else o.values.push_back(-1);  // mark the skip so both runs line up
  }
  o.consumed = dec->bytes_consumed();
  if (o.consumed > size) std::abort();
  return o;
}

bool same(const Outcome& a, const Outcome& b) {
  if (a.ok != b.ok) return false;
  if (!a.ok) return a.code == b.code;
  return a.values == b.values && a.consumed == b.consumed;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const uint8_t pattern = size > 0 ? data[size - 1] : 0;
  const auto saved = pqfast::simd_level();
  (void)pqfast::set_simd_level(pqfast::SimdLevel::kScalar);
  const Outcome ref32 = decode_all<int32_t>(data, size, pattern);
  const Outcome ref64 = decode_all<int64_t>(data, size, pattern);
  for (auto level : pqfast::available_simd_levels()) {
    (void)pqfast::set_simd_level(level);
    if (!same(decode_all<int32_t>(data, size, pattern), ref32)) std::abort();
    if (!same(decode_all<int64_t>(data, size, pattern), ref64)) std::abort();
  }
  (void)pqfast::set_simd_level(saved);
  return 0;
}
