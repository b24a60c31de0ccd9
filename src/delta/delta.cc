// DELTA_BINARY_PACKED: header parsing and validation, the batch loop that
// hands whole miniblocks to the active kernel table, skip, and the encoder.
#include "pqfast/delta.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>

#include "delta/kernels.h"

namespace pqfast {
namespace delta {

const detail::KernelTables<DeltaKernels>& delta_kernel_tables() {
  static const detail::KernelTables<DeltaKernels> tables = [] {
    detail::KernelTables<DeltaKernels> t;
    t.by_level[static_cast<int>(SimdLevel::kScalar)] = &kScalarDeltaKernels;
#if defined(PQFAST_ARCH_X86)
    t.by_level[static_cast<int>(SimdLevel::kAvx2)] = &kAvx2DeltaKernels;
    t.by_level[static_cast<int>(SimdLevel::kAvx512)] = &kAvx512DeltaKernels;
#endif
#if defined(PQFAST_ARCH_ARM64)
    t.by_level[static_cast<int>(SimdLevel::kNeon)] = &kNeonDeltaKernels;
#endif
    return t;
  }();
  return tables;
}

const DeltaKernels& active_delta_kernels() {
  static const detail::ActiveKernels<DeltaKernels> active(&delta_kernel_tables);
  return active.get();
}

}  // namespace delta

namespace {

const delta::DeltaKernels& kernels() { return delta::active_delta_kernels(); }

// The kernel for a width, by output size.
inline delta::Miniblock32Fn kernel_for(const delta::DeltaKernels& k, uint32_t w, uint32_t*) { return k.int32[w]; }
inline delta::Miniblock64Fn kernel_for(const delta::DeltaKernels& k, uint32_t w, uint64_t*) { return k.int64[w]; }
inline delta::Block32Fn block_kernel(const delta::DeltaKernels& k, uint32_t*) { return k.block32; }
inline delta::Block64Fn block_kernel(const delta::DeltaKernels& k, uint64_t*) { return k.block64; }

std::string at(size_t offset) { return " at byte " + std::to_string(offset); }

// ULEB128 of at most 10 bytes that fits 64 bits. Advances pos on success.
Status read_uleb(const uint8_t* data, size_t size, size_t& pos, const char* field, uint64_t& out) {
  const size_t start = pos;
  uint64_t v = 0;
  for (int i = 0; i < 10; ++i) {
    if (pos >= size) {
      return make_error(ErrorCode::kTruncated, std::string("DELTA_BINARY_PACKED: ") + field +
                                                   ": varint cut off by the end of the stream" + at(start));
    }
    const uint8_t b = data[pos++];
    if (i == 9 && b > 1) {
      return make_error(ErrorCode::kCorrupt, std::string("DELTA_BINARY_PACKED: ") + field +
                                                 ": varint overflows 64 bits" + at(start));
    }
    v |= uint64_t{b & 0x7fu} << (7 * i);
    if ((b & 0x80) == 0) {
      out = v;
      return Status::Ok();
    }
  }
  return make_error(ErrorCode::kCorrupt, std::string("DELTA_BINARY_PACKED: ") + field +
                                             ": varint overflows 64 bits" + at(start));  // unreachable
}

inline uint64_t zigzag_decode(uint64_t v) { return (v >> 1) ^ (~(v & 1) + 1); }
inline uint64_t zigzag_encode(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}

void write_uleb(std::vector<uint8_t>& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<uint8_t>(v));
}

}  // namespace

Status validate_delta_geometry(DeltaGeometry g) {
  if (g.block_size == 0 || g.block_size % 128 != 0 || g.block_size > kDeltaMaxBlockSize) {
    return make_error(ErrorCode::kCorrupt,
                      "DELTA_BINARY_PACKED: block size " + std::to_string(g.block_size) +
                          " is not a positive multiple of 128 up to " + std::to_string(kDeltaMaxBlockSize));
  }
  if (g.miniblocks_per_block == 0 || g.block_size % g.miniblocks_per_block != 0 ||
      (g.block_size / g.miniblocks_per_block) % 32 != 0) {
    return make_error(ErrorCode::kCorrupt,
                      "DELTA_BINARY_PACKED: " + std::to_string(g.miniblocks_per_block) +
                          " miniblocks per block of " + std::to_string(g.block_size) +
                          " values: values per miniblock must be a positive multiple of 32");
  }
  return Status::Ok();
}

// ---- decoder ------------------------------------------------------------------

template <class T>
Error DeltaBinaryPackedDecoder<T>::error_at(ErrorCode code, size_t offset, const std::string& what) const {
  return make_error(code, "DELTA_BINARY_PACKED: " + what + at(offset));
}

template <class T>
Result<DeltaBinaryPackedDecoder<T>> DeltaBinaryPackedDecoder<T>::make(const uint8_t* data, size_t size) {
  if (data == nullptr && size != 0) {
    return make_error(ErrorCode::kInvalidArgument, "DELTA_BINARY_PACKED: null buffer");
  }
  DeltaBinaryPackedDecoder d;
  d.data_ = data;
  d.size_ = size;
  size_t pos = 0;
  uint64_t block_size = 0, miniblocks = 0, total = 0, first = 0;
  PQFAST_RETURN_IF_ERROR(read_uleb(data, size, pos, "header block size", block_size));
  PQFAST_RETURN_IF_ERROR(read_uleb(data, size, pos, "header miniblocks per block", miniblocks));
  PQFAST_RETURN_IF_ERROR(read_uleb(data, size, pos, "header total value count", total));
  PQFAST_RETURN_IF_ERROR(read_uleb(data, size, pos, "header first value", first));
  if (block_size > kDeltaMaxBlockSize || miniblocks > kDeltaMaxBlockSize) {
    return d.error_at(ErrorCode::kCorrupt, 0,
                      "header geometry " + std::to_string(block_size) + " / " + std::to_string(miniblocks) +
                          " beyond the largest block accepted (" + std::to_string(kDeltaMaxBlockSize) + " values)");
  }
  d.geometry_ = DeltaGeometry{static_cast<uint32_t>(block_size), static_cast<uint32_t>(miniblocks)};
  if (Status s = validate_delta_geometry(d.geometry_); !s.ok()) {
    return make_error(s.error().code, s.error().message + at(0));
  }
  d.values_per_miniblock_ = d.geometry_.values_per_miniblock();
  // Every block after the first value costs at least its min delta and its
  // width bytes: check the count against the bytes before trusting it.
  if (total > 1) {
    const uint64_t blocks = (total - 2) / block_size + 1;
    const uint64_t per_block = miniblocks + 1;
    if (blocks > (size - pos) / per_block) {
      return d.error_at(ErrorCode::kTruncated, 0,
                        "header announces " + std::to_string(total) + " values, but the " +
                            std::to_string(size - pos) + " bytes after the header hold at most " +
                            std::to_string((size - pos) / per_block) + " blocks of " +
                            std::to_string(block_size) + " (cut short, or a forged count)");
    }
  }
  d.pos_ = pos;
  d.total_ = total;
  d.remaining_ = total;
  d.first_pending_ = total > 0;
  d.last_ = static_cast<U>(zigzag_decode(first));  // INT32 keeps the low 32 bits
  d.widths_.resize(miniblocks);
  return d;
}

template <class T>
Status DeltaBinaryPackedDecoder<T>::read_block_header() {
  const size_t start = pos_;
  auto block = [&] { return "block " + std::to_string(block_index_); };  // only on errors
  uint64_t zz = 0;
  if (pos_ < size_ && data_[pos_] < 0x80) {  // the common one-byte min delta
    zz = data_[pos_++];
  } else if (Status s = read_uleb(data_, size_, pos_, "block min delta", zz); !s.ok()) {
    return make_error(s.error().code, s.error().message + " (" + block() + ")");
  }
  const uint32_t m = geometry_.miniblocks_per_block;
  if (size_ - pos_ < m) {
    return error_at(ErrorCode::kTruncated, pos_,
                    block() + ": " + std::to_string(m) + " miniblock bit widths need " + std::to_string(m) +
                        " bytes, " + std::to_string(size_ - pos_) + " remain");
  }
  std::memcpy(widths_.data(), data_ + pos_, m);
  const uint64_t in_block = std::min<uint64_t>(remaining_, geometry_.block_size);
  const uint32_t used = static_cast<uint32_t>((in_block + values_per_miniblock_ - 1) / values_per_miniblock_);
  // Widths of the unused miniblocks of the last block are ignored (writers
  // leave garbage there).
  for (uint32_t i = 0; i < used; ++i) {
    if (widths_[i] > delta::kMaxWidth) {
      return error_at(ErrorCode::kCorrupt, pos_ + i,
                      block() + " (starting" + at(start) + "): miniblock " + std::to_string(i) +
                          " has bit width " + std::to_string(widths_[i]) + ", more than 64");
    }
  }
  pos_ += m;
  min_delta_ = static_cast<U>(zigzag_decode(zz));
  miniblock_ = 0;
  miniblocks_in_block_ = used;
  ++block_index_;
  return Status::Ok();
}

template <class T>
Status DeltaBinaryPackedDecoder<T>::check_miniblock_body(uint32_t w, uint32_t values, bool last) const {
  // A conforming writer pads the last miniblock to its full size; accept one
  // cut short as long as the bits of its values are there.
  const size_t needed = last ? (size_t{values} * w + 7) / 8 : size_t{values_per_miniblock_} * w / 8;
  const size_t avail = size_ - pos_;
  if (avail < needed) {
    return error_at(ErrorCode::kTruncated, pos_,
                    "block " + std::to_string(block_index_ - 1) + ", miniblock " + std::to_string(miniblock_) +
                        ": " + std::to_string(values) + " values of " + std::to_string(w) + " bits need " +
                        std::to_string(needed) + " bytes, " + std::to_string(avail) + " remain");
  }
  return Status::Ok();
}

template <class T>
Status DeltaBinaryPackedDecoder<T>::fill_scratch() {
  if (miniblock_ == miniblocks_in_block_) PQFAST_RETURN_IF_ERROR(read_block_header());
  const uint32_t w = widths_[miniblock_];
  const uint32_t vpm = values_per_miniblock_;
  const bool last_miniblock = remaining_ <= vpm;
  const uint32_t values = static_cast<uint32_t>(std::min<uint64_t>(remaining_, vpm));
  const size_t full_body = size_t{vpm} * w / 8;
  PQFAST_RETURN_IF_ERROR(check_miniblock_body(w, values, last_miniblock));
  const size_t avail = size_ - pos_;
  if (scratch_.size() < vpm) scratch_.resize(vpm);
  const size_t n = (size_t{values} + 31) / 32 * 32;  // kernels decode whole groups of 32
  const size_t read = n * w / 8;
  const uint8_t* src = data_ + pos_;
  if (read + delta::kReadSlack > avail) {  // near the end of the buffer: decode from a padded copy
    if (padded_.size() < read + delta::kReadSlack) padded_.assign(size_t{vpm} * 8 + delta::kReadSlack, 0);
    const size_t copy = std::min(read, avail);
    std::memcpy(padded_.data(), src, copy);
    std::memset(padded_.data() + copy, 0, read - copy);
    src = padded_.data();
  }
  const delta::DeltaKernels& k = kernels();
  kernel_for(k, w, static_cast<U*>(nullptr))(src, n, min_delta_, last_, scratch_.data());
  last_ = scratch_[values - 1];
  pos_ += std::min(full_body, avail);
  ++miniblock_;
  scratch_pos_ = 0;
  scratch_len_ = values;
  return Status::Ok();
}

namespace {
// ULEB128 when at least 10 bytes remain (the caller checks); nullptr when
// it overflows, so the careful path reports the error.
const uint8_t* uleb_unchecked(const uint8_t* p, uint64_t& out) {
  uint64_t v = 0;
  for (int i = 0; i < 10; ++i) {
    const uint8_t b = p[i];
    v |= uint64_t{b & 0x7fu} << (7 * i);
    if (b < 0x80) {
      if (i == 9 && b > 1) return nullptr;
      out = v;
      return p + i + 1;
    }
  }
  return nullptr;
}

// What decode() makes of the deltas: the values themselves.
template <class U>
struct ValueSink {
  const delta::DeltaKernels& k;
  U run(uint32_t w, const uint8_t* in, size_t n, U min_delta, U last, U* out) const {
    return kernel_for(k, w, out)(in, n, min_delta, last, out);
  }
  U block(const uint8_t* in, const uint8_t* widths, uint32_t m, uint32_t vpm, U min_delta, U last, U* out) const {
    return block_kernel(k, out)(in, widths, m, vpm, min_delta, last, out);
  }
  void put(const U* values, size_t n, U* out) const { std::memcpy(out, values, n * sizeof(U)); }
};

// What decode_offsets() makes of them: the running sum of the values
// (lengths), through the fused offset kernels.
struct OffsetSink {
  const delta::DeltaKernels& k;
  uint32_t offset;
  uint32_t max_length;
  uint32_t run(uint32_t w, const uint8_t* in, size_t n, uint32_t min_delta, uint32_t last, uint32_t* out) {
    delta::OffsetCarry c{last, offset, max_length};
    k.offsets32[w](in, n, min_delta, &c, out);
    offset = c.offset;
    max_length = c.max_length;
    return c.length;
  }
  uint32_t block(const uint8_t* in, const uint8_t* widths, uint32_t m, uint32_t vpm, uint32_t min_delta,
                 uint32_t last, uint32_t* out) {
    delta::OffsetCarry c{last, offset, max_length};
    k.block_offsets32(in, widths, m, vpm, min_delta, &c, out);
    offset = c.offset;
    max_length = c.max_length;
    return c.length;
  }
  void put(const uint32_t* lengths, size_t n, uint32_t* out) {
    for (size_t i = 0; i < n; ++i) {
      offset += lengths[i];
      max_length = std::max(max_length, lengths[i]);
      out[i] = offset;
    }
  }
};
}  // namespace

template <class T>
template <class Sink>
size_t DeltaBinaryPackedDecoder<T>::decode_whole_blocks(Sink& sink, U* out, size_t count) {
  const uint8_t* p = data_ + pos_;
  const uint8_t* const end = data_ + size_;
  const uint32_t block_size = geometry_.block_size;
  const uint32_t m = geometry_.miniblocks_per_block;
  const uint32_t vpm = values_per_miniblock_;
  U last = last_;
  size_t done = 0;
  // Whole blocks lying wholly inside the buffer (with the kernels' read
  // slack): no per-miniblock bookkeeping, one kernel call per run of
  // miniblocks of equal width. Anything unusual falls back to the careful
  // path, which reports errors.
  while (count - done >= block_size) {
    uint64_t zz;
    const uint8_t* w;
    if (end - p >= 10) {
      w = uleb_unchecked(p, zz);
      if (w == nullptr) break;
    } else if (p < end && *p < 0x80) {
      zz = *p;
      w = p + 1;
    } else {
      break;
    }
    if (static_cast<size_t>(end - w) < m) break;
    uint32_t sum = 0, too_wide = 0;
    for (uint32_t i = 0; i < m; ++i) {
      sum += w[i];
      too_wide |= w[i] > delta::kMaxWidth;
    }
    const uint8_t* body = w + m;
    const U min_delta = static_cast<U>(zigzag_decode(zz));
    if (sum == 0 && !too_wide) {
      // A constant stride: every delta is min_delta. Following blocks with
      // the same header bytes join one closed-form run (sequential ids,
      // fixed-interval timestamps).
      const size_t header = static_cast<size_t>(body - p);
      size_t blocks = 1;
      while (count - done - blocks * block_size >= block_size && static_cast<size_t>(end - body) >= header) {
        size_t i = 0;
        while (i < header && body[i] == p[i]) ++i;
        if (i != header) break;
        body += header;
        ++blocks;
      }
      const size_t nv = blocks * block_size;
      last = sink.run(0, body, nv, min_delta, last, out + done);
      done += nv;
      block_index_ += blocks;
      p = body;
      continue;
    }
    if (too_wide || static_cast<size_t>(end - body) < size_t{sum} * vpm / 8 + delta::kReadSlack) break;
    last = sink.block(body, w, m, vpm, min_delta, last, out + done);
    done += block_size;
    p = body + size_t{sum} * vpm / 8;
    ++block_index_;
  }
  pos_ = static_cast<size_t>(p - data_);
  last_ = last;
  remaining_ -= done;
  return done;
}

template <class T>
template <class Sink>
Result<size_t> DeltaBinaryPackedDecoder<T>::decode_into(Sink& sink, U* o, size_t n) {
  n = static_cast<size_t>(std::min<uint64_t>(n, remaining_));
  if (n == 0) return size_t{0};
  if (o == nullptr) return make_error(ErrorCode::kInvalidArgument, "DELTA_BINARY_PACKED: null output");
  size_t done = 0;
  if (first_pending_) {
    sink.put(&last_, 1, o);
    first_pending_ = false;
    --remaining_;
    done = 1;
  }
  if (scratch_pos_ < scratch_len_ && done < n) {
    const size_t take = std::min<size_t>(scratch_len_ - scratch_pos_, n - done);
    sink.put(scratch_.data() + scratch_pos_, take, o + done);
    scratch_pos_ += static_cast<uint32_t>(take);
    done += take;
    remaining_ -= take;
  }
  const uint32_t vpm = values_per_miniblock_;
  while (done < n) {
    if (miniblock_ == miniblocks_in_block_) {
      if (n - done >= geometry_.block_size) {
        done += decode_whole_blocks(sink, o + done, n - done);
        if (done == n) break;
      }
      PQFAST_RETURN_IF_ERROR(read_block_header());
    }
    const uint32_t w = widths_[miniblock_];
    const size_t body = size_t{vpm} * w / 8;
    if (n - done >= vpm && size_ - pos_ >= body + delta::kReadSlack) {
      // A whole miniblock straight into the output: one dispatch for vpm values.
      last_ = sink.run(w, data_ + pos_, vpm, min_delta_, last_, o + done);
      pos_ += body;
      ++miniblock_;
      done += vpm;
      remaining_ -= vpm;
    } else {
      PQFAST_RETURN_IF_ERROR(fill_scratch());
      const size_t take = std::min<size_t>(scratch_len_, n - done);
      sink.put(scratch_.data(), take, o + done);
      scratch_pos_ = static_cast<uint32_t>(take);
      done += take;
      remaining_ -= take;
    }
  }
  return n;
}

template <class T>
Result<size_t> DeltaBinaryPackedDecoder<T>::decode(T* out, size_t n) {
  ValueSink<U> sink{kernels()};
  return decode_into(sink, reinterpret_cast<U*>(out), n);  // same size, signed/unsigned variants may alias
}

template <class T>
Result<size_t> DeltaBinaryPackedDecoder<T>::decode_offsets(uint32_t* out, size_t n, uint32_t& offset,
                                                           uint32_t& max_length)
  requires(sizeof(T) == 4)
{
  // (Clang 14 instantiates this for int64_t too in the explicit class
  // instantiation below, whatever the constraint says.)
  if constexpr (sizeof(T) == 4) {
    OffsetSink sink{kernels(), offset, max_length};
    auto r = decode_into(sink, out, n);
    offset = sink.offset;
    max_length = sink.max_length;
    return r;
  } else {
    return make_error(ErrorCode::kInvalidArgument, "decode_offsets: INT32 streams only");
  }
}

template <class T>
Result<size_t> DeltaBinaryPackedDecoder<T>::skip(size_t n) {
  n = static_cast<size_t>(std::min<uint64_t>(n, remaining_));
  size_t left = n;
  if (first_pending_ && left > 0) {
    first_pending_ = false;
    --remaining_;
    --left;
  }
  const size_t buffered = std::min<size_t>(scratch_len_ - scratch_pos_, left);
  scratch_pos_ += static_cast<uint32_t>(buffered);
  remaining_ -= buffered;
  left -= buffered;
  const uint32_t vpm = values_per_miniblock_;
  while (left > 0) {
    if (miniblock_ == miniblocks_in_block_) PQFAST_RETURN_IF_ERROR(read_block_header());
    const uint32_t w = widths_[miniblock_];
    if (w == 0 && left >= vpm) {  // closed form: no body to read
      last_ += min_delta_ * static_cast<U>(vpm);
      ++miniblock_;
      left -= vpm;
      remaining_ -= vpm;
      continue;
    }
    PQFAST_RETURN_IF_ERROR(fill_scratch());  // the running value needs every delta
    const size_t take = std::min<size_t>(scratch_len_, left);
    scratch_pos_ = static_cast<uint32_t>(take);
    left -= take;
    remaining_ -= take;
  }
  return n;
}

template <class T>
Status DeltaBinaryPackedDecoder<T>::seek_end() {
  if (first_pending_) {
    first_pending_ = false;
    --remaining_;
  }
  remaining_ -= scratch_len_ - scratch_pos_;
  scratch_pos_ = scratch_len_;
  const uint32_t vpm = values_per_miniblock_;
  // Whole blocks before the last: the min delta's varint and the widths
  // say how long each is; nothing else is read. Anything unusual (a width
  // above 64, a block cut short) is left to the careful loop below.
  const uint32_t m = geometry_.miniblocks_per_block;
  while (miniblock_ == miniblocks_in_block_ && remaining_ > geometry_.block_size) {
    size_t p = pos_;
    while (p < size_ && (data_[p] & 0x80) != 0 && p - pos_ < 9) ++p;
    if (p >= size_ || (data_[p] & 0x80) != 0 || size_ - (p + 1) < m) break;
    const uint8_t* w = data_ + p + 1;
    uint32_t sum = 0, too_wide = 0;
    for (uint32_t i = 0; i < m; ++i) {
      sum += w[i];
      too_wide |= w[i] > delta::kMaxWidth;
    }
    const size_t body = size_t{sum} * vpm / 8;
    if (too_wide != 0 || size_ - (p + 1 + m) < body) break;
    pos_ = p + 1 + m + body;
    remaining_ -= geometry_.block_size;
    ++block_index_;
  }
  while (remaining_ > 0) {
    if (miniblock_ == miniblocks_in_block_) PQFAST_RETURN_IF_ERROR(read_block_header());
    const uint32_t w = widths_[miniblock_];
    const uint32_t values = static_cast<uint32_t>(std::min<uint64_t>(remaining_, vpm));
    PQFAST_RETURN_IF_ERROR(check_miniblock_body(w, values, remaining_ <= vpm));
    pos_ += std::min(size_t{vpm} * w / 8, size_ - pos_);
    ++miniblock_;
    remaining_ -= values;
  }
  return Status::Ok();
}

template class DeltaBinaryPackedDecoder<int32_t>;
template class DeltaBinaryPackedDecoder<int64_t>;

Result<size_t> delta_stream_length(const uint8_t* data, size_t size) {
  auto dec = DeltaBinaryPackedDecoder<int64_t>::make(data, size);
  if (!dec.ok()) return dec.error();
  PQFAST_RETURN_IF_ERROR(dec->seek_end());
  return dec->bytes_consumed();
}

// ---- encoder ------------------------------------------------------------------

namespace {

// Packs 32 values of W bits each, LSB-first, into exactly 4 * W bytes. The
// loop is unrolled, so every shift and every word boundary is a constant.
template <int W, class U>
void pack32(const U* in, uint8_t* out) {
  if constexpr (W == 0) {
    return;
  } else {
    uint64_t acc = 0;
    int bits = 0;
#pragma GCC unroll 32
    for (int j = 0; j < 32; ++j) {
      const uint64_t v = in[j];
      acc |= v << bits;
      if (bits + W >= 64) {
        std::memcpy(out, &acc, 8);
        out += 8;
        acc = bits == 0 ? 0 : v >> (64 - bits);
        bits = bits + W - 64;
      } else {
        bits += W;
      }
    }
    for (int b = 0; b < bits; b += 8) *out++ = static_cast<uint8_t>(acc >> b);
  }
}

template <class U>
using Pack32Fn = void (*)(const U*, uint8_t*);
template <class U>
struct Packers {
#define PQFAST_DELTA_PACK(w) &pack32<w, U>,
  static constexpr Pack32Fn<U> by_width[delta::kMaxWidth + 1] = {PQFAST_DELTA_WIDTHS(PQFAST_DELTA_PACK)};
#undef PQFAST_DELTA_PACK
};

// Appends `count` values (a multiple of 32) of w bits each, LSB-first (the
// values fit w bits).
template <class U>
void pack_bits(std::vector<uint8_t>& out, const U* values, size_t count, uint32_t w) {
  if (w == 0) return;
  const size_t at = out.size();
  out.resize(at + count * w / 8);
  uint8_t* dst = out.data() + at;
  const Pack32Fn<U> pack = Packers<U>::by_width[w];
  for (size_t i = 0; i < count; i += 32, dst += 4 * w) pack(values + i, dst);
}

// Appends the stream to out.
template <class S>
Status encode_into(std::vector<uint8_t>& out, const S* values, size_t n, DeltaGeometry g) {
  using U = std::make_unsigned_t<S>;
  PQFAST_RETURN_IF_ERROR(validate_delta_geometry(g));
  if (values == nullptr && n != 0) {
    return make_error(ErrorCode::kInvalidArgument, "delta_encode: null values");
  }
  const uint32_t vpm = g.values_per_miniblock();
  out.reserve(out.size() + 32 + n * sizeof(S) + n / 8);
  write_uleb(out, g.block_size);
  write_uleb(out, g.miniblocks_per_block);
  write_uleb(out, n);
  write_uleb(out, zigzag_encode(n > 0 ? int64_t{values[0]} : 0));
  std::vector<U> deltas(g.block_size);
  std::vector<uint8_t> widths(g.miniblocks_per_block);
  for (size_t i = 1; i < n; i += g.block_size) {
    const size_t count = std::min<size_t>(g.block_size, n - i);
    // Loops without branches over arrays: the compiler vectorises them.
    U* d = deltas.data();
    const S* v = values + i;
    for (size_t j = 0; j < count; ++j) d[j] = static_cast<U>(static_cast<U>(v[j]) - static_cast<U>(v[j - 1]));
    S min_delta = static_cast<S>(d[0]);
    for (size_t j = 1; j < count; ++j) min_delta = std::min(min_delta, static_cast<S>(d[j]));
    for (size_t j = 0; j < count; ++j) d[j] = static_cast<U>(d[j] - static_cast<U>(min_delta));
    std::fill(deltas.begin() + static_cast<std::ptrdiff_t>(count), deltas.end(), U{0});  // padding
    write_uleb(out, zigzag_encode(int64_t{min_delta}));
    for (uint32_t m = 0; m < g.miniblocks_per_block; ++m) {
      U all = 0;
      if (size_t{m} * vpm < count) {
        for (uint32_t j = 0; j < vpm; ++j) all |= deltas[size_t{m} * vpm + j];
      }
      widths[m] = static_cast<uint8_t>(std::bit_width(all));  // 0 for unused miniblocks
    }
    out.insert(out.end(), widths.begin(), widths.end());
    for (uint32_t m = 0; m < g.miniblocks_per_block && size_t{m} * vpm < count; ++m) {
      pack_bits(out, deltas.data() + size_t{m} * vpm, vpm, widths[m]);
    }
  }
  return Status::Ok();
}

template <class S>
Result<std::vector<uint8_t>> encode(const S* values, size_t n, DeltaGeometry g) {
  std::vector<uint8_t> out;
  PQFAST_RETURN_IF_ERROR(encode_into(out, values, n, g));
  return out;
}

template <class T>
Result<std::vector<T>> decode_all(const uint8_t* data, size_t size) {
  auto dec = DeltaBinaryPackedDecoder<T>::make(data, size);
  if (!dec.ok()) return dec.error();
  std::vector<T> out(static_cast<size_t>(dec->values_remaining()));
  auto n = dec->decode(out.data(), out.size());
  if (!n.ok()) return n.error();
  return out;
}

}  // namespace

Result<std::vector<uint8_t>> delta_encode_int32(const int32_t* values, size_t n, DeltaGeometry geometry) {
  return encode(values, n, geometry);
}
Result<std::vector<uint8_t>> delta_encode_int64(const int64_t* values, size_t n, DeltaGeometry geometry) {
  return encode(values, n, geometry);
}
Result<std::vector<int32_t>> delta_decode_int32(const uint8_t* data, size_t size) {
  return decode_all<int32_t>(data, size);
}
Result<std::vector<int64_t>> delta_decode_int64(const uint8_t* data, size_t size) {
  return decode_all<int64_t>(data, size);
}
Status delta_append_int32(std::vector<uint8_t>& out, const int32_t* values, size_t n, DeltaGeometry geometry) {
  return encode_into(out, values, n, geometry);
}

}  // namespace pqfast
