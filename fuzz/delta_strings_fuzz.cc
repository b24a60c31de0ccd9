// Fuzz target: DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY pages, decoded
// through every output (int32 and int64 offsets into buffers that are too
// small and grow, views, fixed width) in uneven batches with skips. Every
// SIMD implementation must give the scalar reference's values, or the same
// error code, and never read or write out of bounds.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "pqfast/delta.h"
#include "pqfast/simd.h"

namespace {

constexpr size_t kOutputBudget = size_t{1} << 20;  // bytes of values per run

struct Outcome {
  bool ok = true;
  pqfast::ErrorCode code = pqfast::ErrorCode::kOk;
  std::vector<std::string> values;
  size_t consumed = 0;
  bool operator==(const Outcome& o) const {
    return ok == o.ok && (!ok ? code == o.code : values == o.values && consumed == o.consumed);
  }
};

template <class R>
bool failed(Outcome& o, const R& r) {
  if (r.ok()) return false;
  o.ok = false;
  o.code = r.error().code;
  if (r.error().message.empty()) std::abort();
  return true;
}

// mode: 0 int32 offsets, 1 int64 offsets, 2 views, 3 fixed width (DBA only).
template <class Decoder>
Outcome decode_all(Decoder& dec, uint8_t pattern, int mode, int32_t width) {
  Outcome o;
  size_t bytes = 0, step = 0, capacity = 1 + pattern % 64;
  while (dec.values_remaining() > 0 && bytes < kOutputBudget) {
    const size_t want = 1 + (pattern + step * 37) % 97;
    const bool skip = ((pattern >> (step % 8)) & 1) != 0 && step % 3 == 1;
    ++step;
    if (skip) {
      auto got = dec.skip(want);
      if (failed(o, got)) return o;
      if (*got == 0 || *got > want) std::abort();
      o.values.push_back("<skip>");
      continue;
    }
    std::vector<uint8_t> data(capacity);
    size_t got_n = 0;
    if (mode == 0 || mode == 1) {
      std::vector<int64_t> off64(want + 1, 0);
      std::vector<int32_t> off32(want + 1, 0);
      auto got = mode == 0 ? dec.decode(off32.data(), data.data(), data.size(), want)
                           : dec.decode(off64.data(), data.data(), data.size(), want);
      if (failed(o, got)) return o;
      got_n = *got;
      for (size_t i = 0; i < got_n; ++i) {
        const int64_t a = mode == 0 ? off32[i] : off64[i], b = mode == 0 ? off32[i + 1] : off64[i + 1];
        if (a < 0 || b < a || static_cast<uint64_t>(b) > data.size()) std::abort();
        o.values.emplace_back(reinterpret_cast<const char*>(data.data() + a), static_cast<size_t>(b - a));
        bytes += static_cast<size_t>(b - a);
      }
    } else if (mode == 3) {
      if constexpr (std::is_same_v<Decoder, pqfast::DeltaByteArrayDecoder>) {
        std::vector<uint8_t> out(want * static_cast<size_t>(width) + 1, 0xab);
        auto got = dec.decode_fixed(out.data(), want);
        if (failed(o, got)) return o;
        got_n = *got;
        if (out.back() != 0xab) std::abort();
        o.values.emplace_back(reinterpret_cast<const char*>(out.data()), got_n * static_cast<size_t>(width));
        bytes += got_n * static_cast<size_t>(width);
      }
    } else {
      std::vector<pqfast::BinaryView> views(want);
      Outcome tmp;
      pqfast::Result<size_t> got = size_t{0};
      size_t used = 0;
      if constexpr (std::is_same_v<Decoder, pqfast::DeltaByteArrayDecoder>) {
        got = dec.decode_views(views.data(), data.data(), data.size(), &used, 0, want);
      } else {
        got = dec.decode_views(views.data(), 0, want);
      }
      if (failed(o, got)) return o;
      got_n = *got;
      for (size_t i = 0; i < got_n; ++i) {
        const auto& v = views[i];
        if (v.inlined.size < 0) std::abort();
        o.values.push_back(std::to_string(v.inlined.size));  // contents are checked through the offsets modes
        bytes += static_cast<size_t>(v.inlined.size);
      }
    }
    if (got_n > want) std::abort();
    if (got_n == 0) {
      if (capacity >= (size_t{1} << 22)) break;  // a value larger than the test lets grow
      capacity *= 4;
    }
  }
  o.consumed = dec.values_remaining() == 0 ? dec.bytes_consumed() : 0;
  return o;
}

Outcome run(const uint8_t* data, size_t size, uint8_t pattern) {
  const int mode = pattern % 4;
  if (pattern & 0x10) {
    const int32_t width = mode == 3 ? pattern % 24 : -1;
    auto dec = pqfast::DeltaByteArrayDecoder::make(data, size, width);
    Outcome o;
    if (failed(o, dec)) return o;
    return decode_all(*dec, pattern, mode, width);
  }
  auto dec = pqfast::DeltaLengthByteArrayDecoder::make(data, size);
  Outcome o;
  if (failed(o, dec)) return o;
  return decode_all(*dec, pattern, mode == 3 ? 0 : mode, -1);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t pattern = data[size - 1];
  --size;  // the last byte picks the encoding, the output and the batches
  // The page in a buffer of its exact size, so ASan sees any read past it.
  std::vector<uint8_t> page(data, data + size);
  const auto saved = pqfast::simd_level();
  (void)pqfast::set_simd_level(pqfast::SimdLevel::kScalar);
  const Outcome ref = run(page.data(), page.size(), pattern);
  for (auto level : pqfast::available_simd_levels()) {
    (void)pqfast::set_simd_level(level);
    if (!(run(page.data(), page.size(), pattern) == ref)) std::abort();
  }
  (void)pqfast::set_simd_level(saved);
  return 0;
}
