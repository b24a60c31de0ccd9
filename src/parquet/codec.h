// Internal: page decompression behind one call. SNAPPY is pqfast's own
// decoder, in every build; each library of the others is optional at build
// time (PQFAST_HAVE_ZLIB, _ZSTD, _LZ4, _BROTLI); a codec not built in is a
// kUnsupported error naming it.
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

// The most bytes `src_len` compressed bytes can inflate to under `codec`
// (its format's densest encoding, plus frame slack): a page that says it
// inflates to more is refused before its buffer is allocated. SNAPPY: a
// 3-byte copy makes 64 bytes; LZ4 (raw and Hadoop): one 255 length byte
// adds 255; GZIP: DEFLATE's 1032:1; ZSTD: a 4-byte RLE block makes 128 KiB.
// BROTLI and unknown codecs: no bound.
uint64_t max_inflated_size(int32_t codec, uint64_t src_len);

}  // namespace pqfast::parquet::detail
