// The hash family's public API: XXH64 and the typed Parquet hash helpers.
#include <bit>
#include <cstring>
#include <string>

#include "hash/kernels.h"
#include "hash/xxh64_scalar.h"
#include "pqfast/hash.h"

static_assert(std::endian::native == std::endian::little,
              "pqfast reads Parquet's little-endian values in place");

namespace pqfast {
namespace hash {

const detail::KernelTables<HashKernels>& hash_kernel_tables() {
  static const detail::KernelTables<HashKernels> tables = [] {
    detail::KernelTables<HashKernels> t;
    t.by_level[static_cast<int>(SimdLevel::kScalar)] = &kScalarHashKernels;
#if defined(PQFAST_ARCH_X86)
    t.by_level[static_cast<int>(SimdLevel::kAvx2)] = &kAvx2HashKernels;
    t.by_level[static_cast<int>(SimdLevel::kAvx512)] = &kAvx512HashKernels;
#endif
    return t;
  }();
  return tables;
}

namespace {
constinit const detail::ActiveKernels<HashKernels> g_kernels(&hash_kernel_tables);
}  // namespace

}  // namespace hash

namespace {
inline const hash::HashKernels& kernels() { return hash::g_kernels.get(); }
}  // namespace

uint64_t xxh64(const void* data, size_t len, uint64_t seed) {
  return hash::xxh64_scalar(static_cast<const uint8_t*>(data), len, seed);
}

void hash_int32(const int32_t* values, size_t n, uint64_t* out) {
  kernels().xxh64_fixed4(reinterpret_cast<const uint8_t*>(values), n, out);
}

void hash_int64(const int64_t* values, size_t n, uint64_t* out) {
  kernels().xxh64_fixed8(reinterpret_cast<const uint8_t*>(values), n, out);
}

void hash_float(const float* values, size_t n, uint64_t* out) {
  static_assert(sizeof(float) == 4);
  kernels().xxh64_fixed4(reinterpret_cast<const uint8_t*>(values), n, out);
}

void hash_double(const double* values, size_t n, uint64_t* out) {
  static_assert(sizeof(double) == 8);
  kernels().xxh64_fixed8(reinterpret_cast<const uint8_t*>(values), n, out);
}

void hash_fixed_len(const uint8_t* data, size_t width, size_t n, uint64_t* out) {
  if (width == 4) return kernels().xxh64_fixed4(data, n, out);
  if (width == 8) return kernels().xxh64_fixed8(data, n, out);
  if (width >= 1 && width <= hash::kMaxSimdWidth) return kernels().xxh64_fixed_width(data, width, n, out);
  for (size_t i = 0; i < n; ++i) out[i] = hash::xxh64_scalar(data + i * width, width, 0);
}

namespace {

template <class Offset>
Status hash_byte_arrays_impl(const uint8_t* data, size_t data_len, const Offset* offsets, size_t n,
                             uint64_t* out) {
  for (size_t i = 0; i < n; ++i) {
    const Offset begin = offsets[i];
    const Offset end = offsets[i + 1];
    if (begin < 0 || end < begin || static_cast<uint64_t>(end) > data_len) {
      return make_error(ErrorCode::kInvalidArgument,
                        "byte array offsets at index " + std::to_string(i) + " are [" +
                            std::to_string(begin) + ", " + std::to_string(end) +
                            "), outside the " + std::to_string(data_len) + "-byte data buffer");
    }
    out[i] = hash::xxh64_scalar(data + begin, static_cast<size_t>(end - begin), 0);
  }
  return Status::Ok();
}

}  // namespace

Status hash_byte_arrays(const uint8_t* data, size_t data_len, const int32_t* offsets, size_t n,
                        uint64_t* out) {
  return hash_byte_arrays_impl(data, data_len, offsets, n, out);
}

Status hash_byte_arrays(const uint8_t* data, size_t data_len, const int64_t* offsets, size_t n,
                        uint64_t* out) {
  return hash_byte_arrays_impl(data, data_len, offsets, n, out);
}

Result<size_t> plain_value_width(PhysicalType type, int32_t type_length) {
  switch (type) {
    case PhysicalType::kInt32:
    case PhysicalType::kFloat:
      return size_t{4};
    case PhysicalType::kInt64:
    case PhysicalType::kDouble:
      return size_t{8};
    case PhysicalType::kInt96:
      return size_t{12};
    case PhysicalType::kFixedLenByteArray:
      if (type_length <= 0) {
        return make_error(ErrorCode::kInvalidArgument,
                          "FIXED_LEN_BYTE_ARRAY needs a positive type_length, got " +
                              std::to_string(type_length));
      }
      return static_cast<size_t>(type_length);
    case PhysicalType::kBoolean:
      return make_error(ErrorCode::kInvalidArgument,
                        "BOOLEAN columns have no Bloom filter in Parquet; nothing to hash");
    case PhysicalType::kByteArray:
      return make_error(ErrorCode::kInvalidArgument,
                        "BYTE_ARRAY values need offsets: use hash_byte_arrays()");
  }
  return make_error(ErrorCode::kInvalidArgument, "unknown physical type");
}

Status hash_fixed_width_values(PhysicalType type, const uint8_t* data, size_t data_len, size_t n,
                               int32_t type_length, uint64_t* out) {
  auto w = plain_value_width(type, type_length);
  if (!w.ok()) return w.error();
  const size_t width = *w;
  if (n != 0 && data_len / width < n) {
    return make_error(ErrorCode::kInvalidArgument,
                      std::to_string(n) + " values of " + std::to_string(width) +
                          " bytes need more than the " + std::to_string(data_len) +
                          " bytes given");
  }
  hash_fixed_len(data, width, n, out);  // kernels read unaligned values
  return Status::Ok();
}

}  // namespace pqfast
