// DELTA_BYTE_ARRAY: prefix lengths and suffix lengths (two INT32
// DELTA_BINARY_PACKED streams, the suffixes' turned to offsets in the
// unpacking kernel), a chunk at a time into fixed arrays of the decoder;
// the chunk is checked in one pass (no negative length, no prefix longer
// than the value before it, the suffixes inside the page), then values are
// rebuilt with wide copies: 32 bytes at a time, the first 32 always, so a
// short value costs one load and one store for its prefix and one of each
// for its suffix, whatever its length. Wide copies read past a suffix's end
// and write past a value's end; they run only where the page and the
// output have that slack, exact copies elsewhere.
#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "delta/byte_array_common.h"
#include "pqfast/delta.h"

namespace pqfast {

using delta::prefixed;

namespace {

constexpr size_t kWide = 32;

// Copies at least n bytes, 32 at a time (n == 0 copies 32 all the same).
// Reads [src, src + round_up(max(n, 1), 32)), writes as much at dst; each
// 32-byte step loads before it stores, so src may lie before dst in the
// same buffer as long as src + n <= dst.
inline void wide_copy(uint8_t* dst, const uint8_t* src, size_t n) {
  size_t i = 0;
  do {
    uint8_t t[kWide];
    std::memcpy(t, src + i, kWide);
    std::memcpy(dst + i, t, kWide);
    i += kWide;
  } while (i < n);
}

inline size_t round_up_wide(size_t n) { return n == 0 ? kWide : (n + kWide - 1) / kWide * kWide; }

}  // namespace

Result<DeltaByteArrayDecoder> DeltaByteArrayDecoder::make(const uint8_t* data, size_t size, int32_t fixed_width) {
  if (size > std::numeric_limits<uint32_t>::max()) {
    return make_error(ErrorCode::kLimitExceeded,
                      "DELTA_BYTE_ARRAY: page of " + std::to_string(size) + " bytes, more than 4 GiB");
  }
  auto prefixes = DeltaInt32Decoder::make(data, size);
  if (!prefixes.ok()) return prefixed("DELTA_BYTE_ARRAY prefix lengths", prefixes.error());
  auto prefix_end = delta_stream_length(data, size);
  if (!prefix_end.ok()) return prefixed("DELTA_BYTE_ARRAY prefix lengths", prefix_end.error());
  const uint8_t* s = data + *prefix_end;
  const size_t s_size = size - *prefix_end;
  auto suffixes = DeltaInt32Decoder::make(s, s_size);
  if (!suffixes.ok()) {
    return prefixed(("DELTA_BYTE_ARRAY suffix lengths (from byte " + std::to_string(*prefix_end) + ")").c_str(),
                    suffixes.error());
  }
  auto suffix_end = delta_stream_length(s, s_size);
  if (!suffix_end.ok()) {
    return prefixed(("DELTA_BYTE_ARRAY suffix lengths (from byte " + std::to_string(*prefix_end) + ")").c_str(),
                    suffix_end.error());
  }
  if (prefixes->total_values() != suffixes->total_values()) {
    return make_error(ErrorCode::kCorrupt, "DELTA_BYTE_ARRAY: " + std::to_string(prefixes->total_values()) +
                                               " prefix lengths but " + std::to_string(suffixes->total_values()) +
                                               " suffix lengths");
  }
  if (fixed_width < -1) {
    return make_error(ErrorCode::kInvalidArgument, "DELTA_BYTE_ARRAY: fixed width " + std::to_string(fixed_width));
  }
  DeltaByteArrayDecoder d;
  d.data_ = data;
  d.size_ = size;
  d.fixed_width_ = fixed_width;
  d.total_ = d.remaining_ = prefixes->total_values();
  d.prefixes_ = std::move(*prefixes);
  d.suffixes_ = std::move(*suffixes);
  d.suffix_pos_ = *prefix_end + *suffix_end;
  return d;
}

Status DeltaByteArrayDecoder::refill() {
  const size_t k = static_cast<size_t>(std::min<uint64_t>(kChunk, prefixes_.values_remaining()));
  const uint64_t first = total_ - prefixes_.values_remaining();
  auto p = prefixes_.decode(reinterpret_cast<int32_t*>(prefix_), k);
  if (!p.ok()) return prefixed("DELTA_BYTE_ARRAY prefix lengths", p.error());
  const uint32_t start = static_cast<uint32_t>(suffix_pos_);
  uint32_t offset = start, max_length = 0;
  suffix_at_[0] = start;
  auto s = suffixes_.decode_offsets(suffix_at_ + 1, k, offset, max_length);
  if (!s.ok()) return prefixed("DELTA_BYTE_ARRAY suffix lengths", s.error());
  PQFAST_RETURN_IF_ERROR(
      delta::check_length_run("DELTA_BYTE_ARRAY suffix lengths", suffix_at_ + 1, k, start, max_length, first));
  if (suffix_at_[k] > size_) {
    return make_error(ErrorCode::kTruncated, "DELTA_BYTE_ARRAY: the suffixes of values " + std::to_string(first) +
                                                 ".." + std::to_string(first + k - 1) + " end at byte " +
                                                 std::to_string(suffix_at_[k]) + ", past the page's " +
                                                 std::to_string(size_) + " bytes");
  }
  // Every prefix within the value before it (the page's first value has
  // none before it), a chunk at a time without a branch per value.
  uint64_t prev_len = last_len_;
  uint32_t bad = 0;
  for (size_t i = 0; i < k; ++i) {
    const uint64_t len = uint64_t{prefix_[i]} + (suffix_at_[i + 1] - suffix_at_[i]);
    bad |= static_cast<uint32_t>(prefix_[i] > prev_len) |
           static_cast<uint32_t>(fixed_width_ >= 0 && len != static_cast<uint64_t>(fixed_width_));
    prev_len = len;
  }
  if (bad != 0) {
    prev_len = last_len_;
    for (size_t i = 0; i < k; ++i) {
      const uint32_t suffix = suffix_at_[i + 1] - suffix_at_[i];
      const uint64_t len = uint64_t{prefix_[i]} + suffix;
      if (prefix_[i] > prev_len) {
        const std::string p_text = prefix_[i] >= (uint32_t{1} << 31)
                                       ? std::to_string(static_cast<int32_t>(prefix_[i])) + " (negative)"
                                       : std::to_string(prefix_[i]);
        return make_error(ErrorCode::kCorrupt, "DELTA_BYTE_ARRAY: value " + std::to_string(first + i) +
                                                   " has prefix length " + p_text + ", the value before it " +
                                                   std::to_string(prev_len) + " bytes");
      }
      if (fixed_width_ >= 0 && len != static_cast<uint64_t>(fixed_width_)) {
        return make_error(ErrorCode::kCorrupt, "DELTA_BYTE_ARRAY: value " + std::to_string(first + i) + " has " +
                                                   std::to_string(len) + " bytes in a FIXED_LEN_BYTE_ARRAY(" +
                                                   std::to_string(fixed_width_) + ") column");
      }
      prev_len = len;
    }
  }
  last_len_ = prev_len;
  suffix_pos_ = suffix_at_[k];
  chunk_pos_ = 0;
  chunk_len_ = static_cast<uint32_t>(k);
  return Status::Ok();
}

void DeltaByteArrayDecoder::remember_last(const uint8_t* value, size_t len) {
  // Sized once to the longest value seen, then reused.
  if (last_.size() < len) last_.resize(len);
  std::memmove(last_.data(), value, len);
  last_size_ = len;
}

template <class Offset>
Result<size_t> DeltaByteArrayDecoder::decode_impl(Offset* offsets, uint8_t* data, size_t data_capacity, size_t n) {
  n = static_cast<size_t>(std::min<uint64_t>(n, remaining_));
  if (n == 0) return size_t{0};
  if (offsets == nullptr || data == nullptr) {
    return make_error(ErrorCode::kInvalidArgument, "DELTA_BYTE_ARRAY: null output");
  }
  if (fixed_width_ >= 0) {
    return make_error(ErrorCode::kInvalidArgument,
                      "DELTA_BYTE_ARRAY: a FIXED_LEN_BYTE_ARRAY page decodes with decode_fixed()");
  }
  if (offsets[0] < 0 || static_cast<uint64_t>(offsets[0]) > data_capacity) {
    return make_error(ErrorCode::kInvalidArgument, "DELTA_BYTE_ARRAY: offsets[0] = " + std::to_string(offsets[0]) +
                                                       " outside the data buffer");
  }
  const uint64_t limit =
      std::min<uint64_t>(data_capacity, static_cast<uint64_t>(std::numeric_limits<Offset>::max()));
  uint64_t cur = static_cast<uint64_t>(offsets[0]);
  // The value before: kept by the decoder for the first value of a call,
  // then the one just written.
  const uint8_t* prev = last_.data();
  size_t prev_len = last_size_;
  size_t done = 0;
  while (done < n) {
    if (chunk_pos_ == chunk_len_) PQFAST_RETURN_IF_ERROR(refill());
    const size_t take = std::min<size_t>(chunk_len_ - chunk_pos_, n - done);
    size_t i = chunk_pos_;
    const size_t end = i + take;
    // The first value of a call comes from the kept value: exact copies.
    if (done == 0) {
      const size_t p = prefix_[i], s = suffix_at_[i + 1] - suffix_at_[i];
      if (cur + p + s > limit) break;
      if (p != 0) std::memcpy(data + cur, prev, p);
      std::memcpy(data + cur + p, data_ + suffix_at_[i], s);
      prev = data + cur;
      prev_len = p + s;
      cur += p + s;
      offsets[++done] = static_cast<Offset>(cur);
      ++i;
    }
    // Wide copies while the page and the buffer have room for their overrun.
    for (; i < end; ++i) {
      const size_t p = prefix_[i], at = suffix_at_[i], s = suffix_at_[i + 1] - at;
      if (cur + round_up_wide(p) + round_up_wide(s) > limit || at + round_up_wide(s) > size_) break;
      uint8_t* dst = data + cur;
      wide_copy(dst, dst - prev_len, p);
      wide_copy(dst + p, data_ + at, s);
      prev_len = p + s;
      cur += prev_len;
      offsets[++done] = static_cast<Offset>(cur);
    }
    // Exact copies near either end.
    for (; i < end; ++i) {
      const size_t p = prefix_[i], at = suffix_at_[i], s = suffix_at_[i + 1] - at;
      if (cur + p + s > limit) break;
      uint8_t* dst = data + cur;
      std::memmove(dst, dst - prev_len, p);
      std::memcpy(dst + p, data_ + at, s);
      prev_len = p + s;
      cur += prev_len;
      offsets[++done] = static_cast<Offset>(cur);
    }
    prev = data + cur - prev_len;
    chunk_pos_ = static_cast<uint32_t>(i);
    if (i < end) break;  // the buffer is full
  }
  if (done > 0) {
    remember_last(prev, prev_len);
    remaining_ -= done;
  }
  return done;
}

Result<size_t> DeltaByteArrayDecoder::decode(int32_t* offsets, uint8_t* data, size_t data_capacity, size_t n) {
  return decode_impl(offsets, data, data_capacity, n);
}
Result<size_t> DeltaByteArrayDecoder::decode(int64_t* offsets, uint8_t* data, size_t data_capacity, size_t n) {
  return decode_impl(offsets, data, data_capacity, n);
}

Result<size_t> DeltaByteArrayDecoder::decode_fixed(uint8_t* out, size_t n) {
  n = static_cast<size_t>(std::min<uint64_t>(n, remaining_));
  if (n == 0) return size_t{0};
  if (fixed_width_ < 0) {
    return make_error(ErrorCode::kInvalidArgument, "DELTA_BYTE_ARRAY: decode_fixed() on a BYTE_ARRAY page");
  }
  if (fixed_width_ == 0) return skip(n);  // nothing to write; the lengths are still checked
  if (out == nullptr) return make_error(ErrorCode::kInvalidArgument, "DELTA_BYTE_ARRAY: null output");
  const size_t w = static_cast<size_t>(fixed_width_);
  const size_t capacity = n * w;
  size_t done = 0;
  while (done < n) {
    if (chunk_pos_ == chunk_len_) PQFAST_RETURN_IF_ERROR(refill());
    const size_t take = std::min<size_t>(chunk_len_ - chunk_pos_, n - done);
    size_t i = chunk_pos_;
    const size_t end = i + take;
    uint8_t* dst = out + done * w;
    if (done == 0) {
      const size_t p = prefix_[i];
      if (p != 0) std::memcpy(dst, last_.data(), p);
      std::memcpy(dst + p, data_ + suffix_at_[i], w - p);
      dst += w;
      ++done;
      ++i;
    }
    for (; i < end; ++i, dst += w, ++done) {
      const size_t p = prefix_[i], at = suffix_at_[i], s = w - p;
      if (static_cast<size_t>(dst - out) + round_up_wide(p) + round_up_wide(s) > capacity ||
          at + round_up_wide(s) > size_) {
        std::memmove(dst, dst - w, p);
        std::memcpy(dst + p, data_ + at, s);
      } else {
        wide_copy(dst, dst - w, p);
        wide_copy(dst + p, data_ + at, s);
      }
    }
    chunk_pos_ = static_cast<uint32_t>(i);
  }
  remember_last(out + (n - 1) * w, w);
  remaining_ -= n;
  return n;
}

Result<size_t> DeltaByteArrayDecoder::decode_views(BinaryView* views, uint8_t* data, size_t data_capacity,
                                                   size_t* data_size, int32_t buffer_index, size_t n) {
  n = static_cast<size_t>(std::min<uint64_t>(n, remaining_));
  if (n == 0) return size_t{0};
  if (views == nullptr || data_size == nullptr || (data == nullptr && data_capacity != 0)) {
    return make_error(ErrorCode::kInvalidArgument, "DELTA_BYTE_ARRAY: null output");
  }
  if (fixed_width_ >= 0) {
    return make_error(ErrorCode::kInvalidArgument,
                      "DELTA_BYTE_ARRAY: a FIXED_LEN_BYTE_ARRAY page decodes with decode_fixed()");
  }
  const uint64_t limit =
      std::min<uint64_t>(data_capacity, static_cast<uint64_t>(std::numeric_limits<int32_t>::max()));
  size_t used = *data_size;
  if (used > data_capacity) {
    return make_error(ErrorCode::kInvalidArgument, "DELTA_BYTE_ARRAY: *data_size past data_capacity");
  }
  // The value before, as bytes: the kept one, then inline in a view or in `data`.
  const uint8_t* prev = last_.data();
  size_t prev_len = last_size_;
  size_t done = 0;
  while (done < n) {
    if (chunk_pos_ == chunk_len_) PQFAST_RETURN_IF_ERROR(refill());
    const size_t take = std::min<size_t>(chunk_len_ - chunk_pos_, n - done);
    size_t i = chunk_pos_;
    const size_t end = i + take;
    for (; i < end; ++i) {
      const size_t p = prefix_[i], at = suffix_at_[i], s = suffix_at_[i + 1] - at;
      const size_t len = p + s;
      BinaryView& v = views[done];
      uint8_t* dst;
      if (len <= static_cast<size_t>(kBinaryViewInlineSize)) {
        std::memset(&v, 0, sizeof v);
        dst = v.inlined.data;
      } else {
        if (used + len > limit) break;
        dst = data + used;
      }
      if (p != 0) std::memmove(dst, prev, p);
      std::memcpy(dst + p, data_ + at, s);
      v.inlined.size = static_cast<int32_t>(len);
      if (len > static_cast<size_t>(kBinaryViewInlineSize)) {
        std::memcpy(v.ref.prefix, dst, 4);
        v.ref.buffer_index = buffer_index;
        v.ref.offset = static_cast<int32_t>(used);
        used += len;
      }
      prev = dst;
      prev_len = len;
      ++done;
    }
    chunk_pos_ = static_cast<uint32_t>(i);
    if (i < end) break;
  }
  if (done > 0) {
    remember_last(prev, prev_len);
    remaining_ -= done;
  }
  *data_size = used;
  return done;
}

Result<size_t> DeltaByteArrayDecoder::skip(size_t n) {
  // The value after the skipped ones needs the last skipped one: rebuild
  // each into the kept buffer (no output, no allocation beyond it).
  n = static_cast<size_t>(std::min<uint64_t>(n, remaining_));
  size_t done = 0;
  while (done < n) {
    if (chunk_pos_ == chunk_len_) PQFAST_RETURN_IF_ERROR(refill());
    const size_t take = std::min<size_t>(chunk_len_ - chunk_pos_, n - done);
    for (size_t i = chunk_pos_; i < chunk_pos_ + take; ++i) {
      const size_t p = prefix_[i], at = suffix_at_[i], s = suffix_at_[i + 1] - at;
      if (last_.size() < p + s) last_.resize(p + s);
      if (s != 0) std::memcpy(last_.data() + p, data_ + at, s);  // the prefix is already in place
      last_size_ = p + s;
    }
    chunk_pos_ += static_cast<uint32_t>(take);
    done += take;
  }
  remaining_ -= n;
  return n;
}

}  // namespace pqfast
