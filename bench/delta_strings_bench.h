// DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY decode timing: four data sets
// of 64Ki values per page, each implementation, memcpy of the decoded
// bytes. The pages come from one generator shared with the Arrow C++
// side-by-side driver (bench/peers/arrow_delta_bench.cc --strings), so both
// decode the same bytes (our encoders write Arrow's bytes).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "delta_bench.h"
#include "timer.h"

namespace pqfast::bench {

struct StringPage {
  std::string encoding;  // "DELTA_LENGTH_BYTE_ARRAY" / "DELTA_BYTE_ARRAY"
  std::string dataset;   // "short", "urls", "comment", "uuid"
  size_t values = 0;
  size_t decoded_bytes = 0;  // the values' bytes, back to back
  std::vector<uint8_t> bytes;
  // The values (what the encoders are timed on): Arrow layout.
  std::vector<int32_t> offsets;
  std::string data;
};

// Data sets: "short" random strings of 8-16 bytes; "urls" sorted URL-like
// keys with long shared prefixes; "comment" TPC-H l_comment-like text of
// 10-43 bytes; "uuid" sorted UUID strings (36 bytes). Each in both encodings.
std::vector<StringPage> make_string_pages(size_t page_values);

// Rows: family "delta_strings", mode = encoding, label = dataset,
// implementation = "<level>" (offsets + data), "<level> views",
// "memcpy", or "encode" (the encoder, no SIMD level); ns_per_op = ns per
// value; footprint_bytes = decoded bytes.
std::vector<Row> run_delta_strings_bench(const DeltaBenchOptions& options);

}  // namespace pqfast::bench
