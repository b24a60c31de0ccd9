// DELTA_LENGTH_BYTE_ARRAY: lengths (INT32 DELTA_BINARY_PACKED) decoded
// straight to Arrow offsets by the fused offset kernels, then the values'
// bytes, which lie back to back in the page, copied with one memcpy per
// batch (or not at all, for views).
#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "delta/byte_array_common.h"
#include "pqfast/delta.h"

namespace pqfast {

using delta::prefixed;

Result<DeltaLengthByteArrayDecoder> DeltaLengthByteArrayDecoder::make(const uint8_t* data, size_t size) {
  constexpr const char* kWhat = "DELTA_LENGTH_BYTE_ARRAY lengths";
  if (size > std::numeric_limits<uint32_t>::max()) {
    return make_error(ErrorCode::kLimitExceeded, "DELTA_LENGTH_BYTE_ARRAY: page of " + std::to_string(size) +
                                                     " bytes, more than 4 GiB");
  }
  auto lengths = DeltaInt32Decoder::make(data, size);
  if (!lengths.ok()) return prefixed(kWhat, lengths.error());
  auto end = delta_stream_length(data, size);
  if (!end.ok()) return prefixed(kWhat, end.error());
  DeltaLengthByteArrayDecoder d;
  d.data_ = data;
  d.size_ = size;
  d.bytes_pos_ = *end;
  d.lengths_ = std::move(*lengths);
  return d;
}

Status DeltaLengthByteArrayDecoder::check_offsets(const uint32_t* ends, size_t k, uint32_t start,
                                                  uint32_t max_length) const {
  const uint64_t first_index = total_values() - lengths_.values_remaining() - k;
  PQFAST_RETURN_IF_ERROR(delta::check_length_run("DELTA_LENGTH_BYTE_ARRAY", ends, k, start, max_length, first_index));
  const uint64_t end = ends[k - 1] - start;  // the batch's bytes (no wrap: checked above)
  if (end > size_ - bytes_pos_) {
    return make_error(ErrorCode::kTruncated,
                      "DELTA_LENGTH_BYTE_ARRAY: values " + std::to_string(first_index) + ".." +
                          std::to_string(first_index + k - 1) + " need " + std::to_string(end) +
                          " bytes from byte " + std::to_string(bytes_pos_) + ", the page has " +
                          std::to_string(size_ - bytes_pos_) + " (lengths pass the end of the data)");
  }
  return Status::Ok();
}

Status DeltaLengthByteArrayDecoder::refill() {
  size_t k = static_cast<size_t>(std::min<uint64_t>(kChunk, lengths_.values_remaining()));
  if (k == kChunk) {  // end on a block (or miniblock) boundary: whole blocks on the fast path
    const uint64_t first = total_values() - lengths_.values_remaining();
    const DeltaGeometry g = lengths_.geometry();
    const uint64_t unit = g.block_size <= kChunk ? g.block_size : g.values_per_miniblock();
    const uint64_t end = (first + k - 1) / unit * unit + 1;
    if (end > first && unit <= kChunk) k = static_cast<size_t>(end - first);
  }
  uint32_t offset = static_cast<uint32_t>(bytes_pos_), max_length = 0;
  auto got = lengths_.decode_offsets(held_, k, offset, max_length);
  if (!got.ok()) return delta::prefixed("DELTA_LENGTH_BYTE_ARRAY lengths", got.error());
  PQFAST_RETURN_IF_ERROR(check_offsets(held_, k, static_cast<uint32_t>(bytes_pos_), max_length));
  held_pos_ = 0;
  held_len_ = static_cast<uint32_t>(k);
  return Status::Ok();
}

template <class Offset>
Result<size_t> DeltaLengthByteArrayDecoder::decode_impl(Offset* offsets, uint8_t* data, size_t data_capacity,
                                                        size_t n) {
  n = static_cast<size_t>(std::min<uint64_t>(n, values_remaining()));
  if (n == 0) return size_t{0};
  if (offsets == nullptr || (data == nullptr && data_capacity != 0)) {
    return make_error(ErrorCode::kInvalidArgument, "DELTA_LENGTH_BYTE_ARRAY: null output");
  }
  if (offsets[0] < 0 || static_cast<uint64_t>(offsets[0]) > data_capacity) {
    return make_error(ErrorCode::kInvalidArgument, "DELTA_LENGTH_BYTE_ARRAY: offsets[0] = " +
                                                       std::to_string(offsets[0]) + " outside the data buffer");
  }
  const uint64_t limit = std::min<uint64_t>(data_capacity, static_cast<uint64_t>(std::numeric_limits<Offset>::max()));
  // The whole rest of the page fits whatever the lengths say: lengths go
  // straight to the caller's offsets through the fused kernel, the bytes
  // with one memcpy.
  if constexpr (sizeof(Offset) == 4) {
    const uint64_t base = static_cast<uint64_t>(offsets[0]);
    if (held_pos_ == held_len_ && base + (size_ - bytes_pos_) <= limit) {
      auto* ends = reinterpret_cast<uint32_t*>(offsets + 1);
      uint32_t offset = static_cast<uint32_t>(base), max_length = 0;
      auto got = lengths_.decode_offsets(ends, n, offset, max_length);
      if (!got.ok()) return delta::prefixed("DELTA_LENGTH_BYTE_ARRAY lengths", got.error());
      PQFAST_RETURN_IF_ERROR(check_offsets(ends, n, static_cast<uint32_t>(base), max_length));
      const size_t bytes = offset - static_cast<uint32_t>(base);
      if (bytes != 0) std::memcpy(data + base, data_ + bytes_pos_, bytes);
      bytes_pos_ += bytes;
      return n;
    }
  }
  // Through the chunk decoded ahead: stops where the buffer is full.
  size_t done = 0;
  while (done < n) {
    if (held_pos_ == held_len_) PQFAST_RETURN_IF_ERROR(refill());
    const size_t take = std::min<size_t>(held_len_ - held_pos_, n - done);
    const uint32_t start = static_cast<uint32_t>(bytes_pos_);
    const uint64_t cur = static_cast<uint64_t>(offsets[done]);
    const uint32_t* ends = held_ + held_pos_;
    // Values whose end fits: ends are non-decreasing.
    const uint64_t room = limit - cur;
    const size_t fit = static_cast<size_t>(
        std::upper_bound(ends, ends + take, room, [start](uint64_t r, uint32_t e) { return r < e - start; }) - ends);
    for (size_t j = 0; j < fit; ++j) offsets[done + 1 + j] = static_cast<Offset>(cur + (ends[j] - start));
    if (fit > 0) {
      const size_t bytes = ends[fit - 1] - start;
      if (bytes != 0) std::memcpy(data + cur, data_ + start, bytes);
      bytes_pos_ += bytes;
    }
    held_pos_ += static_cast<uint32_t>(fit);
    done += fit;
    if (fit < take) break;
  }
  return done;
}

Result<size_t> DeltaLengthByteArrayDecoder::decode(int32_t* offsets, uint8_t* data, size_t data_capacity, size_t n) {
  return decode_impl(offsets, data, data_capacity, n);
}
Result<size_t> DeltaLengthByteArrayDecoder::decode(int64_t* offsets, uint8_t* data, size_t data_capacity, size_t n) {
  return decode_impl(offsets, data, data_capacity, n);
}

Result<size_t> DeltaLengthByteArrayDecoder::decode_views(BinaryView* views, int32_t buffer_index, size_t n) {
  n = static_cast<size_t>(std::min<uint64_t>(n, values_remaining()));
  if (n == 0) return size_t{0};
  if (views == nullptr) return make_error(ErrorCode::kInvalidArgument, "DELTA_LENGTH_BYTE_ARRAY: null output");
  if (size_ > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    return make_error(ErrorCode::kLimitExceeded,
                      "DELTA_LENGTH_BYTE_ARRAY: views need int32 offsets, the page has " + std::to_string(size_) +
                          " bytes");
  }
  size_t done = 0;
  while (done < n) {
    if (held_pos_ == held_len_) PQFAST_RETURN_IF_ERROR(refill());
    const size_t take = std::min<size_t>(held_len_ - held_pos_, n - done);
    const uint32_t* ends = held_ + held_pos_;
    delta::make_views(views + done, data_, size_, static_cast<uint32_t>(bytes_pos_), ends, take, buffer_index);
    bytes_pos_ = ends[take - 1];
    held_pos_ += static_cast<uint32_t>(take);
    done += take;
  }
  return n;
}

Result<size_t> DeltaLengthByteArrayDecoder::skip(size_t n) {
  n = static_cast<size_t>(std::min<uint64_t>(n, values_remaining()));
  size_t done = 0;
  while (done < n) {
    if (held_pos_ == held_len_) PQFAST_RETURN_IF_ERROR(refill());
    const size_t take = std::min<size_t>(held_len_ - held_pos_, n - done);
    held_pos_ += static_cast<uint32_t>(take);
    bytes_pos_ = held_[held_pos_ - 1];
    done += take;
  }
  return n;
}

}  // namespace pqfast
