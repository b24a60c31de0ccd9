// Fuzz target: pqfast index's footer re-encoder (src/index/footer_patch.cc)
// over a serialized FileMetaData. Any input: the patch is a new footer or an
// error with a message, never a crash. When the input parses, the re-encoded
// footer must parse too, with the same shape and the Bloom filter locations
// set in every patched chunk.
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "index/footer_patch.h"
#include "pqfast/parquet.h"

namespace pq = pqfast::parquet;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto m = pq::parse_file_metadata(data, size);
  std::vector<pq::index::ChunkLocation> locations;
  if (m.ok()) {
    int64_t offset = 1000;
    for (size_t g = 0; g < m->row_groups.size() && locations.size() < 4096; ++g) {
      for (size_t c = 0; c < m->row_groups[g].columns.size(); ++c) {
        if (!m->row_groups[g].columns[c].has_meta_data) continue;
        locations.push_back({static_cast<int32_t>(g), static_cast<int32_t>(c), offset, 64});
        offset += 64;
      }
    }
  } else {
    locations.push_back({0, 0, 4, 32});  // a patch into whatever the bytes hold
  }
  auto out = pq::index::patch_footer(data, size, 0, locations);
  if (!out.ok()) {
    if (out.error().message.empty()) std::abort();
    return 0;
  }
  if (!m.ok()) return 0;
  auto again = pq::parse_file_metadata(out->data(), out->size());
  if (!again.ok()) return 0;  // e.g. limits: the re-encoded footer may be longer
  if (again->row_groups.size() != m->row_groups.size() || again->num_rows != m->num_rows) std::abort();
  for (const auto& loc : locations) {
    const auto& c = again->row_groups[static_cast<size_t>(loc.row_group)].columns[static_cast<size_t>(loc.leaf)];
    if (c.bloom_filter_offset != loc.offset || c.bloom_filter_length != loc.length) std::abort();
  }
  return 0;
}
