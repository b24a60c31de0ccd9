// Fuzz target: a whole Parquet file in memory. The footer, every chunk's
// Bloom filter and page headers, and pruning of the first leaf for a few
// values (typed as the column is), with whole filters, by blocks, and by
// blocks from a kept footer (a footer cache: the filters' layouts learned by
// one probe serve the next): results or errors, never out-of-bounds, the same
// verdicts every way.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "pqfast/hash.h"
#include "pqfast/parquet.h"
#include "pqfast/prune_sansio.h"

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
  auto q = pq::PruneQuery::make(d.dotted_path, v, opt);
  if (!q.ok()) return 0;
  std::shared_ptr<const pq::PruneFooter> kept;
  for (int round = 0; round < 3; ++round) {
    std::optional<pq::FilePruner> p;
    if (kept) {
      p.emplace(**q, "fuzz input", size, kept);
    } else {
      p.emplace(**q, "fuzz input", size, 64);
      p->keep_footer();
    }
    for (int steps = 0; !p->done(); ++steps) {
      if (steps > 8 + 4 * static_cast<int>(m->row_groups.size())) std::abort();  // a pruner that never ends
      const std::vector<pq::ByteRange> want = p->needs();
      if (want.empty()) std::abort();
      for (const auto& n : want) {
        if (n.offset > size || n.length > size - n.offset) std::abort();
        p->feed(n.offset, data + n.offset, static_cast<size_t>(n.length));
      }
    }
    const pq::FilePruneResult& k = p->result();
    if (!k.ok && k.error.message.empty()) std::abort();
    if (k.ok && r.ok) {
      for (size_t g = 0; g < r.row_groups.size(); ++g) {
        if (k.row_groups[g].per_value != r.row_groups[g].per_value) std::abort();
      }
    }
    if (!kept) kept = p->footer();
    if (!kept) break;  // no footer to keep (the file failed before it)
  }
  return 0;
}
