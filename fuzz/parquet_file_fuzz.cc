// Fuzz target: a whole Parquet file in memory. The footer, every chunk's
// Bloom filter and page headers, and pruning of the first leaf for a few
// values (typed as the column is), with whole filters and by blocks: results
// or errors, never out-of-bounds, the same verdicts both ways.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "pqfast/hash.h"
#include "pqfast/parquet.h"

namespace pq = pqfast::parquet;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  pq::BufferFile file(data, size, "fuzz input");
  auto m = pq::read_file_metadata(file);
  if (!m.ok()) {
    if (m.error().message.empty()) std::abort();
    return 0;
  }
  for (const auto& rg : m->row_groups) {
    for (const auto& c : rg.columns) {
      auto bf = pq::load_bloom_filter(file, c);
      if (bf.ok() && bf->has_value() && (*bf)->num_bytes() == 0) std::abort();
      (void)pq::read_page_headers(file, c);
    }
  }
  if (m->columns.empty()) return 0;
  const auto& d = m->columns[0];
  pq::ProbeValues v;
  v.type = d.physical_type;
  v.type_length = d.type_length;
  if (d.physical_type == pqfast::PhysicalType::kBoolean) return 0;
  if (d.physical_type == pqfast::PhysicalType::kByteArray) {
    for (const char* s : {"", "Hello", "doing", "zzzz"}) {
      v.data.insert(v.data.end(), s, s + std::strlen(s));
      if (v.offsets.empty()) v.offsets.push_back(0);
      v.offsets.push_back(static_cast<int64_t>(v.data.size()));
    }
  } else {
    auto w = pqfast::plain_value_width(d.physical_type, d.type_length);
    if (!w.ok() || *w > 4096) return 0;
    v.data.assign(*w * 3, 0);
    std::memset(v.data.data() + *w, 0x41, *w);
    std::memset(v.data.data() + 2 * *w, 0xff, *w);
  }
  pq::PruneOptions opt;
  opt.per_value = true;
  auto r = pq::prune_file(file, d.dotted_path, v, opt);
  if (!r.ok && r.error.message.empty()) std::abort();
  if (r.ok && r.row_groups.size() != m->row_groups.size()) std::abort();
  // Block reads (the local driver's mode): the same verdicts, or an error.
  opt.block_reads = true;
  auto b = pq::prune_file(file, d.dotted_path, v, opt);
  if (!b.ok && b.error.message.empty()) std::abort();
  if (b.ok && r.ok) {
    for (size_t g = 0; g < r.row_groups.size(); ++g) {
      if (b.row_groups[g].per_value != r.row_groups[g].per_value) std::abort();
    }
  }
  return 0;
}
