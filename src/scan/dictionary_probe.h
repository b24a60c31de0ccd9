// Internal: whether a dictionary page holds any of a few fixed-width values,
// answered without decompressing the page. A lookup's Bloom false positives
// each cost their chunk's dictionary page (800 KB of random int64 ids in a
// 100,000-row group), and the usual proof inflates it into a new buffer,
// builds an array of it and a byte per entry. Here the page's values go
// through a small L1-resident buffer a few KB at a time (a snappy page's
// literals copied straight out of the compressed bytes), each batch compared
// by the compare kernels; the first match ends the walk. Input is hostile:
// anything this path cannot vouch for answers "may hold" and the caller's
// full decode decides (and reports errors).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pqfast::parquet::scan {

// True only when the PLAIN dictionary page at `page` (its header first,
// `len` bytes; codec UNCOMPRESSED or SNAPPY) provably holds none of
// `values` (each `width` bytes, 4 or 8: equal means equal bytes). False:
// it holds one, or the page is of another codec, encoding or shape, or
// malformed.
bool dictionary_lacks_values(const uint8_t* page, size_t len, int32_t codec, size_t width,
                             const std::vector<std::string>& values);

}  // namespace pqfast::parquet::scan
