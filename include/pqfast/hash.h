// Hashing as the Parquet Bloom filter spec defines it: XXH64 with seed 0
// over the PLAIN encoding of each value (INT32/INT64/FLOAT/DOUBLE as their
// little-endian bytes, BYTE_ARRAY without its length prefix,
// FIXED_LEN_BYTE_ARRAY and INT96 as their bytes). BOOLEAN has no filter.
#pragma once

#include <cstddef>
#include <cstdint>

#include "pqfast/status.h"
#include "pqfast/types.h"

namespace pqfast {

// XXH64 of `len` bytes (the reference one-shot hash).
uint64_t xxh64(const void* data, size_t len, uint64_t seed = 0);

// Batched hashes of fixed-width values, SIMD where the CPU allows; equal to
// xxh64() over each value's little-endian bytes.
void hash_int32(const int32_t* values, size_t n, uint64_t* out);
void hash_int64(const int64_t* values, size_t n, uint64_t* out);
void hash_float(const float* values, size_t n, uint64_t* out);
void hash_double(const double* values, size_t n, uint64_t* out);

// FIXED_LEN_BYTE_ARRAY (and INT96 with width 12): n values of `width` bytes
// stored back to back.
void hash_fixed_len(const uint8_t* data, size_t width, size_t n, uint64_t* out);

// BYTE_ARRAY in Arrow layout: value i is data[offsets[i], offsets[i+1]).
// Offsets must be non-decreasing and within `data_len`; checked.
Status hash_byte_arrays(const uint8_t* data, size_t data_len, const int32_t* offsets, size_t n,
                        uint64_t* out);
Status hash_byte_arrays(const uint8_t* data, size_t data_len, const int64_t* offsets, size_t n,
                        uint64_t* out);

// Bytes per value of a fixed-width physical type in PLAIN encoding (4, 8,
// 12 for INT96, type_length for FIXED_LEN_BYTE_ARRAY). BOOLEAN and
// BYTE_ARRAY are kInvalidArgument.
Result<size_t> plain_value_width(PhysicalType type, int32_t type_length);

// Hashes `n` fixed-width values of a physical type stored back to back in
// `data` (`data_len` bytes; FIXED_LEN_BYTE_ARRAY takes its `type_length`).
// BOOLEAN, and BYTE_ARRAY (which needs offsets), are kInvalidArgument.
Status hash_fixed_width_values(PhysicalType type, const uint8_t* data, size_t data_len, size_t n,
                               int32_t type_length, uint64_t* out);

}  // namespace pqfast
