// Internal: the Bloom filter of a dictionary-only column chunk, built from
// its dictionary page alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "index/chunk_filter.h"
#include "pqfast/index.h"
#include "pqfast/types.h"

namespace pqfast::parquet::index {

// `page` holds the chunk's dictionary page (header and body, `len` bytes,
// read at file offset `offset`). Its body is inflated once (`codec`) and its
// PLAIN values are hashed where they lie in the inflated bytes (batched SIMD
// XXH64 for fixed widths, straight into the filter): no decoded copy of the
// dictionary is made. The filter is sized for the dictionary's value count
// (each value is distinct: that is what a dictionary is) or options.ndv, and
// folded to options.fpp, so its bytes equal those of the decoded path.
// `type`/`type_length`: the physical type hashed (INT96 may be passed as
// FIXED_LEN_BYTE_ARRAY of 12). Hostile pages (bad header, sizes past the
// bytes, inflation bombs, truncated values) are errors naming `where`.
Result<ChunkFilter> filter_from_dictionary_page(const uint8_t* page, size_t len, uint64_t offset, PhysicalType type,
                                                int32_t type_length, int32_t codec, const IndexOptions& options,
                                                const std::string& where);

}  // namespace pqfast::parquet::index
