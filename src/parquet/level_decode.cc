// Levels into bytes: runs of the hybrid become memsets, bit-packed runs
// are unpacked by the unpack family straight into bytes.
#include "parquet/level_decode.h"

#include <algorithm>
#include <cstring>

#include "parquet/rle.h"
#include "parquet/thrift_util.h"

namespace pqfast::parquet::detail {

int level_bit_width(int max_level) {
  int w = 0;
  while (max_level > 0) {
    ++w;
    max_level >>= 1;
  }
  return w;
}

Status decode_levels(const uint8_t* data, size_t len, int width, size_t n, uint8_t* out, const std::string& what) {
  if (width == 0) {
    std::memset(out, 0, n);
    return Status::Ok();
  }
  if (width > 8) {  // (a level is kept in a byte: nested_shape refuses deeper schemas)
    return make_error(ErrorCode::kUnsupported, what + ": levels of " + std::to_string(width) + " bits");
  }
  HybridReader r(data, len, width, what);
  size_t done = 0;
  while (done < n) {
    bool repeat = false;
    uint32_t value = 0;
    // Bit-packed runs unpack straight into `out`, a byte per level.
    PQFAST_ASSIGN_OR_RETURN(size_t got, r.next_bytes(out + done, n - done, &repeat, &value));
    if (repeat) std::memset(out + done, static_cast<int>(value), got);  // width <= 8: value < 256
    done += got;
  }
  return Status::Ok();
}

Status decode_levels_bit_packed(const uint8_t* data, size_t len, int width, size_t n, uint8_t* out,
                                const std::string& what) {
  if (width == 0) {
    std::memset(out, 0, n);
    return Status::Ok();
  }
  if (width > 8) return make_error(ErrorCode::kUnsupported, what + ": levels of " + std::to_string(width) + " bits");
  const uint64_t bits = static_cast<uint64_t>(n) * static_cast<uint64_t>(width);
  if ((bits + 7) / 8 > len) {
    return make_error(ErrorCode::kTruncated, what + ": " + std::to_string(n) + " BIT_PACKED levels of " +
                                                 std::to_string(width) + " bits run past the " + std::to_string(len) +
                                                 "-byte stream");
  }
  unpack_bits8(data, len, width, 0, n, out);
  return Status::Ok();
}

}  // namespace pqfast::parquet::detail
