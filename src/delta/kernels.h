// Internal: the DELTA_BINARY_PACKED family's per-ISA table.
//
// One kernel per (output type, bit width 0..64) unpacks a run of whole
// 32-value groups of a miniblock and prefix-sums the deltas into values in
// the same pass. delta.cc picks the kernel once per miniblock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "simd/dispatch.h"

namespace pqfast::delta {

// Kernels may read up to this many bytes past the packed data they decode
// (n * width / 8 bytes from `in`). The caller guarantees that they are
// readable, copying a miniblock near the end of the buffer into a padded
// scratch area when they are not. Their contents never change the result.
inline constexpr size_t kReadSlack = 64;

inline constexpr int kMaxWidth = 64;

// Decodes n values (n a multiple of 32) packed LSB-first at `width` bits
// from `in`: delta[i] = unpacked[i] + min_delta, out[i] = last + delta[0] +
// ... + delta[i], all mod 2^32 (or 2^64). Returns out[n - 1] (last when n is
// 0). For 32-bit outputs, widths above 32 keep each value's low 32 bits.
using Miniblock32Fn = uint32_t (*)(const uint8_t* in, size_t n, uint32_t min_delta, uint32_t last,
                                   uint32_t* out);
using Miniblock64Fn = uint64_t (*)(const uint8_t* in, size_t n, uint64_t min_delta, uint64_t last,
                                   uint64_t* out);

// Decodes m whole miniblocks of vpm values each (vpm a multiple of 32),
// miniblock i packed at widths[i] bits (each <= 64, checked by the caller),
// back to back from `in`; one min delta; otherwise as above. The running
// value stays in a vector register from one miniblock to the next.
using Block32Fn = uint32_t (*)(const uint8_t* in, const uint8_t* widths, uint32_t m, uint32_t vpm,
                               uint32_t min_delta, uint32_t last, uint32_t* out);
using Block64Fn = uint64_t (*)(const uint8_t* in, const uint8_t* widths, uint32_t m, uint32_t vpm,
                               uint64_t min_delta, uint64_t last, uint64_t* out);

// DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY store their lengths as an
// INT32 DELTA_BINARY_PACKED stream; Arrow wants offsets. The offset kernels
// decode lengths exactly as Miniblock32Fn does and run a second prefix sum
// over them in the same pass, so the lengths never reach memory:
// out[i] = offset + len[0] + ... + len[i] (mod 2^32), where the running
// length and offset come in and go out through `carry`; max_length becomes
// the unsigned maximum of itself and every length (a negative length shows
// as one of 2^31 or more), which the caller checks once per batch.
struct OffsetCarry {
  uint32_t length;      // the last length decoded (the DBP running value)
  uint32_t offset;      // the offset after the last value
  uint32_t max_length;  // unsigned max of the lengths seen
};
using Offsets32Fn = void (*)(const uint8_t* in, size_t n, uint32_t min_delta, OffsetCarry* carry, uint32_t* out);
using BlockOffsets32Fn = void (*)(const uint8_t* in, const uint8_t* widths, uint32_t m, uint32_t vpm,
                                  uint32_t min_delta, OffsetCarry* carry, uint32_t* out);

// DELTA_BYTE_ARRAY values, rebuilt: value i is the first prefix[i] bytes
// of value i - 1 followed by its suffix, the bytes [suffix_at[i],
// suffix_at[i + 1]) of the page; value -1 is `prev`. Writes the k values
// back to back from `out`. The caller has checked every prefix against the
// value before it, and guarantees slack: the page readable from
// suffix_at[0] - kRebuildSlack to suffix_at[k] + kRebuildSlack, `out`
// writable to kRebuildSlack bytes past the last value, `prev` readable for
// kRebuildSlack bytes (more than its length). Bytes past a value's end may be
// overwritten before the next value is written (wide stores). max_len is at
// least the longest of the k values (kernels may pick a loop by it).
inline constexpr size_t kRebuildSlack = 128;
using RebuildFn = void (*)(const uint8_t* page, const uint32_t* prefix, const uint32_t* suffix_at, size_t k,
                           const uint8_t* prev, uint8_t* out, size_t max_len);

// Arrow binary_view elements (16 bytes each, at `views`) of k values lying
// back to back in `base` from `start`, value i ending at ends[i]: up to 12
// bytes inline and zero padded, longer ones as their first 4 bytes,
// buffer_index and their offset. The caller guarantees 16 readable bytes at
// each value's start.
using ViewsFn = void (*)(const uint8_t* base, uint32_t start, const uint32_t* ends, size_t k, int32_t buffer_index,
                         uint8_t* views);

struct DeltaKernels {
  Miniblock32Fn int32[kMaxWidth + 1];  // indexed by bit width
  Miniblock64Fn int64[kMaxWidth + 1];
  Block32Fn block32;
  Block64Fn block64;
  Offsets32Fn offsets32[kMaxWidth + 1];
  BlockOffsets32Fn block_offsets32;
  RebuildFn rebuild;
  ViewsFn views;
};

extern const DeltaKernels kScalarDeltaKernels;
#if defined(PQFAST_ARCH_X86)
extern const DeltaKernels kAvx2DeltaKernels;
extern const DeltaKernels kAvx512DeltaKernels;
#endif
#if defined(PQFAST_ARCH_ARM64)
extern const DeltaKernels kNeonDeltaKernels;
#endif

const detail::KernelTables<DeltaKernels>& delta_kernel_tables();
// The table for the active level (cached: one call per batch).
const DeltaKernels& active_delta_kernels();

namespace {  // internal linkage: safe to include from ISA translation units

// Lists every width 0..64 as X(w), to build the tables without templates
// from the standard library.
#define PQFAST_DELTA_WIDTHS(X)                                                                   \
  X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16)  \
  X(17) X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27) X(28) X(29) X(30) X(31)    \
  X(32) X(33) X(34) X(35) X(36) X(37) X(38) X(39) X(40) X(41) X(42) X(43) X(44) X(45) X(46)    \
  X(47) X(48) X(49) X(50) X(51) X(52) X(53) X(54) X(55) X(56) X(57) X(58) X(59) X(60) X(61)    \
  X(62) X(63) X(64)

inline uint64_t load_u64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;  // little-endian targets only (x86, AArch64)
}

constexpr uint64_t low_mask64(int w) { return w >= 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1; }
constexpr uint32_t low_mask32(int w) { return w >= 32 ? ~uint32_t{0} : (uint32_t{1} << w) - 1; }

// Value j of a byte-aligned group sits at bit j * w: byte (j * w) / 8, shift (j * w) % 8.
constexpr int first_byte(int j, int w) { return (j * w) >> 3; }
constexpr int bit_shift(int j, int w) { return (j * w) & 7; }

// Values rebuilt with 16-byte copies (the first always, so a short value
// costs one load and one store each for its prefix and its suffix): for
// ISAs without a kernel of their own. The prefix is read back from the
// value just written, so a short value waits for store forwarding.
inline void rebuild_values_wide(const uint8_t* page, const uint32_t* prefix, const uint32_t* suffix_at, size_t k,
                                const uint8_t* prev, uint8_t* out) {
  for (size_t i = 0; i < k; ++i) {
    const size_t p = prefix[i], at = suffix_at[i], s = suffix_at[i + 1] - at;
    size_t j = 0;
    do {
      uint8_t t[16];
      std::memcpy(t, prev + j, 16);
      std::memcpy(out + j, t, 16);
      j += 16;
    } while (j < p);
    j = 0;
    do {
      uint8_t t[16];
      std::memcpy(t, page + at + j, 16);
      std::memcpy(out + p + j, t, 16);
      j += 16;
    } while (j < s);
    prev = out;
    out += p + s;
  }
}

// Views with two 8-byte loads, a table of masks for the inline bytes and
// one select (no branch on the length).
struct InlineMask {
  uint64_t lo, hi;
};
inline constexpr InlineMask kInlineMasks[13] = {
    {0, 0}, {0xff, 0}, {0xffff, 0}, {0xffffff, 0}, {0xffffffff, 0}, {0xffffffffff, 0}, {0xffffffffffff, 0},
    {0xffffffffffffff, 0}, {~uint64_t{0}, 0}, {~uint64_t{0}, 0xff}, {~uint64_t{0}, 0xffff},
    {~uint64_t{0}, 0xffffff}, {~uint64_t{0}, 0xffffffff}};

inline void make_views_portable(const uint8_t* base, uint32_t start, const uint32_t* ends, size_t k,
                                int32_t buffer_index, uint8_t* views) {
  for (size_t j = 0; j < k; ++j, views += 16) {
    const uint32_t len = ends[j] - start;
    uint64_t w0, w1;
    std::memcpy(&w0, base + start, 8);
    std::memcpy(&w1, base + start + 8, 8);
    const InlineMask& m = kInlineMasks[len < 12 ? len : 12];
    w0 &= m.lo;
    w1 &= m.hi;
    const uint64_t q0 = uint64_t{len} | (w0 << 32);
    const uint64_t q1 =
        len <= 12 ? (w0 >> 32) | (w1 << 32) : static_cast<uint32_t>(buffer_index) | (uint64_t{start} << 32);
    std::memcpy(views, &q0, 8);
    std::memcpy(views + 8, &q1, 8);
    start = ends[j];
  }
}

// What every vector ISA's table shares, around its run32<W> / run64<W>
// (decode n values of width W, given the min delta and the running value
// each splatted across a register, handing each register of values to
// out.put(i, v); return the new running value splatted): the miniblock
// kernels, the block kernels that keep the running value in a register from
// one miniblock to the next, the offset kernels, and the table. Isa provides
// the register types V32 and V64, splat32/splat64, lane0_32/lane0_64, the
// two run templates, for 32-bit registers store32, add32, max32u,
// scan32 (inclusive prefix sum in a register), last32 (the last lane in
// every lane) and hmax32u (horizontal unsigned max), rebuild (a
// RebuildFn) and views (a ViewsFn).
template <class Isa>
struct VectorDeltaKernels {
  using V32 = typename Isa::V32;
  using V64 = typename Isa::V64;

  // Values straight to memory.
  struct Store32 {
    uint32_t* out;
    void put(size_t i, V32 v) { Isa::store32(out + i, v); }
  };
  struct Store64 {
    uint64_t* out;
    void put(size_t i, V64 v) { Isa::store64(out + i, v); }
  };
  // Lengths to offsets: a second scan, its carry one add of the broadcast
  // register total (off the scan's critical path), and a running max.
  struct OffsetSink32 {
    uint32_t* out;
    V32 offset;
    V32 max_length;
    void put(size_t i, V32 len) {
      const V32 s = Isa::scan32(len);
      Isa::store32(out + i, Isa::add32(s, offset));
      offset = Isa::add32(offset, Isa::last32(s));
      max_length = Isa::max32u(max_length, len);
    }
  };

  template <int W>
  static uint32_t miniblock32(const uint8_t* in, size_t n, uint32_t min_delta, uint32_t last, uint32_t* out) {
    Store32 sink{out};
    return Isa::lane0_32(Isa::template run32<W>(in, n, min_delta, Isa::splat32(min_delta), Isa::splat32(last), sink));
  }
  template <int W>
  static uint64_t miniblock64(const uint8_t* in, size_t n, uint64_t min_delta, uint64_t last, uint64_t* out) {
    Store64 sink{out};
    return Isa::lane0_64(Isa::template run64<W>(in, n, min_delta, Isa::splat64(min_delta), Isa::splat64(last), sink));
  }
  template <int W>
  static void offsets32(const uint8_t* in, size_t n, uint32_t min_delta, OffsetCarry* carry, uint32_t* out) {
    OffsetSink32 sink{out, Isa::splat32(carry->offset), Isa::splat32(carry->max_length)};
    carry->length = Isa::lane0_32(
        Isa::template run32<W>(in, n, min_delta, Isa::splat32(min_delta), Isa::splat32(carry->length), sink));
    carry->offset = Isa::lane0_32(sink.offset);
    carry->max_length = Isa::hmax32u(sink.max_length);
  }

  // Runs the miniblocks of one block through `sink`, switching on each width.
  template <class Sink>
  static V32 block_run32(const uint8_t* in, const uint8_t* widths, uint32_t m, uint32_t vpm, uint32_t min_delta,
                         V32 carry, Sink& sink) {
    const V32 md = Isa::splat32(min_delta);
    for (uint32_t i = 0; i < m; ++i) {
#define PQFAST_DELTA_RUN32(w) \
  case w: carry = Isa::template run32<w>(in, vpm, min_delta, md, carry, sink); break;
      switch (widths[i]) { PQFAST_DELTA_WIDTHS(PQFAST_DELTA_RUN32) default: break; }
#undef PQFAST_DELTA_RUN32
      in += size_t{vpm} * widths[i] / 8;
      sink.out += vpm;
    }
    return carry;
  }

  static uint32_t block32(const uint8_t* in, const uint8_t* widths, uint32_t m, uint32_t vpm, uint32_t min_delta,
                          uint32_t last, uint32_t* out) {
    Store32 sink{out};
    return Isa::lane0_32(block_run32(in, widths, m, vpm, min_delta, Isa::splat32(last), sink));
  }
  static uint64_t block64(const uint8_t* in, const uint8_t* widths, uint32_t m, uint32_t vpm, uint64_t min_delta,
                          uint64_t last, uint64_t* out) {
    const V64 md = Isa::splat64(min_delta);
    V64 carry = Isa::splat64(last);
    Store64 sink{out};
    for (uint32_t i = 0; i < m; ++i) {
#define PQFAST_DELTA_RUN64(w) \
  case w: carry = Isa::template run64<w>(in, vpm, min_delta, md, carry, sink); break;
      switch (widths[i]) { PQFAST_DELTA_WIDTHS(PQFAST_DELTA_RUN64) default: break; }
#undef PQFAST_DELTA_RUN64
      in += size_t{vpm} * widths[i] / 8;
      sink.out += vpm;
    }
    return Isa::lane0_64(carry);
  }
  static void block_offsets32(const uint8_t* in, const uint8_t* widths, uint32_t m, uint32_t vpm,
                              uint32_t min_delta, OffsetCarry* carry, uint32_t* out) {
    OffsetSink32 sink{out, Isa::splat32(carry->offset), Isa::splat32(carry->max_length)};
    carry->length = Isa::lane0_32(block_run32(in, widths, m, vpm, min_delta, Isa::splat32(carry->length), sink));
    carry->offset = Isa::lane0_32(sink.offset);
    carry->max_length = Isa::hmax32u(sink.max_length);
  }

  static constexpr DeltaKernels table() {
#define PQFAST_DELTA_MB32(w) &miniblock32<w>,
#define PQFAST_DELTA_MB64(w) &miniblock64<w>,
#define PQFAST_DELTA_OFF32(w) &offsets32<w>,
    return DeltaKernels{{PQFAST_DELTA_WIDTHS(PQFAST_DELTA_MB32)}, {PQFAST_DELTA_WIDTHS(PQFAST_DELTA_MB64)},
                        &block32, &block64, {PQFAST_DELTA_WIDTHS(PQFAST_DELTA_OFF32)}, &block_offsets32,
                        &Isa::rebuild, &Isa::views};
#undef PQFAST_DELTA_MB32
#undef PQFAST_DELTA_MB64
#undef PQFAST_DELTA_OFF32
  }
};

}  // namespace
}  // namespace pqfast::delta
