// BYTE_STREAM_SPLIT: byte k of every value lies in stream k; the streams
// follow each other, each as long as the page has values.
#include <cstring>

#include "parquet/decode.h"

namespace pqfast::parquet::detail {

namespace {
template <int W>
void merge_streams(const uint8_t* p, size_t stride, size_t n, uint8_t* out) {
  for (size_t i = 0; i < n; ++i) {
    for (int k = 0; k < W; ++k) out[i * W + k] = p[k * stride + i];
  }
}
}  // namespace

Status byte_stream_split(const uint8_t* p, size_t len, size_t n, int32_t width, uint8_t* out, const std::string& where) {
  const size_t w = static_cast<size_t>(width);
  if (w == 0) return Status::Ok();
  if (len % w != 0) {
    return make_error(ErrorCode::kCorrupt, where + ": BYTE_STREAM_SPLIT data of " + std::to_string(len) +
                                               " bytes is not a multiple of the " + std::to_string(w) + "-byte width");
  }
  const size_t stride = len / w;
  if (n > stride) {
    return make_error(ErrorCode::kTruncated, where + ": BYTE_STREAM_SPLIT data holds " + std::to_string(stride) +
                                                 " values, the page needs " + std::to_string(n));
  }
  switch (w) {
    case 2: merge_streams<2>(p, stride, n, out); break;
    case 4: merge_streams<4>(p, stride, n, out); break;
    case 8: merge_streams<8>(p, stride, n, out); break;
    default:
      for (size_t i = 0; i < n; ++i) {
        for (size_t k = 0; k < w; ++k) out[i * w + k] = p[k * stride + i];
      }
  }
  return Status::Ok();
}

}  // namespace pqfast::parquet::detail
