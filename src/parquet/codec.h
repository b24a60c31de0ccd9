// Internal: page decompression behind one call. Each library is optional at
// build time (PQFAST_HAVE_SNAPPY, _ZLIB, _ZSTD, _LZ4, _BROTLI); a codec not
// built in is a kUnsupported error naming it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "pqfast/status.h"

namespace pqfast::parquet::detail {

// Decompresses `src` into exactly `dst_len` bytes at dst (the page's
// uncompressed size); anything else is an error naming `where`.
Status decompress(int32_t codec, const uint8_t* src, size_t src_len, uint8_t* dst, size_t dst_len,
                  const std::string& where);

}  // namespace pqfast::parquet::detail
