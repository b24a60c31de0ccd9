// What a file's page codec alone costs one thread: every page of every
// column chunk decompressed, nothing decoded. No reader of the file can
// take less CPU with the same codec library, so a reader's time over this
// floor says how much of the gap to a peer is left to win.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pqfast/status.h"

namespace pqfast::bench {

struct CodecFloor {
  double seconds = 0;          // decompression only, best of the repetitions
  int64_t pages = 0;           // pages decompressed (uncompressed pages are not counted)
  int64_t compressed_bytes = 0;
  int64_t uncompressed_bytes = 0;
};

// Reads the file's chunks into memory first; only the decompress calls are timed.
// `leaves`: the leaf columns whose chunks count (empty: every one); `threads`
// (>= 1) share the pages, each taking the next one left, as a reader's
// threads could at best (the wall time of all of them is reported).
Result<CodecFloor> codec_floor(const std::string& path, int reps, const std::vector<int>& leaves = {},
                               int threads = 1);

}  // namespace pqfast::bench
