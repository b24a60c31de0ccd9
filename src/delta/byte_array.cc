// DELTA_BYTE_ARRAY: prefix lengths and suffix lengths (two INT32
// DELTA_BINARY_PACKED streams, the suffixes' turned to offsets in the
// unpacking kernel), a chunk at a time into fixed arrays of the decoder;
// the chunk is checked in one pass (no negative length, no prefix longer
// than the value before it, the suffixes inside the page), then the values
// are rebuilt by the active kernel table's `rebuild` (wide blends and
// copies that read past a suffix's end and write past a value's end) where
// the page and the output have that slack, and with exact copies elsewhere.
#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "delta/byte_array_common.h"
#include "delta/kernels.h"
#include "pqfast/delta.h"

namespace pqfast {

using delta::prefixed;

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

Result<uint64_t> DeltaByteArrayDecoder::decoded_size(const uint8_t* data, size_t size, uint64_t stop_above) {
  auto d = make(data, size);
  if (!d.ok()) return d.error();
  uint64_t total = 0;
  int32_t prefix[kChunk], suffix[kChunk];
  for (uint64_t left = d->total_; left > 0 && total <= stop_above;) {
    const size_t k = static_cast<size_t>(std::min<uint64_t>(left, kChunk));
    auto a = d->prefixes_.decode(prefix, k);
    if (!a.ok()) return prefixed("DELTA_BYTE_ARRAY prefix lengths", a.error());
    auto b = d->suffixes_.decode(suffix, k);
    if (!b.ok()) return prefixed("DELTA_BYTE_ARRAY suffix lengths", b.error());
    if (*a != k || *b != k) return make_error(ErrorCode::kTruncated, "DELTA_BYTE_ARRAY: the length streams end early");
    for (size_t i = 0; i < k; ++i) {
      if (prefix[i] < 0 || suffix[i] < 0) {
        return make_error(ErrorCode::kCorrupt, "DELTA_BYTE_ARRAY: negative length at value " +
                                                   std::to_string(d->total_ - left + i));
      }
      total += static_cast<uint64_t>(prefix[i]) + static_cast<uint64_t>(suffix[i]);
    }
    left -= k;
  }
  return total;
}

Status DeltaByteArrayDecoder::refill() {
  const uint64_t first = total_ - prefixes_.values_remaining();
  size_t k = static_cast<size_t>(std::min<uint64_t>(kChunk, prefixes_.values_remaining()));
  if (k == kChunk) {
    // End the chunk where a block (or, for blocks larger than a chunk, a
    // miniblock) of the streams ends (value 1 + m * unit), so that every
    // chunk decodes whole blocks on the fast path, none through scratch.
    const DeltaGeometry g = prefixes_.geometry();
    const uint64_t unit = g.block_size <= kChunk ? g.block_size : g.values_per_miniblock();
    const uint64_t end = (first + k - 1) / unit * unit + 1;
    if (end > first && unit <= kChunk) k = static_cast<size_t>(end - first);
  }
  // Prefix lengths through the offset kernel too: their running sums give
  // where each value ends without a sequential pass here.
  uint32_t* const prefix_sum = len_;  // len_ is free until the end
  uint32_t prefix_total = 0, max_prefix = 0;
  auto p = prefixes_.decode_offsets(prefix_sum, k, prefix_total, max_prefix);
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
  // none before it), a chunk at a time: loops over arrays without a branch
  // per value, which the compiler vectorises. Lengths fit 32 bits while the
  // prefixes hold (a value grows only by suffix bytes of this page).
  // Where each value ends, from the chunk's start: prefix sum + suffix
  // sum, exact while k prefixes this large cannot wrap 32 bits (else summed
  // one by one).
  if (max_prefix < (uint32_t{1} << 31) && uint64_t{k} * max_prefix <= UINT32_MAX) {
    for (size_t i = 0; i < k; ++i) chunk_end_[i] = uint64_t{prefix_sum[i]} + (suffix_at_[i + 1] - start);
  } else {
    uint64_t end = 0;
    for (size_t i = 0; i < k; ++i) chunk_end_[i] = end += (prefix_sum[i] - (i > 0 ? prefix_sum[i - 1] : 0)) +
                                                        uint64_t{suffix_at_[i + 1] - suffix_at_[i]};
  }
  prefix_[0] = prefix_sum[0];  // differences are exact mod 2^32, wrapped sums or not
  for (size_t i = 1; i < k; ++i) prefix_[i] = prefix_sum[i] - prefix_sum[i - 1];
  uint32_t bad = prefix_[0] > last_len_, any_len = 0;
  for (size_t i = 0; i < k; ++i) {
    len_[i] = prefix_[i] + (suffix_at_[i + 1] - suffix_at_[i]);
    any_len |= len_[i];
  }
  chunk_max_len_ = any_len;  // at least the longest length (the kernels want a bound)
  for (size_t i = 1; i < k; ++i) bad |= prefix_[i] > len_[i - 1];
  if (fixed_width_ >= 0) {
    for (size_t i = 0; i < k; ++i) bad |= len_[i] != static_cast<uint32_t>(fixed_width_);
  }
  if (bad != 0) {  // find and name the culprit
    uint64_t prev_len = last_len_;
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
  last_len_ = len_[k - 1];
  suffix_pos_ = suffix_at_[k];
  chunk_pos_ = 0;
  chunk_len_ = static_cast<uint32_t>(k);
  return Status::Ok();
}

namespace {
// The value before the page's first one: nothing, but readable for the
// kernels' slack.
alignas(64) constexpr uint8_t kNothing[delta::kRebuildSlack] = {};
}  // namespace

const uint8_t* DeltaByteArrayDecoder::kept() const { return last_size_ == 0 ? kNothing : last_.data(); }

void DeltaByteArrayDecoder::remember_last(const uint8_t* value, size_t len) {
  // Grows to the longest value seen (plus the kernels' read slack), then reused.
  if (len != 0 && last_.size() < len + delta::kRebuildSlack) last_.resize(len + delta::kRebuildSlack);
  if (len != 0) std::memmove(last_.data(), value, len);
  last_size_ = len;
}

void DeltaByteArrayDecoder::write_values(size_t i, size_t j, uint8_t* out, size_t room, const uint8_t* prev) {
  constexpr size_t kSlack = delta::kRebuildSlack;
  auto len_of = [this](size_t x) { return size_t{len_[x]}; };
  auto exact = [&](size_t x) {
    const size_t p = prefix_[x], at = suffix_at_[x], s = suffix_at_[x + 1] - at;
    if (p != 0) std::memmove(out, prev, p);
    if (s != 0) std::memcpy(out + p, data_ + at, s);
    prev = out;
    out += p + s;
    room -= p + s;
  };
  // Exact copies where the page has no slack before the suffix (the first
  // values of a page whose streams are short)...
  while (i < j && suffix_at_[i] < kSlack) exact(i++);
  // ... and where the page or the buffer has no slack after the value.
  size_t b = j;
  size_t run_bytes = j > i ? static_cast<size_t>(chunk_end_[j - 1] - (i > 0 ? chunk_end_[i - 1] : 0)) : 0;
  while (b > i && (suffix_at_[b] + kSlack > size_ || run_bytes + kSlack > room)) run_bytes -= len_of(--b);
  if (b > i) {
    delta::active_delta_kernels().rebuild(data_, prefix_ + i, suffix_at_ + i, b - i, prev, out, chunk_max_len_);
    out += run_bytes;
    room -= run_bytes;
    prev = out - len_of(b - 1);
  }
  for (size_t x = b; x < j; ++x) exact(x);
}

template <class Offset>
Result<size_t> DeltaByteArrayDecoder::decode_impl(Offset* offsets, uint8_t* data, size_t data_capacity, size_t n) {
  n = static_cast<size_t>(std::min<uint64_t>(n, remaining_));
  if (n == 0) return size_t{0};
  if (offsets == nullptr || (data == nullptr && data_capacity != 0)) {
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
  const uint8_t* prev = kept();
  size_t prev_len = last_size_;
  size_t done = 0;
  while (done < n) {
    if (chunk_pos_ == chunk_len_) PQFAST_RETURN_IF_ERROR(refill());
    const size_t i = chunk_pos_, end = i + std::min<size_t>(chunk_len_ - chunk_pos_, n - done);
    // Offsets first, as far as the buffer holds the values.
    const uint64_t base = i > 0 ? chunk_end_[i - 1] : 0;
    size_t j = end;
    if (cur + (chunk_end_[end - 1] - base) > limit) {
      j = static_cast<size_t>(std::upper_bound(chunk_end_ + i, chunk_end_ + end, limit - cur + base) - chunk_end_);
    }
    Offset* o = offsets + done + 1;
    const uint64_t shift = cur - base;
    for (size_t x = 0; x < j - i; ++x) o[x] = static_cast<Offset>(chunk_end_[i + x] + shift);
    const uint64_t pos = j > i ? cur + (chunk_end_[j - 1] - base) : cur;
    if (j > i) {
      write_values(i, j, data + cur, data_capacity - cur, prev);
      prev_len = len_[j - 1];
      prev = data + pos - prev_len;
    }
    done += j - i;
    cur = pos;
    chunk_pos_ = static_cast<uint32_t>(j);
    if (j < end) break;  // the buffer is full
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
  const uint8_t* prev = kept();
  size_t done = 0;
  while (done < n) {
    if (chunk_pos_ == chunk_len_) PQFAST_RETURN_IF_ERROR(refill());
    const size_t take = std::min<size_t>(chunk_len_ - chunk_pos_, n - done);
    write_values(chunk_pos_, chunk_pos_ + take, out + done * w, (n - done) * w, prev);
    done += take;
    chunk_pos_ += static_cast<uint32_t>(take);
    prev = out + (done - 1) * w;
  }
  remember_last(prev, w);
  remaining_ -= n;
  return n;
}

Result<size_t> DeltaByteArrayDecoder::decode_views(BinaryView* views, uint8_t* data, size_t data_capacity,
                                                   size_t* data_size, int32_t buffer_index, size_t n) {
  if (views == nullptr || data_size == nullptr || *data_size > data_capacity) {
    return make_error(ErrorCode::kInvalidArgument, "DELTA_BYTE_ARRAY: null output or *data_size past data_capacity");
  }
  if (data_capacity > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    data_capacity = static_cast<size_t>(std::numeric_limits<int32_t>::max());  // view offsets are int32
  }
  // The values back to back in `data`, then a view of each (those of up to
  // 12 bytes inline as well): views stop where `data` is full.
  size_t done = 0;
  while (done < n) {
    int32_t offsets[kChunk + 1];
    offsets[0] = static_cast<int32_t>(*data_size);
    auto got = decode_impl(offsets, data, data_capacity, std::min(n - done, kChunk));
    if (!got.ok()) return got.error();
    if (*got > 0) {
      delta::make_views(views + done, data, data_capacity, static_cast<uint32_t>(offsets[0]),
                        reinterpret_cast<const uint32_t*>(offsets + 1), *got, buffer_index);
    }
    done += *got;
    *data_size = static_cast<size_t>(offsets[*got]);
    if (*got == 0) break;
  }
  return done;
}

Result<size_t> DeltaByteArrayDecoder::skip(size_t n) {
  // The value after the skipped ones needs the last skipped one: each is
  // rebuilt in the kept buffer (its prefix is already there).
  n = static_cast<size_t>(std::min<uint64_t>(n, remaining_));
  size_t done = 0;
  while (done < n) {
    if (chunk_pos_ == chunk_len_) PQFAST_RETURN_IF_ERROR(refill());
    const size_t take = std::min<size_t>(chunk_len_ - chunk_pos_, n - done);
    for (size_t i = chunk_pos_; i < chunk_pos_ + take; ++i) {
      const size_t p = prefix_[i], at = suffix_at_[i], s = suffix_at_[i + 1] - at;
      if (p + s != 0 && last_.size() < p + s + delta::kRebuildSlack) last_.resize(p + s + delta::kRebuildSlack);
      if (s != 0) std::memcpy(last_.data() + p, data_ + at, s);
      last_size_ = p + s;
    }
    chunk_pos_ += static_cast<uint32_t>(take);
    done += take;
  }
  remaining_ -= n;
  return n;
}

}  // namespace pqfast
