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

struct DeltaKernels {
  Miniblock32Fn int32[kMaxWidth + 1];  // indexed by bit width
  Miniblock64Fn int64[kMaxWidth + 1];
  Block32Fn block32;
  Block64Fn block64;
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

// What every vector ISA's table shares, around its run32<W> / run64<W>
// (decode n values of width W, given the min delta and the running value
// each splatted across a register; return the new running value splatted):
// the miniblock kernels, the block kernel that keeps the running value in a
// register from one miniblock to the next, and the table. Isa provides the
// register types V32 and V64, splat32/splat64, lane0_32/lane0_64 and the two
// run templates.
template <class Isa>
struct VectorDeltaKernels {
  template <int W>
  static uint32_t miniblock32(const uint8_t* in, size_t n, uint32_t min_delta, uint32_t last, uint32_t* out) {
    return Isa::lane0_32(Isa::template run32<W>(in, n, min_delta, Isa::splat32(min_delta), Isa::splat32(last), out));
  }
  template <int W>
  static uint64_t miniblock64(const uint8_t* in, size_t n, uint64_t min_delta, uint64_t last, uint64_t* out) {
    return Isa::lane0_64(Isa::template run64<W>(in, n, min_delta, Isa::splat64(min_delta), Isa::splat64(last), out));
  }

  static uint32_t block32(const uint8_t* in, const uint8_t* widths, uint32_t m, uint32_t vpm, uint32_t min_delta,
                          uint32_t last, uint32_t* out) {
    const typename Isa::V32 md = Isa::splat32(min_delta);
    typename Isa::V32 carry = Isa::splat32(last);
    for (uint32_t i = 0; i < m; ++i, out += vpm) {
#define PQFAST_DELTA_RUN32(w) \
  case w: carry = Isa::template run32<w>(in, vpm, min_delta, md, carry, out); break;
      switch (widths[i]) { PQFAST_DELTA_WIDTHS(PQFAST_DELTA_RUN32) default: break; }
#undef PQFAST_DELTA_RUN32
      in += size_t{vpm} * widths[i] / 8;
    }
    return Isa::lane0_32(carry);
  }
  static uint64_t block64(const uint8_t* in, const uint8_t* widths, uint32_t m, uint32_t vpm, uint64_t min_delta,
                          uint64_t last, uint64_t* out) {
    const typename Isa::V64 md = Isa::splat64(min_delta);
    typename Isa::V64 carry = Isa::splat64(last);
    for (uint32_t i = 0; i < m; ++i, out += vpm) {
#define PQFAST_DELTA_RUN64(w) \
  case w: carry = Isa::template run64<w>(in, vpm, min_delta, md, carry, out); break;
      switch (widths[i]) { PQFAST_DELTA_WIDTHS(PQFAST_DELTA_RUN64) default: break; }
#undef PQFAST_DELTA_RUN64
      in += size_t{vpm} * widths[i] / 8;
    }
    return Isa::lane0_64(carry);
  }

  static constexpr DeltaKernels table() {
#define PQFAST_DELTA_MB32(w) &miniblock32<w>,
#define PQFAST_DELTA_MB64(w) &miniblock64<w>,
    return DeltaKernels{{PQFAST_DELTA_WIDTHS(PQFAST_DELTA_MB32)}, {PQFAST_DELTA_WIDTHS(PQFAST_DELTA_MB64)},
                        &block32, &block64};
#undef PQFAST_DELTA_MB32
#undef PQFAST_DELTA_MB64
  }
};

}  // namespace
}  // namespace pqfast::delta
