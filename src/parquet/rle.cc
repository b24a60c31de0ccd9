// The RLE / bit-packed hybrid: width-1 streams straight into bitmaps, and
// a batch reader of wider values (dictionary indices).
#include "parquet/rle.h"

#include "parquet/bit_load.h"
#include "unpack/kernels.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace pqfast::parquet::detail {

namespace {

// A run header: ULEB128 of at most 5 bytes whose value fits 32 bits.
bool read_header(const uint8_t* data, size_t len, size_t* pos, uint32_t* out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 35; shift += 7) {
    if (*pos >= len) return false;
    const uint8_t b = data[(*pos)++];
    v |= uint64_t{b & 0x7fu} << shift;
    if (!(b & 0x80)) {
      if (v > 0xffffffffu) return false;
      *out = static_cast<uint32_t>(v);
      return true;
    }
  }
  return false;
}

inline uint64_t load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

Error stream_error(const std::string& what, size_t pos, const std::string& msg) {
  return make_error(ErrorCode::kCorrupt, what + ", byte " + std::to_string(pos) + ": " + msg);
}

}  // namespace

void fill_bits(uint8_t* dst, int64_t offset, size_t n, bool value) {
  if (n == 0) return;
  int64_t i = offset;
  const int64_t end = offset + static_cast<int64_t>(n);
  while (i < end && (i & 7)) {
    if (value) dst[i >> 3] |= uint8_t(1u << (i & 7));
    else dst[i >> 3] &= uint8_t(~(1u << (i & 7)));
    ++i;
  }
  const int64_t whole = (end - i) >> 3;
  if (whole > 0) {
    std::memset(dst + (i >> 3), value ? 0xff : 0, static_cast<size_t>(whole));
    i += whole * 8;
  }
  while (i < end) {
    if (value) dst[i >> 3] |= uint8_t(1u << (i & 7));
    else dst[i >> 3] &= uint8_t(~(1u << (i & 7)));
    ++i;
  }
}

int64_t copy_bits(const uint8_t* src, size_t n, uint8_t* dst, int64_t dst_offset) {
  if (n == 0) return 0;
  int64_t set = 0;
  const size_t full = n / 8, rest = n % 8;
  const int shift = static_cast<int>(dst_offset & 7);
  uint8_t* d = dst + (dst_offset >> 3);
  if (shift == 0) {
    std::memcpy(d, src, full);
    size_t k = 0;
    for (; k + 8 <= full; k += 8) set += count_bits(load64(src + k));
    for (; k < full; ++k) set += std::popcount(unsigned{src[k]});
    if (rest) {
      const uint8_t last = uint8_t(src[full] & ((1u << rest) - 1));
      d[full] = uint8_t((d[full] & ~((1u << rest) - 1)) | last);
      set += std::popcount(unsigned{last});
    }
    return set;
  }
  // Unaligned destination: each source byte spans two destination bytes.
  const uint8_t keep = uint8_t((1u << shift) - 1);
  uint8_t carry = uint8_t(d[0] & keep);
  size_t k = 0;
  for (; k < full; ++k) {
    const uint8_t b = src[k];
    set += std::popcount(unsigned{b});
    d[k] = uint8_t(carry | (b << shift));
    carry = uint8_t(b >> (8 - shift));
  }
  if (rest) {
    const uint8_t b = uint8_t(src[full] & ((1u << rest) - 1));
    set += std::popcount(unsigned{b});
    const unsigned wide = unsigned{carry} | (unsigned{b} << shift);
    d[k] = uint8_t(wide);
    if (shift + static_cast<int>(rest) > 8) d[k + 1] = uint8_t(wide >> 8);
  } else {
    d[k] = carry;  // the partial byte's low bits
  }
  return set;
}

Result<int64_t> decode_hybrid_bits(const uint8_t* data, size_t len, size_t count, uint8_t* bitmap,
                                   int64_t bit_offset, const std::string& what) {
  size_t pos = 0, done = 0;
  int64_t set = 0;
  while (done < count) {
    const size_t at = pos;
    uint32_t h;
    if (!read_header(data, len, &pos, &h)) {
      if (at >= len) {
        return make_error(ErrorCode::kTruncated, what + ": ends after " + std::to_string(done) + " of " +
                                                     std::to_string(count) + " values");
      }
      return stream_error(what, at, "bad run header varint");
    }
    if (h & 1) {
      const size_t groups = h >> 1;
      const size_t avail = std::min<size_t>(groups, len - pos);  // width 1: a byte per group
      const size_t n = std::min(count - done, avail * 8);
      if (n == 0) {
        if (groups == 0) return stream_error(what, at, "empty bit-packed run");
        return make_error(ErrorCode::kTruncated, what + ": bit-packed run at byte " + std::to_string(at) +
                                                     " is cut off after " + std::to_string(done) + " of " +
                                                     std::to_string(count) + " values");
      }
      set += copy_bits(data + pos, n, bitmap, bit_offset + static_cast<int64_t>(done));
      done += n;
      pos += std::min(groups, len - pos);
    } else {
      const size_t run = h >> 1;
      if (run == 0) return stream_error(what, at, "empty RLE run");
      if (pos >= len) return make_error(ErrorCode::kTruncated, what + ": RLE run at byte " + std::to_string(at) + " lacks its value");
      const uint8_t v = data[pos++];
      if (v > 1) return stream_error(what, pos - 1, "RLE run value " + std::to_string(v) + " does not fit 1 bit");
      const size_t n = std::min(count - done, run);
      fill_bits(bitmap, bit_offset + static_cast<int64_t>(done), n, v != 0);
      if (v) set += static_cast<int64_t>(n);
      done += n;
    }
  }
  return set;
}

namespace {

// Values [i, count) of a bit-packed run, one at a time from a 64-bit window
// at each value's first byte: what the SIMD kernel left (a partial group,
// the run's last bytes, an unaligned start).
template <class T>
void unpack_tail(const uint8_t* src, size_t nbytes, int width, size_t first, size_t i, size_t count, T* out) {
  const uint64_t mask = (uint64_t{1} << width) - 1;
  size_t bit = (first + i) * static_cast<size_t>(width);
  // Fast while 8 bytes can be loaded at each value's first byte.
  for (; i < count; ++i, bit += static_cast<size_t>(width)) {
    const size_t byte = bit >> 3;
    if (byte + 8 > nbytes) break;
    out[i] = static_cast<T>((load64(src + byte) >> (bit & 7)) & mask);
  }
  // The last 7 bytes: the stream's last 8 bytes shifted down (a byte-wise
  // copy into a word stalled the load that read it back: 58% of this
  // function on TPC-H's dictionary-encoded dates); a stream shorter than 8
  // bytes is copied.
  for (; i < count; ++i, bit += static_cast<size_t>(width)) {
    const size_t byte = bit >> 3;
    uint64_t w;
    if (nbytes >= 8) {
      w = load64(src + nbytes - 8) >> (8 * (byte + 8 - nbytes));  // (byte + 8 > nbytes > byte: a shift of 8..56)
    } else {
      uint8_t tmp[8] = {};
      std::memcpy(tmp, src + byte, nbytes - byte);
      w = load64(tmp);
    }
    out[i] = static_cast<T>((w >> (bit & 7)) & mask);
  }
}

}  // namespace

void unpack_bits32(const uint8_t* src, size_t nbytes, int width, size_t first, size_t count, uint32_t* out) {
  if (width == 0) {
    std::memset(out, 0, count * sizeof(uint32_t));
    return;
  }
  size_t i = 0;
  // Whole groups of 8 go to the active SIMD kernel (batches start on group
  // boundaries); the scalar loop finishes what it leaves.
  if ((first & 7) == 0 && count >= 8) {
    const size_t byte0 = first / 8 * static_cast<size_t>(width);
    i = unpack::active_unpack_kernels().unpack32(src + byte0, nbytes - byte0, width, count / 8, out) * 8;
  }
  unpack_tail(src, nbytes, width, first, i, count, out);
}

void unpack_bits8(const uint8_t* src, size_t nbytes, int width, size_t first, size_t count, uint8_t* out) {
  size_t i = 0;
  if ((first & 7) == 0 && count >= 8) {
    const size_t byte0 = first / 8 * static_cast<size_t>(width);
    i = unpack::active_unpack_kernels().unpack8(src + byte0, nbytes - byte0, width, count / 8, out) * 8;
  }
  unpack_tail(src, nbytes, width, first, i, count, out);
}

Status HybridReader::next_run() {
  const size_t at = pos_;
  uint32_t h;
  if (!read_header(data_, len_, &pos_, &h)) {
    if (at >= len_) return make_error(ErrorCode::kTruncated, what_ + ": ends at byte " + std::to_string(at) + " before all values");
    return stream_error(what_, at, "bad run header varint");
  }
  if (h & 1) {
    const size_t groups = h >> 1;
    if (groups == 0) return stream_error(what_, at, "empty bit-packed run");
    const size_t bytes = groups * static_cast<size_t>(width_);
    packed_ = data_ + pos_;
    packed_bytes_ = std::min(bytes, len_ - pos_);
    readable_ = len_ - pos_;
    // A last run may be cut short: only whole values present count.
    const size_t avail = width_ == 0 ? groups * 8 : std::min(groups * 8, packed_bytes_ * 8 / static_cast<size_t>(width_));
    if (avail == 0) return make_error(ErrorCode::kTruncated, what_ + ": bit-packed run at byte " + std::to_string(at) + " has no bytes");
    run_left_ = avail;
    packed_index_ = 0;
    pos_ += packed_bytes_;
    repeat_ = false;
  } else {
    const size_t run = h >> 1;
    if (run == 0) return stream_error(what_, at, "empty RLE run");
    const size_t vbytes = (static_cast<size_t>(width_) + 7) / 8;
    if (vbytes > len_ - pos_) return make_error(ErrorCode::kTruncated, what_ + ": RLE run at byte " + std::to_string(at) + " lacks its value");
    uint32_t v = 0;
    for (size_t k = 0; k < vbytes; ++k) v |= uint32_t{data_[pos_ + k]} << (8 * k);
    if (width_ < 32 && (v >> width_) != 0) {
      return stream_error(what_, pos_, "RLE run value " + std::to_string(v) + " does not fit " + std::to_string(width_) + " bits");
    }
    pos_ += vbytes;
    value_ = v;
    run_left_ = run;
    repeat_ = true;
  }
  return Status::Ok();
}

Result<size_t> HybridReader::next_bytes(uint8_t* out, size_t max, bool* repeat, uint32_t* repeat_value) {
  if (run_left_ == 0) PQFAST_RETURN_IF_ERROR(next_run());
  const size_t n = std::min(max, run_left_);
  if (repeat_) {
    *repeat = true;
    *repeat_value = value_;
  } else {
    *repeat = false;
    unpack_bits8(packed_, readable_, width_, packed_index_, n, out);
    packed_index_ += n;
  }
  run_left_ -= n;
  return n;
}

Result<size_t> HybridReader::next_span(size_t max, bool* repeat, uint32_t* repeat_value, PackedSpan* span) {
  if (run_left_ == 0) PQFAST_RETURN_IF_ERROR(next_run());
  const size_t n = std::min(max, run_left_);
  if (repeat_) {
    *repeat = true;
    *repeat_value = value_;
  } else {
    *repeat = false;
    *span = PackedSpan{packed_, readable_, packed_index_, width_};
    packed_index_ += n;
  }
  run_left_ -= n;
  return n;
}

Result<size_t> HybridReader::next(uint32_t* out, size_t max, bool* repeat, uint32_t* repeat_value) {
  if (run_left_ == 0) PQFAST_RETURN_IF_ERROR(next_run());
  const size_t n = std::min(max, run_left_);
  if (repeat_) {
    *repeat = true;
    *repeat_value = value_;
  } else {
    *repeat = false;
    unpack_bits32(packed_, readable_, width_, packed_index_, n, out);
    packed_index_ += n;
  }
  run_left_ -= n;
  return n;
}

}  // namespace pqfast::parquet::detail
