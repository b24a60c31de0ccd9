// Internal: repetition and definition levels of a page decoded into one
// byte per level (the nested reader keeps a column chunk's levels so).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "pqfast/status.h"

namespace pqfast::parquet::detail {

// Bits needed for levels up to max_level (0 for 0).
int level_bit_width(int max_level);

// n levels of `width` bits (1..8) in the RLE / bit-packed hybrid into out.
// Values are not checked against the maximum here (the caller does, once
// per page, with max_level()).
Status decode_levels(const uint8_t* data, size_t len, int width, size_t n, uint8_t* out, const std::string& what);

// The deprecated BIT_PACKED level encoding: n levels of `width` bits with
// no length prefix and no run headers, `len` holding ceil(n * width / 8)
// bytes. The values are taken from the least significant bit of each byte
// on, as in the hybrid's bit-packed runs: that is how Impala wrote them and
// how Arrow C++ (pyarrow 26) reads them, although the format's text says
// most significant bit first.
Status decode_levels_bit_packed(const uint8_t* data, size_t len, int width, size_t n, uint8_t* out, const std::string& what);

}  // namespace pqfast::parquet::detail
