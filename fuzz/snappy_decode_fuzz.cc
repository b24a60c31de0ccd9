// Fuzz target: pqfast's own raw snappy decoder (src/parquet/snappy_decode.h)
// on arbitrary bytes, into an output of exactly the size the stream
// announces (at most 1 MiB): it must never read past the input or write
// past the output (ASan), and a stream it accepts must have filled the
// output exactly as a byte-at-a-time decode of the same elements does.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "parquet/snappy_decode.h"

using pqfast::parquet::detail::snappy_inflate;
using pqfast::parquet::detail::SnappyResult;

namespace {

// The elements replayed one byte at a time (only for a stream the decoder
// accepted: every bound was checked there).
std::vector<uint8_t> replay(const uint8_t* s, size_t n, size_t total) {
  size_t p = 0;
  while (s[p++] & 0x80) {
  }
  std::vector<uint8_t> out;
  out.reserve(total);
  while (p < n) {
    const uint8_t tag = s[p++];
    size_t len, off = 0;
    if ((tag & 3) == 0) {
      len = (tag >> 2) + 1;
      if (len > 60) {
        const size_t nb = len - 60;
        len = 0;
        for (size_t k = 0; k < nb; ++k) len |= size_t{s[p + k]} << (8 * k);
        len += 1;
        p += nb;
      }
      out.insert(out.end(), s + p, s + p + len);
      p += len;
      continue;
    }
    const size_t nb = (tag & 3) == 1 ? 1 : (tag & 3) == 2 ? 2 : 4;
    for (size_t k = 0; k < nb; ++k) off |= size_t{s[p + k]} << (8 * k);
    p += nb;
    if ((tag & 3) == 1) {
      len = 4 + ((tag >> 2) & 7);
      off |= static_cast<size_t>(tag >> 5) << 8;
    } else {
      len = (tag >> 2) + 1;
    }
    for (size_t i = 0; i < len; ++i) out.push_back(out[out.size() - off]);
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  uint64_t announced = 0;
  uint8_t none = 0;
  const SnappyResult first = snappy_inflate(data, size, &none, 0, &announced);
  if (first == SnappyResult::kBadLength) return 0;
  if (announced > (1u << 20)) return 0;
  std::vector<uint8_t> out(static_cast<size_t>(announced));
  const SnappyResult r = snappy_inflate(data, size, out.empty() ? &none : out.data(), out.size(), &announced);
  if (r == SnappyResult::kOk && replay(data, size, out.size()) != out) std::abort();
  return 0;
}
