// PLAIN values: fixed-width copies, bit-packed booleans, length-prefixed
// BYTE_ARRAY into Arrow offsets + bytes or views.
#include <algorithm>
#include <cstring>

#include "parquet/decode.h"
#include "parquet/rle.h"

namespace pqfast::parquet::detail {

namespace {
Error short_page(const std::string& where, size_t n, size_t need, size_t have) {
  return make_error(ErrorCode::kTruncated, where + ": " + std::to_string(n) + " PLAIN values need " +
                                              std::to_string(need) + " bytes, the page holds " + std::to_string(have));
}
}  // namespace

Status plain_fixed(const uint8_t* p, size_t len, size_t n, int32_t width, uint8_t* out, const std::string& where) {
  const size_t w = static_cast<size_t>(width);
  if (w != 0 && n > len / w) return short_page(where, n, n * w, len);
  if (n) std::memcpy(out, p, n * w);
  return Status::Ok();
}

Status plain_bools(const uint8_t* p, size_t len, size_t n, uint8_t* out, int64_t bit_offset, const std::string& where) {
  const size_t need = (n + 7) / 8;
  if (need > len) return short_page(where, n, need, len);
  copy_bits(p, n, out, bit_offset);
  return Status::Ok();
}

template <class Offset>
Status plain_binary(const uint8_t* p, size_t len, size_t n, Offset* offsets, ReadBuffer& data, size_t* consumed,
                    const std::string& where) {
  // The values' bytes are at most the page's: one reservation.
  const size_t start = static_cast<size_t>(offsets[0]);
  data.reserve(start + len);
  uint8_t* d = data.data();
  size_t end = start;
  bool too_big = false;
  auto pos = walk_plain_binary(p, len, n, where, [&](size_t i, size_t at, size_t l) {
    if (l <= 64 && at + 64 <= len) {
      // One fixed 64-byte move (the page holds 64 bytes from the value;
      // `data`'s slack covers the bytes past its reservation, and the next
      // value overwrites them): a memcpy call per value branched on its
      // length, and TPC-H's comments of 10 to 43 bytes mispredicted there.
      uint8_t tmp[64];
      std::memcpy(tmp, p + at, 64);
      std::memcpy(d + end, tmp, 64);
    } else {
      std::memcpy(d + end, p + at, l);
    }
    end += l;
    if constexpr (sizeof(Offset) == 4) {
      if (end > 0x7fffffffu) {
        too_big = true;
        return false;
      }
    }
    offsets[i + 1] = static_cast<Offset>(end);
    return true;
  });
  if (!pos.ok()) return pos.error();
  if (too_big) {
    return make_error(ErrorCode::kLimitExceeded, where + ": binary data of the column chunk passes 2 GiB "
                                                         "(read it as large_binary)");
  }
  data.resize(end);
  if (consumed) *consumed = *pos;
  return Status::Ok();
}

template Status plain_binary<int32_t>(const uint8_t*, size_t, size_t, int32_t*, ReadBuffer&, size_t*, const std::string&);
template Status plain_binary<int64_t>(const uint8_t*, size_t, size_t, int64_t*, ReadBuffer&, size_t*, const std::string&);

Status plain_binary_views(const uint8_t* p, size_t len, size_t n, BinaryViewElem* out, int32_t buffer_index,
                          size_t base, bool* refers, const std::string& where) {
  if (base > 0x7fffffff || len > 0x7fffffff - base) {
    return make_error(ErrorCode::kLimitExceeded, where + ": a page of " + std::to_string(len) +
                                                     " bytes cannot be referred to by binary views (2 GiB)");
  }
  bool any = false;
  auto walked = walk_plain_binary(p, len, n, where, [&](size_t i, size_t pos, size_t l) {
    const uint32_t l32 = static_cast<uint32_t>(l);
    if (pos + 16 <= len) {
      out[i] = make_view(p + pos, l32, buffer_index, static_cast<int32_t>(base + pos));
    } else {
      uint8_t tmp[16] = {};
      std::memcpy(tmp, p + pos, std::min<size_t>(l, 16));
      out[i] = make_view(tmp, l32, buffer_index, static_cast<int32_t>(base + pos));
    }
    any |= l > 12;
    return true;
  });
  if (!walked.ok()) return walked.error();
  *refers = any;
  return Status::Ok();
}

}  // namespace pqfast::parquet::detail
